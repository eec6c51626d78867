// The results document of `pgrig fsync`: "schema": "pgrig.fsync/1", in the
// conventions of pgrig.result/1 (docs/results-lio.md documents both
// micro-benchmark documents).  Pure functions; thread-safe.
#ifndef PGRIG_RESULTS_WAL_FLUSH_JSON_H_
#define PGRIG_RESULTS_WAL_FLUSH_JSON_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "micro/wal_flush.h"
#include "results/lio_json.h"

namespace pgrig::results {

struct FsyncDocContext {
  // The server's wal_sync_method when a server was reachable.
  std::optional<std::string> server_wal_sync_method;
  nlohmann::json storage = nullptr;  // host facts' "storage" object for the directory
  nlohmann::json facts = nullptr;    // pgrig.facts/1, or null
  // A suite's fsync test: the plan's workload name, as "workload".
  std::optional<std::string> suite_workload;
};

// The headline, computed once for the document's "summary" and `pgrig
// fsync`'s text: the best method and its headline test (single writer),
// the server's method's headline test, and best over server's.  The tests
// point into the FsyncResult given.
struct FsyncHeadline {
  micro::BestMethodChoice choice;         // leader, runner-up, the ratio and its interval
  std::optional<micro::SyncMethod> best;  // choice.best: only a significantly best method
  const micro::FlushTest* best_test = nullptr;
  const micro::FlushTest* server_test = nullptr;
  std::optional<double> best_over_server;
};
FsyncHeadline ComputeFsyncHeadline(const micro::FsyncResult& r,
                                   const std::optional<std::string>& server_wal_sync_method);

nlohmann::json FsyncResultToJson(const MicroDocInputs& in, const micro::FsyncOptions& options,
                                 const micro::FsyncResult& r, const FsyncDocContext& ctx);

}  // namespace pgrig::results

#endif  // PGRIG_RESULTS_WAL_FLUSH_JSON_H_
