#include "observe/bottleneck.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "common/enum_names.h"
#include "common/strings.h"

namespace pgrig::observe {
namespace {

struct WaitShare {
  std::string cls;
  double share = 0;                                  // of all active-backend observations
  std::vector<std::pair<std::string, int64_t>> top;  // its biggest events
};

// The largest non-CPU, non-"other" class of waits.
std::optional<WaitShare> TopWaitClass(const Observation& obs) {
  if (obs.wait_samples <= 0) return std::nullopt;
  std::map<std::string, int64_t> by_class;
  for (const auto& [k, v] : obs.wait_events) by_class[WaitClass(k)] += v;
  std::optional<WaitShare> best;
  for (const auto& [cls, n] : by_class) {
    if (cls == "cpu" || cls == "other") continue;
    double share = static_cast<double>(n) / static_cast<double>(obs.wait_samples);
    if (!best || share > best->share) best = WaitShare{.cls = cls, .share = share, .top = {}};
  }
  if (!best) return std::nullopt;
  for (const auto& [k, v] : obs.wait_events)
    if (WaitClass(k) == best->cls) best->top.emplace_back(k, v);
  std::sort(best->top.begin(), best->top.end(),
            [](const auto& a, const auto& b) { return a.second > b.second; });
  if (best->top.size() > 3) best->top.resize(3);
  return best;
}

BottleneckKind KindOfClass(const std::string& cls) {
  if (cls == "lock") return BottleneckKind::kLockWaits;
  if (cls == "lwlock") return BottleneckKind::kLwLockWaits;
  if (cls == "wal") return BottleneckKind::kWal;
  if (cls == "io") return BottleneckKind::kIoWait;
  return BottleneckKind::kUnknown;
}

std::string Pct(double v) { return fmt::format("{:.0f}%", v); }

std::string WaitText(const WaitShare& w, int64_t samples) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : w.top)
    parts.push_back(fmt::format(
        "{} {}", k, Pct(100.0 * static_cast<double>(v) / static_cast<double>(samples))));
  return fmt::format("{} of active backends' samples waited on {} ({}; {} samples)",
                     Pct(100 * w.share), w.cls, Join(parts, ", "), samples);
}

std::string CpuText(const HostMeans& m) {
  return fmt::format("host CPU {} busy (user {}, system {}, iowait {}, steal {})",
                     Pct(m.CpuBusyPct()), Pct(m.cpu_user_pct), Pct(m.cpu_system_pct),
                     Pct(m.cpu_iowait_pct), Pct(m.cpu_steal_pct));
}

std::string DiskText(const Observation& obs, const HostMeans& m) {
  if (!m.disk_util_pct) return "data device not observed";
  return fmt::format("data device {} {} busy (read {}/s, write {}/s)",
                     obs.data_device.value_or("?"), Pct(*m.disk_util_pct),
                     HumanBytes(static_cast<uint64_t>(m.disk_read_bytes_per_s.value_or(0))),
                     HumanBytes(static_cast<uint64_t>(m.disk_write_bytes_per_s.value_or(0))));
}

}  // namespace

const char* BottleneckName(BottleneckKind k) {
  static constexpr const char* kNames[] = {"server_cpu", "client_cpu",      "io_wait",
                                           "lock_waits", "lwlock_waits",    "wal",
                                           "steal",      "other_processes", "unknown"};
  return NameAt<BottleneckKind::kUnknown>(k, kNames, "unknown");
}

std::string WaitClass(const std::string& key) {
  if (key == "CPU") return "cpu";
  auto colon = key.find(':');
  std::string type = key.substr(0, colon);
  std::string event = colon == std::string::npos ? "" : key.substr(colon + 1);
  const bool wal_event = event.rfind("WAL", 0) == 0;
  if (type == "Lock" || type == "BufferPin") return "lock";
  if (type == "LWLock") return wal_event ? "wal" : "lwlock";
  if (type == "IO") return wal_event ? "wal" : "io";
  if (type == "IPC" && event == "SyncRep") return "wal";  // commits waiting for a standby
  return "other";
}

ClientUse ClientUseOf(const engine::RunResult& run, const Observation& obs, int cpus) {
  const double cpu = run.client_user_cpu_s + run.client_sys_cpu_s - obs.sampler_cpu_s;
  return {.cpu_s = std::max(0.0, cpu),
          .duration_s = static_cast<double>(run.bench_duration_ns) * 1e-9,
          .threads = std::max(1, run.threads),
          .cpus = std::max(1, cpus),
          .tps = run.Tps()};
}

std::optional<Disturbance> AssessDisturbance(const Observation& obs) {
  const HostMeans m = obs.MeanHost();
  if (!m.cpu_other_pct) return std::nullopt;
  Disturbance d{.other_cpu_pct = *m.cpu_other_pct, .steal_pct = m.cpu_steal_pct};
  d.disturbed = d.other_cpu_pct + d.steal_pct >= kDisturbedPct;
  return d;
}

