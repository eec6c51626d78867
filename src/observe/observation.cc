#include "observe/observation.h"

#include <cmath>

namespace pgrig::observe {

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
  } user, sys, iowait, steal, idle, other, rq, cs, util, rd, wr;
  for (const HostSample& h : host) {
    double dt = h.dt_s > 0 ? h.dt_s : 0;
    user.Add(h.cpu_user_pct, dt);
    sys.Add(h.cpu_system_pct, dt);
    iowait.Add(h.cpu_iowait_pct, dt);
    steal.Add(h.cpu_steal_pct, dt);
    idle.Add(h.cpu_idle_pct, dt);
    other.Add(h.cpu_other_pct, dt);
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
  m.cpu_other_pct = other.Mean();
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

}  // namespace pgrig::observe
