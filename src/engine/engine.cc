#include "engine/engine.h"

#include <sys/resource.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <memory>
#include <thread>

#include "common/clock.h"
#include "engine/worker.h"
#include "script/prng.h"
#include "script/value.h"

namespace pgrig::engine {

const char* StopReasonName(StopReason r) {
  switch (r) {
    case StopReason::kCompleted:
      return "completed";
    case StopReason::kAborted:
      return "aborted";
    case StopReason::kInterrupted:
      return "interrupted";
  }
  return "unknown";
}

double RunResult::Tps() const {
  if (bench_duration_ns <= 0) return 0;
  return static_cast<double>(totals.transactions) / (static_cast<double>(bench_duration_ns) / 1e9);
}

double RunResult::ClientCpuUsPerTransaction() const {
  const int64_t ended = totals.transactions + totals.failures();
  if (ended <= 0) return 0;
  return (client_user_cpu_s + client_sys_cpu_s) * 1e6 / static_cast<double>(ended);
}

int ClientsForThread(int clients, int threads, int thread_index) {
  // pgbench: nstate = (nclients - dealt + nthreads - i - 1) / (nthreads - i).
  int dealt = 0;
  int n = 0;
  for (int i = 0; i <= thread_index; ++i) {
    n = (clients - dealt + threads - i - 1) / (threads - i);
    dealt += n;
  }
  return n;
}

namespace {

struct CpuSample {
  double user_s = 0;
  double sys_s = 0;
  int64_t max_rss_kb = 0;
};

CpuSample SampleCpu() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return {static_cast<double>(ru.ru_utime.tv_sec) + static_cast<double>(ru.ru_utime.tv_usec) * 1e-6,
          static_cast<double>(ru.ru_stime.tv_sec) + static_cast<double>(ru.ru_stime.tv_usec) * 1e-6,
          static_cast<int64_t>(ru.ru_maxrss)};
}

void SleepUntil(int64_t when_ns) {
  const int64_t now = MonotonicNanos();
  if (when_ns > now) std::this_thread::sleep_for(std::chrono::nanoseconds(when_ns - now));
}

}  // namespace

