#include "cli/exit_status.h"

#include <cstdio>

namespace pgrig::cli {

int ExitCodeFor(const Status& status, ExitStage stage) {
  if (status.ok()) return kExitOk;
  if (stage == ExitStage::kSetup) return kExitBadInvocation;
  switch (status.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound:
    case StatusCode::kPermissionDenied:
      return kExitBadInvocation;
    default:
      return kExitRunFailure;
  }
}

std::string ErrorLine(const CommandName& command, std::string_view message) {
  std::string line(command.name);
  line += command.style == ErrorStyle::kPgbench ? ": error: " : ": ";
  line += message;
  line += '\n';
  return line;
}

int Fail(const CommandName& command, const Status& status, ExitStage stage) {
  std::fputs(ErrorLine(command, status.message()).c_str(), stderr);
  return ExitCodeFor(status, stage);
}

int Fail(const CommandName& command, std::string_view message, int code) {
  std::fputs(ErrorLine(command, message).c_str(), stderr);
  return code;
}

}  // namespace pgrig::cli
