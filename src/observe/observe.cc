#include "observe/observe.h"

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "common/clock.h"
#include "host/server_cpu.h"
#include "observe/observe_host.h"
#include "observe/observe_server.h"

namespace pgrig::observe {

// Everything below mutex_ is shared between the caller and the thread:
// stop_ and done_ (and sampler_->Abandon(), which is thread-safe).  The rest
// belongs to the thread until it is joined, then to Stop().
class Observer::Impl {
 public:
  explicit Impl(const ObserveOptions& options) : options_(options) {}

  void Begin(std::optional<ServerSampler> sampler, std::optional<std::string> device,
             std::vector<std::string> notes) {
    sampler_ = std::move(sampler);
    obs_.interval_s = static_cast<double>(options_.interval.count()) / 1000.0;
    if (options_.wait_interval.count() > 0 && options_.wait_interval < options_.interval)
      polls_per_sample_ = options_.interval / options_.wait_interval;
    obs_.wait_interval_s = obs_.interval_s / static_cast<double>(polls_per_sample_);
    obs_.server_is_local = options_.server_is_local;
    obs_.data_device = device;
    device_ = device.value_or("");
    for (auto& n : notes) Note(std::move(n));
    if (sampler_ && options_.server_is_local) {
      // The backend serving us, if this machine shows it (not in another pid namespace).
      backend_pid_ = sampler_->backend_pid();
      auto comm = options_.sysfs.ReadLine("/proc/" + std::to_string(backend_pid_) + "/comm");
      if (comm.ok() && comm->rfind("postgres", 0) == 0)
        backend_cpu0_ = ProcessCpuSeconds(options_.sysfs, backend_pid_);
    }
    if (options_.server_is_local && options_.server_pid) {
      auto meter = host::ServerCpuMeter::ForProcess(
          *options_.server_pid,
          host::ServerCpuOptions{.proc_root = options_.sysfs.Resolve("/proc")});
      if (meter.ok()) {
        server_meter_ = std::move(*meter);
      } else {
        Note("other processes' CPU: not measured (" + meter.status().message() + ")");
      }
    } else if (options_.server_is_local) {
      Note("other processes' CPU: not measured (the local server's postmaster is unknown)");
    }
    start_ns_ = MonotonicNanos();
    const double cpu0 = ThisThreadCpuSeconds();
    TakeBaseline();
    obs_.sampler_cpu_s += ThisThreadCpuSeconds() - cpu0;
    thread_ = std::thread([this] { Run(); });
  }

  Observation Stop() {
    if (!thread_.joinable()) return obs_;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    {
      // A sample takes milliseconds; one still running after a second is a
      // query stuck on the server: cancel it rather than keep the caller waiting.
      std::unique_lock<std::mutex> lock(mutex_);
      if (!cv_.wait_for(lock, kStopGrace, [this] { return done_; }) && sampler_)
        sampler_->Abandon();
    }
    thread_.join();
    obs_.server_totals = window_.Totals();
    if (backend_cpu0_) {
      if (auto cpu1 = ProcessCpuSeconds(options_.sysfs, backend_pid_))
        obs_.sampler_backend_cpu_s = std::max(0.0, *cpu1 - *backend_cpu0_);
    }
    return obs_;
  }

 private:
  void Note(std::string n) {
    if (seen_notes_.insert(n).second) obs_.notes.push_back(std::move(n));
  }
  void Notes(std::vector<std::string>& ns) {
    for (auto& n : ns) Note(std::move(n));
    ns.clear();
  }

  // The client's CPU so far, and the local server's; nullopt when a part
  // that should be there cannot be read.
  std::optional<double> MeasuredCpu() const {
    if (options_.server_is_local && !server_meter_) return std::nullopt;
    double s = 0;
    if (options_.client_pid > 0) {
      auto c = ProcessCpuSeconds(options_.sysfs, options_.client_pid);
      if (!c) return std::nullopt;
      s += *c;
    }
    if (server_meter_) {
      auto snap = server_meter_->Snapshot();
      if (!snap.ok()) return std::nullopt;
      s += snap->user_s + snap->sys_s;
    }
    return s;
  }

