// pgbench's tables and data, as SQL text and COPY bytes.
//
// Everything here is a pure function of InitOptions: the DDL that `pgbench
// -i` runs (same tables, columns, types, fillfactor, partitioning, keys), the
// rows it generates (aid/bid/tid numbering, zero balances, blank-padded
// accounts filler, NULL filler elsewhere), which partition an aid lands in,
// and the binary COPY encoding pgrig streams them in.  The loader
// (pgbench_loader.h) decides how to run it; keeping the "what" here lets
// tests check it without a server.  Thread-safe (no state).
#ifndef PGRIG_WORKLOAD_PGBENCH_SCHEMA_H_
#define PGRIG_WORKLOAD_PGBENCH_SCHEMA_H_

#include <cstdint>
#include <string>
#include <vector>

#include "workload/pgbench_init_options.h"

namespace pgrig::workload {

inline constexpr const char* kAccounts = "pgbench_accounts";
inline constexpr const char* kBranches = "pgbench_branches";
inline constexpr const char* kTellers = "pgbench_tellers";
inline constexpr const char* kHistory = "pgbench_history";

// "drop table if exists pgbench_accounts, pgbench_branches, ..." (one
// statement, so foreign keys between them do not matter).
std::string DropTablesSql();

// The four CREATE TABLE statements in pgbench's order (history, tellers,
// accounts, branches), then one per accounts partition.
std::vector<std::string> CreateTablesSql(const InitOptions& o);
// Where pgbench_accounts' statement is in CreateTablesSql's result.
inline constexpr size_t kCreateAccountsIndex = 2;

// "pgbench_accounts_<p>", p in 1..partitions.
std::string PartitionName(int p);

// Inclusive aid range [first, last] of range partition p (empty when
// first > last, which happens when there are more partitions than rows).
struct AidRange {
  int64_t first = 1;
  int64_t last = 0;
  int64_t size() const { return last >= first ? last - first + 1 : 0; }
};
AidRange RangePartitionAids(const InitOptions& o, int p);

// The hash partition (1-based, as pgbench numbers them) that PostgreSQL
// routes `aid` to when pgbench_accounts is hash-partitioned into
// `partitions` parts: the server's hash of the int4/int8 key with the
// partition seed, combined and taken modulo the partition count.
int HashPartitionOf(int64_t aid, int partitions, bool bigint_aids);

// "alter table <table> add primary key (<column>)" plus " using index
// tablespace ..." when asked.
std::string PrimaryKeySql(const std::string& table, const std::string& column,
                          const InitOptions& o);
// pgbench's five foreign keys, in its order.
std::vector<std::string> ForeignKeysSql();

// Server-side generation (step G), as pgbench words it.
std::string ServerGenerateBranchesSql(const InitOptions& o);
std::string ServerGenerateTellersSql(const InitOptions& o);
// Accounts rows [first, last] into `table` (the parent or one partition).
std::string ServerGenerateAccountsSql(const std::string& table, int64_t first, int64_t last);

// bid of account `aid` and of teller `tid` (both 1-based), as pgbench
// computes them.
inline int64_t BranchOfAccount(int64_t aid) { return (aid - 1) / kAccountsPerScale + 1; }
inline int64_t BranchOfTeller(int64_t tid) { return (tid - 1) / kTellersPerScale + 1; }

// Binary COPY encoding (PostgreSQL's "PGCOPY" format), appended to a
// caller-owned buffer so that one allocation serves a whole stream.
namespace copy_binary {
void AppendHeader(std::string& buf);
void AppendTrailer(std::string& buf);
// One pgbench_accounts row: aid, bid, abalance 0, filler '' (the server pads
// char(84) with blanks, exactly as for pgbench's empty text field).
void AppendAccount(std::string& buf, int64_t aid, bool bigint_aid);
// One pgbench_branches row: bid, bbalance 0, filler NULL.
void AppendBranch(std::string& buf, int64_t bid);
// One pgbench_tellers row: tid, bid, tbalance 0, filler NULL.
void AppendTeller(std::string& buf, int64_t tid);
}  // namespace copy_binary

}  // namespace pgrig::workload

#endif  // PGRIG_WORKLOAD_PGBENCH_SCHEMA_H_
