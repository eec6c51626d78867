// What one run looked like from the outside: host and server samples taken
// once per interval by the Observer (observe.h), and the window totals.
//
// Each sample holds rates over its own interval (the time since the previous
// sample, `dt_s`), so samples of slightly different lengths stay comparable.
// Host figures come from /proc (observe_host.h), server figures from the
// PostgreSQL statistics views (observe_server.h); docs/observe.md lists every
// field with its source and unit.  Figures that could not be read are
// nullopt (JSON null) and the reason is in `notes`, once.
//
// Plain value types; thread-compatible.
#ifndef PGRIG_OBSERVE_OBSERVATION_H_
#define PGRIG_OBSERVE_OBSERVATION_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pgrig::observe {

struct HostSample {
  double t_s = 0;   // end of the interval, seconds since the Observer started
  double dt_s = 0;  // length of the interval
  // Shares of all CPUs' time in the interval, in percent (they add up to 100).
  double cpu_user_pct = 0;    // user + nice (guest time is inside these)
  double cpu_system_pct = 0;  // system + irq + softirq
  double cpu_iowait_pct = 0;
  double cpu_steal_pct = 0;
  double cpu_idle_pct = 0;
  // The part of user + system that neither the client process nor the
  // server's processes used: other programs on the host (never below 0).
  // Nullopt when the measurement's own CPU could not be read (a local server
  // whose postmaster is unknown).
  std::optional<double> cpu_other_pct;
  std::optional<int64_t> run_queue;  // procs_running at the sample (includes the sampler)
  std::optional<double> context_switches_per_s;
  // The data device (nullopt when there is none or it is unknown).
  std::optional<double> disk_read_bytes_per_s;
  std::optional<double> disk_write_bytes_per_s;
  std::optional<double> disk_reads_per_s;
  std::optional<double> disk_writes_per_s;
  std::optional<double> disk_util_pct;     // time the device had I/O in flight
  std::optional<uint64_t> mem_used_bytes;  // MemTotal - MemAvailable
  std::optional<uint64_t> mem_available_bytes;

  double CpuBusyPct() const { return cpu_user_pct + cpu_system_pct; }
};

struct ServerSample {
  double t_s = 0;
  double dt_s = 0;
  // pg_stat_database of the observed database, per second.
  std::optional<double> xact_commit_per_s;
  std::optional<double> xact_rollback_per_s;
  std::optional<double> blks_hit_per_s;
  std::optional<double> blks_read_per_s;
  std::optional<double> tup_returned_per_s;
  std::optional<double> tup_fetched_per_s;
  std::optional<double> tup_inserted_per_s;
  std::optional<double> tup_updated_per_s;
  std::optional<double> tup_deleted_per_s;
  std::optional<double> temp_bytes_per_s;
  std::optional<double> deadlocks_per_s;
  // WAL written by the server (all databases), bytes per second.
  std::optional<double> wal_bytes_per_s;
  // Checkpointer and background writer: checkpoints started in the interval
  // (counts), buffers written per second.
  std::optional<int64_t> checkpoints_timed;
  std::optional<int64_t> checkpoints_req;
  std::optional<double> buffers_checkpoint_per_s;
  std::optional<double> buffers_clean_per_s;
  std::optional<double> buffers_backend_per_s;  // nullopt on PostgreSQL 17+ (moved to pg_stat_io)
  // pg_stat_activity is polled `wait_polls` times per sample (every
  // ObserveOptions::wait_interval): the mean number of active client backends
  // of the database (the sampler excluded) over those polls, and what they
  // were waiting on, summed over the polls ("Lock:transactionid"; "CPU" when
  // not waiting).
  std::optional<double> active_backends;
  int64_t wait_polls = 0;
  std::map<std::string, int64_t> wait_events;
};

// Time-weighted means over the host samples (what Diagnose reasons about).
struct HostMeans {
  double duration_s = 0;  // sum of the samples' intervals; 0 when there are none
  double cpu_user_pct = 0;
  double cpu_system_pct = 0;
  double cpu_iowait_pct = 0;
  double cpu_steal_pct = 0;
  double cpu_idle_pct = 0;
  std::optional<double> cpu_other_pct;  // over the samples that have it
  std::optional<double> run_queue;
  std::optional<double> context_switches_per_s;
  std::optional<double> disk_util_pct;
  std::optional<double> disk_read_bytes_per_s;
  std::optional<double> disk_write_bytes_per_s;

  double CpuBusyPct() const { return cpu_user_pct + cpu_system_pct; }
};

// Counter differences between the first and the last server sample of the
// window; each part absent when its view could not be read (all of them
// when fewer than one sample was taken).
struct ServerTotals {
  std::optional<double> duration_s;  // between the first and the last sample
  struct Database {                  // pg_stat_database of the observed database
    int64_t xact_commit = 0, xact_rollback = 0, blks_hit = 0, blks_read = 0;
    int64_t tup_returned = 0, tup_fetched = 0, tup_inserted = 0, tup_updated = 0;
    int64_t tup_deleted = 0, temp_bytes = 0, deadlocks = 0;
  };
  std::optional<Database> database;
  std::optional<int64_t> wal_bytes;  // WAL written by the server
  struct Bgwriter {                  // checkpointer and background writer
    int64_t checkpoints_timed = 0, checkpoints_req = 0;
    int64_t buffers_checkpoint = 0, buffers_clean = 0;
    std::optional<int64_t> buffers_backend;  // not in PostgreSQL 17+
  };
  std::optional<Bgwriter> bgwriter;
};

struct Observation {
  double interval_s = 1;
  double wait_interval_s = 1;    // how often pg_stat_activity was polled
  bool server_is_local = true;   // host figures include the server's work
  std::optional<int> host_cpus;  // CPUs counted in /proc/stat
  std::optional<std::string> data_device;
  std::vector<HostSample> host;
  std::vector<ServerSample> server;
  ServerTotals server_totals;
  // Over all polls: wait event -> (backend, poll) observations.
  std::map<std::string, int64_t> wait_events;
  int64_t wait_samples = 0;        // backends observed in total (the denominator)
  std::vector<std::string> notes;  // what could not be observed and why
  // What observing cost: CPU seconds of the sampling thread (inside the
  // client process, so inside its getrusage figures) and, when the server is
  // local, of the monitoring connection's backend.
  double sampler_cpu_s = 0;
  std::optional<double> sampler_backend_cpu_s;

  HostMeans MeanHost() const;
  // Mean active backends over all polls.
  std::optional<double> MeanActiveBackends() const;
};

}  // namespace pgrig::observe

#endif  // PGRIG_OBSERVE_OBSERVATION_H_
