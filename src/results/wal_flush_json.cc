#include "results/wal_flush_json.h"

#include "common/clock.h"
#include "results/histogram_json.h"
#include "results/schemas.h"

namespace pgrig::results {

using nlohmann::json;

FsyncHeadline ComputeFsyncHeadline(const micro::FsyncResult& r,
                                   const std::optional<std::string>& server_wal_sync_method) {
  FsyncHeadline h;
  h.choice = micro::ChooseBestMethod(r);
  h.best = h.choice.best;
  h.best_test = h.best ? micro::HeadlineTest(r, *h.best) : nullptr;
  std::optional<micro::SyncMethod> current;
  if (server_wal_sync_method) current = micro::ParseSyncMethod(*server_wal_sync_method);
  h.server_test = current ? micro::HeadlineTest(r, *current) : nullptr;
  if (h.best_test && h.server_test && h.server_test->ops_per_s() > 0) {
    h.best_over_server = h.best_test->ops_per_s() / h.server_test->ops_per_s();
  }
  return h;
}

json FsyncResultToJson(const MicroDocInputs& in, const micro::FsyncOptions& o,
                       const micro::FsyncResult& r, const FsyncDocContext& ctx) {
  json tests = json::array();
  for (const auto& t : r.tests) {
    tests.push_back(
        {{"method", micro::SyncMethodName(t.method)},
         {"o_direct", t.direct == micro::DirectIo::kOn},
         {"label", t.Label()},
         {"write_bytes", t.write_bytes},
         {"writers", t.writers},
         {"available", !t.unavailable.has_value()},
         {"unavailable_reason", t.unavailable ? json(*t.unavailable) : json(nullptr)},
         {"ops", t.ops},
         {"duration_s", t.seconds},
         {"ops_per_s", t.unavailable ? json(nullptr) : json(t.ops_per_s())},
         {"samples_ops_per_s", t.sample_ops_per_s},
         {"latency_ms", results::LatencyMsJson(t.latency)},
         {"histogram", t.latency.count() > 0 ? results::HistogramJson(t.latency) : json(nullptr)}});
  }
  const FsyncHeadline h = ComputeFsyncHeadline(r, ctx.server_wal_sync_method);
  const std::optional<micro::SyncMethod> best = h.best;
  const micro::FlushTest* best_t = h.best_test;
  const micro::FlushTest* cur_t = h.server_test;
  json summary{
      {"best_method", best ? json(micro::SyncMethodName(*best)) : json(nullptr)},
      {"leading_method",
       h.choice.leader ? json(micro::SyncMethodName(*h.choice.leader)) : json(nullptr)},
      {"runner_up_method",
       h.choice.runner_up ? json(micro::SyncMethodName(*h.choice.runner_up)) : json(nullptr)},
      {"leader_over_runner_up", h.choice.over_runner_up ? json(*h.choice.over_runner_up) : json()},
      {"leader_over_runner_up_ci95",
       h.choice.over_runner_up_interval
           ? json{h.choice.over_runner_up_interval->low, h.choice.over_runner_up_interval->high}
           : json()},
      {"best_ops_per_s", best_t ? json(best_t->ops_per_s()) : json(nullptr)},
      {"best_latency_ms_p99",
       best_t ? json(static_cast<double>(best_t->latency.ValueAtPercentile(99)) / 1e6)
              : json(nullptr)},
      {"headline_write_bytes", best_t ? json(best_t->write_bytes) : json(nullptr)},
      {"headline_writers", best_t ? json(best_t->writers) : json(nullptr)},
      {"server_wal_sync_method",
       ctx.server_wal_sync_method ? json(*ctx.server_wal_sync_method) : json(nullptr)},
      {"server_method_ops_per_s", cur_t ? json(cur_t->ops_per_s()) : json(nullptr)},
      {"best_over_server_method", h.best_over_server ? json(*h.best_over_server) : json(nullptr)},
      {"memory_file_system", r.tmpfs},
  };
  json doc = MicroDocHead(kFsyncSchema, "fsync", in, r.interrupted, r.start_wall_s, r.end_wall_s);
  doc.update(json{
      {"server", in.server_version.empty() ? json(nullptr)
                                           : json{{"version", in.server_version},
                                                  {"version_num", in.server_version_num},
                                                  {"target", in.server_target},
                                                  {"embedded", in.embedded}}},
      {"options",
       {{"dir", r.dir},
        {"seconds_per_test", o.seconds_per_test},
        {"samples", o.samples},
        {"write_sizes", o.write_sizes},
        {"writers", o.writers},
        {"file_bytes", micro::kFsyncFileBytes}}},
      {"filesystem_magic", r.filesystem_magic},
      {"storage", ctx.storage},
      {"summary", summary},
      {"tests", tests},
      {"notes", r.notes},
      {"facts", ctx.facts},
  });
  if (ctx.suite_workload) doc["workload"] = *ctx.suite_workload;
  return doc;
}

}  // namespace pgrig::results