Bottleneck Diagnose(const Observation& obs, const ClientUse& client) {
  Bottleneck b;
  const HostMeans m = obs.MeanHost();
  const bool have_host = m.duration_s > 0;
  const bool have_client = client.duration_s > 0 && client.cpu_s >= 0;
  const int usable = engine::UsableClientCpus(client.threads, client.cpus);
  std::optional<double> client_busy, client_machine;
  if (have_client) {
    client_busy = 100.0 * client.cpu_s / (client.duration_s * usable);
    client_machine = 100.0 * client.cpu_s / (client.duration_s * std::max(1, client.cpus));
  }
  const std::optional<WaitShare> waits = TopWaitClass(obs);
  const double host_busy = m.CpuBusyPct() + m.cpu_steal_pct;
  const bool steal_dominant =
      m.cpu_steal_pct >= kStealDominantPct ||
      (m.cpu_steal_pct >= kStealWarnPct && m.cpu_steal_pct > m.cpu_user_pct &&
       m.cpu_steal_pct > m.cpu_system_pct);

  // Warnings first: they hold whatever the kind.
  if (client_busy && *client_busy >= kClientSaturatedPct)
    b.warnings.push_back(fmt::format("the client saturated its CPUs ({} of {} thread{})",
                                     Pct(*client_busy), usable, usable == 1 ? "" : "s"));
  if (have_host && obs.server_is_local && have_client) {
    const int cpus = obs.host_cpus.value_or(client.cpus);
    const double backends = obs.MeanActiveBackends().value_or(0);
    const bool crowded = client.threads + backends > cpus;
    if (crowded || (client_machine && *client_machine >= kClientShareWarnPct))
      b.warnings.push_back(
          fmt::format("client and server shared {} CPU{} (client used {} of the machine, {} client "
                      "thread{} and {:.1f} active backends on average)",
                      cpus, cpus == 1 ? "" : "s", Pct(client_machine.value_or(0)), client.threads,
                      client.threads == 1 ? "" : "s", backends));
  }
  const double other = m.cpu_other_pct.value_or(0);
  if (have_host && other >= kDisturbedPct)
    b.warnings.push_back(fmt::format(
        "other processes took {} of the host's CPU (neither the client nor the server): the run "
        "was disturbed",
        Pct(other)));
  if (have_host && m.cpu_steal_pct >= kStealWarnPct)
    b.warnings.push_back(
        fmt::format("steal {}: the hypervisor gave this VM's CPU time to others; results vary with "
                    "neighbours",
                    Pct(m.cpu_steal_pct)));

  const std::string client_text =
      client_machine ? fmt::format("; client used {} of the machine", Pct(*client_machine)) : "";

  if (client_busy && *client_busy >= kClientSaturatedPct) {
    b.kind = BottleneckKind::kClientCpu;
    b.evidence = fmt::format("client CPU {} of its {} usable CPU{} ({:.2f} CPU-s over {:.1f} s)",
                             Pct(*client_busy), usable, usable == 1 ? "" : "s", client.cpu_s,
                             client.duration_s);
    if (have_host) b.evidence += "; " + CpuText(m);
    return b;
  }
  if (waits && waits->share >= kWaitDominantShare) {
    b.kind = KindOfClass(waits->cls);
    b.evidence = WaitText(*waits, obs.wait_samples);
    if (have_host) b.evidence += "; " + CpuText(m);
    return b;
  }
  if (have_host && m.cpu_iowait_pct >= kIoWaitPct &&
      (!m.disk_util_pct || *m.disk_util_pct >= kDiskUtilPct)) {
    b.kind = BottleneckKind::kIoWait;
    b.evidence = fmt::format("iowait {}; {}", Pct(m.cpu_iowait_pct), DiskText(obs, m));
    return b;
  }
  if (have_host && host_busy >= kHostBusyPct) {
    if (!obs.server_is_local) {
      b.kind = BottleneckKind::kClientCpu;
      b.evidence = CpuText(m) + " on the client's machine (the server is remote)" + client_text;
    } else if (other >= kOtherDominantPct) {
      b.kind = BottleneckKind::kOtherProcesses;
      b.evidence = CpuText(m) + ", of which other processes " + Pct(other) +
                   " (neither the client nor the server)" + client_text;
    } else if (steal_dominant) {
      b.kind = BottleneckKind::kSteal;
      b.evidence = CpuText(m) + ", of which steal " + Pct(m.cpu_steal_pct) + client_text;
    } else {
      b.kind = BottleneckKind::kServerCpu;
      b.evidence = CpuText(m) + client_text;
    }
    return b;
  }
  if (waits && waits->share >= kWaitLeadingShare) {
    b.kind = KindOfClass(waits->cls);
    b.evidence = WaitText(*waits, obs.wait_samples);
    if (have_host) b.evidence += "; " + CpuText(m);
    return b;
  }
  b.kind = BottleneckKind::kUnknown;
  std::vector<std::string> parts;
  if (have_host) {
    parts.push_back(CpuText(m));
    parts.push_back(DiskText(obs, m));
  } else {
    parts.push_back("host not observed");
  }
  if (waits)
    parts.push_back(WaitText(*waits, obs.wait_samples));
  else if (obs.wait_samples > 0)
    parts.push_back(fmt::format("active backends not waiting in {} samples", obs.wait_samples));
  else
    parts.push_back("no wait events observed");
  if (client_busy) parts.push_back(fmt::format("client CPU {} of its threads", Pct(*client_busy)));
  b.evidence =
      "no resource saturated: " + Join(parts, "; ") + " (too few clients, or latency-bound)";
  return b;
}

}  // namespace pgrig::observe
