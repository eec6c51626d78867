// The machine-independent parts of a plan: counts relative to the CPU count,
// the matrix expansion and the per-iteration order.  The TOML reader is in
// plan_toml.cc.
#include "plan/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>

#include "common/enum_names.h"
#include "common/strings.h"

namespace pgrig::plan {
namespace {

constexpr int64_t kMaxConstant = 100000;
constexpr int64_t kMaxFactor = 10000;

// A whole number in [1, max] made of digits only, or nullopt.
std::optional<int64_t> SmallPositive(std::string_view s, int64_t max) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  std::optional<int64_t> v = ParseInt64(s);
  if (!v || *v < 1 || *v > max) return std::nullopt;
  return v;
}

Status NotACount(std::string_view text) {
  return InvalidArgument(fmt::format(
      "\"{}\" is not a count: write a whole number from 1 to {}, \"cores\", \"K*cores\", "
      "\"cores/D\" or \"K*cores/D\" (K and D from 1 to {})",
      text, kMaxConstant, kMaxFactor));
}

}  // namespace

int64_t CountExpr::Resolve(int64_t cpus) const {
  if (per_core == 0) return std::max<int64_t>(1, constant);
  const int64_t d = divisor > 0 ? divisor : 1;
  return std::max<int64_t>(1, per_core * std::max<int64_t>(cpus, 1) / d);
}

Result<CountExpr> ParseCountExpr(std::string_view text) {
  std::string s;
  for (char c : text) {
    if (c != ' ' && c != '\t') s += c;
  }
  CountExpr out;
  out.text = std::string(Trim(text));
  if (std::optional<int64_t> n = SmallPositive(s, kMaxConstant)) {
    out.constant = *n;
    return out;
  }
  const size_t at = s.find("cores");
  if (at == std::string::npos) return NotACount(text);
  std::string_view before = std::string_view(s).substr(0, at);
  std::string_view after = std::string_view(s).substr(at + 5);
  int64_t factor = 1;
  int64_t divisor = 1;
  if (!before.empty()) {
    // "K*cores"
    if (before.back() != '*') return NotACount(text);
    std::optional<int64_t> k = SmallPositive(before.substr(0, before.size() - 1), kMaxFactor);
    if (!k) return NotACount(text);
    factor = *k;
  }
  if (!after.empty()) {
    const char op = after.front();
    std::optional<int64_t> v = SmallPositive(after.substr(1), kMaxFactor);
    if (!v) return NotACount(text);
    if (op == '/') {
      divisor = *v;
    } else if (op == '*' && before.empty()) {  // "cores*K"
      factor = *v;
    } else {
      return NotACount(text);
    }
  }
  out.per_core = factor;
  out.divisor = divisor;
  return out;
}

