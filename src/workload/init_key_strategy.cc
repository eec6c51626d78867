#include "workload/init_key_strategy.h"

#include <fmt/format.h>

namespace pgrig::workload {

const char* KeyStrategyName(KeyStrategy s) {
  switch (s) {
    case KeyStrategy::kDuringLoad:
      return "during-load";
    case KeyStrategy::kAfterEachLoad:
      return "after-each-load";
    case KeyStrategy::kSeparateStep:
      return "separate-step";
  }
  return "?";
}

Result<KeyStrategy> ParseKeyStrategy(std::string_view name) {
  for (KeyStrategy s :
       {KeyStrategy::kDuringLoad, KeyStrategy::kAfterEachLoad, KeyStrategy::kSeparateStep}) {
    if (name == KeyStrategyName(s)) return s;
  }
  return InvalidArgument(fmt::format(
      "{}=\"{}\" is not a key strategy; use during-load, after-each-load or separate-step, "
      "or unset it to let pgrig choose",
      kKeyStrategyEnv, name));
}

KeyStrategyChoice ChooseKeyStrategy(const ServerKeyTraits& server, const LoadShape& load,
                                    std::optional<KeyStrategy> forced) {
  if (forced) return {*forced, fmt::format("forced by {}", kKeyStrategyEnv)};
  // Without WAL for the freshly created or truncated tables, maintaining
  // the key row by row during COPY costs less than reading the heap again
  // to sort it.
  if (load.unlogged_tables) {
    return {KeyStrategy::kDuringLoad, "unlogged tables: index insertions write no WAL"};
  }
  if (server.wal_level == "minimal") {
    return {KeyStrategy::kDuringLoad,
            "wal_level = minimal: index insertions into the new tables write no WAL"};
  }
  // Every other level (replica, logical, and anything unknown) WAL-logs each
  // index insertion made during COPY, so the keys are built by sorting.
  // With several accounts tables loading at once, building each one's key
  // as soon as it is loaded overlaps the builds with the other loads; a
  // single large table gains more from the parallel maintenance workers of
  // step p's build, which also runs pgbench's order.
  if (load.tables_loaded_at_once > 1) {
    return {KeyStrategy::kAfterEachLoad,
            fmt::format("wal_level = {}: each index insertion is WAL-logged, so each partition's "
                        "key is sorted right after its load, overlapping the others",
                        server.wal_level)};
  }
  return {KeyStrategy::kSeparateStep,
          fmt::format("wal_level = {}: each index insertion is WAL-logged, so the keys are "
                      "sorted after the load{}",
                      server.wal_level,
                      server.max_parallel_maintenance_workers > 0
                          ? fmt::format(" with up to {} parallel maintenance workers",
                                        server.max_parallel_maintenance_workers)
                          : std::string())};
}

}  // namespace pgrig::workload
