// Running a local program (ssh, most often) whose output is wanted line by
// line while it runs: progress from a remote `pgrig run`, hook output.
//
// common/process.h's ProcessRunner returns output when the program ends;
// this runs one program with stdout and stderr on pipes, hands each complete
// line to a callback as it arrives (a last partial line at the end), keeps
// the whole output too, and kills the program's process group at the
// timeout or when `cancel` becomes true.  Nothing goes through a shell.
//
// RunWithLines blocks; the callback runs on the calling thread.  Several
// threads may each run one (the fleet runs hosts in parallel).
#ifndef PGRIG_FLEET_LINE_RUNNER_H_
#define PGRIG_FLEET_LINE_RUNNER_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/process.h"
#include "common/status.h"

namespace pgrig::fleet {

enum class Stream { kOut, kErr };

struct LineRunOptions {
  std::vector<std::string> argv;
  std::chrono::milliseconds timeout{0};  // 0: none
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(Stream, std::string_view line)> on_line;
  // When set, the program's stdin is a pipe (otherwise /dev/null): its write
  // end is handed over once the program started, from the calling thread;
  // the receiver owns it (writes, then closes it; it may do so from another
  // thread).
  std::function<void(int write_fd)> on_stdin;
};

// Like ProcessRunner::Run: an error only when the program could not start;
// timed_out is set when the timeout (or cancel) killed it.
Result<ProcessResult> RunWithLines(const LineRunOptions& options);

}  // namespace pgrig::fleet

#endif  // PGRIG_FLEET_LINE_RUNNER_H_
