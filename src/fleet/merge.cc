#include "fleet/merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "results/histogram_json.h"
#include "results/metrics.h"
#include "results/result_doc.h"
#include "results/tpcc_section.h"
#include "tpcc/run.h"
#include "tpcc/transactions.h"

namespace pgrig::fleet {
namespace {

using nlohmann::json;
using results::ResultDoc;

// The failure and retry counters a run's transactions and each of its
// intervals both have (ResultTransactions, ResultInterval).
template <typename T>
void AddFailureCounters(T& into, const T& from) {
  into.failed += from.failed;
  into.serialization_failures += from.serialization_failures;
  into.deadlock_failures += from.deadlock_failures;
  into.skipped += from.skipped;
  into.retried += from.retried;
  into.retries += from.retries;
}

void AddCounters(results::ResultTransactions& into, const results::ResultTransactions& from) {
  into.processed += from.processed;
  AddFailureCounters(into, from);
  into.above_latency_limit += from.above_latency_limit;
}

// One interval of a host added into the merged interval of the same index:
// counts and tps add, means weighted by transactions, extremes kept.
void AddInterval(results::ResultInterval& m, const results::ResultInterval& x) {
  const int64_t before = m.transactions;
  const int64_t n = x.transactions;
  m.transactions += x.transactions;
  AddFailureCounters(m, x);
  m.end_s = std::max(m.end_s, x.end_s);
  m.tps += x.tps;
  if (n <= 0) return;
  const double w = static_cast<double>(before) / static_cast<double>(before + n);
  m.latency_ms_avg = m.latency_ms_avg * w + x.latency_ms_avg * (1 - w);
  m.lag_ms_avg = m.lag_ms_avg * w + x.lag_ms_avg * (1 - w);
  m.latency_ms_min = before == 0 ? x.latency_ms_min : std::min(m.latency_ms_min, x.latency_ms_min);
  m.latency_ms_max = std::max(m.latency_ms_max, x.latency_ms_max);
  m.lag_ms_max = std::max(m.lag_ms_max, x.lag_ms_max);
}

// The merged series: intervals added by index.
results::ResultSeries MergeSeries(const std::vector<const ResultDoc*>& docs) {
  results::ResultSeries out;
  out.interval_s = 0;
  for (const ResultDoc* d : docs) {
    out.interval_s = std::max(out.interval_s, d->series.interval_s);
    for (size_t k = 0; k < d->series.intervals.size(); ++k) {
      if (out.intervals.size() <= k) out.intervals.emplace_back();
      AddInterval(out.intervals[k], d->series.intervals[k]);
    }
  }
  out.merged = "intervals added by index; each host's series starts at its own start";
  return out;
}

// The merged scripts: per script (by index), counts and tps added, each
// command's executions, failures and retries added and its mean weighted.
std::vector<results::ResultScriptDoc> MergeScripts(const std::vector<const ResultDoc*>& docs) {
  std::vector<results::ResultScriptDoc> out = docs[0]->scripts;
  for (results::ResultScriptDoc& s : out) {
    if (s.totals) s.totals = results::ResultScriptTotals{};
    for (results::ResultCommand& c : s.commands) {
      if (c.stats) c.stats = results::ResultCommandStats{};
    }
  }
  for (const ResultDoc* d : docs) {
    for (size_t i = 0; i < d->scripts.size() && i < out.size(); ++i) {
      const results::ResultScriptDoc& from = d->scripts[i];
      results::ResultScriptDoc& into = out[i];
      if (into.totals && from.totals) {
        into.totals->transactions += from.totals->transactions;
        into.totals->failed += from.totals->failed;
        into.totals->skipped += from.totals->skipped;
        into.totals->retried += from.totals->retried;
        into.totals->tps += from.totals->tps;
      }
      for (size_t j = 0; j < from.commands.size() && j < into.commands.size(); ++j) {
        std::optional<results::ResultCommandStats>& c = into.commands[j].stats;
        const std::optional<results::ResultCommandStats>& f = from.commands[j].stats;
        if (!c || !f) continue;
        const int64_t before = c->executions;
        const int64_t n = f->executions;
        if (before + n > 0) {
          c->latency_ms_avg = (c->latency_ms_avg * static_cast<double>(before) +
                               f->latency_ms_avg * static_cast<double>(n)) /
                              static_cast<double>(before + n);
        }
        c->executions = before + n;
        c->failures += f->failures;
        c->retries += f->retries;
      }
    }
  }
  return out;
}

// The hosts' result documents that can be summed, checked to be of one run,
// and their histograms added.
struct ReadDocs {
  std::vector<ResultDoc> docs;
  std::vector<const ClientHostResult*> with_doc;
  stats::Histogram merged;
};

Result<ReadDocs> ReadHostDocs(const std::vector<ClientHostResult>& hosts) {
  ReadDocs r;
  for (const ClientHostResult& h : hosts) {
    if (!h.doc) continue;
    PGRIG_ASSIGN_OR_RETURN(ResultDoc d, results::ResultDocFromJson(
                                            *h.doc, fmt::format("host {}: {}", h.label, h.file)));
    if (!r.docs.empty()) {
      if (auto diff = results::FirstRunDifference(r.docs[0].options, d.options)) {
        return InvalidArgument(
            fmt::format("host {} ran with {} = {}, host {} with {}; the clients did not run the "
                        "same benchmark",
                        h.label, diff->key, diff->b, r.with_doc[0]->label, diff->a));
      }
    }
    r.merged.Add(d.latency);
    r.docs.push_back(std::move(d));
    r.with_doc.push_back(&h);
  }
  if (r.docs.empty()) {
    return InvalidArgument("no client host produced a result; nothing to merge");
  }
  return r;
}

// Per host: its line in "fleet.hosts" and, when it has a result, in
// "client.hosts"; whether the merged result is partial and why.
struct HostEntries {
  results::ResultFleet fleet;
  std::vector<results::ResultClientHost> client_hosts;
  std::string abort_message;
  std::string stop_reason = "completed";
};

HostEntries DescribeHosts(const std::vector<ClientHostResult>& hosts, const ReadDocs& read) {
  HostEntries out;
  size_t next_doc = 0;
  for (const ClientHostResult& h : hosts) {
    results::ResultFleetHost e{.label = h.label, .file = h.file};
    if (!h.doc) {
      out.fleet.partial = true;
      e.status = "failed";
      e.message = h.error;
      if (out.abort_message.empty()) out.abort_message = h.label + ": " + h.error;
      out.fleet.hosts.push_back(e);
      continue;
    }
    const ResultDoc& d = read.docs[next_doc++];
    e.status = d.complete ? "ok" : "incomplete";
    e.transactions = d.transactions.processed;
    e.tps = d.summary.tps;
    e.started_at = d.started_at;
    if (!d.complete) {
      out.fleet.partial = true;
      e.message = d.abort_message.value_or(d.stop_reason);
      if (out.abort_message.empty()) out.abort_message = h.label + ": " + *e.message;
      if (out.stop_reason == "completed") out.stop_reason = d.stop_reason;
    }
    out.fleet.hosts.push_back(e);
    out.client_hosts.push_back(
        results::ResultClientHost{.label = h.label,
                                  .cpu_user_s = d.client.cpu_user_s,
                                  .cpu_system_s = d.client.cpu_system_s,
                                  .cpu_us_per_transaction = d.client.cpu_us_per_transaction,
                                  .busy_fraction = d.client.busy_fraction,
                                  .bottleneck = d.client.busy_fraction >= 0.9,
                                  .max_rss_bytes = d.client.max_rss_bytes,
                                  .tps = d.summary.tps});
  }
  if (out.fleet.partial && out.stop_reason == "completed") out.stop_reason = "partial";
  return out;
}

// What the hosts' documents add up to (sums, maxima, the earliest start and
// the latest end, lag weighted by transactions).
struct Totals {
  double tps = 0, tps_conn = 0, cpu_user = 0, cpu_sys = 0, busy = 0, duration = 0, conn_ms = 0;
  double conn_total_ms = 0, start = 0, end = 0, lag_weighted = 0, lag_max = 0;
  int64_t clients = 0, threads = 0, aborted = 0, rss = 0, lean = 0, lag_n = 0;
  bool any_lag = false;
  std::string started_at, ended_at;
  results::ResultTransactions transactions;
};

Totals AddUp(const std::vector<ResultDoc>& docs) {
  Totals t;
  for (size_t i = 0; i < docs.size(); ++i) {
    const ResultDoc& d = docs[i];
    t.tps += d.summary.tps;
    t.tps_conn += d.summary.tps_including_connections;
    t.cpu_user += d.client.cpu_user_s;
    t.cpu_sys += d.client.cpu_system_s;
    t.busy = std::max(t.busy, d.client.busy_fraction);
    t.rss = std::max(t.rss, d.client.max_rss_bytes);
    t.lean += d.client.lean_protocol_connections;
    t.duration = std::max(t.duration, d.summary.duration_s);
    t.conn_ms = std::max(t.conn_ms, d.durations.initial_connection_ms);
    t.conn_total_ms += d.durations.connection_total_ms;
    t.clients += d.options.clients;
    t.threads += d.options.threads;
    t.aborted += d.aborted_clients;
    AddCounters(t.transactions, d.transactions);
    if (i == 0 || d.start_unix_s < t.start) {
      t.start = d.start_unix_s;
      t.started_at = d.started_at;
    }
    if (i == 0 || d.end_unix_s > t.end) {
      t.end = d.end_unix_s;
      t.ended_at = d.ended_at;
    }
    if (d.lag) {
      t.any_lag = true;
      t.lag_weighted += d.lag->avg_ms * static_cast<double>(d.transactions.processed);
      t.lag_n += d.transactions.processed;
      t.lag_max = std::max(t.lag_max, d.lag->max_ms);
    }
  }
  return t;
}

// The merged "tpcc" section (merge.h): `hosts` are the hosts with a
// document, in order.
Result<json> MergeTpcc(const std::vector<const ClientHostResult*>& hosts,
                       const std::vector<ResultDoc>& docs, const TpccServerCounts& server,
                       bool partial) {
  results::TpccSection out;
  if (partial) out.refused.push_back("a client host failed or did not complete its run");
  int64_t clients = 0, ended = 0;
  double nopm = 0, tpmc = 0, tpm = 0, cpu_weighted = 0;
  for (size_t i = 0; i < hosts.size(); ++i) {
    const std::string where = fmt::format("host {}: {}", hosts[i]->label, hosts[i]->file);
    auto it = hosts[i]->doc->find("tpcc");
    if (it == hosts[i]->doc->end() || it->is_null()) {
      return InvalidArgument(where +
                             ": no \"tpcc\" section; the client did not run pgrig tpcc run");
    }
    PGRIG_ASSIGN_OR_RETURN(const results::TpccSection t, results::ReadTpccSection(*it, where));
    if (i == 0) {
      out.warehouses = t.warehouses;
      out.procedures = t.procedures;
      out.spec_timing = t.spec_timing;
      out.warmup_s = t.warmup_s;
      for (const results::TpccType& x : t.types) {
        out.types.push_back(results::TpccType{.name = x.name});
        out.types.back().histogram.emplace();
      }
    }
    for (auto [key, mine, first] :
         {std::tuple{"warehouses", json(t.warehouses), json(out.warehouses)},
          std::tuple{"procedures", json(t.procedures), json(out.procedures)},
          std::tuple{"spec_timing", json(t.spec_timing), json(out.spec_timing)}}) {
      if (mine != first) {
        return InvalidArgument(fmt::format(
            "host {} ran with {} = {}, host {} with {}; the clients did not run the same "
            "benchmark",
            hosts[i]->label, key, mine.dump(), hosts[0]->label, first.dump()));
      }
    }
    clients += docs[i].options.clients;
    out.warmup_ended_early = out.warmup_ended_early || t.warmup_ended_early;
    for (const std::string& why : t.refused) out.refused.push_back(hosts[i]->label + ": " + why);
    nopm += t.nopm.value_or(0);
    tpmc += t.tpmc_like.value_or(0);
    tpm += t.tpm.value_or(0);
    out.window_s = std::max(out.window_s, t.window_s);
    out.new_orders.committed += t.new_orders.committed;
    out.new_orders.rolled_back += t.new_orders.rolled_back;
    if (t.types.size() != out.types.size()) {
      return InvalidArgument(where + ": tpcc.types differ from host " + hosts[0]->label + "'s");
    }
    int64_t host_ended = 0;
    for (size_t k = 0; k < t.types.size(); ++k) {
      const results::TpccType& x = t.types[k];
      results::TpccType& into = out.types[k];
      if (into.name != x.name) {
        return InvalidArgument(where + ": tpcc.types differ from host " + hosts[0]->label + "'s");
      }
      into.transactions += x.transactions;
      into.failures += x.failures;
      into.retries += x.retries;
      host_ended += x.transactions + x.failures;
      if (x.histogram) into.histogram->Add(*x.histogram);
    }
    ended += host_ended;
    cpu_weighted += t.client_cpu_us_per_transaction * static_cast<double>(host_ended);
  }

  int64_t deliveries = 0;
  for (results::TpccType& x : out.types) {
    x.latency_ms = results::TpccLatencyFromHistogram(*x.histogram);
    if (x.name == tpcc::TxnName(tpcc::TxnType::kDelivery)) deliveries = x.transactions;
  }

  // The server's side: every New-Order the clients counted committed, and
  // at most one more per client (committed as its connection ended).
  out.new_orders.database = server.new_orders;
  if (server.new_orders) {
    const int64_t ahead = *server.new_orders - out.new_orders.committed;
    out.new_orders.agree = ahead >= 0 && ahead <= clients;
    if (!*out.new_orders.agree) {
      out.refused.push_back(fmt::format(
          "the clients counted {} committed New-Orders, the database {} (it may be ahead by at "
          "most one per client, never behind)",
          out.new_orders.committed, *server.new_orders));
    }
  }
  out.refused.insert(out.refused.end(), server.problems.begin(), server.problems.end());
  if (server.new_orders && server.undelivered_before && server.undelivered_after) {
    out.delivery = tpcc::SkippedDeliveries(deliveries, *server.undelivered_before,
                                           *server.undelivered_after, *server.new_orders);
  }
  if (out.refused.empty()) {
    out.nopm = nopm;
    out.tpmc_like = tpmc;
    out.tpm = tpm;
  }
  out.run_constants.reset();  // each client drew its own
  out.fleet_client = false;
  out.fleet_clients = static_cast<int64_t>(hosts.size());
  out.client_cpu_us_per_transaction = ended > 0 ? cpu_weighted / static_cast<double>(ended) : 0.0;
  out.conditions = server.conditions;
  out.consistent = server.consistent;
  return results::TpccSectionJson(out);
}

}  // namespace

Result<json> MergeClientResults(const std::vector<ClientHostResult>& hosts,
                                const MergeOptions& options) {
  PGRIG_ASSIGN_OR_RETURN(ReadDocs read, ReadHostDocs(hosts));
  HostEntries entries = DescribeHosts(hosts, read);
  const Totals t = AddUp(read.docs);
  // The merged run's -c and -j are ints, as each host's are.
  if (t.clients > std::numeric_limits<int>::max() || t.threads > std::numeric_limits<int>::max()) {
    return InvalidArgument(fmt::format(
        "host {}: the hosts' clients ({}) or threads ({}) add up to more than a run can have",
        read.with_doc.back()->label, t.clients, t.threads));
  }
  const stats::Histogram& merged = read.merged;
  const int64_t ended = t.transactions.processed + t.transactions.failed;
  auto per_txn = [&](double cpu_s) {
    return ended > 0 ? cpu_s * 1e6 / static_cast<double>(ended) : 0.0;
  };
  std::vector<const ResultDoc*> docs;
  for (const ResultDoc& d : read.docs) docs.push_back(&d);

  ResultDoc out = read.docs[0];
  out.tool_version = options.tool_version;
  out.command = "fleet";
  out.complete = !entries.fleet.partial;
  out.stop_reason = entries.stop_reason;
  out.abort_message.reset();
  if (!entries.abort_message.empty()) out.abort_message = entries.abort_message;
  out.aborted_clients = t.aborted;
  out.command_line = options.command_line;
  out.started_at = t.started_at;
  out.ended_at = t.ended_at;
  out.start_unix_s = t.start;
  out.end_unix_s = t.end;
  out.options.clients = static_cast<int>(t.clients);
  out.options.threads = static_cast<int>(t.threads);
  out.summary = results::ResultSummary{
      .tps = t.tps,
      .tps_including_connections = t.tps_conn,
      .latency_ms_avg = merged.count() > 0 ? merged.mean() / 1e6 : 0.0,
      .latency_ms_p99 =
          merged.count() > 0 ? static_cast<double>(merged.ValueAtPercentile(99)) / 1e6 : 0.0,
      .transactions = t.transactions.processed,
      .failed_transactions = t.transactions.failed,
      .duration_s = t.duration,
      .client_cpu_us_per_transaction = per_txn(t.cpu_user + t.cpu_sys),
      .server_cpu_us_per_transaction = std::nullopt};
  // Each client measured the server's CPU over its own window (if the server
  // was on its machine at all): no sum of those is the fleet's figure.
  out.server_cpu.reset();
  out.server_cpu_unavailable = "not measured for the merged results of several client hosts";
  out.durations = results::ResultDurations{.benchmark_s = t.duration,
                                           .initial_connection_ms = t.conn_ms,
                                           .connection_total_ms = t.conn_total_ms};
  out.transactions = t.transactions;
  out.latency = merged;
  out.lag.reset();
  if (t.any_lag) {
    out.lag = results::ResultLag{
        .avg_ms = t.lag_n > 0 ? t.lag_weighted / static_cast<double>(t.lag_n) : 0.0,
        .max_ms = t.lag_max};
  }
  out.client = results::ResultClient{.cpu_user_s = t.cpu_user,
                                     .cpu_system_s = t.cpu_sys,
                                     .cpu_us_per_transaction = per_txn(t.cpu_user + t.cpu_sys),
                                     .cpu_user_us_per_transaction = per_txn(t.cpu_user),
                                     .cpu_system_us_per_transaction = per_txn(t.cpu_sys),
                                     .busy_fraction = t.busy,
                                     .bottleneck = t.busy >= 0.9,
                                     .max_rss_bytes = t.rss,
                                     .io = read.docs[0].client.io,
                                     .lean_protocol_connections = t.lean,
                                     .hosts = std::move(entries.client_hosts)};
  out.scripts = MergeScripts(docs);
  out.series = MergeSeries(docs);
  out.facts = options.facts;
  out.observation = options.observation;
  out.bottleneck = options.bottleneck;
  const bool partial = entries.fleet.partial;
  out.fleet = std::move(entries.fleet);
  json doc = results::ResultDocToJson(out);
  if (options.tpcc) {
    PGRIG_ASSIGN_OR_RETURN(doc["tpcc"],
                           MergeTpcc(read.with_doc, read.docs, *options.tpcc, partial));
  }
  return doc;
}

}  // namespace pgrig::fleet
