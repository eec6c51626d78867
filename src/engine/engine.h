// The load engine: runs a pgbench-style benchmark with worker threads, each
// owning a poller over its share of the client connections.
//
// Shape (the files of src/engine/, each header says more):
//   * RunBenchmark() splits the clients over config.threads workers exactly
//     as pgbench does (contiguous blocks, sizes differing by at most one),
//     seeds every random stream in pgbench's order, starts the workers and
//     waits.
//   * Each Worker (worker.h) connects all its clients with non-blocking libpq
//     (PQconnectStartParams/PQconnectPoll), then all workers start together.
//   * Per client a Session (session.h) runs its scripts through
//     script::ScriptRunner: pgbench's state machine with retries, pipelines,
//     -C, -R/-L, -t/-T.  It talks to the server through a Transport
//     (transport.h): libpq, or the lean protocol (pg/wire.h) on a connection
//     libpq opened, for scripts and connections that allow it.  The worker's
//     Poller (poller.h) waits with epoll, or with io_uring (ring.h) for the
//     lean transport when the run is not paced (-R; EngineConfig::
//     io_uring_paced says why).  No locks on that path: every worker keeps
//     its own histogram and counters.
//   * Progress (-P): at each interval boundary a worker hands its finished
//     interval to a per-worker mailbox (one short mutex hold per worker per
//     interval); the calling thread merges them and calls on_progress.
//   * Everything else is merged once, after the workers have stopped.
//   * pgbench's message texts are built in messages.h.
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
