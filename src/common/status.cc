#include "common/status.h"

#include "common/enum_names.h"

namespace pgrig {

const char* StatusCodeName(StatusCode code) {
  static constexpr EnumName<StatusCode> kNames[] = {
      {StatusCode::kOk, "ok"},
      {StatusCode::kInvalidArgument, "invalid argument"},
      {StatusCode::kNotFound, "not found"},
      {StatusCode::kFailedPrecondition, "failed precondition"},
      {StatusCode::kUnavailable, "unavailable"},
      {StatusCode::kPermissionDenied, "permission denied"},
      {StatusCode::kResourceExhausted, "resource exhausted"},
      {StatusCode::kAborted, "aborted"},
      {StatusCode::kInternal, "internal error"},
      {StatusCode::kRuntime, "runtime failure"}};
  return NameOf(code, kNames, "unknown");
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
