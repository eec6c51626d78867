// `pgrig lio init`: makes and loads the tables of lio_schema.h, one
// connection per table in parallel, and checks that each really holds one
// row per block; ReadLioTables() finds what a previous init made.
//
// InitLio() replaces tables t1..tN (and forgets tables beyond N from an
// earlier, larger init).  On a failure the tables it was making are dropped,
// so a later `lio run` never measures a half-loaded set.  It blocks; it
// uses one thread per table and joins them all before returning.
// Thread-compatible: call from one thread.
#ifndef PGRIG_MICRO_LIO_LOAD_H_
#define PGRIG_MICRO_LIO_LOAD_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "pg/connection.h"

namespace pgrig::micro {

struct LioInitOptions {
  pg::ConnectionParams target;
  int tables = 4;
  int64_t blocks_per_table = 0;  // from ParseLioScale or FitBlocksPerTable
  // Called from the calling thread with one line per finished step.
  std::function<void(const std::string&)> on_note;
  const std::atomic<bool>* stop_requested = nullptr;
};

struct LioTableInfo {
  int table = 0;       // 1-based
  int64_t blocks = 0;  // rows == heap blocks
  int64_t index_blocks = 0;
  double load_s = 0;  // 0 when read back by ReadLioTables
};

struct LioInitResult {
  std::vector<LioTableInfo> tables;
  double wall_s = 0;
};

// REQUIRES: options validated (tables in 1..kMaxLioTables, blocks >= 1).
Result<LioInitResult> InitLio(const LioInitOptions& options);

// Checks the validity of init options without touching anything.
Status ValidateLioInit(const LioInitOptions& options);

// The tables a previous init made (from pgrig_lio.tables), each verified to
// exist with its recorded size.  FailedPrecondition saying to run
// `pgrig lio init` when there are none.
Result<std::vector<LioTableInfo>> ReadLioTables(pg::Connection& conn);

// count(*) == count(distinct block) == blocks, else FailedPrecondition
// naming the table and both counts.
Status VerifyOneRowPerBlock(pg::Connection& conn, int table, int64_t blocks);

// shared_buffers in 8 KB blocks, read from pg_settings.
Result<int64_t> SharedBuffersBlocks(pg::Connection& conn);

}  // namespace pgrig::micro

#endif  // PGRIG_MICRO_LIO_LOAD_H_
