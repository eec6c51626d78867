#include "common/status.h"

namespace pgrig {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kInvalidArgument:
      return "invalid argument";
    case StatusCode::kNotFound:
      return "not found";
    case StatusCode::kFailedPrecondition:
      return "failed precondition";
    case StatusCode::kUnavailable:
      return "unavailable";
    case StatusCode::kPermissionDenied:
      return "permission denied";
    case StatusCode::kResourceExhausted:
      return "resource exhausted";
    case StatusCode::kAborted:
      return "aborted";
    case StatusCode::kInternal:
      return "internal error";
    case StatusCode::kRuntime:
      return "runtime failure";
  }
  return "unknown";
}

Status Status::WithContext(const std::string& context) const {
  if (ok()) return *this;
  return Status(code_, context + ": " + message_);
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return message_;
}

}  // namespace pgrig
