// Reading the text `perf script` prints for a recording made with call
// graphs, in the one field layout pgrig asks for:
//
//   perf script -F comm,pid,tid,time,ip,sym,dso --ns
//
// which prints one block per sample, blocks separated by a blank line:
//
//   postgres 14077/14077 47812.401958840:
//   \t          f63d3 __libc_pread (/usr/lib/x86_64-linux-gnu/libc.so.6)
//   \t         46d250 mdread (/usr/lib/postgresql/15/bin/postgres)
//   \t         4406f2 [unknown] (/usr/lib/postgresql/15/bin/postgres)
//
// The header is COMM PID/TID SECONDS.NANOSECONDS: (COMM may hold spaces; it
// is everything before the last two fields).  Each frame line is an address,
// a symbol and the object in parentheses, leaf first; a symbol perf could
// not resolve is "[unknown]".  A recording without call graphs puts the one
// frame on the header line after the colon; that is read too.  Task events
// (--show-task-events) are header lines too; see TaskEvent.
//
// Malformed text is an error naming the source and the line, never a crash;
// the reader holds no state between calls.
#ifndef PGRIG_PROFILE_PERF_SCRIPT_H_
#define PGRIG_PROFILE_PERF_SCRIPT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace pgrig::profile {

struct Frame {
  std::string_view symbol;  // "[unknown]" when perf could not resolve it
  std::string_view dso;     // the object's path, "[kernel.kallsyms]", "[unknown]"

  bool resolved() const { return symbol != "[unknown]" && !symbol.empty(); }
  bool kernel() const { return dso.starts_with("[kernel") || dso.starts_with("[vdso"); }
};

// One sample.  The views point into the text given to ParsePerfScript and
// are valid during the callback only.
struct Sample {
  std::string_view comm;
  int pid = 0;
  int tid = 0;
  int64_t time_ns = 0;        // perf's clock (CLOCK_MONOTONIC when recorded with -k)
  std::vector<Frame> frames;  // leaf first
};

// A process's birth or end, from `perf script --show-task-events`:
//   kthreadd 0/0 0.000000000: PERF_RECORD_FORK(14000:14000):(13999:13999)
//   postgres 14000/14000 5.25: PERF_RECORD_EXIT(14000:14000):(13999:13999)
// (child or exiting pid:tid, then its parent's).  Other PERF_RECORD_ lines
// (COMM) are skipped.
struct TaskEvent {
  enum class Kind { kFork, kExit };
  Kind kind = Kind::kFork;
  int pid = 0;  // the child's, or the exiting task's
  int tid = 0;
  int parent_pid = 0;
  int64_t time_ns = 0;
};

// Records ParsePerfScript could not read and left out (when asked to skip
// them rather than fail): a block whose header or frame lines do not have
// the layout above, dropped whole, up to the next blank line.
struct PerfScriptSkips {
  int64_t records = 0;
  size_t first_line = 0;   // 1-based line of the first one
  std::string first_text;  // that line, at most 120 bytes, as printed
  std::string first_what;  // what was wrong with it
};

// Calls `on_sample` for each sample in `text`, in order, and `on_task` (when
// given) for each fork and exit among them.  `source` names the text in
// errors ("perf.script:12: a frame must read ... (the line: \"...\")").  With
// `skips` null the first malformed line is the error; otherwise malformed
// records are counted in *skips and left out, and the caller decides how
// many it can live with.
Status ParsePerfScript(std::string_view text, std::string_view source,
                       const std::function<void(const Sample&)>& on_sample,
                       const std::function<void(const TaskEvent&)>& on_task = nullptr,
                       PerfScriptSkips* skips = nullptr);

// perf script's text as it arrives (a pipe), parsed a run of whole blocks
// at a time: memory holds the chunk and one unfinished block, not the text,
// which on many CPUs runs to gigabytes (64 CPUs x 499 Hz x 60 s is ~2 M
// samples of ~1 KB).  The same callbacks, errors and skips as
// ParsePerfScript, with line numbers counted from the start of the stream;
// the result of feeding a text in any chunks is that of parsing it whole.
class PerfScriptStream {
 public:
  PerfScriptStream(std::string source, std::function<void(const Sample&)> on_sample,
                   std::function<void(const TaskEvent&)> on_task = nullptr,
                   PerfScriptSkips* skips = nullptr);
  // After an error the rest is ignored (read and dropped) and Finish
  // returns the error.
  void Feed(std::string_view chunk);
  // Parses what is left; the stream's status.
  Status Finish();
  int64_t bytes() const { return bytes_; }

  // A run of text without a blank line longer than this is parsed up to
  // its last line end anyway (a block cut in two is then malformed).
  static constexpr size_t kMaxPending = 16u << 20;

 private:
  void Parse(std::string_view text);

  std::string source_;
  std::function<void(const Sample&)> on_sample_;
  std::function<void(const TaskEvent&)> on_task_;
  PerfScriptSkips* skips_;
  std::string pending_;
  size_t lines_done_ = 0;
  int64_t bytes_ = 0;
  Status status_;
};

}  // namespace pgrig::profile

#endif  // PGRIG_PROFILE_PERF_SCRIPT_H_
