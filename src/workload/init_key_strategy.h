// When `pgrig init` builds pgbench's primary keys, chosen from what the
// server is.
//
// Three ways give the same keys (the result is pgbench -i's in every case):
//   kDuringLoad      the key goes onto each empty table inside its load
//                    transaction and COPY maintains it row by row (aids
//                    arrive in order, so btree's rightmost-leaf fast path
//                    applies) and the heap is never read back for a sort.
//                    Nothing of it is WAL-logged where the table is not
//                    (wal_level = minimal, table created or truncated in the
//                    same transaction); where it is, every insertion writes
//                    a WAL record.  Never chosen by itself: faster than
//                    the sorted builds on one machine, slower on another
//                    (docs/performance.md, sessions 34 and 35);
//   kAfterEachLoad   each load transaction adds its table's key right after
//                    its COPY, before committing: one sorted build per table
//                    (WAL-logged as whole pages, or not at all at minimal),
//                    overlapping the other tables' loads;
//   kSeparateStep    pgbench's order: step p builds the keys after the load
//                    (and after vacuum), the tables' keys on parallel
//                    connections, each build free to use the server's
//                    parallel maintenance workers.
// A key sorted in its load transaction while other loads run beside it
// (kAfterEachLoad, several accounts heaps at once, at least as many as this
// machine has cores) is built without parallel maintenance workers: the
// load sessions already keep every core busy, and a worker per build only
// adds a process to start and to share the cores with (docs/performance.md,
// "Issue 32 in session 38").
// ChooseKeyStrategy() is a pure function of the server's settings, so that
// the rule is unit-tested; the loader asks the server and reports the
// choice and its reason.  PGRIG_INIT_KEYS (see ParseKeyStrategy) forces one,
// for tests and measurements.  Thread-safe (no state).
#ifndef PGRIG_WORKLOAD_INIT_KEY_STRATEGY_H_
#define PGRIG_WORKLOAD_INIT_KEY_STRATEGY_H_

#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace pgrig::workload {

enum class KeyStrategy { kDuringLoad, kAfterEachLoad, kSeparateStep };

// The environment variable that forces a strategy.
inline constexpr const char* kKeyStrategyEnv = "PGRIG_INIT_KEYS";

// "during-load", "after-each-load", "separate-step".
const char* KeyStrategyName(KeyStrategy s);

// Reads a strategy name as KeyStrategyName() spells it; InvalidArgument
// naming the accepted values otherwise.
Result<KeyStrategy> ParseKeyStrategy(std::string_view name);

// What the choice depends on, as the server reports it.
struct ServerKeyTraits {
  std::string wal_level;                     // SHOW wal_level
  int max_parallel_maintenance_workers = 0;  // SHOW max_parallel_maintenance_workers
};

// What the load looks like.
struct LoadShape {
  bool unlogged_tables = false;   // --unlogged-tables: nothing is WAL-logged
  int tables_loaded_at_once = 1;  // accounts loads (partitions) running in parallel
  // This machine's CPUs, standing for the server's (init runs beside its
  // server: the embedded cluster, a fleet node); 0 when unknown.
  int cores = 0;
};

struct KeyStrategyChoice {
  KeyStrategy strategy = KeyStrategy::kSeparateStep;
  std::string reason;  // one clause, for init's note: "wal_level = replica: ..."
  // Each load transaction sets max_parallel_maintenance_workers = 0 before
  // its key build (only ever with kAfterEachLoad).
  bool serial_builds = false;
};

// `forced` (from PGRIG_INIT_KEYS) wins; otherwise the rule documented in
// the .cc, from the server's traits.
KeyStrategyChoice ChooseKeyStrategy(const ServerKeyTraits& server, const LoadShape& load,
                                    std::optional<KeyStrategy> forced);

}  // namespace pgrig::workload

#endif  // PGRIG_WORKLOAD_INIT_KEY_STRATEGY_H_
