// Why a host's remote pgrig command failed, in the one line its summary
// shows: how the command ended, then its last error lines.
//
// A host's pgrig (`run` in compare mode, `bench` in clients mode) runs under
// ssh with its output streamed line by line (line_runner.h).  When it fails
// the user needs who ended it and what it said last about it: the remote
// command's exit status (or ssh's own 255, or a signal that killed ssh on
// this machine) and the error lines printed after its last progress line,
// never that progress line itself ("[run 1/3 ...] start", "progress: ...").
//
// ErrorTail collects the lines as they come; DescribeHostFailure makes the
// line.  An ErrorTail is used from one thread (the host's); the functions
// are pure.
#ifndef PGRIG_FLEET_HOST_FAILURE_H_
#define PGRIG_FLEET_HOST_FAILURE_H_

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "common/process.h"
#include "fleet/line_runner.h"

namespace pgrig::fleet {

// A progress line of `pgrig run` ("[run 2/4 · ...] cell: start (...)" or
// "...: 1234.5 tps") or `pgrig bench -P` ("progress: 5.0 s, ..."); a run's
// line that ends a run with a failure is not progress.
bool IsProgressLine(std::string_view line);

// The standard-error lines a command printed after its last progress line,
// the last `keep` of them, trimmed and redacted, a repeated line kept once.
class ErrorTail {
 public:
  explicit ErrorTail(size_t keep = 3) : keep_(keep) {}
  void Add(Stream stream, std::string_view line);
  const std::deque<std::string>& lines() const { return lines_; }

 private:
  size_t keep_;
  std::deque<std::string> lines_;
};

// Why the remote command failed, or "" when it did not (exit 0, not timed
// out): "pgrig run exited with status 2; last error lines: A | B", "h1: ssh
// exited with status 255 (...)", "h1: ssh was killed by signal 9 (Killed)
// here ...".  `command` names the remote command ("pgrig run");
// `ssh_status` is SshTransport::CheckSshFailure's verdict on the same
// result, whose words are kept for a timeout and for ssh's own refusals
// (host key, authentication).
std::string DescribeHostFailure(const std::string& destination, const std::string& command,
                                const ProcessResult& result, const Status& ssh_status,
                                const ErrorTail& tail);

}  // namespace pgrig::fleet

#endif  // PGRIG_FLEET_HOST_FAILURE_H_
