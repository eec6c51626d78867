// Status and Result<T>: how errors cross module boundaries in pgrig.
//
// A Status is either OK or carries a code and a message written for the
// person running pgrig: what failed, on what input, and what to do about it.
// Only cli/ turns a Status into an exit code and prints it.  Result<T> holds a
// T or a non-OK Status.  Both are cheap to move, immutable once made, and safe
// to share between threads read-only.
//
// Helpers in the spirit of Abseil:
//   PGRIG_RETURN_IF_ERROR(expr);          // expr yields a Status
//   PGRIG_ASSIGN_OR_RETURN(auto x, expr); // expr yields a Result<T>
#ifndef PGRIG_COMMON_STATUS_H_
#define PGRIG_COMMON_STATUS_H_

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace pgrig {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,     // the user gave something malformed or out of range
  kNotFound,            // a file, binary, table or entry does not exist
  kFailedPrecondition,  // the system is not in a state that allows this
  kUnavailable,         // a server could not be reached
  kPermissionDenied,
  kResourceExhausted,  // disk full, out of memory, too many connections
  kAborted,            // interrupted by the user or by a concurrent change
  kInternal,           // a bug in pgrig or an unexpected answer
  kRuntime,            // failure while a benchmark ran (pgbench exit code 2)
};

const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a Status with the same code and "context: message".
  Status WithContext(const std::string& context) const;

  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) {
  return {StatusCode::kInvalidArgument, std::move(m)};
}
inline Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status FailedPrecondition(std::string m) {
  return {StatusCode::kFailedPrecondition, std::move(m)};
}
inline Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
inline Status PermissionDenied(std::string m) {
  return {StatusCode::kPermissionDenied, std::move(m)};
}
inline Status ResourceExhausted(std::string m) {
  return {StatusCode::kResourceExhausted, std::move(m)};
}
inline Status Aborted(std::string m) { return {StatusCode::kAborted, std::move(m)}; }
inline Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
inline Status RuntimeError(std::string m) { return {StatusCode::kRuntime, std::move(m)}; }

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}        // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT
    assert(!std::get<Status>(v_).ok() && "Result needs a value or an error");
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOkStatus;
    return ok() ? kOkStatus : std::get<Status>(v_);
  }

  // REQUIRES: ok()
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace pgrig

#define PGRIG_CONCAT_INNER_(a, b) a##b
#define PGRIG_CONCAT_(a, b) PGRIG_CONCAT_INNER_(a, b)

#define PGRIG_RETURN_IF_ERROR(expr)                \
  do {                                             \
    ::pgrig::Status pgrig_status_ = (expr);        \
    if (!pgrig_status_.ok()) return pgrig_status_; \
  } while (0)

#define PGRIG_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.status();                \
  lhs = std::move(tmp).value()

#define PGRIG_ASSIGN_OR_RETURN(lhs, expr) \
  PGRIG_ASSIGN_OR_RETURN_IMPL_(PGRIG_CONCAT_(pgrig_result_, __LINE__), lhs, expr)

#endif  // PGRIG_COMMON_STATUS_H_
