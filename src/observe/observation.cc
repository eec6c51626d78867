#include "observe/observation.h"

#include <cmath>
#include <type_traits>

namespace pgrig::observe {
namespace {

// Rounded for the results file: per-second series need no more digits.
// Dividing by the scale (not multiplying by a step) gives the double nearest
// to the decimal, which prints short ("15.62", not "15.620000000000001").
double R(double v, double scale = 100) { return std::round(v * scale) / scale; }

template <typename T>
nlohmann::json Opt(const std::optional<T>& v) {
  if (!v) return nullptr;
  if constexpr (std::is_floating_point_v<T>) return R(*v);
  return *v;
}

}  // namespace

nlohmann::json HostSample::ToJson() const {
  return {{"t_s", R(t_s, 1e3)},
          {"dt_s", R(dt_s, 1e3)},
          {"cpu_user_pct", R(cpu_user_pct)},
          {"cpu_system_pct", R(cpu_system_pct)},
          {"cpu_iowait_pct", R(cpu_iowait_pct)},
          {"cpu_steal_pct", R(cpu_steal_pct)},
          {"cpu_idle_pct", R(cpu_idle_pct)},
          {"run_queue", Opt(run_queue)},
          {"context_switches_per_s", Opt(context_switches_per_s)},
          {"disk_read_bytes_per_s", Opt(disk_read_bytes_per_s)},
          {"disk_write_bytes_per_s", Opt(disk_write_bytes_per_s)},
          {"disk_reads_per_s", Opt(disk_reads_per_s)},
          {"disk_writes_per_s", Opt(disk_writes_per_s)},
          {"disk_util_pct", Opt(disk_util_pct)},
          {"mem_used_bytes", Opt(mem_used_bytes)},
          {"mem_available_bytes", Opt(mem_available_bytes)}};
}

nlohmann::json ServerSample::ToJson() const {
  nlohmann::json waits = nlohmann::json::object();
  for (const auto& [k, v] : wait_events) waits[k] = v;
  return {{"t_s", R(t_s, 1e3)},
          {"dt_s", R(dt_s, 1e3)},
          {"xact_commit_per_s", Opt(xact_commit_per_s)},
          {"xact_rollback_per_s", Opt(xact_rollback_per_s)},
          {"blks_hit_per_s", Opt(blks_hit_per_s)},
          {"blks_read_per_s", Opt(blks_read_per_s)},
          {"tup_returned_per_s", Opt(tup_returned_per_s)},
          {"tup_fetched_per_s", Opt(tup_fetched_per_s)},
          {"tup_inserted_per_s", Opt(tup_inserted_per_s)},
          {"tup_updated_per_s", Opt(tup_updated_per_s)},
          {"tup_deleted_per_s", Opt(tup_deleted_per_s)},
          {"temp_bytes_per_s", Opt(temp_bytes_per_s)},
          {"deadlocks_per_s", Opt(deadlocks_per_s)},
          {"wal_bytes_per_s", Opt(wal_bytes_per_s)},
          {"checkpoints_timed", Opt(checkpoints_timed)},
          {"checkpoints_req", Opt(checkpoints_req)},
          {"buffers_checkpoint_per_s", Opt(buffers_checkpoint_per_s)},
          {"buffers_clean_per_s", Opt(buffers_clean_per_s)},
          {"buffers_backend_per_s", Opt(buffers_backend_per_s)},
          {"active_backends", Opt(active_backends)},
          {"wait_polls", wait_polls},
          {"wait_events", std::move(waits)}};
}

nlohmann::json HostMeans::ToJson() const {
  return {{"duration_s", R(duration_s, 1e3)},
          {"cpu_user_pct", R(cpu_user_pct)},
          {"cpu_system_pct", R(cpu_system_pct)},
          {"cpu_iowait_pct", R(cpu_iowait_pct)},
          {"cpu_steal_pct", R(cpu_steal_pct)},
          {"cpu_idle_pct", R(cpu_idle_pct)},
          {"run_queue", Opt(run_queue)},
          {"context_switches_per_s", Opt(context_switches_per_s)},
          {"disk_util_pct", Opt(disk_util_pct)},
          {"disk_read_bytes_per_s", Opt(disk_read_bytes_per_s)},
          {"disk_write_bytes_per_s", Opt(disk_write_bytes_per_s)}};
}

HostMeans Observation::MeanHost() const {
  HostMeans m;
  // Time-weighted; an optional figure is averaged over the samples that have it.
  struct Acc {
    double sum = 0, w = 0;
    void Add(const std::optional<double>& v, double dt) {
      if (v) sum += *v * dt, w += dt;
    }
    std::optional<double> Mean() const {
      if (w <= 0) return std::nullopt;
      return sum / w;
    }
  } user, sys, iowait, steal, idle, rq, cs, util, rd, wr;
  for (const HostSample& h : host) {
    double dt = h.dt_s > 0 ? h.dt_s : 0;
    user.Add(h.cpu_user_pct, dt);
    sys.Add(h.cpu_system_pct, dt);
    iowait.Add(h.cpu_iowait_pct, dt);
    steal.Add(h.cpu_steal_pct, dt);
    idle.Add(h.cpu_idle_pct, dt);
    if (h.run_queue) rq.Add(static_cast<double>(*h.run_queue), dt);
    cs.Add(h.context_switches_per_s, dt);
    util.Add(h.disk_util_pct, dt);
    rd.Add(h.disk_read_bytes_per_s, dt);
    wr.Add(h.disk_write_bytes_per_s, dt);
  }
  m.duration_s = user.w;
  m.cpu_user_pct = user.Mean().value_or(0);
  m.cpu_system_pct = sys.Mean().value_or(0);
  m.cpu_iowait_pct = iowait.Mean().value_or(0);
  m.cpu_steal_pct = steal.Mean().value_or(0);
  m.cpu_idle_pct = idle.Mean().value_or(0);
  m.run_queue = rq.Mean();
  m.context_switches_per_s = cs.Mean();
  m.disk_util_pct = util.Mean();
  m.disk_read_bytes_per_s = rd.Mean();
  m.disk_write_bytes_per_s = wr.Mean();
  return m;
}

std::optional<double> Observation::MeanActiveBackends() const {
  double sum = 0;
  int64_t polls = 0;
  for (const ServerSample& s : server) {
    if (!s.active_backends || s.wait_polls <= 0) continue;
    sum += *s.active_backends * static_cast<double>(s.wait_polls);
    polls += s.wait_polls;
  }
  if (polls == 0) return std::nullopt;
  return sum / static_cast<double>(polls);
}

nlohmann::json Observation::ToJson() const {
  nlohmann::json j;
  j["interval_s"] = interval_s;
  j["wait_interval_s"] = wait_interval_s;
  j["server_is_local"] = server_is_local;
  j["host_cpus"] = Opt(host_cpus);
  j["data_device"] = Opt(data_device);
  j["host"] = nlohmann::json::array();
  for (const auto& h : host) j["host"].push_back(h.ToJson());
  j["host_mean"] = MeanHost().ToJson();
  j["server"] = nlohmann::json::array();
  for (const auto& s : server) j["server"].push_back(s.ToJson());
  j["server_totals"] = server_totals;
  j["wait_events"] = nlohmann::json::object();
  for (const auto& [k, v] : wait_events) j["wait_events"][k] = v;
  j["wait_samples"] = wait_samples;
  j["notes"] = notes;
  j["sampler_cpu_s"] = R(sampler_cpu_s, 1e4);
  j["sampler_backend_cpu_s"] =
      sampler_backend_cpu_s ? nlohmann::json(R(*sampler_backend_cpu_s, 1e4)) : nlohmann::json();
  return j;
}

}  // namespace pgrig::observe
