#include "report/tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cost/format.h"
#include "results/metrics.h"

namespace pgrig::report {

std::string Num(double v, int decimals) { return cost::FormatNumber(v, decimals); }

std::string Opt(const std::optional<double>& v, int decimals) {
  return v ? Num(*v, decimals) : "-";
}

std::string WithInterval(double v, const std::optional<stats::Interval>& iv, int decimals) {
  if (!iv) return Num(v, decimals);
  return fmt::format("{} [{}, {}]", Num(v, decimals), Num(iv->low, decimals),
                     Num(iv->high, decimals));
}

std::string RatioText(const std::optional<double>& r, const std::optional<stats::Interval>& iv) {
  if (!r) return "-";
  if (!iv) return fmt::format("{:.3f}x", *r);
  return fmt::format("{:.3f}x [{:.3f}, {:.3f}]", *r, iv->low, iv->high);
}

std::string Pretty(const std::string& kind) {
  if (kind.empty()) return "-";
  static const std::pair<const char*, const char*> kNames[] = {
      {"server_cpu", "server CPU"},
      {"client_cpu", "client CPU"},
      {"io_wait", "I/O wait"},
      {"lock_waits", "lock waits"},
      {"lwlock_waits", "LWLock waits"},
      {"wal", "WAL"},
      {"steal", "steal"},
      {"other_processes", "other processes"},
      {"unknown", "unknown"},
      {"network_kernel", "network/kernel"},
      {"idle_wait", "idle wait"}};
  for (const auto& [k, v] : kNames) {
    if (kind == k) return v;
  }
  return kind;
}

std::string MetricSuffix(const CellStats& c) {
  return c.metric == results::kMetricTps || c.metric.empty()
             ? ""
             : std::string(" ") + results::MetricUnit(c.metric);
}

// "tps", "lio/s", "tps or NOPM", ...: the metrics of `cells` in the order
// tps, lio/s, NOPM.
std::string MetricHeader(const std::vector<const CellStats*>& cells) {
  std::vector<std::string> seen;
  for (const char* m : results::kMetrics) {
    const std::string label = results::MetricUnit(m);
    for (const CellStats* c : cells) {
      if (results::MetricUnit(c->metric) == label) {
        seen.push_back(label);
        break;
      }
    }
  }
  if (seen.empty()) return "tps";
  std::string out = seen[0];
  for (size_t i = 1; i < seen.size(); ++i) out += " or " + seen[i];
  return out;
}

Table CellTable(const SuiteStats& s) {
  Table t;
  t.id = "cells";
  t.title = "Cells of " + s.suite->label;
  std::vector<const CellStats*> all;
  for (const CellStats& c : s.cells) all.push_back(&c);
  t.headers = {"cell",
               "runs",
               MetricHeader(all) + " median [95% interval]",
               "min - max",
               "p50 ms",
               "p99 ms",
               "client CPU us/txn",
               "server CPU us/txn",
               "bottleneck"};
  t.right = {false, true, true, true, true, true, true, true, false};
  const bool priced = s.suite->usd_per_hour.has_value();
  if (priced) {
    t.headers.push_back("txn per USD [95% interval]");
    t.right.push_back(true);
  }
  for (const CellStats& c : s.cells) {
    std::string runs = std::to_string(c.runs_ok);
    if (c.runs_failed > 0) runs += fmt::format(" ({} failed)", c.runs_failed);
    std::vector<std::string> row = {
        c.id, runs,
        c.runs_ok > 0 ? WithInterval(c.tps_summary.median, c.tps_ci, 1) + MetricSuffix(c) : "-",
        c.runs_ok > 0 ? Num(c.tps_summary.min, 1) + " - " + Num(c.tps_summary.max, 1) : "-",
        c.latency_ms.empty() ? "-" : Num(c.latency_ms[0], 3),
        c.latency_ms.empty() ? "-" : Num(c.latency_ms[3], 3),
        Opt(c.client_cpu_us_per_transaction, 1),
        // "~" marks a figure estimated as host CPU minus the client's.
        (c.server_cpu_source == "measured" || !c.server_cpu_us_per_transaction ? "" : "~") +
            Opt(c.server_cpu_us_per_transaction, 1),
        Pretty(c.bottleneck)};
    if (priced) {
      row.push_back(c.transactions_per_usd
                        ? WithInterval(*c.transactions_per_usd, c.transactions_per_usd_ci, 0)
                        : "-");
    }
    t.rows.push_back(std::move(row));
  }
  const bool any_tps = std::any_of(s.cells.begin(), s.cells.end(), [](const CellStats& c) {
    return c.metric == results::kMetricTps;
  });
  const bool any_lio = std::any_of(s.cells.begin(), s.cells.end(), [](const CellStats& c) {
    return c.metric == results::kMetricLio;
  });
  const bool any_nopm = std::any_of(s.cells.begin(), s.cells.end(), [](const CellStats& c) {
    return c.metric == results::kMetricNopm;
  });
  if (any_tps || (!any_lio && !any_nopm)) {
    t.note =
        "tps: median of the iterations, [95% t interval of the geometric mean, log scale]; "
        "latency from the merged histograms of the cell's runs";
    t.note += priced ? "; txn per USD = tps x 3,600 / USD per hour." : ".";
  }
  if (std::any_of(s.cells.begin(), s.cells.end(), [](const CellStats& c) {
        return c.server_cpu_source == "estimated" || c.server_cpu_source == "mixed";
      })) {
    t.note += std::string(t.note.empty() ? "" : " ") +
              "~: server CPU estimated as the host's busy CPU minus the client's (some runs "
              "have no reading of the server's processes).";
  }
  if (any_lio) {
    t.note += std::string(any_tps ? " " : "") +
              "lio/s: logical reads from shared buffers per second (pg_stat_database), median of "
              "the iterations with the same interval as tps; their latency is per range read.";
  }
  if (any_nopm) {
    t.note += std::string(t.note.empty() ? "" : " ") +
              "NOPM: New-Orders committed per minute (pgrig tpcc run), median of the iterations "
              "with the same interval as tps; latency and CPU per transaction of all five types; "
              "no per-dollar figure.";
  }
  return t;
}

std::optional<Table> FsyncTable(const SuiteStats& s) {
  if (!s.suite->fsync) return std::nullopt;
  const results::FsyncRecord& f = *s.suite->fsync;
  Table t;
  t.id = "fsync";
  t.title = "WAL flushes of " + (f.dir.empty() ? std::string("the data directory") : f.dir) +
            " (tested once in " + s.suite->label + ")";
  t.headers = {"method", "write bytes", "writers", "flushes/s", "p50 ms", "p99 ms"};
  t.right = {false, true, true, true, true, true};
  for (const results::FsyncTest& x : f.tests) {
    t.rows.push_back({x.label, std::to_string(x.write_bytes), std::to_string(x.writers),
                      x.ops_per_s ? Num(*x.ops_per_s, 0) : "n/a: " + x.unavailable,
                      Opt(x.p50_ms, 3), Opt(x.p99_ms, 3)});
  }
  if (!f.best_method.empty()) {
    t.note = fmt::format("best method: {}, {} flushes/s", f.best_method, Opt(f.best_ops_per_s, 0));
    if (!f.server_method.empty()) {
      t.note += fmt::format("; the server's wal_sync_method is {} ({} flushes/s)", f.server_method,
                            Opt(f.server_method_ops_per_s, 0));
    }
    t.note += ".";
  } else if (!f.leading_method.empty()) {
    t.note = fmt::format("no method is significantly best (leading: {}); any of them will do.",
                         f.leading_method);
  }
  if (f.memory_file_system) t.note += " On a memory file system: these figures mean nothing.";
  return t;
}

std::optional<Table> FsyncComparisonTable(const Comparison& c) {
  bool any = false;
  for (const SuiteStats* s : c.suites) any = any || s->suite->fsync.has_value();
  if (!any) return std::nullopt;
  Table t;
  t.id = "fsync-compare";
  t.title = "WAL flushes side by side (one test per suite: no verdict)";
  t.headers = {""};
  t.right = {false};
  for (const SuiteStats* s : c.suites) {
    t.headers.push_back(s->suite->label);
    t.right.push_back(true);
  }
  auto add = [&](const std::string& name, auto&& value) {
    std::vector<std::string> row = {name};
    for (const SuiteStats* s : c.suites) {
      row.push_back(s->suite->fsync ? value(*s->suite->fsync) : std::string("-"));
    }
    t.rows.push_back(std::move(row));
  };
  const std::optional<results::FsyncRecord>& base = c.suites[0]->suite->fsync;
  add("directory", [](const results::FsyncRecord& f) { return f.dir; });
  add("best method", [](const results::FsyncRecord& f) {
    return f.best_method.empty() ? std::string("-") : f.best_method;
  });
  add("best flushes/s (1 writer)",
      [](const results::FsyncRecord& f) { return Opt(f.best_ops_per_s, 0); });
  add("ratio to " + c.suites[0]->suite->label, [&](const results::FsyncRecord& f) {
    if (!base || !base->best_ops_per_s || !f.best_ops_per_s || *base->best_ops_per_s <= 0) {
      return std::string("-");
    }
    return fmt::format("{:.3f}x", *f.best_ops_per_s / *base->best_ops_per_s);
  });
  add("best p99 ms", [](const results::FsyncRecord& f) { return Opt(f.best_p99_ms, 3); });
  add("server wal_sync_method", [](const results::FsyncRecord& f) {
    return f.server_method.empty()
               ? std::string("-")
               : f.server_method + " (" + Opt(f.server_method_ops_per_s, 0) + " flushes/s)";
  });
  t.note =
      "each suite tests its storage once, so there is one sample per side: the ratio is a "
      "point figure, not a verdict; repeat the suites for an interval.";
  return t;
}

Table MismatchTable(const std::vector<Mismatch>& m) {
  Table t;
  t.id = "mismatches";
  t.title = m.empty() ? "No mismatches found" : "MISMATCHES: read these before the figures";
  t.headers = {"what", "detail"};
  t.right = {false, false};
  for (const Mismatch& x : m) t.rows.push_back({MismatchKindName(x.kind), x.message});
  return t;
}

Table ClaimTable(const std::vector<ClaimCheck>& claims) {
  Table t;
  t.id = "claims";
  t.title = "Claims";
  t.headers = {"claim", "verdict", "claimed", "measured [interval]", "to decide", "basis"};
  t.right = {false, false, true, true, true, false};
  auto measured = [](const std::optional<double>& v, const std::optional<stats::Interval>& iv,
                     double confidence, int d) {
    if (!v) return std::string("-");
    std::string s = WithInterval(*v, iv, d);
    if (iv && std::abs(confidence - 0.95) > 1e-9) s += fmt::format(" ({:.2f}%)", confidence * 100);
    return s;
  };
  auto to_decide = [](const CellClaim& x) {
    if (x.verdict != ClaimVerdict::kUndecided || !x.interval) return std::string("-");
    // A ratio has two sides to run; a per-dollar figure one suite.
    const char* per = x.n_b > 0 ? " per side" : "";
    return x.iterations_to_decide ? fmt::format("~{}{}", *x.iterations_to_decide, per)
                                  : fmt::format("> {}{}", kMaxIterationsToDecide, per);
  };
  for (const ClaimCheck& c : claims) {
    const int d = c.claimed < 20 ? 3 : 0;
    if (c.cells.size() == 1) {
      const CellClaim& x = c.cells[0];
      t.rows.push_back({c.claim, ClaimVerdictName(c.verdict), Num(c.claimed, d),
                        measured(x.measured, x.interval, x.confidence, d), to_decide(x),
                        c.basis + "; " + x.reason});
      continue;
    }
    t.rows.push_back({c.claim, ClaimVerdictName(c.verdict), Num(c.claimed, d), "-", "-", c.basis});
    for (const CellClaim& x : c.cells) {
      t.rows.push_back({"  in " + x.cell, ClaimVerdictName(x.verdict), "",
                        measured(x.measured, x.interval, x.confidence, d), to_decide(x), x.reason});
    }
  }
  t.note =
      "supported: the interval excludes 1.0 on the claimed side and meets the claim within its "
      "tolerance (a 1.0x or per-dollar claim: lies within it); contradicted: the "
      "interval misses the claim and its tolerance; undecided: neither, with the iterations per "
      "side that would likely decide it at the observed spread.";
  return t;
}

Table DecisionTable(const Comparison& c) {
  Table t;
  t.id = "decision";
  t.title = "Decision table";
  t.headers = {""};
  t.right = {false};
  for (const DecisionColumn& d : c.decision) {
    t.headers.push_back(d.label);
    t.right.push_back(true);
  }
  auto add = [&](const std::string& name, auto&& value) {
    std::vector<std::string> row = {name};
    for (const DecisionColumn& d : c.decision) row.push_back(value(d));
    t.rows.push_back(std::move(row));
  };
  add("architecture / core", [](const DecisionColumn& d) { return d.architecture; });
  add("vCPUs", [](const DecisionColumn& d) { return d.vcpus; });
  add("caches", [](const DecisionColumn& d) { return d.caches; });
  add("PostgreSQL", [](const DecisionColumn& d) { return d.postgres; });
  add("price USD/hour", [](const DecisionColumn& d) {
    std::string p = d.usd_per_hour ? fmt::format("{:.4f}", *d.usd_per_hour) : "-";
    if (!d.instance_type.empty()) p += " (" + d.instance_type + ")";
    return p;
  });
  const DecisionChoice& choice = c.decision_choice;
  auto cell = [](const CellStats* cs, const std::optional<stats::Interval>& ci) {
    return cs ? WithInterval(cs->tps_summary.median, ci, 0) + " (" + cs->id + ")" : "-";
  };
  auto unmatched = [&](const char* kind) {
    return std::find(choice.no_common.begin(), choice.no_common.end(), kind) !=
           choice.no_common.end();
  };
  // Rows only for what the suites measured: suites of lio or fsync files
  // have no transactions to rank, and rows of "-" would read as missing data.
  const bool any_tps = std::any_of(c.decision.begin(), c.decision.end(),
                                   [](const auto& d) {
                                     return d.read_only != nullptr || d.read_write != nullptr;
                                   }) ||
                       unmatched("read-only") || unmatched("read-write");
  const bool any_lio = std::any_of(c.decision.begin(), c.decision.end(),
                                   [](const auto& d) { return d.best_lio != nullptr; }) ||
                       unmatched("lio");
  // How the cells were chosen and what their intervals are.
  int most_among = 1;
  for (const DecisionColumn& d : c.decision) {
    most_among = std::max({most_among, d.read_only_among, d.read_write_among, d.lio_among});
  }
  std::string chosen =
      choice.best_each
          ? "each suite's own best cell of the kind (highest median; --best-each: the cells may "
            "differ in clients, protocol or settings, so the columns do not compare like with "
            "like)"
          : "of each kind, the one cell every suite measured where their medians are highest "
            "together (--best-each: each suite's own best)";
  chosen += most_among > 1 ? "; chosen among several, so its interval is widened to 1 - 0.05 / m "
                             "for m candidate cells (Bonferroni), which allows for the choice"
                           : ", with its 95% interval";
  if (!choice.no_common.empty()) {
    chosen += fmt::format("; no cell measured by every suite for: {} (\"-\")",
                          fmt::join(choice.no_common, ", "));
  }
  if (any_tps) {
    add("read-only tps",
        [&](const DecisionColumn& d) { return cell(d.read_only, d.read_only_ci); });
    add("read-write tps",
        [&](const DecisionColumn& d) { return cell(d.read_write, d.read_write_ci); });
    // Per-dollar rows only when some machine has a price (the price row
    // above shows which do not).
    const bool any_price = std::any_of(c.decision.begin(), c.decision.end(),
                                       [](const auto& d) { return d.usd_per_hour.has_value(); });
    if (any_price) {
      add("read-only txn per USD",
          [](const DecisionColumn& d) { return Opt(d.read_only_per_usd, 0); });
      add("read-write txn per USD",
          [](const DecisionColumn& d) { return Opt(d.read_write_per_usd, 0); });
    }
    // The read-write cell's when there is one, else the read-only one's: the
    // value names its cell, as the tps rows do.
    add("p99 ms", [](const DecisionColumn& d) {
      return d.p99_cell ? Opt(d.p99_ms, 3) + " (" + d.p99_cell->id + ")" : "-";
    });
    t.note = std::string("tps [interval]: ") + chosen + ". " +
             (any_price ? "per USD: tps x 3,600 / USD per hour of that cell; " : "") +
             "p99: of the read-write cell, else of the read-only one.";
  }
  if (any_lio) {
    add(results::MetricUnit(results::kMetricLio),
        [&](const DecisionColumn& d) { return cell(d.best_lio, d.lio_ci); });
    t.note += std::string(t.note.empty() ? "lio/s [interval]: " + chosen + ". " : " ") +
              "lio/s: logical reads per second of the lio cell.";
  }
  return t;
}

namespace {

// Removes the columns at `cols` (ascending) from headers, alignment and rows.
void DropColumns(Table* t, const std::vector<size_t>& cols) {
  for (auto it = cols.rbegin(); it != cols.rend(); ++it) {
    t->headers.erase(t->headers.begin() + static_cast<std::ptrdiff_t>(*it));
    t->right.erase(t->right.begin() + static_cast<std::ptrdiff_t>(*it));
    for (auto& row : t->rows) row.erase(row.begin() + static_cast<std::ptrdiff_t>(*it));
  }
}

// Whether any row has something other than "-" in column `col`.
bool AnyFilled(const Table& t, size_t col) {
  return std::any_of(t.rows.begin(), t.rows.end(),
                     [col](const std::vector<std::string>& r) { return r[col] != "-"; });
}

// The multiplicity sentence under a comparison table ("" for one cell).
std::string MultiplicityText(const Multiplicity& m, FamilyWise fw) {
  if (m.cells < 2) return "";
  std::string out = fmt::format(
      "{} cells compared at 95% each: were none truly different, chance alone would call about "
      "{:.1f} of them faster or slower, and at least one in {:.0f}% of such comparisons; {} "
      "called here.",
      m.cells, m.expected_by_chance, 100 * m.any_by_chance, m.significant);
  if (fw == FamilyWise::kHolm && m.significant_family_wise) {
    out += fmt::format(
        " Holm's correction (--family-wise holm) keeps {} of them, with at most a 5% chance of "
        "any false call among the {} (the intervals shown stay per cell).",
        *m.significant_family_wise, m.cells);
  } else {
    out += " --family-wise holm keeps the chance of any false call at 5%.";
  }
  return out;
}

}  // namespace

Table ComparisonTable(const Comparison& c, size_t index) {
  const std::string a = c.suites[index]->suite->label;
  const std::string b = c.suites[0]->suite->label;
  Table t;
  t.id = "compare-" + std::to_string(index);
  t.title = fmt::format("{} against {} ({} / {})", a, b, a, b);
  std::vector<const CellStats*> shown;
  for (const CellComparison& cc : c.cells[index - 1]) shown.push_back(cc.a);
  const std::string metric = MetricHeader(shown);
  t.headers = {
      "cell",      b + " " + metric, a + " " + metric,           metric + " ratio [95% interval]",
      "verdict",   "p50 ratio",      "p99 ratio [95% interval]", "txn per USD ratio [95%]",
      "per dollar"};
  t.right = {false, true, true, true, false, true, true, true, false};
  for (const CellComparison& cc : c.cells[index - 1]) {
    std::string p50 = "-", p99 = "-";
    for (const LatencyRatio& l : cc.latency) {
      if (l.percentile == 50) p50 = RatioText(l.ratio, std::nullopt);
      if (l.percentile == 99) {
        p99 = RatioText(l.ratio, l.interval);
        if (l.verdict == stats::Verdict::kHigher) p99 += " higher";
        if (l.verdict == stats::Verdict::kLower) p99 += " lower";
      }
    }
    t.rows.push_back({cc.key,
                      cc.b->runs_ok ? Num(cc.b->tps_summary.median, 1) + MetricSuffix(*cc.b) : "-",
                      cc.a->runs_ok ? Num(cc.a->tps_summary.median, 1) + MetricSuffix(*cc.a) : "-",
                      RatioText(cc.tps.ratio, cc.tps.interval), SpeedName(cc.speed), p50, p99,
                      RatioText(cc.per_dollar_ratio, cc.per_dollar_interval),
                      cc.per_dollar_ratio ? SpeedName(cc.per_dollar_speed) : "-"});
  }
  // Latency and per-dollar columns only where some row fills them: no row
  // has a per-dollar ratio when a side has no price or every cell is a lio
  // cell, and no row has latency when no run kept a histogram.
  const bool latency = AnyFilled(t, 5) || AnyFilled(t, 6);
  const bool priced = AnyFilled(t, 7);
  std::vector<size_t> drop;
  if (!latency) drop.insert(drop.end(), {5, 6});
  if (!priced) drop.insert(drop.end(), {7, 8});
  DropColumns(&t, drop);
  t.note = "ratio: geometric mean of " + a + " / geometric mean of " + b +
           ", Welch t 95% interval on the log scale; \"faster\"/\"slower\" only when the interval "
           "excludes 1.0.";
  if (index - 1 < c.multiplicity.size())
    t.note += " " + MultiplicityText(c.multiplicity[index - 1], c.family_wise);
  if (latency) {
    t.note += " Latency ratios from the merged histograms (interval from per-run percentiles).";
  }
  const bool lio_only = metric == results::MetricUnit(results::kMetricLio);
  if (!priced && !lio_only) {
    std::vector<std::string> unpriced;
    if (!c.suites[0]->suite->usd_per_hour) unpriced.push_back(b);
    if (!c.suites[index]->suite->usd_per_hour) unpriced.push_back(a);
    if (!unpriced.empty()) {
      const std::string who = unpriced.size() == 1 ? unpriced[0] + " has no price"
                                                   : "neither " + b + " nor " + a + " has a price";
      t.note += " No per-dollar ratio: " + who +
                " (give --usd-per-hour or --instance to `pgrig run` or to this command).";
    }
  }
  if (t.rows.empty()) {
    t.note = "no cell of " + a + " matches a cell of " + b +
             " measuring the same quantity: nothing is compared (see the mismatches).";
  }
  return t;
}

Table FactsDiffTable(const Comparison& c, size_t index, size_t max_rows) {
  const std::string a = c.suites[index]->suite->label;
  const std::string b = c.suites[0]->suite->label;
  Table t;
  t.id = "facts-" + std::to_string(index);
  t.title = fmt::format("Facts that differ: {} and {}", a, b);
  t.headers = {"fact", a, b};
  t.right = {false, false, false};
  const auto& diff = c.facts_diff[index - 1];
  for (size_t i = 0; i < diff.size() && i < max_rows; ++i) {
    t.rows.push_back({diff[i].key, diff[i].a, diff[i].b});
  }
  if (diff.size() > max_rows)
    t.note = fmt::format("{} more differences not shown", diff.size() - max_rows);
  if (diff.empty()) {
    t.note =
        "none: the host and server facts are the same in both (volatile ones, such as available "
        "memory, are not compared): one machine, or machines alike in every recorded respect.";
  }
  return t;
}

}  // namespace pgrig::report
