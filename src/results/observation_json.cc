#include "results/observation_json.h"

#include <cmath>
#include <type_traits>

namespace pgrig::results {
namespace {

using json = nlohmann::json;

// Rounded for the results file: per-second series need no more digits.
// Dividing by the scale (not multiplying by a step) gives the double nearest
// to the decimal, which prints short ("15.62", not "15.620000000000001").
double R(double v, double scale = 100) { return std::round(v * scale) / scale; }

template <typename T>
json Opt(const std::optional<T>& v) {
  if (!v) return nullptr;
  if constexpr (std::is_floating_point_v<T>) return R(*v);
  return *v;
}

json HostSampleJson(const observe::HostSample& h) {
  return {{"t_s", R(h.t_s, 1e3)},
          {"dt_s", R(h.dt_s, 1e3)},
          {"cpu_user_pct", R(h.cpu_user_pct)},
          {"cpu_system_pct", R(h.cpu_system_pct)},
          {"cpu_iowait_pct", R(h.cpu_iowait_pct)},
          {"cpu_steal_pct", R(h.cpu_steal_pct)},
          {"cpu_idle_pct", R(h.cpu_idle_pct)},
          {"cpu_other_pct", Opt(h.cpu_other_pct)},
          {"run_queue", Opt(h.run_queue)},
          {"context_switches_per_s", Opt(h.context_switches_per_s)},
          {"disk_read_bytes_per_s", Opt(h.disk_read_bytes_per_s)},
          {"disk_write_bytes_per_s", Opt(h.disk_write_bytes_per_s)},
          {"disk_reads_per_s", Opt(h.disk_reads_per_s)},
          {"disk_writes_per_s", Opt(h.disk_writes_per_s)},
          {"disk_util_pct", Opt(h.disk_util_pct)},
          {"mem_used_bytes", Opt(h.mem_used_bytes)},
          {"mem_available_bytes", Opt(h.mem_available_bytes)}};
}

json ServerSampleJson(const observe::ServerSample& s) {
  json waits = json::object();
  for (const auto& [k, v] : s.wait_events) waits[k] = v;
  return {{"t_s", R(s.t_s, 1e3)},
          {"dt_s", R(s.dt_s, 1e3)},
          {"xact_commit_per_s", Opt(s.xact_commit_per_s)},
          {"xact_rollback_per_s", Opt(s.xact_rollback_per_s)},
          {"blks_hit_per_s", Opt(s.blks_hit_per_s)},
          {"blks_read_per_s", Opt(s.blks_read_per_s)},
          {"tup_returned_per_s", Opt(s.tup_returned_per_s)},
          {"tup_fetched_per_s", Opt(s.tup_fetched_per_s)},
          {"tup_inserted_per_s", Opt(s.tup_inserted_per_s)},
          {"tup_updated_per_s", Opt(s.tup_updated_per_s)},
          {"tup_deleted_per_s", Opt(s.tup_deleted_per_s)},
          {"temp_bytes_per_s", Opt(s.temp_bytes_per_s)},
          {"deadlocks_per_s", Opt(s.deadlocks_per_s)},
          {"wal_bytes_per_s", Opt(s.wal_bytes_per_s)},
          {"checkpoints_timed", Opt(s.checkpoints_timed)},
          {"checkpoints_req", Opt(s.checkpoints_req)},
          {"buffers_checkpoint_per_s", Opt(s.buffers_checkpoint_per_s)},
          {"buffers_clean_per_s", Opt(s.buffers_clean_per_s)},
          {"buffers_backend_per_s", Opt(s.buffers_backend_per_s)},
          {"active_backends", Opt(s.active_backends)},
          {"wait_polls", s.wait_polls},
          {"wait_events", std::move(waits)}};
}

json HostMeansJson(const observe::HostMeans& m) {
  return {{"duration_s", R(m.duration_s, 1e3)},
          {"cpu_user_pct", R(m.cpu_user_pct)},
          {"cpu_system_pct", R(m.cpu_system_pct)},
          {"cpu_iowait_pct", R(m.cpu_iowait_pct)},
          {"cpu_steal_pct", R(m.cpu_steal_pct)},
          {"cpu_idle_pct", R(m.cpu_idle_pct)},
          {"cpu_other_pct", Opt(m.cpu_other_pct)},
          {"run_queue", Opt(m.run_queue)},
          {"context_switches_per_s", Opt(m.context_switches_per_s)},
          {"disk_util_pct", Opt(m.disk_util_pct)},
          {"disk_read_bytes_per_s", Opt(m.disk_read_bytes_per_s)},
          {"disk_write_bytes_per_s", Opt(m.disk_write_bytes_per_s)}};
}

json ServerTotalsJson(const observe::ServerTotals& t) {
  json j = json::object();
  if (!t.duration_s) return j;
  j["duration_s"] = *t.duration_s;
  if (const auto& d = t.database) {
    j["xact_commit"] = d->xact_commit;
    j["xact_rollback"] = d->xact_rollback;
    j["blks_hit"] = d->blks_hit;
    j["blks_read"] = d->blks_read;
    j["tup_returned"] = d->tup_returned;
    j["tup_fetched"] = d->tup_fetched;
    j["tup_inserted"] = d->tup_inserted;
    j["tup_updated"] = d->tup_updated;
    j["tup_deleted"] = d->tup_deleted;
    j["temp_bytes"] = d->temp_bytes;
    j["deadlocks"] = d->deadlocks;
  }
  if (t.wal_bytes) j["wal_bytes"] = *t.wal_bytes;
  if (const auto& b = t.bgwriter) {
    j["checkpoints_timed"] = b->checkpoints_timed;
    j["checkpoints_req"] = b->checkpoints_req;
    j["buffers_checkpoint"] = b->buffers_checkpoint;
    j["buffers_clean"] = b->buffers_clean;
    if (b->buffers_backend) j["buffers_backend"] = *b->buffers_backend;
  }
  return j;
}

}  // namespace

json ObservationJson(const observe::Observation& o) {
  json j;
  j["interval_s"] = o.interval_s;
  j["wait_interval_s"] = o.wait_interval_s;
  j["server_is_local"] = o.server_is_local;
  j["host_cpus"] = Opt(o.host_cpus);
  j["data_device"] = Opt(o.data_device);
  j["host"] = json::array();
  for (const auto& h : o.host) j["host"].push_back(HostSampleJson(h));
  j["host_mean"] = HostMeansJson(o.MeanHost());
  j["server"] = json::array();
  for (const auto& s : o.server) j["server"].push_back(ServerSampleJson(s));
  j["server_totals"] = ServerTotalsJson(o.server_totals);
  j["wait_events"] = json::object();
  for (const auto& [k, v] : o.wait_events) j["wait_events"][k] = v;
  j["wait_samples"] = o.wait_samples;
  j["notes"] = o.notes;
  j["sampler_cpu_s"] = R(o.sampler_cpu_s, 1e4);
  j["sampler_backend_cpu_s"] =
      o.sampler_backend_cpu_s ? json(R(*o.sampler_backend_cpu_s, 1e4)) : json();
  return j;
}

json DisturbedJson(const std::optional<observe::Disturbance>& d) {
  if (!d || !d->disturbed) return nullptr;
  return {{"other_cpu_pct", R(d->other_cpu_pct)},
          {"steal_pct", R(d->steal_pct)},
          {"threshold_pct", observe::kDisturbedPct}};
}

json BottleneckJson(const observe::Bottleneck& b) {
  return {{"kind", observe::BottleneckName(b.kind)},
          {"evidence", b.evidence},
          {"warnings", b.warnings}};
}

}  // namespace pgrig::results
