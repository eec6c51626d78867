#include "engine/messages.h"

#include <cstdint>
#include <cstring>

namespace pgrig::engine::msg {

namespace {

std::string Client(int client) { return "client " + std::to_string(client); }

// " (try 2/10)", or " (try 2)" with unlimited tries.
std::string TryText(uint32_t tries, uint32_t max_tries) {
  return " (try " + std::to_string(tries) + (max_tries ? "/" + std::to_string(max_tries) : "") +
         ")";
}

}  // namespace

std::string TrimNewline(const char* s) {
  std::string out = s ? s : "";
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::string ConnectFailed(std::string_view dbname, std::string_view why, int client) {
  std::string out = "connection to database \"" + std::string(dbname) + "\" failed: ";
  out += why;
  if (client >= 0) out += "\ncould not create connection for client " + std::to_string(client);
  return out;
}

std::string SystemCallFailed(std::string_view call, int errnum) {
  return std::string(call) + "() failed: " + std::strerror(errnum);
}

std::string Aborted(int client, std::string_view what) {
  return Client(client) + " aborted: " + std::string(what);
}

std::string AbortedWhile(int client, std::string_view what) {
  return Client(client) + " aborted while " + std::string(what);
}

std::string ConnectionLost(int client, std::string_view why) {
  return Client(client) + " aborted: connection lost: " + std::string(why);
}

std::string AbortedInCommand(int client, int command, std::string_view kind, int script,
                             std::string_view why) {
  return Client(client) + " aborted in command " + std::to_string(command) + " (" +
         std::string(kind) + ") of script " + std::to_string(script) + "; " + std::string(why);
}

std::string AbortedInQuery(int client, int script, int command, int query, std::string_view why) {
  return Client(client) + " script " + std::to_string(script) + " aborted in command " +
         std::to_string(command) + " query " + std::to_string(query) + ": " + std::string(why);
}

std::string CaptureFailed(int client, int script, int command, int query, std::string_view why) {
  return Client(client) + " script " + std::to_string(script) + " command " +
         std::to_string(command) + " query " + std::to_string(query) + ": " + std::string(why);
}

std::string RollbackFailed(int client, std::string_view why) {
  return Client(client) + " aborted while rolling back the transaction after an error; " +
         std::string(why);
}

std::string PipelineExitFailed(int client, bool rolling_back, std::string_view why) {
  if (rolling_back) {
    return Client(client) +
           " aborted: failed to exit pipeline mode for rolling back the failed transaction";
  }
  return Client(client) + " failed to exit pipeline mode: " + std::string(why);
}

std::string UnexpectedMessage(char type) {
  return std::string("unexpected protocol message type '") +
         (type >= 0x20 && type < 0x7F ? std::string(1, type) : "?") + "'";
}

std::string GotError(int client, int command, int script, std::string_view text) {
  return Client(client) + " got an error in command " + std::to_string(command) +
         " (SQL) of script " + std::to_string(script) + "; " + std::string(text);
}

std::string RepeatsTransaction(int client, uint32_t tries, uint32_t max_tries) {
  return Client(client) + " repeats the transaction after the error" + TryText(tries, max_tries);
}

std::string EndsFailedTransaction(int client, uint32_t tries, uint32_t max_tries) {
  return Client(client) + " ends the failed transaction" + TryText(tries, max_tries);
}

std::string Trace(int client, std::string_view what) {
  return Client(client) + " " + std::string(what);
}

}  // namespace pgrig::engine::msg
