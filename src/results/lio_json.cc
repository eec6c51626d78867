#include "results/lio_json.h"

#include "common/clock.h"
#include "results/histogram_json.h"
#include "results/metrics.h"
#include "results/schemas.h"

namespace pgrig::results {

using nlohmann::json;

LioWindowFigures ComputeLioWindowFigures(const micro::LioWindow& w,
                                         const std::vector<micro::LioTableInfo>& tables,
                                         int work_unit) {
  const double s = w.window_s;
  const int64_t lio = w.delta.logical_reads();
  // What the sessions' own counts predict the server counted: every row is
  // one heap block, plus the index pages of each range.
  double index_per_range = 0;
  for (const auto& t : tables) {
    index_per_range += micro::ExpectedIndexBlocksPerRange(t.blocks, t.index_blocks, work_unit);
  }
  if (!tables.empty()) index_per_range /= static_cast<double>(tables.size());
  // UPDATE ranges: one heap block per row and the index descent, as for a
  // SELECT of the same width.
  const double session_blocks = static_cast<double>(w.rows + w.updated_rows) +
                                static_cast<double>(w.ranges + w.updates) * index_per_range;
  LioWindowFigures f;
  f.sessions = w.sessions;
  f.duration_s = s;
  f.lio_per_s = micro::PerSecond(lio, s);
  f.lio_per_s_per_session = w.sessions > 0 ? f.lio_per_s / w.sessions : 0.0;
  f.blks_hit_per_s = micro::PerSecond(w.delta.blks_hit, s);
  f.physical_reads_per_s = micro::PerSecond(w.delta.blks_read, s);
  f.ranges_per_s = micro::PerSecond(w.ranges, s);
  f.updates_per_s = micro::PerSecond(w.updates, s);
  f.session_blocks_per_s = session_blocks / (s > 0 ? s : 1);
  if (session_blocks > 0) f.counters_over_sessions = static_cast<double>(lio) / session_blocks;
  if (w.latency.count() > 0) {
    static constexpr double kPs[] = {50, 99};
    const std::vector<int64_t> p = w.latency.ValuesAtPercentiles(kPs);
    f.latency_ms_avg = w.latency.mean() / 1e6;
    f.latency_ms_p50 = NsToMs(p[0]);
    f.latency_ms_p99 = NsToMs(p[1]);
  }
  return f;
}

namespace {

json OrNull(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json LioWindowSummary(const micro::LioWindow& w, const std::vector<micro::LioTableInfo>& tables,
                      int work_unit) {
  const LioWindowFigures f = ComputeLioWindowFigures(w, tables, work_unit);
  return json{
      {"sessions", f.sessions},
      {"duration_s", f.duration_s},
      {kMetricLio, f.lio_per_s},
      {"lio_per_s_per_session", f.lio_per_s_per_session},
      {"blks_hit_per_s", f.blks_hit_per_s},
      {"physical_reads_per_s", f.physical_reads_per_s},
      {"ranges_per_s", f.ranges_per_s},
      {"updates_per_s", f.updates_per_s},
      {"session_blocks_per_s", f.session_blocks_per_s},
      {"counters_over_sessions", OrNull(f.counters_over_sessions)},
      {"latency_ms_avg", OrNull(f.latency_ms_avg)},
      {"latency_ms_p50", OrNull(f.latency_ms_p50)},
      {"latency_ms_p99", OrNull(f.latency_ms_p99)},
  };
}

}  // namespace

json MicroDocHead(const char* schema, const char* command, const MicroDocInputs& in,
                  bool interrupted, double start_wall_s, double end_wall_s) {
  return json{{"schema", schema},
              {"tool", {{"name", "pgrig"}, {"version", in.tool_version}, {"command", command}}},
              {"complete", !interrupted},
              {"stop_reason", interrupted ? "interrupted" : "completed"},
              {"command_line", in.command_line},
              {"started_at", IsoTimestampUtc(start_wall_s)},
              {"ended_at", IsoTimestampUtc(end_wall_s)},
              {"start_unix_s", start_wall_s},
              {"end_unix_s", end_wall_s}};
}

json LioResultToJson(const MicroDocInputs& in, const micro::LioRunOptions& o,
                     const micro::LioRunResult& r, const json& facts) {
  const micro::LioWindow& w = r.main;
  json tables = json::array();
  for (const auto& t : r.tables) {
    tables.push_back({{"table", t.table}, {"blocks", t.blocks}, {"index_blocks", t.index_blocks}});
  }
  json sessions = json::array();
  for (const auto& s : w.per_session) {
    sessions.push_back({{"session", s.session + 1},
                        {"table", s.table},
                        {"ranges", s.ranges},
                        {"updates", s.updates},
                        {"rows", s.rows},
                        {"rows_per_s", micro::PerSecond(s.rows, w.window_s)},
                        {"ranges_per_s", micro::PerSecond(s.ranges, w.window_s)},
                        {"latency_ms", results::LatencyMsJson(s.latency)}});
  }
  json scaling = nullptr;
  if (o.scaling == micro::LioScaling::kOn) {
    scaling = json::array();
    for (const auto& sw : r.scaling) scaling.push_back(LioWindowSummary(sw, r.tables, o.work_unit));
  }
  json summary = LioWindowSummary(w, r.tables, o.work_unit);
  json doc =
      MicroDocHead(kLioResultSchema, "lio run", in, r.interrupted, r.start_wall_s, r.end_wall_s);
  doc.update(json{
      {"server",
       {{"version", in.server_version},
        {"version_num", r.server_version_num},
        {"target", in.server_target},
        {"embedded", in.embedded}}},
      {"options",
       {{"tables", r.tables.size()},
        {"blocks_per_table", r.tables.empty() ? 0 : r.tables.front().blocks},
        {"sessions_per_table", o.total_sessions ? json(nullptr) : json(o.sessions_per_table)},
        {"sessions", w.sessions},
        {"duration_s", o.duration_s},
        {"warmup_s", o.warmup_s},
        {"work_unit", o.work_unit},
        {"update_pct", o.update_pct},
        {"update_work_unit", o.update_work_unit},
        {"seed", std::to_string(r.seed)},
        {"scaling", o.scaling == micro::LioScaling::kOn},
        {"driver", micro::LioDriverName(o.driver)}}},
      {"tables", tables},
      {"summary", summary},
      {"counters",
       {{"source", "pg_stat_database (current_database())"},
        {"exact_edges", r.exact_counters},
        {"blks_hit", w.delta.blks_hit},
        {"blks_read", w.delta.blks_read},
        {"xact_commit", w.delta.xact_commit},
        {"tup_fetched", w.delta.tup_fetched},
        {"tup_updated", w.delta.tup_updated},
        {"counter_window_s", w.delta.window_s}}},
      {"work",
       {{"ranges", w.ranges},
        {"updates", w.updates},
        {"rows", w.rows},
        {"updated_rows", w.updated_rows}}},
      {"per_session", sessions},
      {"latency_ms", results::LatencyMsJson(w.latency)},
      {"histogram", results::HistogramJson(w.latency, in.histogram_form)},
      {"update_latency_ms", results::LatencyMsJson(w.update_latency)},
      {"update_histogram", w.update_latency.count() > 0
                               ? results::HistogramJson(w.update_latency, in.histogram_form)
                               : json(nullptr)},
      {"scaling", scaling},
      {"notes", r.notes},
      {"facts", facts},
  });
  return doc;
}

}  // namespace pgrig::results
