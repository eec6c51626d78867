// Messages: every line the engine logs, in pgbench's words, in one place.
//
// pgbench's users (and the compatibility tests) read these lines, so their
// text follows pgbench's exactly; only the program name differs, and the CLI
// adds it.  The functions build the line without the "<program>: error: "
// prefix: the session passes abort lines to Shared::Error, traces and
// verbose-error lines to Shared::Message (worker.h).  They are called only
// when something is logged (an abort, an error, -d, --verbose-errors), never
// on a transaction's normal path.
//
// Pure functions of their arguments; thread-safe.
#ifndef PGRIG_ENGINE_MESSAGES_H_
#define PGRIG_ENGINE_MESSAGES_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace pgrig::engine::msg {

// pgbench's message for a script's COPY, alone on its line (no "client N
// aborted" part).
inline constexpr std::string_view kCopyNotSupported =
    "COPY is not supported in pgrig bench, aborting";
// libpq's words when the server's side of the socket closes.
inline constexpr std::string_view kServerClosed =
    "server closed the connection unexpectedly\n"
    "\tThis probably means the server terminated abnormally\n"
    "\tbefore or while processing the request.";
// Logged before an abort when the connection is broken after an error.
inline constexpr std::string_view kBackendDied = "perhaps the backend died while processing";
inline constexpr std::string_view kInterruptedConnecting = "interrupted while connecting";

// libpq messages end with a newline; pgbench's logging strips it.
std::string TrimNewline(const char* s);

// "connection to database "<db>" failed: <why>", with "\ncould not create
// connection for client <id>" when client >= 0 (the setup failure).
std::string ConnectFailed(std::string_view dbname, std::string_view why, int client);
// "<call>() failed: <strerror>" for the event loop's system calls.
std::string SystemCallFailed(std::string_view call, int errnum);

// "client <id> aborted: <what>".
std::string Aborted(int client, std::string_view what);
// "client <id> aborted while <what>" (establishing connection, receiving
// the transaction status, ...).
std::string AbortedWhile(int client, std::string_view what);
// "client <id> aborted: connection lost: <why>".
std::string ConnectionLost(int client, std::string_view why);
// "client <id> aborted in command <command> (<kind>) of script <script>;
// <why>": a command could not be sent (kind "SQL", "startpipeline").
std::string AbortedInCommand(int client, int command, std::string_view kind, int script,
                             std::string_view why);
// "client <id> script <script> aborted in command <command> query <query>:
// <why>": the server's answer ended the client.
std::string AbortedInQuery(int client, int script, int command, int query, std::string_view why);
// "client <id> script <script> command <command> query <query>: <why>": a
// \gset or \aset could not store its row.
std::string CaptureFailed(int client, int script, int command, int query, std::string_view why);
// "client <id> aborted while rolling back the transaction after an error;
// <why>".
std::string RollbackFailed(int client, std::string_view why);
// The end of a pipeline failed: "client <id> failed to exit pipeline mode:
// <why>", or the rollback variant when the transaction had failed.
std::string PipelineExitFailed(int client, bool rolling_back, std::string_view why);
// "unexpected protocol message type '<c>'" ('?' when not printable).
std::string UnexpectedMessage(char type);

// --verbose-errors.
std::string GotError(int client, int command, int script, std::string_view text);
std::string RepeatsTransaction(int client, uint32_t tries, uint32_t max_tries);
std::string EndsFailedTransaction(int client, uint32_t tries, uint32_t max_tries);

// -d: "client <id> <what>" ("receiving", "sending SELECT 1;", "preparing
// P_0", "executing script \"<desc>\"").
std::string Trace(int client, std::string_view what);

}  // namespace pgrig::engine::msg

#endif  // PGRIG_ENGINE_MESSAGES_H_
