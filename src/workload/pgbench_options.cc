#include "workload/pgbench_options.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>

namespace pgrig::workload {

Result<int> ParsePgbenchInt(const std::string& text, std::string_view name, int min, int max) {
  // strtol as pgbench's strtoint() calls it: a value strtol cannot convert
  // at all ("", "  ") is 0 with the end at the start.
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  const bool out_of_range = errno == ERANGE || v < INT_MIN || v > INT_MAX;
  while (*end != '\0' && std::isspace(static_cast<unsigned char>(*end))) ++end;
  if (*end != '\0') {
    return InvalidArgument("invalid value \"" + text + "\" for option " + std::string(name));
  }
  if (out_of_range || v < min || v > max) {
    return InvalidArgument(std::string(name) + " must be in range " + std::to_string(min) + ".." +
                           std::to_string(max));
  }
  return static_cast<int>(v);
}

bool ConnectionArgs::Take(int opt, const char* arg) {
  switch (opt) {
    case 'h':
      params.host = arg;
      return true;
    case 'p':
      params.port = arg;
      return true;
    case 'U':
      params.user = arg;
      return true;
    case kDbLongOption:
      db_option = arg;
      return true;
    default:
      return false;
  }
}

Status ConnectionArgs::TakeDatabase(int argc, char* const* argv, int* optind) {
  if (*optind < argc && !db_option) params.dbname = argv[(*optind)++];
  if (*optind < argc && db_option) {
    return pg::DatabaseNamedTwice(argv[*optind]);
  }
  if (db_option) params.dbname = *db_option;
  return Status::Ok();
}

Status TooManyArguments(std::string_view first) {
  return InvalidArgument("too many command-line arguments (first is \"" + std::string(first) +
                         "\")");
}

}  // namespace pgrig::workload