Result<std::vector<Cell>> ExpandPlan(const Plan& plan, int64_t cpus) {
  if (cpus < 1) {
    return InvalidArgument(fmt::format("cannot size the plan for {} CPUs: need at least 1", cpus));
  }
  if (plan.workloads.empty()) {
    return InvalidArgument(
        fmt::format("plan '{}' has no workloads: add a [[workload]]", plan.name));
  }
  static const CountExpr kCores{.per_core = 1, .text = "cores"};
  std::vector<Cell> cells;
  std::set<std::string> seen;
  const int build_count = plan.builds.empty() ? 1 : static_cast<int>(plan.builds.size());
  for (int b = 0; b < build_count; ++b) {
    const int build = plan.builds.empty() ? -1 : b;
    const std::string build_suffix = build < 0 ? "" : "@" + plan.builds[static_cast<size_t>(build)];
    for (size_t w = 0; w < plan.workloads.size(); ++w) {
      const Workload& wl = plan.workloads[w];
      if (wl.kind == WorkloadKind::kFsync) continue;  // once per suite, not a cell
      const bool lio = wl.kind == WorkloadKind::kLio;
      const std::vector<CountExpr>& clients =
          !wl.clients.empty() ? wl.clients
                              : (!plan.clients.empty() ? plan.clients : std::vector{kCores});
      const std::vector<CountExpr>& threads = !wl.threads.empty() ? wl.threads : plan.threads;
      std::vector<script::QueryMode> protocols =
          !wl.protocols.empty() ? wl.protocols : plan.protocols;
      if (protocols.empty()) protocols.push_back(script::QueryMode::kSimple);
      // lio sessions prepare their range statements and run one thread each.
      if (lio) protocols = {script::QueryMode::kPrepared};
      const int variant_count = plan.variants.empty() ? 1 : static_cast<int>(plan.variants.size());

      for (script::QueryMode mode : protocols) {
        for (int v = 0; v < variant_count; ++v) {
          const int variant = plan.variants.empty() ? -1 : v;
          const std::string variant_name =
              variant < 0 ? "default" : plan.variants[static_cast<size_t>(variant)].name;
          for (const CountExpr& c : clients) {
            const int64_t nc = c.Resolve(cpus);
            std::vector<int64_t> nts;
            if (lio) {
              nts.push_back(nc);
            } else if (threads.empty()) {
              nts.push_back(std::min(nc, cpus));
            } else {
              for (const CountExpr& t : threads) nts.push_back(std::min(t.Resolve(cpus), nc));
            }
            for (int64_t nt : nts) {
              Cell cell;
              cell.workload = static_cast<int>(w);
              cell.build = build;
              cell.variant = variant;
              cell.protocol = mode;
              cell.clients = static_cast<int>(nc);
              cell.threads = static_cast<int>(nt);
              cell.id = fmt::format("{}/{}/{}/c{}/j{}{}", wl.name, script::QueryModeName(mode),
                                    variant_name, nc, nt, build_suffix);
              if (seen.insert(cell.id).second) cells.push_back(std::move(cell));
            }
          }
        }
      }
    }
  }
  if (cells.empty()) {
    return InvalidArgument(fmt::format(
        "plan '{}' has no cells: an fsync workload runs once per suite, next to at least one "
        "pgbench, lio or tpcc workload",
        plan.name));
  }
  return cells;
}

const char* WorkloadKindName(WorkloadKind k) {
  static constexpr const char* kNames[] = {"pgbench", "lio", "fsync", "tpcc"};
  return NameAt<WorkloadKind::kTpcc>(k, kNames, "pgbench");
}

bool HasWorkloadKind(const Plan& plan, WorkloadKind k) {
  return std::any_of(plan.workloads.begin(), plan.workloads.end(),
                     [k](const Workload& w) { return w.kind == k; });
}

const Workload* FsyncWorkload(const Plan& plan) {
  for (const Workload& w : plan.workloads) {
    if (w.kind == WorkloadKind::kFsync) return &w;
  }
  return nullptr;
}

std::vector<int> IterationOrder(size_t cell_count, int iteration) {
  std::vector<int> order(cell_count);
  if (cell_count == 0) return order;
  const int64_t n = static_cast<int64_t>(cell_count);
  const int64_t shift = ((static_cast<int64_t>(iteration) % n) + n) % n;
  for (int64_t k = 0; k < n; ++k) order[static_cast<size_t>(k)] = static_cast<int>((k + shift) % n);
  return order;
}

std::vector<int> RunOrder(const std::vector<Cell>& cells, int iteration) {
  // The builds in the order their cells come (ExpandPlan keeps a build's
  // cells together), each with its cells.
  std::vector<std::vector<int>> groups;
  std::vector<int> group_build;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (groups.empty() || group_build.back() != cells[i].build) {
      groups.emplace_back();
      group_build.push_back(cells[i].build);
    }
    groups.back().push_back(static_cast<int>(i));
  }
  std::vector<int> order;
  order.reserve(cells.size());
  for (int g : IterationOrder(groups.size(), iteration)) {
    const std::vector<int>& group = groups[static_cast<size_t>(g)];
    for (int k : IterationOrder(group.size(), iteration)) {
      order.push_back(group[static_cast<size_t>(k)]);
    }
  }
  return order;
}

std::string_view CellIdWithoutBuild(std::string_view id) {
  const size_t at = id.rfind('@');
  return at == std::string_view::npos ? id : id.substr(0, at);
}

const char* SizeTargetName(SizeTarget t) {
  static constexpr const char* kNames[] = {"scale", "fits_shared_buffers", "fits_ram",
                                           "larger_than_ram"};
  return NameAt<SizeTarget::kLargerThanRam>(t, kNames, "scale");
}

}  // namespace pgrig::plan
