// The tables of `pgrig lio` (logical I/O from shared buffers, the PGIO
// method) as pure functions: names, sizes, the SQL that makes, loads,
// verifies and reads them, and the arithmetic on pg_stat_database snapshots.
//
// Layout.  Schema pgrig_lio holds tables t1..tN and a catalog table
// `tables` (name, blocks).  Each table has one row per 8 KB heap block:
//   id      bigint   0..blocks-1, the load order (so block number == id)
//   k       bigint   a permutation of 0..blocks-1: (id * 2147483647) mod blocks,
//                    indexed; consecutive keys land in scattered blocks
//   scratch bigint   what --update-pct updates (not indexed: HOT updates)
//   pad     text     500 bytes, STORAGE PLAIN (never compressed)
// with fillfactor 10: a page takes a new row only while its free space
// stays above 90% of the page, and a ~560-byte row leaves less than that, so
// the second row never fits.  Updates may still use the page's free space,
// which keeps a row's new version in its block.
//
// Everything here is a pure function; thread-safe.
#ifndef PGRIG_MICRO_LIO_SCHEMA_H_
#define PGRIG_MICRO_LIO_SCHEMA_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace pgrig::micro {

inline constexpr const char* kLioSchema = "pgrig_lio";
inline constexpr int64_t kBlockBytes = 8192;
inline constexpr int kMaxLioTables = 256;
// The key permutation multiplies by this prime; ids stay below it so the
// product fits in a bigint and the multiplier is coprime with every size.
inline constexpr int64_t kKeyMultiplier = 2147483647;
inline constexpr int64_t kMaxBlocksPerTable = kKeyMultiplier - 1;  // 16 TiB
inline constexpr int kPadBytes = 500;

// "131072" (blocks), "64MB", "1GB", "1.5GB", "512kB" (binary units: 1MB is
// 1024 kB, as PostgreSQL's memory units), "8192blocks".  Sizes must come to
// at least one block per table and at most kMaxBlocksPerTable.
// kInvalidArgument naming the text and what is allowed.
Result<int64_t> ParseLioScale(std::string_view text);

// Blocks per table so that `tables` tables and their indexes take at most
// `fraction` of shared_buffers (given in 8 KB blocks).  Fails when that
// leaves fewer than 64 blocks per table.
Result<int64_t> FitBlocksPerTable(int64_t shared_buffers_blocks, int tables,
                                  double fraction = 0.75);

// Index blocks of a table of `blocks` rows (B-tree on a bigint, 90% leaf
// fill, plus inner pages), an estimate used by FitBlocksPerTable.
int64_t EstimatedIndexBlocks(int64_t blocks);

std::string LioTableName(int table);      // "t1" (1-based)
std::string LioQualifiedName(int table);  // "pgrig_lio.t1"

// DDL/DML for one table, in order: drop, create, load, index, vacuum-analyze.
std::string LioCreateSql(int table);
std::string LioLoadSql(int table, int64_t blocks);
std::string LioIndexSql(int table);
std::string LioVacuumSql(int table);
// One row: count(*), count(distinct heap block), max(block)+1.
std::string LioVerifySql(int table);
// Reads every heap block of the table through its index (index scans do
// not use a buffer ring, so the blocks stay in shared_buffers).
std::string LioWarmSql(int table);

// The statements a session prepares: $1 is the first key of the range.
std::string LioSelectRangeSql(int table, int work_unit);
std::string LioUpdateRangeSql(int table, int work_unit);

// The server-side loop (PGIO's way, for comparison): a PL/pgSQL function
// per table, pgrig_lio.loop_tN(work_unit, update_work_unit, update_pct,
// blocks, seconds), that runs ranges until `seconds` have passed and returns
// (ranges, rows, updates, updated_rows).  Static SQL, so PL/pgSQL caches the
// plans as for a prepared statement.
std::string LioLoopFunctionSql(int table);
std::string LioLoopCallSql(int table);  // $1..$5 as above

// One reading of pg_stat_database for our database.
struct DbCounters {
  int64_t blks_hit = 0;
  int64_t blks_read = 0;
  int64_t xact_commit = 0;
  int64_t tup_returned = 0;
  int64_t tup_fetched = 0;
  int64_t tup_updated = 0;
  double at_s = 0;  // monotonic seconds when read
};
std::string DbCountersSql();  // columns in DbCounters' order, for current_database()

// What happened between two readings.  Counters that went backwards (a
// stats reset in between) make the delta invalid.
struct CounterDelta {
  int64_t blks_hit = 0;
  int64_t blks_read = 0;
  int64_t xact_commit = 0;
  int64_t tup_fetched = 0;
  int64_t tup_updated = 0;
  double window_s = 0;
  int64_t logical_reads() const { return blks_hit + blks_read; }
};
Result<CounterDelta> Subtract(const DbCounters& start, const DbCounters& end);

// Rates over a window; 0 when the window is empty.
double PerSecond(int64_t count, double window_s);

}  // namespace pgrig::micro

#endif  // PGRIG_MICRO_LIO_SCHEMA_H_
