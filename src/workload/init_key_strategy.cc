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

namespace {

KeyStrategyChoice ChooseStrategy(const ServerKeyTraits& server, const LoadShape& load,
                                 std::optional<KeyStrategy> forced) {
  if (forced) return {*forced, fmt::format("forced by {}", kKeyStrategyEnv)};
  // Where the new tables are not WAL-logged (wal_level = minimal: they are
  // truncated in the load transaction; or unlogged tables), the key sorted
  // inside the load transaction is not WAL-logged either, and the heap and
  // the index are synced by one commit.  Keeping the key during the COPY
  // instead (kDuringLoad: one btree insertion per row, rightmost leaf) saves
  // reading the heap back for the sort (COPY writes through a 16 MB ring,
  // so a larger heap is in the kernel's cache by then, not in shared
  // buffers).  Which costs more depends on the machine, so the rule is the
  // one whose worst case is smaller (bench/init_vs_pgbench.sh, 10 pairs,
  // quiet 2-vCPU guests; docs/performance.md "Issue 32 in session 35"):
  // on session 34's guest the key during the load was 3-30% faster in all
  // four minimal configurations, and the key after each load 0.70-1.01x
  // pgbench -i; on session 35's, the key during the load was 7-30% slower
  // in all four (1.16x pgbench -i without partitions) and the key after
  // each load 0.47-0.97x.  Session 6 found the same as session 35.
  if (load.unlogged_tables) {
    return {KeyStrategy::kAfterEachLoad,
            "unlogged tables: each key is sorted in its table's load transaction, "
            "without WAL"};
  }
  if (server.wal_level == "minimal") {
    return {KeyStrategy::kAfterEachLoad,
            "wal_level = minimal: each key is sorted in its table's load transaction, "
            "without WAL"};
  }
  // Every other level (replica, logical, and anything unknown) WAL-logs the
  // heap and the index.  With several accounts heaps loading at once,
  // building each one's key as soon as it is loaded overlaps the builds with
  // the other loads; one large heap is keyed in step p, as pgbench does,
  // its build free to use the parallel maintenance workers.  (The key
  // during the load, one WAL record per row, was faster than these on
  // session 34's guest in three of four configurations, and slower in all
  // four on session 35's, by 34-43% in the medians of 10 pairs.)
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

}  // namespace

KeyStrategyChoice ChooseKeyStrategy(const ServerKeyTraits& server, const LoadShape& load,
                                    std::optional<KeyStrategy> forced) {
  KeyStrategyChoice c = ChooseStrategy(server, load, forced);
  // Several builds overlapping loads on a machine whose cores the load
  // sessions already fill: a parallel worker per build cannot find an idle
  // core, and costs its start (a process forked, then faulting in the
  // shared buffers it reads).  On a 2-vCPU guest, 8 partitions at scale 10
  // and 50 loaded in 7-16% less time relative to pgbench -i without them,
  // at both wal_levels (docs/performance.md, "Issue 32 in session 38").
  if (c.strategy == KeyStrategy::kAfterEachLoad && load.tables_loaded_at_once > 1 &&
      load.cores > 0 && load.tables_loaded_at_once >= load.cores &&
      server.max_parallel_maintenance_workers > 0) {
    c.serial_builds = true;
    c.reason += fmt::format(
        "; without parallel maintenance workers, the {} loads keeping the {} cores busy",
        load.tables_loaded_at_once, load.cores);
  }
  return c;
}

}  // namespace pgrig::workload