  HostSnapshot ReadHost(std::vector<std::string>* notes) const {
    HostSnapshot h = ReadHostSnapshot(options_.sysfs, device_, notes);
    h.measured_cpu_s = MeasuredCpu();
    return h;
  }

  void TakeBaseline() {
    std::vector<std::string> notes;
    host_prev_ = ReadHost(&notes);
    if (host_prev_.stat) obs_.host_cpus = host_prev_.stat->cpus;
    if (sampler_) {
      server_prev_ = sampler_->Take(&notes);
      window_.Add(server_prev_);
    }
    Notes(notes);
  }

  // One poll of the wait events: into the run's histogram now, into the
  // next server sample when it is taken.  The histogram has one key per event
  // name, so it stays small however long the run.
  void AddPoll(int64_t active, const std::map<std::string, int64_t>& events) {
    ++pending_.polls;
    pending_.active += active;
    for (const auto& [k, v] : events) {
      pending_.events[k] += v;
      obs_.wait_events[k] += v;
      obs_.wait_samples += v;
    }
  }
  void TakePending(ServerSample* s) {
    s->wait_polls = pending_.polls;
    s->active_backends.reset();
    if (pending_.polls > 0)
      s->active_backends =
          static_cast<double>(pending_.active) / static_cast<double>(pending_.polls);
    s->wait_events = std::move(pending_.events);
    pending_ = {};
  }

  void Poll() {
    if (!sampler_ || !sampler_->alive()) return;
    std::vector<std::string> notes;
    if (auto p = sampler_->PollWaits(&notes)) AddPoll(p->active_backends, p->wait_events);
    Notes(notes);
  }

  void Sample() {
    std::vector<std::string> notes;
    HostSnapshot h = ReadHost(&notes);
    double t = static_cast<double>(h.mono_ns - start_ns_) * 1e-9;
    if (obs_.host.size() < kMaxSamples) {
      if (auto s = HostDelta(host_prev_, h, t)) obs_.host.push_back(*s);
    } else {
      capped_ = true;
    }
    if (h.stat) host_prev_ = std::move(h);  // keep the last readable one as the base
    if (sampler_ && sampler_->alive()) {
      ServerSnapshot s = sampler_->Take(&notes);
      window_.Add(s);
      if (s.active_backends) AddPoll(*s.active_backends, s.wait_events);
      ServerSample out =
          ServerDelta(server_prev_, s, static_cast<double>(s.mono_ns - start_ns_) * 1e-9);
      TakePending(&out);
      if (obs_.server.size() < kMaxSamples) {
        obs_.server.push_back(std::move(out));
      } else {
        capped_ = true;
      }
      server_prev_ = std::move(s);
    }
    if (capped_)
      notes.push_back("samples capped at " + std::to_string(kMaxSamples) +
                      " per series; later ones were dropped (totals still cover the window)");
    Notes(notes);
  }

  void Run() {
    const double cpu0 = ThisThreadCpuSeconds();
    Loop();
    obs_.sampler_cpu_s += ThisThreadCpuSeconds() - cpu0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
  }

