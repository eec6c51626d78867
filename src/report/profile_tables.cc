// Profile tables (report/profile_tables.h).
#include "report/profile_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace pgrig::report {
namespace {

using profile::Category;
using profile::CategoryKey;
using profile::kAllCategories;

std::optional<double> UsOf(const CellStats::Profiled& p, int64_t samples) {
  if (!p.server_cpu_us_per_transaction || p.profile.samples <= 0) return std::nullopt;
  return *p.server_cpu_us_per_transaction * static_cast<double>(samples) /
         static_cast<double>(p.profile.samples);
}

// Biggest gap first: microseconds when both sides have them, else points.
void SortGaps(std::vector<ShareGap>& v, bool by_us) {
  std::stable_sort(v.begin(), v.end(), [by_us](const ShareGap& x, const ShareGap& y) {
    const double gx = by_us ? std::fabs(x.Us().value_or(0)) : std::fabs(x.Pp());
    const double gy = by_us ? std::fabs(y.Us().value_or(0)) : std::fabs(y.Pp());
    return gx > gy;
  });
}

std::string Pct(const std::optional<double>& v) { return v ? Num(*v, 1) : "-"; }
std::string Signed(const std::optional<double>& v, int decimals) {
  if (!v) return "-";
  return (*v > 0 ? "+" : "") + Num(*v, decimals);
}

}  // namespace

ProfileDiff DiffProfiles(const std::string& cell, const CellStats::Profiled& a,
                         const CellStats::Profiled& b, const std::string& a_label,
                         const std::string& b_label) {
  ProfileDiff d;
  d.cell = cell;
  d.a_us = a.server_cpu_us_per_transaction;
  d.b_us = b.server_cpu_us_per_transaction;
  const bool by_us = d.a_us && d.b_us;
  if (a.hardware_counters && b.hardware_counters) {
    d.a_ipc = a.hardware_counters->Ipc();
    d.b_ipc = b.hardware_counters->Ipc();
  }
  for (Category c : kAllCategories) {
    const auto i = static_cast<size_t>(c);
    const int64_t na = a.profile.category_samples[i];
    const int64_t nb = b.profile.category_samples[i];
    if (na == 0 && nb == 0) continue;
    ShareGap g{.name = std::string(CategoryKey(c)),
               .a_pct = a.profile.Pct(na),
               .b_pct = b.profile.Pct(nb),
               .a_us = by_us ? UsOf(a, na) : std::nullopt,
               .b_us = by_us ? UsOf(b, nb) : std::nullopt};
    d.categories.push_back(std::move(g));
  }
  SortGaps(d.categories, by_us);

  std::map<std::string, ShareGap> fns;
  auto add = [&](const CellStats::Profiled& p, bool is_a) {
    for (const profile::FunctionShare& f : p.profile.top_functions) {
      const std::string key = f.function + " (" + f.object + ")";
      ShareGap& g = fns[key];
      g.name = f.function;
      g.object = f.object;
      (is_a ? g.a_pct : g.b_pct) = p.profile.Pct(f.self_samples);
      if (by_us) (is_a ? g.a_us : g.b_us) = UsOf(p, f.self_samples);
    }
  };
  add(a, true);
  add(b, false);
  for (auto& [k, g] : fns) d.functions.push_back(std::move(g));
  SortGaps(d.functions, by_us);

  if (by_us) {
    const double gap = *d.a_us - *d.b_us;
    // The category that contributes most in the gap's direction.
    const ShareGap* top = nullptr;
    for (const ShareGap& g : d.categories) {
      const double u = g.Us().value_or(0);
      if (u * gap > 0 && (top == nullptr || std::fabs(u) > std::fabs(top->Us().value_or(0)))) {
        top = &g;
      }
    }
    if (Num(std::fabs(gap), 1) == "0.0") {
      d.headline = fmt::format("{} and {} need the same server CPU per transaction ({})", a_label,
                               b_label, Num(*d.a_us, 1));
    } else {
      d.headline =
          fmt::format("{} needs {} µs {} server CPU per transaction than {} ({} against {})",
                      a_label, Num(std::fabs(gap), 1), gap < 0 ? "less" : "more", b_label,
                      Num(*d.a_us, 1), Num(*d.b_us, 1));
    }
    if (top != nullptr) {
      d.headline += fmt::format(", {} of them in {}", Num(std::fabs(top->Us().value_or(0)), 1),
                                Pretty(top->name));
    }
  } else {
    d.headline = fmt::format(
        "server CPU per transaction was not measured on both sides: shares only, {} against {}",
        a_label, b_label);
  }
  if (d.a_ipc && d.b_ipc) {
    d.headline +=
        fmt::format("; instructions per cycle {} against {}", Num(*d.a_ipc, 2), Num(*d.b_ipc, 2));
  }
  return d;
}

