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
  // The probe's backend (and a setup connection closed just before) exit
  // on their own: give them a moment so that they are not counted as the
  // children to come back to.
  auto before = meter->Snapshot();
  if (!before.ok()) {
    w.unavailable_ = before.status().message();
    return w;
  }
  auto settled = meter->Settle(before->live_children - 1, std::chrono::milliseconds(200));
  w.live_before_ = settled.ok() ? settled->snapshot.live_children : before->live_children;
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
  m.usage = ServerCpuUsage{.user_s = end->snapshot.user_s - start_->user_s,
                           .sys_s = end->snapshot.sys_s - start_->sys_s,
                           .settled = end->settled};
  return m;
}

}  // namespace pgrig::host
