// ServerCpuWindow (host/server_cpu.h).
#include <filesystem>
#include <thread>

#include "host/server_cpu.h"

namespace pgrig::host {

ServerCpuWindow ServerCpuWindow::Prepare(const pg::ConnectionParams& params,
                                         const ServerCpuOptions& options) {
  ServerCpuWindow w;
  auto pm = LocateLocalPostmaster(params, options);
  if (!pm.ok()) {
    w.unavailable_ = pm.status().message();
    return w;
  }
  auto meter = ServerCpuMeter::ForProcess(*pm, options);
  if (!meter.ok()) {
    w.unavailable_ = meter.status().message();
    return w;
  }
  // The probe's backend, and connections closed just before (a setup
  // connection, a warm-up run's clients), exit on their own: the children to
  // come back to after the run are counted once that number has held for
  // 20 ms (at most 1 s).  A backend exits within a millisecond or two of
  // its client's goodbye; one slower than that is still measured, as a live
  // child, for all but the tail of its exit.  Every `pgrig bench` waits here
  // once, so the wait is kept short.
  std::optional<int> live;
  int steady_polls = 0;
  for (int i = 0; i < 200 && steady_polls < 4; ++i) {
    auto snap = meter->Snapshot();
    if (!snap.ok()) {
      w.unavailable_ = snap.status().message();
      return w;
    }
    steady_polls = live && *live == snap->live_children ? steady_polls + 1 : 0;
    live = snap->live_children;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  w.live_before_ = *live;
  w.meter_ = std::move(*meter);
  return w;
}

void ServerCpuWindow::Start() {
  if (!meter_) return;
  auto s = meter_->Snapshot();
  if (s.ok()) {
    start_ = *s;
  } else {
    unavailable_ = s.status().message();
  }
}

ServerCpuMeasure ServerCpuWindow::Finish(std::chrono::milliseconds settle) {
  ServerCpuMeasure m;
  if (!meter_ || !start_) {
    m.unavailable = unavailable_.empty() ? "the window's start was not measured" : unavailable_;
    return m;
  }
  auto end = meter_->Settle(live_before_, settle);
  if (!end.ok()) {
    m.unavailable = end.status().message();
    return m;
  }
  // A postmaster that died during the run (a zombie's children are gone
  // from its counters) or was replaced gives no figure, never a negative one.
  auto stat = meter_->Stat();
  const ServerCpuUsage usage{.user_s = end->snapshot.user_s - start_->user_s,
                             .sys_s = end->snapshot.sys_s - start_->sys_s,
                             .settled = end->settled};
  if (!stat.ok() || stat->state == 'Z' || stat->state == 'X') {
    m.unavailable =
        "the server's postmaster (pid " + std::to_string(meter_->pid()) + ") ended during the run";
  } else if (usage.user_s < 0 || usage.sys_s < 0) {
    m.unavailable =
        "the server's CPU counters went backwards during the run (its postmaster "
        "restarted or its children were lost)";
  } else {
    m.usage = usage;
  }
  return m;
}

}  // namespace pgrig::host
