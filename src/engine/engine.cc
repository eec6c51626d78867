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

// What the clients start from: their random streams and the variables
// every client is given.
struct ClientSeeds {
  script::Prng base;  // goes on with the workers' streams (MakeWorkers)
  std::vector<script::Prng> client_rngs;
  script::Variables base_vars;
  bool client_id_given = false;  // -D client_id=...
};

// Random streams in pgbench's order: one per client, then default_seed,
// then choose/throttle/sample per thread (MakeWorkers takes those from
// seeds.base, in that order, after this).
Result<ClientSeeds> SeedClients(const EngineConfig& config) {
  ClientSeeds seeds{.base = script::MakeBaseSequence(config.random_seed),
                    .client_rngs = {},
                    .base_vars = *config.base_variables};
  seeds.client_rngs.reserve(static_cast<size_t>(config.clients));
  for (int i = 0; i < config.clients; ++i) seeds.client_rngs.push_back(seeds.base.NewStream());
  script::Variables& base_vars = seeds.base_vars;
  auto set_default = [&base_vars](const char* name, int64_t v) -> Status {
    if (base_vars.IsDefinedByName(name)) return Status::Ok();
    return base_vars.SetByName("startup", name, script::Value::Int(v));
  };
  PGRIG_RETURN_IF_ERROR(set_default("scale", config.scale));
  PGRIG_RETURN_IF_ERROR(set_default("default_seed", static_cast<int64_t>(seeds.base.Next64())));
  PGRIG_RETURN_IF_ERROR(set_default("random_seed", static_cast<int64_t>(config.random_seed)));
  seeds.client_id_given = base_vars.IsDefinedByName("client_id");
  return seeds;
}

// The workers, each with its mailbox; destroyed workers first.
struct Crew {
  std::vector<std::unique_ptr<Mailbox>> mailboxes;
  std::vector<std::unique_ptr<Worker>> workers;
};

// Deals the clients over `nthreads` workers as pgbench does, each client
// with its variables (client_id unless -D gave one), random stream and
// runner options.  The workers keep pointers to `shared`.
Result<Crew> MakeWorkers(const EngineConfig& config, int nthreads, ClientSeeds& seeds,
                         Shared& shared) {
  script::ScriptRunner::Options runner_options{.mode = config.mode,
                                               .report_meta_commands = config.report_per_command};
  Crew crew;
  int next_client = 0;
  for (int t = 0; t < nthreads; ++t) {
    const int n = ClientsForThread(config.clients, nthreads, t);
    std::vector<ClientSeed> clients;
    for (int i = 0; i < n; ++i, ++next_client) {
      script::Variables vars = seeds.base_vars;
      if (!seeds.client_id_given) {
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
                                   .rng = seeds.client_rngs[static_cast<size_t>(next_client)],
                                   .runner_options = std::move(client_options)});
    }
    script::Prng choose = seeds.base.NewStream();
    script::Prng throttle = seeds.base.NewStream();
    script::Prng sample = seeds.base.NewStream();
    crew.mailboxes.push_back(std::make_unique<Mailbox>());
    crew.workers.push_back(std::make_unique<Worker>(&shared, t, std::move(clients), choose,
                                                    throttle, sample, crew.mailboxes.back().get()));
  }
  return crew;
}

