#include "workload/init_key_strategy.h"

#include <fmt/format.h>

#include "common/enum_names.h"

namespace pgrig::workload {

constexpr const char* kKeyStrategyNames[] = {"during-load", "after-each-load", "separate-step"};

const char* KeyStrategyName(KeyStrategy s) {
  return NameAt<KeyStrategy::kSeparateStep>(s, kKeyStrategyNames);
}

Result<KeyStrategy> ParseKeyStrategy(std::string_view name) {
  if (auto v = ValueAt<KeyStrategy::kSeparateStep>(name, kKeyStrategyNames)) return *v;
  return InvalidArgument(fmt::format(
      "{}=\"{}\" is not a key strategy; use during-load, after-each-load or separate-step, "
      "or unset it to let pgrig choose",
      kKeyStrategyEnv, name));
}

KeyStrategyChoice ChooseKeyStrategy(const ServerKeyTraits& server, const LoadShape& load,
                                    std::optional<KeyStrategy> forced) {
  if (forced) return {*forced, fmt::format("forced by {}", kKeyStrategyEnv)};
  // Where the new tables are not WAL-logged (wal_level = minimal: they are
  // truncated in the load transaction; or unlogged tables), COPY keeps the
  // key as the rows arrive (aids ascend, so every insertion goes to the
  // rightmost leaf, without WAL).  Sorting it after the COPY instead reads
  // the whole heap back: COPY writes through a small ring of buffers, so
  // the heap is in the kernel's cache, not in shared buffers, by then.
  // Measured with bench/init_vs_pgbench.sh on a quiet 2-vCPU guest
  // (docs/performance.md, "Issue 32 in session 34"): in all four minimal
  // configurations (scale 10 and 50, plain and partitioned) the key during
  // the load took 3-30% less time than the key after it, in the medians of
  // 10 pairs; at scale 50 partitioned the server spent 9.2-9.7 s of CPU
  // against 13.6-15.5 s.  (Session 6's opposite finding came from a
  // machine under a load average of 4-7.)
  if (load.unlogged_tables) {
    return {KeyStrategy::kDuringLoad,
            "unlogged tables: COPY keeps each key as the rows arrive in key order, "
            "without WAL"};
  }
  if (server.wal_level == "minimal") {
    return {KeyStrategy::kDuringLoad,
            "wal_level = minimal: COPY keeps each key as the rows arrive in key order, "
            "without WAL"};
  }
  // Every other level (replica, logical, and anything unknown) WAL-logs the
  // heap and the index.  With several accounts heaps loading at once,
  // building each one's key as soon as it is loaded overlaps the builds with
  // the other loads; one large heap is keyed in step p, as pgbench does,
  // its build free to use the parallel maintenance workers.
  if (load.tables_loaded_at_once > 1) {
    return {KeyStrategy::kAfterEachLoad,
            fmt::format("wal_level = {}, {} partitions loading at once: each key is sorted "
                        "right after its partition's load, overlapping the others",
                        server.wal_level, load.tables_loaded_at_once)};
  }
  return {KeyStrategy::kSeparateStep,
          fmt::format("wal_level = {}, one accounts table: its key is sorted after the load{}",
                      server.wal_level,
                      server.max_parallel_maintenance_workers > 0
                          ? fmt::format(" with up to {} parallel maintenance workers",
                                        server.max_parallel_maintenance_workers)
                          : std::string())};
}

}  // namespace pgrig::workload