std::optional<Table> ProfileTable(const SuiteStats& s) {
  Table t;
  t.id = "profiles";
  t.title = "Server profiles (perf, one profiled run per cell; docs/profiles.md)";
  t.headers = {"cell",
               "iteration",
               "tps vs unprofiled",
               "samples",
               "server µs/txn",
               "largest categories",
               "top function (self %)",
               "unresolved leaf %",
               "frame pointers",
               "IPC"};
  t.right = {false, true, true, true, true, false, false, true, false, true};
  for (const CellStats& c : s.cells) {
    if (!c.profiled) continue;
    const profile::Profile& p = c.profiled->profile;
    std::vector<Category> order(kAllCategories.begin(), kAllCategories.end());
    std::stable_sort(order.begin(), order.end(), [&p](Category x, Category y) {
      return p.category_samples[static_cast<size_t>(x)] >
             p.category_samples[static_cast<size_t>(y)];
    });
    std::string cats;
    for (size_t i = 0; i < 3; ++i) {
      const int64_t n = p.category_samples[static_cast<size_t>(order[i])];
      if (n == 0) break;
      cats += fmt::format("{}{} {}%", cats.empty() ? "" : ", ",
                          Pretty(std::string(CategoryKey(order[i]))), Num(p.Pct(n), 1));
    }
    std::string top = "-";
    if (!p.top_functions.empty()) {
      const profile::FunctionShare& f = p.top_functions.front();
      top = fmt::format("{} ({}%)", f.function, Num(p.Pct(f.self_samples), 1));
    }
    const std::string vs =
        c.profiled->tps_vs_unprofiled ? Num(*c.profiled->tps_vs_unprofiled, 3) + "x" : "-";
    t.rows.push_back(
        {c.id, std::to_string(c.profiled->iteration + 1), vs,
         Num(static_cast<double>(p.samples), 0), Opt(c.profiled->server_cpu_us_per_transaction, 1),
         cats, top, Num(p.Pct(p.unresolved_leaf_samples), 1),
         c.profiled->frame_pointers.empty() ? "-" : c.profiled->frame_pointers,
         Opt(c.profiled->hardware_counters ? c.profiled->hardware_counters->Ipc() : std::nullopt,
             2)});
  }
  if (t.rows.empty()) return std::nullopt;
  t.note =
      "shares of the profiled run's server samples; tps vs unprofiled: the profiled run's tps over "
      "the median of the cell's other runs (perf's cost, within the runs' spread); frame pointers: "
      "whether the server binary keeps them (without, stacks miss callers); IPC: instructions per "
      "cycle from the hardware counters, \"-\" where the machine has none; folded stacks in the "
      "results directory (profiles/)";
  return t;
}

std::vector<ProfileDiff> ProfileDiffs(const Comparison& c, size_t index) {
  std::vector<ProfileDiff> out;
  const std::string a = c.suites[index]->suite->label;
  const std::string b = c.suites[0]->suite->label;
  for (const CellComparison& m : c.cells[index - 1]) {
    if (m.a == nullptr || m.b == nullptr || !m.a->profiled || !m.b->profiled) continue;
    ProfileDiff d = DiffProfiles(m.key, *m.a->profiled, *m.b->profiled, a, b);
    d.tps_verdict = SpeedName(m.speed);
    // A gap in CPU per transaction where throughput does not differ is
    // worth reading, but not as the reason one machine wins.
    if (m.speed == Speed::kNoSignificantDifference || m.speed == Speed::kNotDecidable) {
      d.headline += fmt::format(" (the cell's throughput: {}, so this gap does not explain a win)",
                                d.tps_verdict);
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<Table> ProfileDiffTables(const Comparison& c, size_t index, size_t max_functions) {
  std::vector<Table> out;
  const std::string a = c.suites[index]->suite->label;
  const std::string b = c.suites[0]->suite->label;
  for (const ProfileDiff& d : ProfileDiffs(c, index)) {
    Table t;
    t.id = "profile-" + std::to_string(index) + "-" + std::to_string(out.size() / 2);
    t.title = fmt::format("Where the server's CPU differs: {} ({} and {})", d.cell, a, b);
    t.headers = {"category",    a + " %",      b + " %",  "Δ points",
                 a + " µs/txn", b + " µs/txn", "Δ µs/txn"};
    t.right = {false, true, true, true, true, true, true};
    for (const ShareGap& g : d.categories) {
      t.rows.push_back({Pretty(g.name), Pct(g.a_pct), Pct(g.b_pct), Signed(g.Pp(), 1),
                        Opt(g.a_us, 2), Opt(g.b_us, 2), Signed(g.Us(), 2)});
    }
    t.note = d.headline +
             " (one profiled run a side: compare two suites of one machine to see how far shares "
             "move by chance)";
    out.push_back(std::move(t));

    Table f;
    f.id = "profile-functions-" + std::to_string(index) + "-" + std::to_string(out.size() / 2);
    f.title = fmt::format("Functions (self), biggest gap first: {}", d.cell);
    f.headers = {"function", a + " %", b + " %", "Δ points", "Δ µs/txn"};
    f.right = {false, true, true, true, true};
    for (size_t i = 0; i < d.functions.size() && i < max_functions; ++i) {
      const ShareGap& g = d.functions[i];
      f.rows.push_back({g.name + " (" + g.object + ")", Pct(g.a_pct), Pct(g.b_pct),
                        Signed(g.Pp(), 1), Signed(g.Us(), 2)});
    }
    f.note = "\"-\": not among that run's 30 top functions";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace pgrig::report