// Waits for the start (every worker connected): returns the bench start
// time.  On a setup failure joins the threads and returns the first setup
// error as kUnavailable.
Result<int64_t> AwaitStart(Shared& shared, std::vector<std::thread>& threads) {
  while (shared.bench_start_ns.load() == 0 && !shared.setup_failed.load()) {
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  if (shared.setup_failed.load()) {
    for (auto& th : threads) th.join();
    std::lock_guard<std::mutex> lock(shared.message_mu);
    return Unavailable(shared.setup_error.empty() ? "could not connect" : shared.setup_error);
  }
  return shared.bench_start_ns.load();
}

bool AllFinished(const std::vector<std::unique_ptr<Mailbox>>& mailboxes) {
  for (auto& m : mailboxes) {
    std::lock_guard<std::mutex> lock(m->mu);
    if (!m->finished) return false;
  }
  return true;
}

// -P: merges each interval once every worker has handed it over and passes
// it to config.on_progress, until the workers finish.
void ForwardProgress(const EngineConfig& config,
                     const std::vector<std::unique_ptr<Mailbox>>& mailboxes, int64_t bench_start) {
  const int64_t interval_ns = int64_t{config.series_interval_s} * 1'000'000'000;
  for (int64_t k = 0;; ++k) {
    const int64_t boundary = bench_start + (k + 1) * interval_ns;
    bool done = false;
    while (MonotonicNanos() < boundary) {
      if (AllFinished(mailboxes)) {
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

// The measured window: its edges and the process's CPU clocks at them.
struct Window {
  int64_t start_ns = 0;  // every worker connected
  int64_t end_ns = 0;    // every worker stopped
  double start_wall_s = 0;
  CpuSample cpu_start;
  CpuSample cpu_end;
};

// Merges what the workers kept into the RunResult.
Result<RunResult> CollectResult(const EngineConfig& config, const Shared& shared,
                                const std::vector<std::unique_ptr<Worker>>& workers,
                                const Window& w) {
  const auto& scripts = *config.scripts;
  RunResult r;
  r.start_wall_s = w.start_wall_s;
  r.end_wall_s = w.start_wall_s + static_cast<double>(w.end_ns - w.start_ns) / 1e9;
  r.bench_duration_ns = w.end_ns - w.start_ns;
  r.conn_elapsed_ns = w.start_ns - shared.start_ns;
  r.series = stats::TimeSeries(w.start_ns, int64_t{config.series_interval_s} * 1'000'000'000);
  r.scripts.resize(scripts.size());
  for (size_t i = 0; i < scripts.size(); ++i)
    r.scripts[i].commands.resize(scripts[i].commands.size());
  for (auto& wk : workers) {
    r.totals.Add(wk->totals());
    r.latency.Add(wk->latency());
    r.lag.Add(wk->lag());
    PGRIG_RETURN_IF_ERROR(r.series.Merge(wk->series()));
    for (size_t i = 0; i < scripts.size(); ++i) {
      r.scripts[i].totals.Add(wk->script_stats()[i].totals);
      if (const auto& h = wk->script_stats()[i].latency) {
        if (!r.scripts[i].latency) r.scripts[i].latency.emplace();
        r.scripts[i].latency->Add(*h);
      }
      for (size_t j = 0; j < r.scripts[i].commands.size(); ++j) {
        r.scripts[i].commands[j].Add(wk->script_stats()[i].commands[j]);
      }
    }
    r.latency_late += wk->latency_late();
    r.conn_total_ns += wk->conn_total_ns();
    r.aborted_clients += wk->aborted();
    r.lean_connections += wk->lean_connections();
    r.ring_threads += wk->used_ring() ? 1 : 0;
    ++r.threads;
    r.finished_clients += wk->finished();
    if (r.first_abort_message.empty()) r.first_abort_message = wk->first_abort();
  }
  r.client_user_cpu_s = w.cpu_end.user_s - w.cpu_start.user_s;
  r.client_sys_cpu_s = w.cpu_end.sys_s - w.cpu_start.sys_s;
  r.client_max_rss_kb = w.cpu_end.max_rss_kb;
  if (r.aborted_clients > 0) {
    r.stop_reason = StopReason::kAborted;
  } else if (config.stop_requested && config.stop_requested->load()) {
    r.stop_reason = StopReason::kInterrupted;
  }
  return r;
}

}  // namespace

Result<RunResult> RunBenchmark(const EngineConfig& config) {
  const int nthreads = WorkerThreads(config.threads, config.clients);

  Shared shared;
  shared.config = &config;
  for (const auto& s : *config.scripts) shared.total_weight += s.weight;

  PGRIG_ASSIGN_OR_RETURN(ClientSeeds seeds, SeedClients(config));
  PGRIG_ASSIGN_OR_RETURN(Crew crew, MakeWorkers(config, nthreads, seeds, shared));

  std::barrier<> connected(nthreads);
  shared.connected = &connected;
  const double start_wall = WallSeconds();
  shared.start_ns = MonotonicNanos();
  if (config.duration_s > 0)
    shared.end_ns = shared.start_ns + int64_t{config.duration_s} * 1'000'000'000;

  std::vector<std::thread> threads;
  threads.reserve(crew.workers.size());
  for (auto& w : crew.workers) threads.emplace_back([&w] { w->Run(); });

  Window window;
  PGRIG_ASSIGN_OR_RETURN(window.start_ns, AwaitStart(shared, threads));
  window.start_wall_s =
      start_wall +
      static_cast<double>(window.start_ns - shared.start_ns + shared.gate_wait_ns) / 1e9;
  window.cpu_start = SampleCpu();

  if (config.progress_s > 0 && config.on_progress) {
    ForwardProgress(config, crew.mailboxes, window.start_ns);
  }
  for (auto& th : threads) th.join();
  window.end_ns = MonotonicNanos();
  window.cpu_end = SampleCpu();
  return CollectResult(config, shared, crew.workers, window);
}

}  // namespace pgrig::engine
