// FormatProfileText (profile/profile_text.h).
#include "profile/profile_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace pgrig::profile {

std::string FormatCountersLine(const std::optional<CounterValues>& v,
                               const std::string& unavailable) {
  if (!v) return "hardware counters: none (" + unavailable + ")";
  auto opt = [](const std::optional<double>& x, const char* spec) {
    return x ? fmt::format(fmt::runtime(spec), *x) : std::string("-");
  };
  std::string out =
      fmt::format("hardware counters{}: IPC {}, cache misses {}% of references, branch misses {}%",
                  v->kernel ? "" : " (user space only)", opt(v->Ipc(), "{:.2f}"),
                  opt(v->CacheMissPct(), "{:.2f}"), opt(v->BranchMissPct(), "{:.2f}"));
  double least = 100;
  for (const CounterReading& r : v->readings) {
    if (r.count) least = std::min(least, r.running_pct);
  }
  if (least < 99.5) out += fmt::format(" (multiplexed: counted {:.0f}% of the window)", least);
  return out;
}

std::string FormatProfileText(const ProfileMeasure& m, std::optional<double> measured_server_cpu_s,
                              size_t top) {
  if (!m.profile) return "server profile: none (" + m.unavailable + ")\n";
  const Profile& p = *m.profile;
  std::string measured;
  if (measured_server_cpu_s) {
    measured = fmt::format("; /proc measured {:.2f} s", *measured_server_cpu_s);
  }
  std::string out = fmt::format(
      "server profile: perf {} at {} Hz, {} samples in {:.1f} s ({:.2f} s of server CPU{}), {} "
      "processes; leaf unresolved in {:.1f}% of samples\n",
      p.event, p.frequency_hz, p.samples, p.window_s, p.SampledCpuSeconds(), measured, p.processes,
      p.Pct(p.unresolved_leaf_samples));
  if (m.server_binary) {
    const host::ServerBinaryFacts& b = *m.server_binary;
    out += fmt::format(
        "  server binary {}: frame pointers {}{}; atomics {}\n", b.path, b.frame_pointers,
        b.frame_pointers_detail ? " (" + *b.frame_pointers_detail + ")" : "", b.arm_atomics);
  }
  out += "  " + FormatCountersLine(m.hardware_counters, m.hardware_counters_unavailable) + "\n";
  if (p.unreadable_records > 0) {
    out += fmt::format(
        "  {} perf script record(s) pgrig could not read were left out; the first, {}\n",
        p.unreadable_records, m.unreadable_first);
  }
  std::vector<Category> order(kAllCategories.begin(), kAllCategories.end());
  std::stable_sort(order.begin(), order.end(), [&p](Category a, Category b) {
    return p.category_samples[static_cast<size_t>(a)] > p.category_samples[static_cast<size_t>(b)];
  });
  out += "  categories:";
  for (Category c : order) {
    const int64_t n = p.category_samples[static_cast<size_t>(c)];
    if (n == 0) continue;
    out += fmt::format(" {} {:.1f}%", CategoryKey(c), p.Pct(n));
  }
  out += "\n  top functions (self %, total %):\n";
  for (size_t i = 0; i < p.top_functions.size() && i < top; ++i) {
    const FunctionShare& f = p.top_functions[i];
    out += fmt::format("  {:6.2f} {:6.2f}  {} ({})\n", p.Pct(f.self_samples),
                       p.Pct(f.total_samples), f.function, f.object);
  }
  return out;
}

}  // namespace pgrig::profile
