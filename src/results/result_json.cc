#include "results/result_json.h"

#include <algorithm>
#include <cmath>

#include "common/clock.h"
#include "results/result_doc.h"

namespace pgrig::results {

namespace {

using nlohmann::json;

ResultInterval IntervalOf(const stats::IntervalStats& s, double t_end_s, double duration_s) {
  const double n = static_cast<double>(s.transactions);
  double avg = 0, stddev = 0, lag = 0;
  if (s.transactions > 0) {
    avg = static_cast<double>(s.latency_sum_ns) / n;
    const double var = s.latency_sum_squares_ns2 / n - avg * avg;
    stddev = var > 0 ? std::sqrt(var) : 0;
    lag = static_cast<double>(s.lag_sum_ns) / n;
  }
  ResultInterval i;
  i.end_s = t_end_s;
  i.tps = duration_s > 0 ? n / duration_s : 0.0;
  i.transactions = s.transactions;
  i.failed = s.failures();
  i.serialization_failures = s.serialization_failures;
  i.deadlock_failures = s.deadlock_failures;
  i.skipped = s.skipped;
  i.retried = s.retried;
  i.retries = s.retries;
  i.latency_ms_avg = avg / 1e6;
  i.latency_ms_stddev = stddev / 1e6;
  i.latency_ms_min = s.transactions > 0 ? NsToMs(s.latency_min_ns) : 0.0;
  i.latency_ms_max = s.transactions > 0 ? NsToMs(s.latency_max_ns) : 0.0;
  i.lag_ms_avg = lag / 1e6;
  i.lag_ms_max = s.transactions > 0 ? NsToMs(s.lag_max_ns) : 0.0;
  return i;
}

std::vector<ResultScriptDoc> ScriptsOf(const ResultInputs& in, const engine::RunResult& r,
                                       double duration_s) {
  std::vector<ResultScriptDoc> out;
  for (size_t i = 0; i < in.scripts.size(); ++i) {
    const ResultScript& si = in.scripts[i];
    const engine::ScriptStats* ss = i < r.scripts.size() ? &r.scripts[i] : nullptr;
    ResultScriptDoc s;
    s.desc = si.desc;
    s.weight = si.weight;
    s.spec = si.spec;
    s.kind = si.is_file ? "file" : "builtin";
    for (size_t j = 0; j < si.command_lines.size(); ++j) {
      ResultCommand c;
      c.line = si.command_lines[j];
      if (ss && j < ss->commands.size()) {
        const auto& cs = ss->commands[j];
        c.stats = ResultCommandStats{.executions = cs.count,
                                     .latency_ms_avg = cs.count > 0
                                                           ? static_cast<double>(cs.sum_ns) / 1e6 /
                                                                 static_cast<double>(cs.count)
                                                           : 0.0,
                                     .failures = cs.failures,
                                     .retries = cs.retries};
      }
      s.commands.push_back(std::move(c));
    }
    if (ss) {
      s.totals = ResultScriptTotals{
          .transactions = ss->totals.transactions,
          .failed = ss->totals.failures(),
          .skipped = ss->totals.skipped,
          .retried = ss->totals.retried,
          .tps = duration_s > 0 ? static_cast<double>(ss->totals.transactions) / duration_s : 0.0};
    }
    out.push_back(std::move(s));
  }
  return out;
}

ResultClient ClientOf(const ResultInputs& in, const engine::RunResult& r, int64_t ended) {
  ResultClient c;
  c.cpu_user_s = r.client_user_cpu_s;
  c.cpu_system_s = r.client_sys_cpu_s;
  c.cpu_us_per_transaction = r.ClientCpuUsPerTransaction();
  c.cpu_user_us_per_transaction =
      ended > 0 ? r.client_user_cpu_s * 1e6 / static_cast<double>(ended) : 0.0;
  c.cpu_system_us_per_transaction =
      ended > 0 ? r.client_sys_cpu_s * 1e6 / static_cast<double>(ended) : 0.0;
  c.busy_fraction = r.ClientBusyFraction(in.options.threads, in.cpus);
  c.bottleneck = c.busy_fraction >= 0.9;
  c.max_rss_bytes = r.client_max_rss_kb * 1024;
  c.io = r.ring_threads == 0 ? "epoll" : r.ring_threads == r.threads ? "io_uring" : "mixed";
  c.lean_protocol_connections = r.lean_connections;
  return c;
}

}  // namespace

ResultDoc BuildResultDoc(const ResultInputs& in, const engine::RunResult& r, const json& facts) {
  const stats::IntervalStats& t = r.totals;
  const double duration_s = static_cast<double>(r.bench_duration_ns) / 1e9;
  const double with_conn_s = duration_s + static_cast<double>(r.conn_elapsed_ns) / 1e9;
  const int64_t ended = t.transactions + t.failures();
  ResultDoc d;
  d.tool_version = in.tool_version;
  d.command = in.command;
  d.complete = r.stop_reason == engine::StopReason::kCompleted;
  d.stop_reason = engine::StopReasonName(r.stop_reason);
  if (!r.first_abort_message.empty()) d.abort_message = r.first_abort_message;
  d.aborted_clients = r.aborted_clients;
  d.command_line = in.command_line;
  d.started_at = IsoTimestampUtc(r.start_wall_s);
  d.ended_at = IsoTimestampUtc(r.end_wall_s);
  d.start_unix_s = r.start_wall_s;
  d.end_unix_s = r.end_wall_s;
  d.server = in.server;
  d.options = in.options;
  if (in.server_cpu.usage) {
    const host::ServerCpuUsage& u = *in.server_cpu.usage;
    std::optional<double> per_txn;
    if (ended > 0) per_txn = u.Total() * 1e6 / static_cast<double>(ended);
    d.server_cpu = ResultServerCpu{.cpu_user_s = u.user_s,
                                   .cpu_system_s = u.sys_s,
                                   .cpu_s = u.Total(),
                                   .cpu_us_per_transaction = per_txn,
                                   .settled = u.settled};
    d.summary.server_cpu_us_per_transaction = per_txn;
  } else {
    d.server_cpu_unavailable = in.server_cpu.unavailable;
  }
  d.server_profile = in.server_profile;
  if (d.server_profile && in.server_cpu.usage) {
    d.server_profile->measured_server_cpu_s = in.server_cpu.usage->Total();
  }
  d.summary.tps = r.Tps();
  d.summary.tps_including_connections =
      with_conn_s > 0 ? static_cast<double>(t.transactions) / with_conn_s : 0.0;
  d.summary.latency_ms_avg = r.latency.count() > 0 ? r.latency.mean() / 1e6 : 0.0;
  d.summary.latency_ms_p99 = r.latency.count() > 0 ? NsToMs(r.latency.ValueAtPercentile(99)) : 0.0;
  d.summary.transactions = t.transactions;
  d.summary.failed_transactions = t.failures();
  d.summary.duration_s = duration_s;
  d.summary.client_cpu_us_per_transaction = r.ClientCpuUsPerTransaction();
  d.durations = ResultDurations{.benchmark_s = duration_s,
                                .initial_connection_ms = NsToMs(r.conn_elapsed_ns),
                                .connection_total_ms = NsToMs(r.conn_total_ns)};
  d.transactions = ResultTransactions{.processed = t.transactions,
                                      .failed = t.failures(),
                                      .serialization_failures = t.serialization_failures,
                                      .deadlock_failures = t.deadlock_failures,
                                      .skipped = t.skipped,
                                      .retried = t.retried,
                                      .retries = t.retries,
                                      .above_latency_limit = r.latency_late};
  d.latency = r.latency;
  if (in.options.rate_tps > 0) d.lag = ResultLag{.histogram = r.lag};
  d.client = ClientOf(in, r, ended);
  d.scripts = ScriptsOf(in, r, duration_s);
  d.series.interval_s = static_cast<double>(r.series.interval_ns()) / 1e9;
  auto intervals = r.series.intervals();
  for (size_t k = 0; k < intervals.size(); ++k) {
    const double end_s = std::min(d.series.interval_s * static_cast<double>(k + 1), duration_s);
    const double len = end_s - d.series.interval_s * static_cast<double>(k);
    d.series.intervals.push_back(IntervalOf(intervals[k], end_s, len));
  }
  d.facts = facts;
  return d;
}

json RunResultToJson(const ResultInputs& in, const engine::RunResult& r, const json& facts) {
  return ResultDocToJson(BuildResultDoc(in, r, facts));
}

}  // namespace pgrig::results
