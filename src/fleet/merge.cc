#include "fleet/merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "results/histogram_json.h"
#include "results/result_json.h"
#include "results/schemas.h"

namespace pgrig::fleet {
namespace {

using nlohmann::json;

const json* At(const json& j, std::initializer_list<const char*> path) {
  const json* p = &j;
  for (const char* k : path) {
    if (!p->is_object() || !p->contains(k)) return nullptr;
    p = &(*p)[k];
  }
  return p;
}

int64_t Int(const json& j, std::initializer_list<const char*> path) {
  const json* p = At(j, path);
  return p != nullptr && p->is_number() ? p->get<int64_t>() : 0;
}

double Num(const json& j, std::initializer_list<const char*> path) {
  const json* p = At(j, path);
  return p != nullptr && p->is_number() ? p->get<double>() : 0.0;
}

// Adds the integer fields of `from` into `into` (an object of counters).
void AddCounters(json& into, const json& from) {
  if (!from.is_object()) return;
  for (const auto& [k, v] : from.items()) {
    if (v.is_number_integer()) into[k] = into.value(k, int64_t{0}) + v.get<int64_t>();
  }
}

// The merged "series": intervals added by index.
json MergeSeries(const std::vector<const json*>& docs) {
  json out = json::array();
  double interval_s = 0;
  for (const json* d : docs) {
    interval_s = std::max(interval_s, Num(*d, {"series", "interval_s"}));
    const json* iv = At(*d, {"series", "intervals"});
    if (iv == nullptr || !iv->is_array()) continue;
    for (size_t k = 0; k < iv->size(); ++k) {
      const json& x = (*iv)[k];
      if (out.size() <= k) {
        out.push_back(json{{"end_s", 0.0},
                           {"tps", 0.0},
                           {"transactions", 0},
                           {"failed", 0},
                           {"serialization_failures", 0},
                           {"deadlock_failures", 0},
                           {"skipped", 0},
                           {"retried", 0},
                           {"retries", 0},
                           {"latency_ms_avg", 0.0},
                           {"latency_ms_stddev", nullptr},
                           {"latency_ms_min", 0.0},
                           {"latency_ms_max", 0.0},
                           {"lag_ms_avg", 0.0},
                           {"lag_ms_max", 0.0}});
      }
      json& m = out[k];
      const int64_t before = m["transactions"].get<int64_t>();
      const int64_t n = Int(x, {"transactions"});
      for (const char* c : {"transactions", "failed", "serialization_failures", "deadlock_failures",
                            "skipped", "retried", "retries"}) {
        m[c] = m[c].get<int64_t>() + Int(x, {c});
      }
      m["end_s"] = std::max(m["end_s"].get<double>(), Num(x, {"end_s"}));
      m["tps"] = m["tps"].get<double>() + Num(x, {"tps"});
      if (n > 0) {
        const double w = static_cast<double>(before) / static_cast<double>(before + n);
        for (const char* c : {"latency_ms_avg", "lag_ms_avg"}) {
          m[c] = m[c].get<double>() * w + Num(x, {c}) * (1 - w);
        }
        const double lo = Num(x, {"latency_ms_min"});
        m["latency_ms_min"] = before == 0 ? lo : std::min(m["latency_ms_min"].get<double>(), lo);
        for (const char* c : {"latency_ms_max", "lag_ms_max"}) {
          m[c] = std::max(m[c].get<double>(), Num(x, {c}));
        }
      }
    }
  }
  return json{{"interval_s", interval_s},
              {"intervals", out},
              {"merged", "intervals added by index; each host's series starts at its own start"}};
}

// The merged "scripts": per script (by index), counts and tps added, each
// command's executions, failures and retries added and its mean weighted.
json MergeScripts(const std::vector<const json*>& docs) {
  json out = (*docs[0]).value("scripts", json::array());
  for (json& s : out) {
    for (const char* c : {"transactions", "failed", "skipped", "retried"}) {
      if (s.contains(c)) s[c] = 0;
    }
    if (s.contains("tps")) s["tps"] = 0.0;
    for (json& c : s["commands"]) {
      if (c.contains("executions")) {
        c["executions"] = 0;
        c["latency_ms_avg"] = 0.0;
        c["failures"] = 0;
        c["retries"] = 0;
      }
    }
  }
  for (const json* d : docs) {
    const json* ss = At(*d, {"scripts"});
    if (ss == nullptr || !ss->is_array()) continue;
    for (size_t i = 0; i < ss->size() && i < out.size(); ++i) {
      const json& from = (*ss)[i];
      json& into = out[i];
      for (const char* c : {"transactions", "failed", "skipped", "retried"}) {
        if (into.contains(c)) into[c] = into[c].get<int64_t>() + Int(from, {c});
      }
      if (into.contains("tps")) into["tps"] = into["tps"].get<double>() + Num(from, {"tps"});
      const json* fc = At(from, {"commands"});
      if (fc == nullptr || !fc->is_array()) continue;
      for (size_t j = 0; j < fc->size() && j < into["commands"].size(); ++j) {
        json& c = into["commands"][j];
        const json& f = (*fc)[j];
        if (!c.contains("executions")) continue;
        const int64_t before = c["executions"].get<int64_t>();
        const int64_t n = Int(f, {"executions"});
        if (before + n > 0) {
          c["latency_ms_avg"] = (c["latency_ms_avg"].get<double>() * static_cast<double>(before) +
                                 Num(f, {"latency_ms_avg"}) * static_cast<double>(n)) /
                                static_cast<double>(before + n);
        }
        c["executions"] = before + n;
        c["failures"] = c["failures"].get<int64_t>() + Int(f, {"failures"});
        c["retries"] = c["retries"].get<int64_t>() + Int(f, {"retries"});
      }
    }
  }
  return out;
}

// What every client must have run identically.
Status CheckSameRun(const json& first, const std::string& first_label, const json& d,
                    const std::string& label) {
  for (const char* k : {"duration_s", "transactions_per_client", "query_mode", "scale"}) {
    const json* a = At(first, {"options", k});
    const json* b = At(d, {"options", k});
    if ((a == nullptr) != (b == nullptr) || (a != nullptr && *a != *b)) {
      return InvalidArgument(
          fmt::format("host {} ran with options.{} = {}, host {} with {}; the "
                      "clients did not run the same benchmark",
                      label, k, b ? b->dump() : "none", first_label, a ? a->dump() : "none"));
    }
  }
  return Status::Ok();
}

}  // namespace

namespace {

// The hosts' result documents that can be summed, checked to be of one run,
// and their histograms added.
struct ReadDocs {
  std::vector<const json*> docs;
  std::vector<const ClientHostResult*> with_doc;
  stats::Histogram merged;
};

Result<ReadDocs> ReadHostDocs(const std::vector<ClientHostResult>& hosts) {
  ReadDocs r;
  for (const ClientHostResult& h : hosts) {
    if (!h.doc) continue;
    const json& d = *h.doc;
    PGRIG_RETURN_IF_ERROR(results::CheckSchema(d, results::kResultSchema,
                                               fmt::format("host {}: {}", h.label, h.file)));
    const json* hj = At(d, {"histogram"});
    if (hj == nullptr) {
      return InvalidArgument(fmt::format("host {}: {} has no histogram", h.label, h.file));
    }
    auto hist = results::HistogramFromJson(*hj, fmt::format("host {}: {}", h.label, h.file));
    if (!hist.ok()) return hist.status();
    if (!r.docs.empty()) {
      PGRIG_RETURN_IF_ERROR(CheckSameRun(*r.docs[0], r.with_doc[0]->label, d, h.label));
    }
    r.merged.Add(*hist);
    r.docs.push_back(&d);
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
  json fleet_hosts = json::array();
  json client_hosts = json::array();
  bool partial = false;
  std::string abort_message;
  std::string stop_reason = "completed";
};

HostEntries DescribeHosts(const std::vector<ClientHostResult>& hosts) {
  HostEntries out;
  for (const ClientHostResult& h : hosts) {
    json e{{"label", h.label}, {"file", h.file}};
    if (!h.doc) {
      out.partial = true;
      e["status"] = "failed";
      e["message"] = h.error;
      if (out.abort_message.empty()) out.abort_message = h.label + ": " + h.error;
      out.fleet_hosts.push_back(e);
      continue;
    }
    const json& d = *h.doc;
    const bool complete = d.value("complete", false);
    e["status"] = complete ? "ok" : "incomplete";
    e["transactions"] = Int(d, {"transactions", "processed"});
    e["tps"] = Num(d, {"summary", "tps"});
    e["started_at"] = d.value("started_at", std::string());
    if (!complete) {
      out.partial = true;
      const json* am = At(d, {"abort_message"});
      e["message"] = am != nullptr && am->is_string() ? am->get<std::string>()
                                                      : d.value("stop_reason", std::string("?"));
      if (out.abort_message.empty()) {
        out.abort_message = h.label + ": " + e["message"].get<std::string>();
      }
      if (out.stop_reason == "completed") {
        out.stop_reason = d.value("stop_reason", std::string("aborted"));
      }
    }
    out.fleet_hosts.push_back(e);
    out.client_hosts.push_back(
        json{{"label", h.label},
             {"cpu_user_s", Num(d, {"client", "cpu_user_s"})},
             {"cpu_system_s", Num(d, {"client", "cpu_system_s"})},
             {"cpu_us_per_transaction", Num(d, {"client", "cpu_us_per_transaction"})},
             {"busy_fraction", Num(d, {"client", "busy_fraction"})},
             {"bottleneck", Num(d, {"client", "busy_fraction"}) >= 0.9},
             {"max_rss_bytes", Int(d, {"client", "max_rss_bytes"})},
             {"tps", Num(d, {"summary", "tps"})}});
  }
  if (out.partial && out.stop_reason == "completed") out.stop_reason = "partial";
  return out;
}

}  // namespace

Result<json> MergeClientResults(const std::vector<ClientHostResult>& hosts,
                                const MergeOptions& options) {
  PGRIG_ASSIGN_OR_RETURN(ReadDocs read, ReadHostDocs(hosts));
  const std::vector<const json*>& docs = read.docs;
  const stats::Histogram& merged = read.merged;
  HostEntries entries = DescribeHosts(hosts);
  const bool partial = entries.partial;
  const std::string& abort_message = entries.abort_message;
  const std::string& stop_reason = entries.stop_reason;

  const json& first = *docs[0];
  json out = first;
  double tps = 0, tps_conn = 0, cpu_user = 0, cpu_sys = 0, busy = 0, duration = 0, conn_ms = 0;
  double conn_total_ms = 0, start = 0, end = 0, lag_weighted = 0, lag_max = 0;
  int64_t clients = 0, threads = 0, aborted = 0, rss = 0, lean = 0, late_lag_n = 0;
  bool any_lag = false;
  std::string started_at, ended_at;
  json transactions = json::object();
  for (size_t i = 0; i < docs.size(); ++i) {
    const json& d = *docs[i];
    tps += Num(d, {"summary", "tps"});
    tps_conn += Num(d, {"summary", "tps_including_connections"});
    cpu_user += Num(d, {"client", "cpu_user_s"});
    cpu_sys += Num(d, {"client", "cpu_system_s"});
    busy = std::max(busy, Num(d, {"client", "busy_fraction"}));
    rss = std::max(rss, Int(d, {"client", "max_rss_bytes"}));
    lean += Int(d, {"client", "lean_protocol_connections"});
    duration = std::max(duration, Num(d, {"summary", "duration_s"}));
    conn_ms = std::max(conn_ms, Num(d, {"durations", "initial_connection_ms"}));
    conn_total_ms += Num(d, {"durations", "connection_total_ms"});
    clients += Int(d, {"options", "clients"});
    threads += Int(d, {"options", "threads"});
    aborted += Int(d, {"aborted_clients"});
    AddCounters(transactions, d.value("transactions", json::object()));
    const double s = Num(d, {"start_unix_s"});
    const double e = Num(d, {"end_unix_s"});
    if (i == 0 || s < start) {
      start = s;
      started_at = d.value("started_at", std::string());
    }
    if (i == 0 || e > end) {
      end = e;
      ended_at = d.value("ended_at", std::string());
    }
    if (const json* lag = At(d, {"lag_ms"}); lag != nullptr && lag->is_object()) {
      any_lag = true;
      const int64_t n = Int(d, {"transactions", "processed"});
      lag_weighted += Num(*lag, {"avg"}) * static_cast<double>(n);
      late_lag_n += n;
      lag_max = std::max(lag_max, Num(*lag, {"max"}));
    }
  }
  const int64_t processed = transactions.value("processed", int64_t{0});
  const int64_t failed = transactions.value("failed", int64_t{0});
  const int64_t ended = processed + failed;
  auto per_txn = [&](double cpu_s) {
    return ended > 0 ? cpu_s * 1e6 / static_cast<double>(ended) : 0.0;
  };

  out["tool"] = json{{"name", "pgrig"}, {"version", options.tool_version}, {"command", "fleet"}};
  out["complete"] = !partial;
  out["stop_reason"] = stop_reason;
  out["abort_message"] = abort_message.empty() ? json(nullptr) : json(abort_message);
  out["aborted_clients"] = aborted;
  out["command_line"] = options.command_line;
  out["started_at"] = started_at;
  out["ended_at"] = ended_at;
  out["start_unix_s"] = start;
  out["end_unix_s"] = end;
  out["options"]["clients"] = clients;
  out["options"]["threads"] = threads;
  out["summary"] =
      json{{"tps", tps},
           {"tps_including_connections", tps_conn},
           {"latency_ms_avg", merged.count() > 0 ? merged.mean() / 1e6 : 0.0},
           {"latency_ms_p99",
            merged.count() > 0 ? static_cast<double>(merged.ValueAtPercentile(99)) / 1e6 : 0.0},
           {"transactions", processed},
           {"failed_transactions", failed},
           {"duration_s", duration},
           {"client_cpu_us_per_transaction", per_txn(cpu_user + cpu_sys)},
           {"server_cpu_us_per_transaction", nullptr}};
  // Each client measured the server's CPU over its own window (if the server
  // was on its machine at all): no sum of those is the fleet's figure.
  out["server_cpu"] = nullptr;
  out["server_cpu_unavailable"] = "not measured for the merged results of several client hosts";
  out["durations"] = json{{"benchmark_s", duration},
                          {"initial_connection_ms", conn_ms},
                          {"connection_total_ms", conn_total_ms}};
  out["transactions"] = transactions;
  out["latency_ms"] = results::LatencyMsJson(merged);
  out["lag_ms"] =
      any_lag ? json{{"avg", late_lag_n > 0 ? lag_weighted / static_cast<double>(late_lag_n) : 0.0},
                     {"max", lag_max}}
              : json(nullptr);
  out["histogram"] = results::HistogramJson(merged);
  out["client"] = json{{"cpu_user_s", cpu_user},
                       {"cpu_system_s", cpu_sys},
                       {"cpu_us_per_transaction", per_txn(cpu_user + cpu_sys)},
                       {"cpu_user_us_per_transaction", per_txn(cpu_user)},
                       {"cpu_system_us_per_transaction", per_txn(cpu_sys)},
                       {"busy_fraction", busy},
                       {"bottleneck", busy >= 0.9},
                       {"max_rss_bytes", rss},
                       {"io", first.contains("client") ? first["client"].value("io", "epoll")
                                                       : std::string("epoll")},
                       {"lean_protocol_connections", lean},
                       {"hosts", entries.client_hosts}};
  out["scripts"] = MergeScripts(docs);
  out["series"] = MergeSeries(docs);
  out["facts"] = options.facts;
  out["observation"] = options.observation;
  out["bottleneck"] = options.bottleneck;
  out["fleet"] = json{{"mode", "clients"}, {"partial", partial}, {"hosts", entries.fleet_hosts}};
  return out;
}

}  // namespace pgrig::fleet
