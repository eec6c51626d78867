// The load engine: runs a pgbench-style benchmark with worker threads, each
// owning an epoll loop over its share of the client connections.
//
// Shape (see worker.h for the per-connection state machine):
//   * RunBenchmark() splits the clients over config.threads workers exactly
//     as pgbench does (contiguous blocks, sizes differing by at most one),
//     seeds every random stream in pgbench's order, starts the workers and
//     waits.
//   * Each worker connects all its clients with non-blocking libpq
//     (PQconnectStartParams/PQconnectPoll), then all workers start together.
//   * Per transaction a client runs its script through script::ScriptRunner;
//     SQL goes out with PQsendQuery / PQsendQueryParams / PQsendQueryPrepared
//     (pipeline mode for \startpipeline) and results come back through
//     PQconsumeInput / PQisBusy / PQgetResult when epoll says the socket is
//     readable.  No locks on that path: every worker keeps its own histogram
//     and counters.
//   * Progress (-P): at each interval boundary a worker hands its finished
//     interval to a per-worker mailbox (one short mutex hold per worker per
//     interval); the calling thread merges them and calls on_progress.
//   * Everything else is merged once, after the workers have stopped.
//
// Errors: RunBenchmark fails only when the benchmark could not start (a
// client could not connect: kUnavailable with libpq's message; a log file
// could not be opened).  What goes wrong during the run (SQL errors,
// a lost server, an interruption) is reported in RunResult::stop_reason.
//
// Thread-safety: RunBenchmark may be called from one thread at a time per
// config; it blocks until the run is over.
#ifndef PGRIG_ENGINE_ENGINE_H_
#define PGRIG_ENGINE_ENGINE_H_

#include "common/status.h"
#include "engine/config.h"
#include "engine/result.h"

namespace pgrig::engine {

// REQUIRES: config.scripts non-empty with a positive total weight,
// config.names and config.base_variables set, clients >= 1, threads >= 1,
// exactly one of transactions_per_client / duration_s positive.
Result<RunResult> RunBenchmark(const EngineConfig& config);

// pgbench's split of clients over threads: how many clients thread t gets.
int ClientsForThread(int clients, int threads, int thread_index);

}  // namespace pgrig::engine

#endif  // PGRIG_ENGINE_ENGINE_H_
