#include "results/result_json.h"

#include <algorithm>
#include <cmath>

#include "common/clock.h"
#include "results/histogram_json.h"
#include "results/schemas.h"

namespace pgrig::results {

namespace {

using nlohmann::json;

json IntervalJson(const stats::IntervalStats& s, double t_end_s, double duration_s) {
  const double n = static_cast<double>(s.transactions);
  double avg = 0, stddev = 0, lag = 0;
  if (s.transactions > 0) {
    avg = static_cast<double>(s.latency_sum_ns) / n;
    const double var = s.latency_sum_squares_ns2 / n - avg * avg;
    stddev = var > 0 ? std::sqrt(var) : 0;
    lag = static_cast<double>(s.lag_sum_ns) / n;
  }
  return json{{"end_s", t_end_s},
              {"tps", duration_s > 0 ? n / duration_s : 0.0},
              {"transactions", s.transactions},
              {"failed", s.failures()},
              {"serialization_failures", s.serialization_failures},
              {"deadlock_failures", s.deadlock_failures},
              {"skipped", s.skipped},
              {"retried", s.retried},
              {"retries", s.retries},
              {"latency_ms_avg", avg / 1e6},
              {"latency_ms_stddev", stddev / 1e6},
              {"latency_ms_min", s.transactions > 0 ? NsToMs(s.latency_min_ns) : 0.0},
              {"latency_ms_max", s.transactions > 0 ? NsToMs(s.latency_max_ns) : 0.0},
              {"lag_ms_avg", lag / 1e6},
              {"lag_ms_max", s.transactions > 0 ? NsToMs(s.lag_max_ns) : 0.0}};
}

}  // namespace

// Whole on purpose: it builds one document top to bottom in the order of
// docs/results-format.md, each key once; split into pieces, one document's
// keys would be spelled in several functions.
json RunResultToJson(const ResultInputs& in, const engine::RunResult& r, const json& facts) {
  const ResultOptions& o = in.options;
  const stats::IntervalStats& t = r.totals;
  const double duration_s = static_cast<double>(r.bench_duration_ns) / 1e9;
  const double tps = r.Tps();
  const double tps_with_conn = (duration_s + static_cast<double>(r.conn_elapsed_ns) / 1e9) > 0
                                   ? static_cast<double>(t.transactions) /
                                         (duration_s + static_cast<double>(r.conn_elapsed_ns) / 1e9)
                                   : 0.0;
  const int64_t ended = t.transactions + t.failures();

  json scripts = json::array();
  for (size_t i = 0; i < in.scripts.size(); ++i) {
    const auto& si = in.scripts[i];
    json commands = json::array();
    const engine::ScriptStats* ss = i < r.scripts.size() ? &r.scripts[i] : nullptr;
    for (size_t j = 0; j < si.command_lines.size(); ++j) {
      json c{{"line", si.command_lines[j]}};
      if (ss && j < ss->commands.size()) {
        const auto& cs = ss->commands[j];
        c["executions"] = cs.count;
        c["latency_ms_avg"] =
            cs.count > 0 ? static_cast<double>(cs.sum_ns) / 1e6 / static_cast<double>(cs.count)
                         : 0.0;
        c["failures"] = cs.failures;
        c["retries"] = cs.retries;
      }
      commands.push_back(c);
    }
    json s{{"desc", si.desc},
           {"weight", si.weight},
           {"spec", si.spec},
           {"kind", si.is_file ? "file" : "builtin"},
           {"commands", commands}};
    if (ss) {
      s["transactions"] = ss->totals.transactions;
      s["failed"] = ss->totals.failures();
      s["skipped"] = ss->totals.skipped;
      s["retried"] = ss->totals.retried;
      s["tps"] = duration_s > 0 ? static_cast<double>(ss->totals.transactions) / duration_s : 0.0;
    }
    scripts.push_back(s);
  }

  json series_items = json::array();
  const double interval_s = static_cast<double>(r.series.interval_ns()) / 1e9;
  auto intervals = r.series.intervals();
  for (size_t k = 0; k < intervals.size(); ++k) {
    const double end_s = std::min(interval_s * static_cast<double>(k + 1), duration_s);
    const double len = end_s - interval_s * static_cast<double>(k);
    series_items.push_back(IntervalJson(intervals[k], end_s, len));
  }

  json defines = json::object();
  for (const auto& [k, v] : o.defines) defines[k] = v;

  json lag = nullptr;
  if (o.rate_tps > 0) {
    lag = results::LatencyMsJson(r.lag);
    if (lag.is_null()) lag = json{{"avg", 0.0}, {"max", 0.0}};
  }

  json server_cpu = nullptr;
  json server_cpu_per_txn = nullptr;
  if (in.server_cpu.usage) {
    const host::ServerCpuUsage& u = *in.server_cpu.usage;
    const json per_txn =
        ended > 0 ? json(u.Total() * 1e6 / static_cast<double>(ended)) : json(nullptr);
    server_cpu = {{"cpu_user_s", u.user_s},
                  {"cpu_system_s", u.sys_s},
                  {"cpu_s", u.Total()},
                  {"cpu_us_per_transaction", per_txn},
                  {"settled", u.settled}};
    server_cpu_per_txn = per_txn;
  }

  json doc{
      {"schema", results::kResultSchema},
      {"tool", {{"name", "pgrig"}, {"version", in.tool_version}, {"command", in.command}}},
      {"complete", r.stop_reason == engine::StopReason::kCompleted},
      {"stop_reason", engine::StopReasonName(r.stop_reason)},
      {"abort_message",
       r.first_abort_message.empty() ? json(nullptr) : json(r.first_abort_message)},
      {"aborted_clients", r.aborted_clients},
      {"command_line", in.command_line},
      {"started_at", IsoTimestampUtc(r.start_wall_s)},
      {"ended_at", IsoTimestampUtc(r.end_wall_s)},
      {"start_unix_s", r.start_wall_s},
      {"end_unix_s", r.end_wall_s},
      {"server",
       {{"version", in.server.version},
        {"version_num", in.server.version_num},
        {"target", in.server.target},
        {"embedded", in.server.embedded}}},
      {"options",
       {{"clients", o.clients},
        {"threads", o.threads},
        {"transactions_per_client",
         o.transactions_per_client ? json(*o.transactions_per_client) : json(nullptr)},
        {"duration_s", o.duration_s ? json(*o.duration_s) : json(nullptr)},
        {"query_mode", script::QueryModeName(o.mode)},
        {"scale", o.scale},
        {"rate_tps", o.rate_tps > 0 ? json(o.rate_tps) : json(nullptr)},
        {"latency_limit_ms", o.latency_limit_us > 0
                                 ? json(static_cast<double>(o.latency_limit_us) / 1000.0)
                                 : json(nullptr)},
        {"max_tries", o.max_tries},
        {"connect_per_transaction", o.connect_per_transaction},
        {"no_vacuum", o.no_vacuum},
        {"progress_s", o.progress_s},
        {"random_seed", o.random_seed ? json(*o.random_seed) : json("time")},
        {"defines", defines}}},
      {"summary",
       {{"tps", tps},
        {"tps_including_connections", tps_with_conn},
        {"latency_ms_avg", r.latency.count() > 0 ? r.latency.mean() / 1e6 : 0.0},
        {"latency_ms_p99", r.latency.count() > 0 ? NsToMs(r.latency.ValueAtPercentile(99)) : 0.0},
        {"transactions", t.transactions},
        {"failed_transactions", t.failures()},
        {"duration_s", duration_s},
        {"client_cpu_us_per_transaction", r.ClientCpuUsPerTransaction()},
        {"server_cpu_us_per_transaction", server_cpu_per_txn}}},
      {"durations",
       {{"benchmark_s", duration_s},
        {"initial_connection_ms", NsToMs(r.conn_elapsed_ns)},
        {"connection_total_ms", NsToMs(r.conn_total_ns)}}},
      {"transactions",
       {{"processed", t.transactions},
        {"failed", t.failures()},
        {"serialization_failures", t.serialization_failures},
        {"deadlock_failures", t.deadlock_failures},
        {"skipped", t.skipped},
        {"retried", t.retried},
        {"retries", t.retries},
        {"above_latency_limit", r.latency_late}}},
      {"latency_ms", results::LatencyMsJson(r.latency)},
      {"lag_ms", lag},
      {"histogram", results::HistogramJson(r.latency)},
      {"client",
       {{"cpu_user_s", r.client_user_cpu_s},
        {"cpu_system_s", r.client_sys_cpu_s},
        {"cpu_us_per_transaction", r.ClientCpuUsPerTransaction()},
        {"cpu_user_us_per_transaction",
         ended > 0 ? r.client_user_cpu_s * 1e6 / static_cast<double>(ended) : 0.0},
        {"cpu_system_us_per_transaction",
         ended > 0 ? r.client_sys_cpu_s * 1e6 / static_cast<double>(ended) : 0.0},
        {"busy_fraction", r.ClientBusyFraction(o.threads, in.cpus)},
        {"bottleneck", r.ClientBusyFraction(o.threads, in.cpus) >= 0.9},
        {"max_rss_bytes", r.client_max_rss_kb * 1024},
        {"io", r.ring_threads == 0           ? "epoll"
               : r.ring_threads == r.threads ? "io_uring"
                                             : "mixed"},
        {"lean_protocol_connections", r.lean_connections}}},
      {"server_cpu", server_cpu},
      {"server_cpu_unavailable",
       in.server_cpu.usage ? json(nullptr) : json(in.server_cpu.unavailable)},
      {"scripts", scripts},
      {"series", {{"interval_s", interval_s}, {"intervals", series_items}}},
      {"facts", facts},
  };
  return doc;
}

}  // namespace pgrig::results