  // Ticks every interval / polls_per_sample_; every polls_per_sample_-th
  // tick is a full sample, the others poll the wait events only.
  void Loop() {
    const auto tick = options_.interval / polls_per_sample_;
    std::unique_lock<std::mutex> lock(mutex_);
    auto next = std::chrono::steady_clock::now() + tick;
    int64_t n = 0;
    while (!stop_) {
      if (cv_.wait_until(lock, next, [this] { return stop_; })) break;
      lock.unlock();
      if (++n % polls_per_sample_ == 0)
        Sample();
      else
        Poll();
      lock.lock();
      // Fixed cadence; after a slow tick skip to the next due time.
      next += tick;
      auto now = std::chrono::steady_clock::now();
      if (next < now) next = now + tick;
    }
    lock.unlock();
    // The final sample, unless the last one was a moment ago: rates over a few
    // milliseconds are mostly rounding (CPU time counts in 10 ms ticks).  Polls
    // since then go into the last server sample.
    const int64_t since_ns = MonotonicNanos() - host_prev_.mono_ns;
    if (obs_.host.empty() || since_ns >= kMinFinalNs) {
      Sample();
    } else if (pending_.polls > 0 && !obs_.server.empty()) {
      ServerSample& last = obs_.server.back();
      const double active = last.active_backends.value_or(0) * static_cast<double>(last.wait_polls);
      for (const auto& [k, v] : pending_.events) last.wait_events[k] += v;
      last.wait_polls += pending_.polls;
      last.active_backends =
          (active + static_cast<double>(pending_.active)) / static_cast<double>(last.wait_polls);
      pending_ = {};
    }
  }

  static constexpr int64_t kMinFinalNs = 100'000'000;
  static constexpr std::chrono::seconds kStopGrace{1};

  const ObserveOptions options_;
  std::optional<ServerSampler> sampler_;
  std::optional<host::ServerCpuMeter> server_meter_;  // the local server, for cpu_other_pct
  std::string device_;
  int64_t start_ns_ = 0;
  HostSnapshot host_prev_;
  ServerSnapshot server_prev_;
  ServerWindow window_;
  Observation obs_;
  std::set<std::string> seen_notes_;
  struct PendingWaits {
    std::map<std::string, int64_t> events;
    int64_t polls = 0;
    int64_t active = 0;
  } pending_;
  int64_t polls_per_sample_ = 1;
  int backend_pid_ = 0;
  std::optional<double> backend_cpu0_;
  bool capped_ = false;
  std::thread thread_;

  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool done_ = false;  // the thread has finished, final sample included
};

Observer::Observer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Observer::~Observer() {
  if (impl_) impl_->Stop();
}

Observation Observer::Stop() { return impl_->Stop(); }

Result<std::unique_ptr<Observer>> Observer::Start(const ObserveOptions& options) {
  using std::chrono::milliseconds;
  if (options.interval < milliseconds(10) || options.interval > milliseconds(3600 * 1000)) {
    return InvalidArgument(
        "observation interval " + std::to_string(options.interval.count()) +
        " ms is out of range; give 10 ms to 1 h (1000 ms samples once a second)");
  }
  if (options.wait_interval.count() != 0 && options.wait_interval < milliseconds(10)) {
    return InvalidArgument("wait-event poll interval " +
                           std::to_string(options.wait_interval.count()) +
                           " ms is too short; give at least 10 ms, or 0 to poll once per sample");
  }
  std::vector<std::string> notes;
  std::optional<std::string> device;
  if (!options.data_device.empty()) {
    device = options.data_device;
  } else if (!options.server_is_local) {
    notes.push_back("disk: the server is remote; its data device is not observed");
  } else if (options.data_directory.empty()) {
    notes.push_back("disk: data directory unknown; no data device observed");
  } else {
    device = DataDeviceFor(options.sysfs, options.data_directory, &notes);
  }
  if (!options.server_is_local)
    notes.push_back("host: the server is remote; host figures describe the client's machine only");
  std::optional<ServerSampler> sampler;
  if (options.server) {
    auto s = ServerSampler::Connect(*options.server, options.database);
    if (s.ok()) {
      sampler.emplace(std::move(*s));
    } else {
      notes.push_back("server: not observed: " + s.status().message());
    }
  } else {
    notes.push_back("server: not observed (no monitoring connection given)");
  }
  auto impl = std::make_unique<Impl>(options);
  impl->Begin(std::move(sampler), std::move(device), std::move(notes));
  return std::unique_ptr<Observer>(new Observer(std::move(impl)));
}

}  // namespace pgrig::observe
