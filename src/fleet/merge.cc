#include "fleet/merge.h"

#include <fmt/format.h>

#include <algorithm>

#include "results/histogram_json.h"
#include "results/metrics.h"
#include "results/result_doc.h"
#include "tpcc/measure.h"
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

// A host's number at `key` of its tpcc section, 0 when absent or null.
double Number(const json& section, const char* key) {
  auto it = section.find(key);
  return it != section.end() && it->is_number() ? it->get<double>() : 0.0;
}

// The merged "tpcc" section (merge.h): `hosts` are the hosts with a
// document, in order.
Result<json> MergeTpcc(const std::vector<const ClientHostResult*>& hosts,
                       const std::vector<ResultDoc>& docs, const TpccServerCounts& server,
                       bool partial) {
  std::vector<std::string> refused;
  if (partial) refused.push_back("a client host failed or did not complete its run");
  const json* first = nullptr;
  int64_t clients = 0, committed = 0, rolled_back = 0, ended = 0;
  double nopm = 0, tpmc = 0, tpm = 0, window = 0, cpu_weighted = 0;
  bool warmup_early = false;
  // Per type, in the documents' order: counts summed, histograms added.
  struct Type {
    std::string name;
    int64_t transactions = 0, failures = 0, retries = 0;
    stats::Histogram latency;
  };
  std::vector<Type> types;
  for (size_t i = 0; i < hosts.size(); ++i) {
    const std::string where = fmt::format("host {}: {}", hosts[i]->label, hosts[i]->file);
    auto it = hosts[i]->doc->find("tpcc");
    if (it == hosts[i]->doc->end() || !it->is_object() || !it->contains("types") ||
        !(*it)["types"].is_object()) {
      return InvalidArgument(where +
                             ": no \"tpcc\" section; the client did not run pgrig tpcc run");
    }
    const json& t = *it;
    if (first == nullptr) {
      first = &t;
    } else {
      for (const char* key : {"warehouses", "procedures", "spec_timing"}) {
        if (t.value(key, json()) != first->value(key, json())) {
          return InvalidArgument(fmt::format(
              "host {} ran with {} = {}, host {} with {}; the clients did not run the same "
              "benchmark",
              hosts[i]->label, key, t.value(key, json()).dump(), hosts[0]->label,
              first->value(key, json()).dump()));
        }
      }
    }
    clients += docs[i].options.clients;
    warmup_early = warmup_early || t.value("warmup_ended_early", false);
    if (t.contains("refused") && t["refused"].is_array()) {
      for (const json& why : t["refused"]) {
        if (why.is_string()) refused.push_back(hosts[i]->label + ": " + why.get<std::string>());
      }
    }
    nopm += Number(t, results::kMetricNopm);
    tpmc += Number(t, "tpmc_like");
    tpm += Number(t, "tpm");
    window = std::max(window, Number(t, "window_s"));
    if (t.contains("new_orders") && t["new_orders"].is_object()) {
      committed += static_cast<int64_t>(Number(t["new_orders"], "committed"));
      rolled_back += static_cast<int64_t>(Number(t["new_orders"], "rolled_back"));
    }
    int64_t host_ended = 0;
    size_t k = 0;
    for (const auto& [name, x] : t["types"].items()) {
      if (i == 0) types.push_back(Type{.name = name});
      if (k >= types.size() || types[k].name != name || !x.is_object()) {
        return InvalidArgument(where + ": tpcc.types differ from host " + hosts[0]->label + "'s");
      }
      Type& into = types[k++];
      const auto n = static_cast<int64_t>(Number(x, "transactions"));
      const auto f = static_cast<int64_t>(Number(x, "failures"));
      into.transactions += n;
      into.failures += f;
      into.retries += static_cast<int64_t>(Number(x, "retries"));
      host_ended += n + f;
      if (x.contains("histogram") && !x["histogram"].is_null()) {
        PGRIG_ASSIGN_OR_RETURN(stats::Histogram h,
                               results::HistogramFromJson(x["histogram"], where + " tpcc." + name));
        into.latency.Add(h);
      }
    }
    if (k != types.size()) {
      return InvalidArgument(where + ": tpcc.types differ from host " + hosts[0]->label + "'s");
    }
    ended += host_ended;
    cpu_weighted += Number(t, "client_cpu_us_per_transaction") * static_cast<double>(host_ended);
  }

  json types_json = json::object();
  int64_t deliveries = 0;
  for (const Type& x : types) {
    tpcc::TypeFigures f{
        .transactions = x.transactions, .failures = x.failures, .retries = x.retries};
    tpcc::SetPercentiles(x.latency, &f);
    if (x.name == tpcc::TxnName(tpcc::TxnType::kDelivery)) deliveries = x.transactions;
    types_json[x.name] = tpcc::TypeJson(f, &x.latency);
  }

  // The server's side: every New-Order the clients counted committed, and
  // at most one more per client (committed as its connection ended).
  bool agree = false;
  if (server.new_orders) {
    const int64_t ahead = *server.new_orders - committed;
    agree = ahead >= 0 && ahead <= clients;
    if (!agree) {
      refused.push_back(fmt::format(
          "the clients counted {} committed New-Orders, the database {} (it may be ahead by at "
          "most one per client, never behind)",
          committed, *server.new_orders));
    }
  }
  refused.insert(refused.end(), server.problems.begin(), server.problems.end());
  json delivery = nullptr;
  if (server.new_orders && server.undelivered_before && server.undelivered_after) {
    const tpcc::DeliverySkips d = tpcc::SkippedDeliveries(
        deliveries, *server.undelivered_before, *server.undelivered_after, *server.new_orders);
    delivery = {{"districts", d.districts},
                {"delivered", d.delivered},
                {"skipped", d.skipped},
                {"skipped_share", d.share}};
  }
  const bool ok = refused.empty();
  auto figure = [ok](double v) { return ok ? json(v) : json(nullptr); };
  return json{{"metric", results::kMetricNopm},
              {"warehouses", first->value("warehouses", json())},
              {"procedures", first->value("procedures", json())},
              {"spec_timing", first->value("spec_timing", json())},
              {"warmup_s", first->value("warmup_s", json())},
              {"warmup_ended_early", warmup_early},
              {"run_constants", nullptr},  // each client drew its own
              {"window_s", window},
              {results::kMetricNopm, figure(nopm)},
              {"tpmc_like", figure(tpmc)},
              {"tpm", figure(tpm)},
              {"fleet_client", false},
              {"fleet_clients", hosts.size()},
              {"new_orders",
               {{"committed", committed},
                {"rolled_back", rolled_back},
                {"database", server.new_orders ? json(*server.new_orders) : json(nullptr)},
                {"agree", server.new_orders ? json(agree) : json(nullptr)}}},
              {"types", types_json},
              {"delivery", delivery},
              {"client_cpu_us_per_transaction",
               ended > 0 ? cpu_weighted / static_cast<double>(ended) : 0.0},
              {"server_cpu_us_per_transaction", nullptr},
              {"checks", {{"warehouses", json::array()}, {"conditions", server.conditions}}},
              {"consistent", server.consistent},
              {"refused", refused}};
}

}  // namespace

Result<json> MergeClientResults(const std::vector<ClientHostResult>& hosts,
                                const MergeOptions& options) {
  PGRIG_ASSIGN_OR_RETURN(ReadDocs read, ReadHostDocs(hosts));
  HostEntries entries = DescribeHosts(hosts, read);
  const Totals t = AddUp(read.docs);
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
