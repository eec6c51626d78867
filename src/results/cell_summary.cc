#include "results/cell_summary.h"

#include <algorithm>
#include <map>

#include "results/metrics.h"
#include "stats/summary.h"

namespace pgrig::results {
namespace {

std::optional<double> MedianOf(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  return stats::Summarize(v).median;
}

bool SaysClientSaturated(const Run& r) {
  return r.client_saturated || std::any_of(r.observation.warnings.begin(),
                                           r.observation.warnings.end(), [](const std::string& w) {
                                             return w.find("client saturated") != std::string::npos;
                                           });
}

}  // namespace

bool RunCounts(const Run& r) { return r.ok && r.tps > 0; }

std::optional<double> EstimatedServerCpuUsPerTransaction(const Run& r) {
  const Observation& o = r.observation;
  if (!o.server_is_local || !o.host_cpus || !o.host_duration_s || !o.cpu_user || !o.cpu_system ||
      !r.client_cpu_s || !r.transactions || *r.transactions <= 0) {
    return std::nullopt;
  }
  const double busy_s = (*o.cpu_user + *o.cpu_system) * *o.host_cpus * *o.host_duration_s;
  const double server_s = busy_s - *r.client_cpu_s;
  if (server_s <= 0) return std::nullopt;
  return server_s * 1e6 / static_cast<double>(*r.transactions);
}

CellSummary SummarizeCell(const Cell& cell) {
  CellSummary out;
  const bool lio = cell.metric == kMetricLio;
  std::vector<double> client_cpu, server_cpu;
  int measured = 0, estimated = 0, saturated_runs = 0;
  std::map<std::string, int> votes;
  std::map<std::string, std::string> evidence;  // the first run's, per kind
  std::vector<std::string> warning_kinds;       // in first-seen order
  std::map<std::string, std::pair<std::string, int>> warnings_by_kind;
  // Each run's histogram in turn; made only when a run has one (a 512-KB
  // table; cells built in memory, as the report's instrument tests do, have none).
  std::optional<stats::Histogram> scratch;
  for (const Run& r : cell.runs) {
    if (!RunCounts(r)) {
      ++out.runs_failed;
      out.failures.push_back(!r.error.empty() ? r.error
                             : lio            ? "measured no logical reads"
                                              : "measured no transactions");
      continue;
    }
    out.tps.push_back(r.tps);
    if (r.histogram) {
      if (!scratch) scratch.emplace();
      const Status h = stats::AssignPacked(*r.histogram, &*scratch);
      if (h.ok()) {
        out.latency.Add(*scratch);
      } else {
        out.notes.push_back("iteration " + std::to_string(r.iteration) + ": " + h.message());
      }
    }
    if (r.client_cpu_us_per_transaction) client_cpu.push_back(*r.client_cpu_us_per_transaction);
    if (r.server_cpu_us_per_transaction) {
      server_cpu.push_back(*r.server_cpu_us_per_transaction);
      ++measured;
    } else if (auto e = EstimatedServerCpuUsPerTransaction(r)) {
      server_cpu.push_back(*e);
      ++estimated;
    }
    if (SaysClientSaturated(r)) ++saturated_runs;
    const Observation& o = r.observation;
    if (!o.bottleneck.empty() && votes[o.bottleneck]++ == 0) {
      evidence[o.bottleneck] = o.bottleneck_evidence;
    }
    for (const std::string& w : o.warnings) {
      const std::string kind = w.substr(0, w.find(" ("));
      auto [it, added] = warnings_by_kind.try_emplace(kind, w, 0);
      if (added) warning_kinds.push_back(kind);
      ++it->second.second;
    }
  }
  out.client_cpu_us_per_transaction = MedianOf(client_cpu);
  out.server_cpu_us_per_transaction = MedianOf(server_cpu);
  out.server_cpu_source = measured > 0 && estimated > 0 ? "mixed"
                          : measured > 0                ? "measured"
                          : estimated > 0               ? "estimated"
                                                        : "";
  out.client_saturated = saturated_runs > 0;
  for (const auto& [name, n] : votes) {
    if (n > out.bottleneck_runs) {
      out.bottleneck = name;
      out.bottleneck_runs = n;
    }
  }
  if (!out.bottleneck.empty()) {
    out.bottleneck_evidence = evidence[out.bottleneck];
  } else if (out.client_saturated) {
    out.bottleneck = "client_cpu";
    out.bottleneck_runs = saturated_runs;
    out.bottleneck_evidence = "the load client was busy >= 90% of its CPU (client.bottleneck)";
  }
  for (const std::string& kind : warning_kinds) {
    const auto& [text, n] = warnings_by_kind[kind];
    out.warnings.push_back(text + " [" + std::to_string(n) + " of " +
                           std::to_string(out.tps.size()) + " runs]");
  }
  return out;
}

}  // namespace pgrig::results
