#include "fleet/host_failure.h"

#include <fmt/format.h>

#include <cstring>

#include "common/strings.h"
#include "fleet/ssh.h"

namespace pgrig::fleet {
namespace {

constexpr size_t kMaxLineChars = 300;

bool EndsWith(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

}  // namespace

bool IsProgressLine(std::string_view line) {
  line = Trim(line);
  if (line.starts_with("progress: ")) return true;
  if (!line.starts_with("[run ")) return false;
  // A run that started, or ended with its tps; one that ended otherwise
  // ("...: failed: the run was aborted ...") says what went wrong.
  return line.find(": start (") != std::string_view::npos || EndsWith(line, " tps");
}

void ErrorTail::Add(Stream stream, std::string_view line) {
  if (stream != Stream::kErr) return;
  if (IsProgressLine(line)) {
    lines_.clear();  // only what came after the last progress line
    return;
  }
  std::string t = RedactLine(Trim(line));
  if (t.empty()) return;
  if (t.size() > kMaxLineChars) t = t.substr(0, kMaxLineChars) + "...";
  if (!lines_.empty() && lines_.back() == t) return;
  lines_.push_back(std::move(t));
  while (lines_.size() > keep_) lines_.pop_front();
}

std::string DescribeHostFailure(const std::string& destination, const std::string& command,
                                const ProcessResult& result, const Status& ssh_status,
                                const ErrorTail& tail) {
  if (result.success() && !result.timed_out) return "";
  if (result.timed_out) return ssh_status.message();
  if (ssh_status.code() == StatusCode::kFailedPrecondition ||
      ssh_status.code() == StatusCode::kPermissionDenied) {
    return ssh_status.message();
  }
  std::string how;
  if (result.signal != 0) {
    const char* name = ::strsignal(result.signal);
    how = fmt::format("{}: ssh was killed by signal {} ({}) here, so how {} ended is unknown",
                      destination, result.signal, name != nullptr ? name : "?", command);
  } else if (result.exit_code == 255) {
    // ssh's own failures are 255, and so is a remote command that died of
    // a signal or exited with 255 itself.
    how = fmt::format(
        "{}: ssh exited with status 255 (the connection was lost, or {} was killed there or "
        "exited with 255)",
        destination, command);
  } else {
    how = fmt::format("{} exited with status {}", command, result.exit_code);
  }
  const std::deque<std::string>& lines = tail.lines();
  if (lines.empty()) return how + "; no error lines after its last progress line";
  return how +
         "; last error lines: " + Join(std::vector<std::string>(lines.begin(), lines.end()), " | ");
}

}  // namespace pgrig::fleet
