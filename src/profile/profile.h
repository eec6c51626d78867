// A server CPU profile: what `perf` sampled of the server's processes during
// one benchmark window, reduced to what a reader needs (issue 30, point 2):
//
//   * the share of each category (profile/categories.h) in the samples;
//     the shares sum to 100% of the window's samples;
//   * the top functions by self share (the sample's leaf) with their total
//     share (the function anywhere on the sample's stack, once a sample);
//   * folded stacks ("postgres;main;PostmasterMain;...;ExecScan 12", root
//     first), the input of a flame graph, kept beside the results;
//   * what could not be resolved, counted: samples whose leaf perf could
//     not name, and frames it could not name.  A frame perf could not name
//     is shown as its object's name in brackets ("[postgres]").
//
// Samples are taken with the cpu-clock software event at a fixed frequency
// per CPU, so `samples / frequency_hz` estimates the server's CPU seconds in
// the window; ProfileBuilder only keeps samples whose time is inside the
// window (perf runs a little longer, on both sides).
#ifndef PGRIG_PROFILE_PROFILE_H_
#define PGRIG_PROFILE_PROFILE_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "profile/categories.h"
#include "profile/perf_script.h"

namespace pgrig::profile {

struct FunctionShare {
  std::string function;  // the symbol, or "[object]" when unresolved
  std::string object;    // the object's file name ("postgres", "libc.so.6", "[kernel.kallsyms]")
  Category category = Category::kOther;  // what a rule names it; kOther when none does
  int64_t self_samples = 0;
  int64_t total_samples = 0;
};

struct Profile {
  int frequency_hz = 0;
  std::string event = "cpu-clock";
  std::string call_graph = "fp";  // frame pointers
  double window_s = 0;
  int64_t samples = 0;                  // in the window
  int64_t samples_outside_window = 0;   // the server's, recorded, left out
  int64_t samples_other_processes = 0;  // not the server's (a system-wide recording)
  int64_t unreadable_records = 0;       // perf script blocks left out (PerfScriptSkips)
  int64_t unresolved_leaf_samples = 0;
  int64_t frames = 0;
  int64_t unresolved_frames = 0;
  int processes = 0;  // distinct server processes sampled in the window
  std::array<int64_t, kCategoryCount> category_samples{};
  std::vector<FunctionShare> top_functions;             // by self_samples, descending
  std::vector<std::pair<std::string, int64_t>> folded;  // sorted by stack

  // Percent of the window's samples; 0 when there are none.
  double Pct(int64_t n) const {
    return samples > 0 ? 100.0 * static_cast<double>(n) / static_cast<double>(samples) : 0;
  }
  // The server CPU seconds the samples stand for.
  double SampledCpuSeconds() const {
    return frequency_hz > 0 ? static_cast<double>(samples) / frequency_hz : 0;
  }
  // Folded stacks as text, one "stack count" line each.
  std::string FoldedText() const;
};

class ProfileBuilder {
 public:
  struct Options {
    int64_t window_start_ns = 0;  // perf's clock; samples outside are counted, not kept
    int64_t window_end_ns = INT64_MAX;
    int frequency_hz = 0;
    size_t top_functions = 30;
    // Nonzero: keep only samples of this process and its descendants, as
    // the task events (AddTask) reveal them; the others are counted in
    // samples_other_processes.  Zero: every sample is the server's.
    int root_pid = 0;
  };
  explicit ProfileBuilder(Options options) : o_(options) {
    if (o_.root_pid != 0) server_.insert(o_.root_pid);
  }

  void Add(const Sample& sample);
  // Forks and exits, in time order with the samples.
  void AddTask(const TaskEvent& event);
  Profile Finish();

 private:
  struct FunctionCount {
    std::string object;
    Category category = Category::kOther;
    int64_t self = 0;
    int64_t total = 0;
  };
  Options o_;
  Profile p_;
  std::unordered_map<std::string, FunctionCount> functions_;
  std::map<std::string, int64_t> folded_;
  std::vector<int> pids_;                // server processes sampled in the window
  std::unordered_set<int> server_;       // the root and its descendants alive
  std::vector<std::string> stack_keys_;  // scratch, one per frame of a sample
};

// Where the folded stacks of a result file go: "x.json" -> "x.folded",
// any other name gets ".folded" appended.
std::string FoldedPathFor(const std::string& result_path);

// "[object]" for an unresolved frame, else the symbol; ';' and newlines,
// which folded stacks cannot hold, become '_'.
std::string FunctionKey(const Frame& frame);
// The object's file name: "/usr/lib/x86_64-linux-gnu/libc.so.6" -> "libc.so.6".
std::string ObjectName(std::string_view dso);

}  // namespace pgrig::profile

#endif  // PGRIG_PROFILE_PROFILE_H_
