#include "results/result_doc.h"

#include <fmt/format.h>

#include <cmath>
#include <utility>

#include "common/clock.h"
#include "results/histogram_json.h"
#include "results/json_read.h"
#include "results/schemas.h"

namespace pgrig::results {

namespace {

using json = nlohmann::json;

template <typename T>
json OrNull(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json OptionsJson(const ResultOptions& o) {
  json defines = json::object();
  for (const auto& [k, v] : o.defines) defines[k] = v;
  return json{{"clients", o.clients},
              {"threads", o.threads},
              {"transactions_per_client", OrNull(o.transactions_per_client)},
              {"duration_s", OrNull(o.duration_s)},
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
              {"defines", defines}};
}

json ClientJson(const ResultClient& c) {
  json out{{"cpu_user_s", c.cpu_user_s},
           {"cpu_system_s", c.cpu_system_s},
           {"cpu_us_per_transaction", c.cpu_us_per_transaction},
           {"cpu_user_us_per_transaction", c.cpu_user_us_per_transaction},
           {"cpu_system_us_per_transaction", c.cpu_system_us_per_transaction},
           {"busy_fraction", c.busy_fraction},
           {"bottleneck", c.bottleneck},
           {"max_rss_bytes", c.max_rss_bytes},
           {"io", c.io},
           {"lean_protocol_connections", c.lean_protocol_connections}};
  if (c.hosts) {
    json hosts = json::array();
    for (const ResultClientHost& h : *c.hosts) {
      hosts.push_back(json{{"label", h.label},
                           {"cpu_user_s", h.cpu_user_s},
                           {"cpu_system_s", h.cpu_system_s},
                           {"cpu_us_per_transaction", h.cpu_us_per_transaction},
                           {"busy_fraction", h.busy_fraction},
                           {"bottleneck", h.bottleneck},
                           {"max_rss_bytes", h.max_rss_bytes},
                           {"tps", h.tps}});
    }
    out["hosts"] = hosts;
  }
  return out;
}

json ScriptsJson(const std::vector<ResultScriptDoc>& scripts) {
  json out = json::array();
  for (const ResultScriptDoc& s : scripts) {
    json commands = json::array();
    for (const ResultCommand& c : s.commands) {
      json cj{{"line", c.line}};
      if (c.stats) {
        cj["executions"] = c.stats->executions;
        cj["latency_ms_avg"] = c.stats->latency_ms_avg;
        cj["failures"] = c.stats->failures;
        cj["retries"] = c.stats->retries;
      }
      commands.push_back(cj);
    }
    json sj{{"desc", s.desc},
            {"weight", s.weight},
            {"spec", s.spec},
            {"kind", s.kind},
            {"commands", commands}};
    if (s.totals) {
      sj["transactions"] = s.totals->transactions;
      sj["failed"] = s.totals->failed;
      sj["skipped"] = s.totals->skipped;
      sj["retried"] = s.totals->retried;
      sj["tps"] = s.totals->tps;
    }
    out.push_back(sj);
  }
  return out;
}

json SeriesJson(const ResultSeries& s) {
  json items = json::array();
  for (const ResultInterval& i : s.intervals) {
    items.push_back(json{{"end_s", i.end_s},
                         {"tps", i.tps},
                         {"transactions", i.transactions},
                         {"failed", i.failed},
                         {"serialization_failures", i.serialization_failures},
                         {"deadlock_failures", i.deadlock_failures},
                         {"skipped", i.skipped},
                         {"retried", i.retried},
                         {"retries", i.retries},
                         {"latency_ms_avg", i.latency_ms_avg},
                         {"latency_ms_stddev", OrNull(i.latency_ms_stddev)},
                         {"latency_ms_min", i.latency_ms_min},
                         {"latency_ms_max", i.latency_ms_max},
                         {"lag_ms_avg", i.lag_ms_avg},
                         {"lag_ms_max", i.lag_ms_max}});
  }
  json out{{"interval_s", s.interval_s}, {"intervals", items}};
  if (s.merged) out["merged"] = *s.merged;
  return out;
}

json LagJson(const std::optional<ResultLag>& lag) {
  if (!lag) return nullptr;
  if (lag->histogram && lag->histogram->count() > 0) return LatencyMsJson(*lag->histogram);
  return json{{"avg", lag->avg_ms}, {"max", lag->max_ms}};
}

json FleetJson(const ResultFleet& f) {
  json hosts = json::array();
  for (const ResultFleetHost& h : f.hosts) {
    json e{{"label", h.label}, {"file", h.file}, {"status", h.status}};
    if (h.transactions) e["transactions"] = *h.transactions;
    if (h.tps) e["tps"] = *h.tps;
    if (h.started_at) e["started_at"] = *h.started_at;
    if (h.message) e["message"] = *h.message;
    hosts.push_back(e);
  }
  return json{{"mode", f.mode}, {"partial", f.partial}, {"hosts", hosts}};
}

}  // namespace

// Whole on purpose: one document top to bottom in the order of
// docs/results-format.md, each key once.
json ResultDocToJson(const ResultDoc& d) {
  json server_cpu = nullptr;
  if (d.server_cpu) {
    server_cpu = {{"cpu_user_s", d.server_cpu->cpu_user_s},
                  {"cpu_system_s", d.server_cpu->cpu_system_s},
                  {"cpu_s", d.server_cpu->cpu_s},
                  {"cpu_us_per_transaction", OrNull(d.server_cpu->cpu_us_per_transaction)},
                  {"settled", d.server_cpu->settled}};
  }
  const ResultSummary& s = d.summary;
  const ResultTransactions& t = d.transactions;
  json doc{
      {"schema", kResultSchema},
      {"tool", {{"name", "pgrig"}, {"version", d.tool_version}, {"command", d.command}}},
      {"complete", d.complete},
      {"stop_reason", d.stop_reason},
      {"abort_message", OrNull(d.abort_message)},
      {"aborted_clients", d.aborted_clients},
      {"command_line", d.command_line},
      {"started_at", d.started_at},
      {"ended_at", d.ended_at},
      {"start_unix_s", d.start_unix_s},
      {"end_unix_s", d.end_unix_s},
      {"server",
       {{"version", d.server.version},
        {"version_num", d.server.version_num},
        {"target", d.server.target},
        {"embedded", d.server.embedded}}},
      {"options", OptionsJson(d.options)},
      {"summary",
       {{"tps", s.tps},
        {"tps_including_connections", s.tps_including_connections},
        {"latency_ms_avg", s.latency_ms_avg},
        {"latency_ms_p99", s.latency_ms_p99},
        {"transactions", s.transactions},
        {"failed_transactions", s.failed_transactions},
        {"duration_s", s.duration_s},
        {"client_cpu_us_per_transaction", s.client_cpu_us_per_transaction},
        {"server_cpu_us_per_transaction", OrNull(s.server_cpu_us_per_transaction)}}},
      {"durations",
       {{"benchmark_s", d.durations.benchmark_s},
        {"initial_connection_ms", d.durations.initial_connection_ms},
        {"connection_total_ms", d.durations.connection_total_ms}}},
      {"transactions",
       {{"processed", t.processed},
        {"failed", t.failed},
        {"serialization_failures", t.serialization_failures},
        {"deadlock_failures", t.deadlock_failures},
        {"skipped", t.skipped},
        {"retried", t.retried},
        {"retries", t.retries},
        {"above_latency_limit", t.above_latency_limit}}},
      {"latency_ms", LatencyMsJson(d.latency)},
      {"lag_ms", LagJson(d.lag)},
      {"histogram", HistogramJson(d.latency, d.histogram_form)},
      {"client", ClientJson(d.client)},
      {"server_cpu", server_cpu},
      {"server_cpu_unavailable", OrNull(d.server_cpu_unavailable)},
      {"scripts", ScriptsJson(d.scripts)},
      {"series", SeriesJson(d.series)},
      {"facts", d.facts},
  };
  if (d.server_profile) doc["server_profile"] = ServerProfileToJson(*d.server_profile);
  if (d.fleet) {
    doc["fleet"] = FleetJson(*d.fleet);
    doc["observation"] = d.observation;
    doc["bottleneck"] = d.bottleneck;
  }
  return doc;
}

std::optional<OptionDifference> FirstRunDifference(const ResultOptions& a, const ResultOptions& b) {
  const std::pair<const char*, std::pair<json, json>> identity[] = {
      {"options.duration_s", {OrNull(a.duration_s), OrNull(b.duration_s)}},
      {"options.transactions_per_client",
       {OrNull(a.transactions_per_client), OrNull(b.transactions_per_client)}},
      {"options.query_mode", {script::QueryModeName(a.mode), script::QueryModeName(b.mode)}},
      {"options.scale", {a.scale, b.scale}}};
  for (const auto& [key, values] : identity) {
    if (values.first != values.second) {
      return OptionDifference{key, values.first.dump(), values.second.dump()};
    }
  }
  return std::nullopt;
}

namespace {

Status ReadOptions(const JsonFields& f, ResultOptions& o) {
  PGRIG_RETURN_IF_ERROR(f.Int("clients", o.clients));
  if (o.clients < 1) return f.Bad("clients", "a whole number of at least 1");
  PGRIG_RETURN_IF_ERROR(f.Int("threads", o.threads));
  if (o.threads < 1) return f.Bad("threads", "a whole number of at least 1");
  PGRIG_RETURN_IF_ERROR(f.OptInt("transactions_per_client", o.transactions_per_client));
  std::optional<int64_t> duration;
  PGRIG_RETURN_IF_ERROR(f.OptInt("duration_s", duration));
  if (duration) o.duration_s = static_cast<int>(*duration);
  std::string mode = script::QueryModeName(o.mode);
  PGRIG_RETURN_IF_ERROR(f.Str("query_mode", mode));
  std::optional<script::QueryMode> m = script::ParseQueryMode(mode);
  if (!m) return f.Bad("query_mode", "simple, extended or prepared");
  o.mode = *m;
  PGRIG_RETURN_IF_ERROR(f.Int("scale", o.scale));
  PGRIG_RETURN_IF_ERROR(f.Num("rate_tps", o.rate_tps));
  std::optional<double> limit_ms;
  PGRIG_RETURN_IF_ERROR(f.OptNum("latency_limit_ms", limit_ms));
  if (limit_ms) o.latency_limit_us = std::llround(*limit_ms * 1000);
  PGRIG_RETURN_IF_ERROR(f.Int("max_tries", o.max_tries));
  PGRIG_RETURN_IF_ERROR(f.Bool("connect_per_transaction", o.connect_per_transaction));
  PGRIG_RETURN_IF_ERROR(f.Bool("no_vacuum", o.no_vacuum));
  PGRIG_RETURN_IF_ERROR(f.Int("progress_s", o.progress_s));
  std::optional<std::string> seed;
  PGRIG_RETURN_IF_ERROR(f.OptStr("random_seed", seed));
  if (seed && *seed != "time") o.random_seed = *seed;
  return f.StringMap("defines", o.defines);
}

Status ReadSummary(const JsonFields& f, ResultSummary& s) {
  PGRIG_RETURN_IF_ERROR(f.Num("tps", s.tps));
  PGRIG_RETURN_IF_ERROR(f.Num("tps_including_connections", s.tps_including_connections));
  PGRIG_RETURN_IF_ERROR(f.Num("latency_ms_avg", s.latency_ms_avg));
  PGRIG_RETURN_IF_ERROR(f.Num("latency_ms_p99", s.latency_ms_p99));
  PGRIG_RETURN_IF_ERROR(f.Count("transactions", s.transactions));
  PGRIG_RETURN_IF_ERROR(f.Count("failed_transactions", s.failed_transactions));
  PGRIG_RETURN_IF_ERROR(f.Num("duration_s", s.duration_s));
  PGRIG_RETURN_IF_ERROR(f.Num("client_cpu_us_per_transaction", s.client_cpu_us_per_transaction));
  return f.OptNum("server_cpu_us_per_transaction", s.server_cpu_us_per_transaction);
}

Status ReadTransactions(const JsonFields& f, ResultTransactions& t) {
  PGRIG_RETURN_IF_ERROR(f.Count("processed", t.processed));
  PGRIG_RETURN_IF_ERROR(f.Count("failed", t.failed));
  PGRIG_RETURN_IF_ERROR(f.Count("serialization_failures", t.serialization_failures));
  PGRIG_RETURN_IF_ERROR(f.Count("deadlock_failures", t.deadlock_failures));
  PGRIG_RETURN_IF_ERROR(f.Count("skipped", t.skipped));
  PGRIG_RETURN_IF_ERROR(f.Count("retried", t.retried));
  PGRIG_RETURN_IF_ERROR(f.Count("retries", t.retries));
  return f.Count("above_latency_limit", t.above_latency_limit);
}

Status ReadClient(const JsonFields& f, ResultClient& c) {
  PGRIG_RETURN_IF_ERROR(f.Num("cpu_user_s", c.cpu_user_s));
  PGRIG_RETURN_IF_ERROR(f.Num("cpu_system_s", c.cpu_system_s));
  PGRIG_RETURN_IF_ERROR(f.Num("cpu_us_per_transaction", c.cpu_us_per_transaction));
  PGRIG_RETURN_IF_ERROR(f.Num("cpu_user_us_per_transaction", c.cpu_user_us_per_transaction));
  PGRIG_RETURN_IF_ERROR(f.Num("cpu_system_us_per_transaction", c.cpu_system_us_per_transaction));
  PGRIG_RETURN_IF_ERROR(f.Num("busy_fraction", c.busy_fraction));
  PGRIG_RETURN_IF_ERROR(f.Bool("bottleneck", c.bottleneck));
  PGRIG_RETURN_IF_ERROR(f.Count("max_rss_bytes", c.max_rss_bytes));
  PGRIG_RETURN_IF_ERROR(f.Str("io", c.io));
  return f.Count("lean_protocol_connections", c.lean_protocol_connections);
}

Result<ResultScriptDoc> ReadScript(const json& j, const std::string& where) {
  if (!j.is_object()) return InvalidArgument(where + ": not an object");
  const JsonFields f(j, where);
  ResultScriptDoc s;
  PGRIG_RETURN_IF_ERROR(f.Str("desc", s.desc));
  PGRIG_RETURN_IF_ERROR(f.Int("weight", s.weight));
  PGRIG_RETURN_IF_ERROR(f.Str("spec", s.spec));
  PGRIG_RETURN_IF_ERROR(f.Str("kind", s.kind));
  if (f.Get("transactions") != nullptr) {
    ResultScriptTotals& t = s.totals.emplace();
    PGRIG_RETURN_IF_ERROR(f.Count("transactions", t.transactions));
    PGRIG_RETURN_IF_ERROR(f.Count("failed", t.failed));
    PGRIG_RETURN_IF_ERROR(f.Count("skipped", t.skipped));
    PGRIG_RETURN_IF_ERROR(f.Count("retried", t.retried));
    PGRIG_RETURN_IF_ERROR(f.Num("tps", t.tps));
  }
  PGRIG_ASSIGN_OR_RETURN(const json* commands, f.Array("commands"));
  if (commands == nullptr) return s;
  for (size_t i = 0; i < commands->size(); ++i) {
    const json& cj = (*commands)[i];
    const std::string cw = fmt::format("{}: commands[{}]", where, i);
    if (!cj.is_object()) return InvalidArgument(cw + ": not an object");
    const JsonFields c(cj, cw);
    ResultCommand cmd;
    PGRIG_RETURN_IF_ERROR(c.Str("line", cmd.line));
    if (c.Get("executions") != nullptr) {
      ResultCommandStats& st = cmd.stats.emplace();
      PGRIG_RETURN_IF_ERROR(c.Count("executions", st.executions));
      PGRIG_RETURN_IF_ERROR(c.Num("latency_ms_avg", st.latency_ms_avg));
      PGRIG_RETURN_IF_ERROR(c.Count("failures", st.failures));
      PGRIG_RETURN_IF_ERROR(c.Count("retries", st.retries));
    }
    s.commands.push_back(std::move(cmd));
  }
  return s;
}

Result<ResultInterval> ReadInterval(const json& j, const std::string& where) {
  if (!j.is_object()) return InvalidArgument(where + ": not an object");
  const JsonFields f(j, where);
  ResultInterval i;
  PGRIG_RETURN_IF_ERROR(f.Num("end_s", i.end_s));
  PGRIG_RETURN_IF_ERROR(f.Num("tps", i.tps));
  PGRIG_RETURN_IF_ERROR(f.Count("transactions", i.transactions));
  PGRIG_RETURN_IF_ERROR(f.Count("failed", i.failed));
  PGRIG_RETURN_IF_ERROR(f.Count("serialization_failures", i.serialization_failures));
  PGRIG_RETURN_IF_ERROR(f.Count("deadlock_failures", i.deadlock_failures));
  PGRIG_RETURN_IF_ERROR(f.Count("skipped", i.skipped));
  PGRIG_RETURN_IF_ERROR(f.Count("retried", i.retried));
  PGRIG_RETURN_IF_ERROR(f.Count("retries", i.retries));
  PGRIG_RETURN_IF_ERROR(f.Num("latency_ms_avg", i.latency_ms_avg));
  PGRIG_RETURN_IF_ERROR(f.OptNum("latency_ms_stddev", i.latency_ms_stddev));
  PGRIG_RETURN_IF_ERROR(f.Num("latency_ms_min", i.latency_ms_min));
  PGRIG_RETURN_IF_ERROR(f.Num("latency_ms_max", i.latency_ms_max));
  PGRIG_RETURN_IF_ERROR(f.Num("lag_ms_avg", i.lag_ms_avg));
  PGRIG_RETURN_IF_ERROR(f.Num("lag_ms_max", i.lag_ms_max));
  return i;
}

// The object under `key`, read by `read` when present.
template <typename ReadFn>
Status Nested(const JsonFields& f, const char* key, ReadFn read) {
  PGRIG_ASSIGN_OR_RETURN(const json* obj, f.Object(key));
  if (obj == nullptr) return Status::Ok();
  return read(JsonFields(*obj, fmt::format("{}: {}", f.where(), key)));
}

Status ReadServer(const JsonFields& s, ResultServer& out) {
  PGRIG_RETURN_IF_ERROR(s.Str("version", out.version));
  PGRIG_RETURN_IF_ERROR(s.Int("version_num", out.version_num));
  PGRIG_RETURN_IF_ERROR(s.Str("target", out.target));
  return s.Bool("embedded", out.embedded);
}

Status ReadDurations(const JsonFields& s, ResultDurations& out) {
  PGRIG_RETURN_IF_ERROR(s.Num("benchmark_s", out.benchmark_s));
  PGRIG_RETURN_IF_ERROR(s.Num("initial_connection_ms", out.initial_connection_ms));
  return s.Num("connection_total_ms", out.connection_total_ms);
}

Status ReadLag(const JsonFields& l, std::optional<ResultLag>& out) {
  ResultLag& lag = out.emplace();
  PGRIG_RETURN_IF_ERROR(l.Num("avg", lag.avg_ms));
  return l.Num("max", lag.max_ms);
}

Status ReadServerCpu(const JsonFields& c, std::optional<ResultServerCpu>& out) {
  ResultServerCpu& cpu = out.emplace();
  PGRIG_RETURN_IF_ERROR(c.Num("cpu_user_s", cpu.cpu_user_s));
  PGRIG_RETURN_IF_ERROR(c.Num("cpu_system_s", cpu.cpu_system_s));
  PGRIG_RETURN_IF_ERROR(c.Num("cpu_s", cpu.cpu_s));
  PGRIG_RETURN_IF_ERROR(c.OptNum("cpu_us_per_transaction", cpu.cpu_us_per_transaction));
  return c.Bool("settled", cpu.settled);
}

Status ReadSeries(const JsonFields& s, ResultSeries& out) {
  PGRIG_RETURN_IF_ERROR(s.Num("interval_s", out.interval_s));
  PGRIG_RETURN_IF_ERROR(s.OptStr("merged", out.merged));
  PGRIG_ASSIGN_OR_RETURN(const json* items, s.Array("intervals"));
  if (items == nullptr) return Status::Ok();
  for (size_t i = 0; i < items->size(); ++i) {
    PGRIG_ASSIGN_OR_RETURN(
        ResultInterval iv,
        ReadInterval((*items)[i], fmt::format("{}: intervals[{}]", s.where(), i)));
    out.intervals.push_back(iv);
  }
  return Status::Ok();
}

Status ReadTool(const JsonFields& t, ResultDoc& d) {
  PGRIG_RETURN_IF_ERROR(t.Str("version", d.tool_version));
  return t.Str("command", d.command);
}

Status ReadParts(const JsonFields& f, ResultDoc& d) {
  PGRIG_RETURN_IF_ERROR(Nested(f, "tool", [&](const JsonFields& t) { return ReadTool(t, d); }));
  PGRIG_RETURN_IF_ERROR(
      Nested(f, "server", [&](const JsonFields& s) { return ReadServer(s, d.server); }));
  PGRIG_RETURN_IF_ERROR(
      Nested(f, "options", [&](const JsonFields& o) { return ReadOptions(o, d.options); }));
  PGRIG_RETURN_IF_ERROR(
      Nested(f, "summary", [&](const JsonFields& s) { return ReadSummary(s, d.summary); }));
  PGRIG_RETURN_IF_ERROR(
      Nested(f, "durations", [&](const JsonFields& s) { return ReadDurations(s, d.durations); }));
  PGRIG_RETURN_IF_ERROR(Nested(
      f, "transactions", [&](const JsonFields& t) { return ReadTransactions(t, d.transactions); }));
  PGRIG_RETURN_IF_ERROR(
      Nested(f, "lag_ms", [&](const JsonFields& l) { return ReadLag(l, d.lag); }));
  PGRIG_RETURN_IF_ERROR(
      Nested(f, "client", [&](const JsonFields& c) { return ReadClient(c, d.client); }));
  PGRIG_RETURN_IF_ERROR(
      Nested(f, "server_cpu", [&](const JsonFields& c) { return ReadServerCpu(c, d.server_cpu); }));
  return Nested(f, "series", [&](const JsonFields& s) { return ReadSeries(s, d.series); });
}

Status ReadScripts(const JsonFields& f, ResultDoc& d) {
  PGRIG_ASSIGN_OR_RETURN(const json* scripts, f.Array("scripts"));
  if (scripts == nullptr) return Status::Ok();
  for (size_t i = 0; i < scripts->size(); ++i) {
    PGRIG_ASSIGN_OR_RETURN(ResultScriptDoc s,
                           ReadScript((*scripts)[i], fmt::format("{}: scripts[{}]", f.where(), i)));
    d.scripts.push_back(std::move(s));
  }
  return Status::Ok();
}

}  // namespace

Result<ResultDoc> ResultDocFromJson(const json& j, const std::string& where) {
  PGRIG_RETURN_IF_ERROR(CheckSchema(j, kResultSchema, where));
  const JsonFields f(j, where);
  ResultDoc d;
  PGRIG_RETURN_IF_ERROR(f.Bool("complete", d.complete));
  PGRIG_RETURN_IF_ERROR(f.Str("stop_reason", d.stop_reason));
  PGRIG_RETURN_IF_ERROR(f.OptStr("abort_message", d.abort_message));
  PGRIG_RETURN_IF_ERROR(f.Count("aborted_clients", d.aborted_clients));
  PGRIG_RETURN_IF_ERROR(f.Strings("command_line", d.command_line));
  PGRIG_RETURN_IF_ERROR(f.Str("started_at", d.started_at));
  PGRIG_RETURN_IF_ERROR(f.Str("ended_at", d.ended_at));
  PGRIG_RETURN_IF_ERROR(f.Num("start_unix_s", d.start_unix_s));
  PGRIG_RETURN_IF_ERROR(f.Num("end_unix_s", d.end_unix_s));
  PGRIG_RETURN_IF_ERROR(f.OptStr("server_cpu_unavailable", d.server_cpu_unavailable));
  PGRIG_RETURN_IF_ERROR(ReadParts(f, d));
  PGRIG_RETURN_IF_ERROR(ReadScripts(f, d));
  const json* hist = f.Get("histogram");
  if (hist == nullptr) return InvalidArgument(where + " has no histogram");
  PGRIG_ASSIGN_OR_RETURN(d.latency, HistogramFromJson(*hist, where));
  if (const json* sp = f.Get("server_profile"); sp != nullptr) {
    PGRIG_ASSIGN_OR_RETURN(d.server_profile, ServerProfileFromJson(*sp, where));
  }
  d.facts = f.Raw("facts");
  return d;
}

}  // namespace pgrig::results
