#include "report/analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "common/enum_names.h"
#include "cost/per_dollar.h"
#include "results/cell_summary.h"
#include "results/metrics.h"

namespace pgrig::report {
namespace {

// Mean of the runs that have the value.
std::optional<double> MeanOf(const std::vector<results::Run>& runs,
                             std::optional<double> results::Observation::*field) {
  double sum = 0;
  int n = 0;
  for (const results::Run& r : runs) {
    if (r.ok && (r.observation.*field)) {
      sum += *(r.observation.*field);
      ++n;
    }
  }
  if (n == 0) return std::nullopt;
  return sum / n;
}

std::vector<double> PercentilesMs(const stats::Histogram& h) {
  const auto ns = h.ValuesAtPercentiles(kPercentiles);
  std::vector<double> ms;
  for (int64_t v : ns) ms.push_back(static_cast<double>(v) / 1e6);
  return ms;
}

}  // namespace

WorkloadKind ClassifyWorkload(const std::string& w) {
  auto has = [&](const char* s) { return w.find(s) != std::string::npos; };
  if (has("select") || has("read-only") || has("read_only") || has("readonly")) {
    return WorkloadKind::kReadOnly;
  }
  if (has("simple-update") || has("write-only") || has("write_only") || has("insert")) {
    return WorkloadKind::kWriteOnly;
  }
  if (has("tpcb") || has("read-write") || has("read_write") || has("readwrite")) {
    return WorkloadKind::kReadWrite;
  }
  return WorkloadKind::kOther;
}

const char* WorkloadKindName(WorkloadKind k) {
  static constexpr const char* kNames[] = {"read-only", "read-write", "write-only", "other"};
  return NameAt<WorkloadKind::kOther>(k, kNames, "other");
}

std::string FigureText(const std::optional<double>& v) { return v ? fmt::format("{}", *v) : ""; }

std::vector<std::string> CellFigureFields(const CellStats& c) {
  const bool ok = c.runs_ok > 0;
  return {c.id,
          c.workload,
          c.protocol,
          c.variant,
          std::to_string(c.clients),
          std::to_string(c.threads),
          std::to_string(c.runs_ok),
          std::to_string(c.runs_failed),
          ok ? FigureText(c.tps_summary.median) : "",
          ok ? FigureText(c.tps_summary.min) : "",
          ok ? FigureText(c.tps_summary.max) : "",
          c.tps_ci ? FigureText(c.tps_ci->low) : "",
          c.tps_ci ? FigureText(c.tps_ci->high) : "",
          c.latency_ms.empty() ? "" : FigureText(c.latency_ms[0]),
          c.latency_ms.empty() ? "" : FigureText(c.latency_ms[3]),
          FigureText(c.client_cpu_us_per_transaction),
          FigureText(c.server_cpu_us_per_transaction),
          c.bottleneck,
          FigureText(c.transactions_per_usd)};
}

Result<SuiteStats> Analyze(const results::Suite& suite) {
  SuiteStats out;
  out.suite = &suite;
  // Each run's histogram in turn; made only when a run has one.
  std::optional<stats::Histogram> scratch;
  for (const results::Cell& c : suite.cells) {
    CellStats cs;
    cs.id = c.id;
    cs.workload = c.workload;
    cs.protocol = c.protocol;
    cs.variant = c.variant;
    cs.clients = c.clients;
    cs.threads = c.threads;
    cs.metric = c.metric;
    // Only tps cells are pgbench-like transactions: lio and NOPM cells are
    // no read-only/read-write workload for the decision table, and have no
    // transactions per dollar (NOPM counts New-Orders per minute).
    const bool tps = c.metric == results::kMetricTps;
    cs.kind = tps ? ClassifyWorkload(c.workload) : WorkloadKind::kOther;

    const results::CellSummary sum = results::SummarizeCell(c);
    if (!sum.notes.empty()) return InvalidArgument(c.id + ": " + sum.notes.front());
    cs.runs_ok = static_cast<int>(sum.tps.size());
    cs.runs_failed = sum.runs_failed;
    cs.failures = sum.failures;
    cs.tps = sum.tps;
    for (const results::Run& r : c.runs) {
      if (!results::RunCounts(r)) continue;
      if (r.histogram) {
        if (!scratch) scratch.emplace();
        PGRIG_RETURN_IF_ERROR(stats::AssignPacked(*r.histogram, &*scratch));
        cs.run_latency_ms.push_back(PercentilesMs(*scratch));
      }
      if (r.observation.cpu_steal) {
        cs.steal_max = std::max(cs.steal_max.value_or(0.0), *r.observation.cpu_steal);
      }
      if (r.observation.disturbed_other) {
        ++cs.runs_disturbed;
        cs.disturbed_max = std::max(cs.disturbed_max.value_or(0.0), *r.observation.disturbed_other);
      }
      for (const auto& [k, v] : r.observation.wait_events) cs.wait_events[k] += v;
      if (r.server_profile && r.server_profile->profile) {
        cs.profiled =
            CellStats::Profiled{.profile = *r.server_profile->profile,
                                .server_cpu_us_per_transaction = r.server_cpu_us_per_transaction,
                                .iteration = r.iteration,
                                .tps = r.tps,
                                .tps_vs_unprofiled = std::nullopt,
                                .folded_path = "",
                                .frame_pointers = ""};
        cs.profiled->hardware_counters = r.server_profile->hardware_counters;
        if (r.server_profile->server_binary) {
          cs.profiled->frame_pointers = r.server_profile->server_binary->frame_pointers;
        }
        if (!r.server_profile->folded_stacks_file.empty()) {
          // Relative to the document the run was read from.
          cs.profiled->folded_path = (std::filesystem::path(suite.source).parent_path() /
                                      r.server_profile->folded_stacks_file)
                                         .string();
        }
      }
      if (!r.tps_series.empty()) {
        cs.tps_series.push_back(r.tps_series);
        cs.checkpoint_times_s.push_back(r.observation.checkpoint_times_s);
        cs.series_interval_s = r.series_interval_s;
      }
    }
    if (cs.profiled) {
      std::vector<double> others;
      for (const results::Run& r : c.runs) {
        if (results::RunCounts(r) && !r.server_profile) others.push_back(r.tps);
      }
      if (!others.empty()) {
        const double m = stats::Summarize(others).median;
        if (m > 0) cs.profiled->tps_vs_unprofiled = cs.profiled->tps / m;
      }
    }
    cs.tps_summary = stats::Summarize(cs.tps);
    cs.tps_ci = cs.tps_summary.geometric_mean_ci;
    if (sum.latency.count() > 0) {
      cs.latency_ms = PercentilesMs(sum.latency);
      cs.latency_ms_avg = sum.latency.mean() / 1e6;
    }
    cs.client_cpu_us_per_transaction = sum.client_cpu_us_per_transaction;
    cs.server_cpu_us_per_transaction = sum.server_cpu_us_per_transaction;
    cs.server_cpu_source = sum.server_cpu_source;
    cs.client_saturated = sum.client_saturated;
    cs.bottleneck = sum.bottleneck;
    cs.bottleneck_evidence = sum.bottleneck_evidence;
    cs.cpu_user = MeanOf(c.runs, &results::Observation::cpu_user);
    cs.cpu_system = MeanOf(c.runs, &results::Observation::cpu_system);
    cs.cpu_iowait = MeanOf(c.runs, &results::Observation::cpu_iowait);
    cs.cpu_steal = MeanOf(c.runs, &results::Observation::cpu_steal);
    cs.cpu_idle = MeanOf(c.runs, &results::Observation::cpu_idle);
    cs.read_bytes_per_s = MeanOf(c.runs, &results::Observation::read_bytes_per_s);
    cs.write_bytes_per_s = MeanOf(c.runs, &results::Observation::write_bytes_per_s);
    if (tps && suite.usd_per_hour && cs.runs_ok > 0) {
      const double k = cost::kSecondsPerHour / *suite.usd_per_hour;
      cs.transactions_per_usd = cs.tps_summary.median * k;
      if (cs.tps_ci)
        cs.transactions_per_usd_ci = stats::Interval{cs.tps_ci->low * k, cs.tps_ci->high * k};
    }
    out.cells.push_back(std::move(cs));
  }
  return out;
}

const CellStats* BestCell(const SuiteStats& stats, WorkloadKind kind) {
  const CellStats* best = nullptr;
  for (const CellStats& c : stats.cells) {
    if (c.kind != kind || c.runs_ok == 0) continue;
    if (best == nullptr || c.tps_summary.median > best->tps_summary.median) best = &c;
  }
  return best;
}

}  // namespace pgrig::report