Result<RunResult> RunBenchmark(const EngineConfig& config) {
  const auto& scripts = *config.scripts;
  const int nthreads = std::max(1, std::min(config.threads, config.clients));

  Shared shared;
  shared.config = &config;
  for (const auto& s : scripts) shared.total_weight += s.weight;

  // Random streams in pgbench's order: one per client, then default_seed,
  // then choose/throttle/sample per thread.
  script::Prng base = script::MakeBaseSequence(config.random_seed);
  std::vector<script::Prng> client_rngs;
  client_rngs.reserve(static_cast<size_t>(config.clients));
  for (int i = 0; i < config.clients; ++i) client_rngs.push_back(base.NewStream());
  script::Variables base_vars = *config.base_variables;
  auto set_default = [&base_vars](const char* name, int64_t v) -> Status {
    if (base_vars.IsDefinedByName(name)) return Status::Ok();
    return base_vars.SetByName("startup", name, script::Value::Int(v));
  };
  PGRIG_RETURN_IF_ERROR(set_default("scale", config.scale));
  PGRIG_RETURN_IF_ERROR(set_default("default_seed", static_cast<int64_t>(base.Next64())));
  PGRIG_RETURN_IF_ERROR(set_default("random_seed", static_cast<int64_t>(config.random_seed)));
  const bool client_id_given = base_vars.IsDefinedByName("client_id");

  script::ScriptRunner::Options runner_options{.mode = config.mode,
                                               .report_meta_commands = config.report_per_command};
  std::vector<std::unique_ptr<Mailbox>> mailboxes;
  std::vector<std::unique_ptr<Worker>> workers;
  int next_client = 0;
  for (int t = 0; t < nthreads; ++t) {
    const int n = ClientsForThread(config.clients, nthreads, t);
    std::vector<ClientSeed> clients;
    for (int i = 0; i < n; ++i, ++next_client) {
      script::Variables vars = base_vars;
      if (!client_id_given) {
        PGRIG_RETURN_IF_ERROR(
            vars.SetByName("startup", "client_id", script::Value::Int(next_client)));
      }
      script::ScriptRunner::Options client_options = runner_options;
      if (config.debug) {
        client_options.trace = [&shared, id = next_client](bool per_client,
                                                           const std::string& text) {
          shared.Message(per_client ? "client " + std::to_string(id) + " " + text : text);
        };
      }
      clients.push_back(ClientSeed{.id = next_client,
                                   .vars = std::move(vars),
                                   .rng = client_rngs[static_cast<size_t>(next_client)],
                                   .runner_options = std::move(client_options)});
    }
    script::Prng choose = base.NewStream();
    script::Prng throttle = base.NewStream();
    script::Prng sample = base.NewStream();
    mailboxes.push_back(std::make_unique<Mailbox>());
    workers.push_back(std::make_unique<Worker>(&shared, t, std::move(clients), choose, throttle,
                                               sample, mailboxes.back().get()));
  }

  std::barrier<> connected(nthreads);
  shared.connected = &connected;
  const double start_wall = WallSeconds();
  shared.start_ns = MonotonicNanos();
  if (config.duration_s > 0)
    shared.end_ns = shared.start_ns + int64_t{config.duration_s} * 1'000'000'000;

  std::vector<std::thread> threads;
  threads.reserve(workers.size());
  for (auto& w : workers) threads.emplace_back([&w] { w->Run(); });

  // Wait for the start (every worker connected) or a setup failure.
  while (shared.bench_start_ns.load() == 0 && !shared.setup_failed.load()) {
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  if (shared.setup_failed.load()) {
    for (auto& th : threads) th.join();
    std::lock_guard<std::mutex> lock(shared.message_mu);
    return Unavailable(shared.setup_error.empty() ? "could not connect" : shared.setup_error);
  }
  const int64_t bench_start = shared.bench_start_ns.load();
  const double bench_start_wall =
      start_wall + static_cast<double>(bench_start - shared.start_ns + shared.gate_wait_ns) / 1e9;
  const CpuSample cpu0 = SampleCpu();

  // Progress: merge each interval once every worker has handed it over.
  auto all_finished = [&mailboxes] {
    for (auto& m : mailboxes) {
      std::lock_guard<std::mutex> lock(m->mu);
      if (!m->finished) return false;
    }
    return true;
  };
  if (config.progress_s > 0 && config.on_progress) {
    const int64_t interval_ns = int64_t{config.series_interval_s} * 1'000'000'000;
    for (int64_t k = 0;; ++k) {
      const int64_t boundary = bench_start + (k + 1) * interval_ns;
      bool done = false;
      while (MonotonicNanos() < boundary) {
        if (all_finished()) {
          done = true;
          break;
        }
        SleepUntil(std::min(boundary, MonotonicNanos() + 20'000'000));
      }
      if (done) break;
      // Workers publish within a loop turn of the boundary.
      stats::IntervalStats merged;
      bool complete = false;
      while (!complete) {
        complete = true;
        bool any_live = false;
        for (auto& m : mailboxes) {
          std::lock_guard<std::mutex> lock(m->mu);
          if (static_cast<int64_t>(m->intervals.size()) <= k && !m->finished) complete = false;
          if (!m->finished) any_live = true;
        }
        if (!any_live) break;
        if (!complete) std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      bool any_live = false;
      for (auto& m : mailboxes) {
        std::lock_guard<std::mutex> lock(m->mu);
        if (static_cast<int64_t>(m->intervals.size()) > k)
          merged.Add(m->intervals[static_cast<size_t>(k)]);
        if (!m->finished) any_live = true;
      }
      if (!any_live) break;  // the run ended inside this interval: no line, as pgbench
      config.on_progress(merged, static_cast<double>(interval_ns) / 1e9,
                         static_cast<double>((k + 1) * interval_ns) / 1e9);
    }
  }
  for (auto& th : threads) th.join();
  const int64_t end = MonotonicNanos();
  const CpuSample cpu1 = SampleCpu();

  RunResult r;
  r.start_wall_s = bench_start_wall;
  r.end_wall_s = bench_start_wall + static_cast<double>(end - bench_start) / 1e9;
  r.bench_duration_ns = end - bench_start;
  r.conn_elapsed_ns = bench_start - shared.start_ns;
  r.series = stats::TimeSeries(bench_start, int64_t{config.series_interval_s} * 1'000'000'000);
  r.scripts.resize(scripts.size());
  for (size_t i = 0; i < scripts.size(); ++i)
    r.scripts[i].commands.resize(scripts[i].commands.size());
  for (auto& w : workers) {
    r.totals.Add(w->totals());
    r.latency.Add(w->latency());
    r.lag.Add(w->lag());
    PGRIG_RETURN_IF_ERROR(r.series.Merge(w->series()));
    for (size_t i = 0; i < scripts.size(); ++i) {
      r.scripts[i].totals.Add(w->script_stats()[i].totals);
      for (size_t j = 0; j < r.scripts[i].commands.size(); ++j) {
        r.scripts[i].commands[j].Add(w->script_stats()[i].commands[j]);
      }
    }
    r.latency_late += w->latency_late();
    r.conn_total_ns += w->conn_total_ns();
    r.aborted_clients += w->aborted();
    r.lean_connections += w->lean_connections();
    r.ring_threads += w->used_ring() ? 1 : 0;
    ++r.threads;
    r.finished_clients += w->finished();
    if (r.first_abort_message.empty()) r.first_abort_message = w->first_abort();
  }
  r.client_user_cpu_s = cpu1.user_s - cpu0.user_s;
  r.client_sys_cpu_s = cpu1.sys_s - cpu0.sys_s;
  r.client_max_rss_kb = cpu1.max_rss_kb;
  if (r.aborted_clients > 0) {
    r.stop_reason = StopReason::kAborted;
  } else if (config.stop_requested && config.stop_requested->load()) {
    r.stop_reason = StopReason::kInterrupted;
  }
  return r;
}

}  // namespace pgrig::engine
