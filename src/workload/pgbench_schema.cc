#include "workload/pgbench_schema.h"

#include <fmt/format.h>

#include <bit>
#include <cstring>

#include "pg/connection.h"

namespace pgrig::workload {

namespace {

struct TableDdl {
  const char* table;
  const char* int_columns;     // aid is int4 (scale < 20000)
  const char* bigint_columns;  // aid is int8
  bool fillfactor;
};

// pgbench's column lists, character for character where it matters (types,
// NOT NULL, filler widths).
constexpr TableDdl kTables[] = {
    {kHistory, "tid int,bid int,aid    int,delta int,mtime timestamp,filler char(22)",
     "tid int,bid int,aid bigint,delta int,mtime timestamp,filler char(22)", false},
    {kTellers, "tid int not null,bid int,tbalance int,filler char(84)",
     "tid int not null,bid int,tbalance int,filler char(84)", true},
    {kAccounts, "aid    int not null,bid int,abalance int,filler char(84)",
     "aid bigint not null,bid int,abalance int,filler char(84)", true},
    {kBranches, "bid int not null,bbalance int,filler char(88)",
     "bid int not null,bbalance int,filler char(88)", true},
};

// PostgreSQL's seed for hash partitioning (partition.h: HASH_PARTITION_SEED).
constexpr uint64_t kHashPartitionSeed = 0x7A5B22367996DCFDULL;

inline uint32_t Rot(uint32_t x, int k) { return std::rotl(x, k); }

// Bob Jenkins' lookup3 mix/final steps, as PostgreSQL's hashfn uses them.
inline void Mix(uint32_t& a, uint32_t& b, uint32_t& c) {
  a -= c;
  a ^= Rot(c, 4);
  c += b;
  b -= a;
  b ^= Rot(a, 6);
  a += c;
  c -= b;
  c ^= Rot(b, 8);
  b += a;
  a -= c;
  a ^= Rot(c, 16);
  c += b;
  b -= a;
  b ^= Rot(a, 19);
  a += c;
  c -= b;
  c ^= Rot(b, 4);
  b += a;
}
inline void Final(uint32_t& a, uint32_t& b, uint32_t& c) {
  c ^= b;
  c -= Rot(b, 14);
  a ^= c;
  a -= Rot(c, 11);
  b ^= a;
  b -= Rot(a, 25);
  c ^= b;
  c -= Rot(b, 16);
  a ^= c;
  a -= Rot(c, 4);
  b ^= a;
  b -= Rot(a, 14);
  c ^= b;
  c -= Rot(b, 24);
}

// hash_bytes_uint32_extended(k, seed).
uint64_t HashUint32Extended(uint32_t k, uint64_t seed) {
  uint32_t a = 0x9e3779b9u + static_cast<uint32_t>(sizeof(uint32_t)) + 3923095u;
  uint32_t b = a;
  uint32_t c = a;
  if (seed != 0) {
    a += static_cast<uint32_t>(seed >> 32);
    b += static_cast<uint32_t>(seed);
    Mix(a, b, c);
  }
  a += k;
  Final(a, b, c);
  return (static_cast<uint64_t>(b) << 32) | c;
}

// hash_combine64(a, b).
uint64_t HashCombine64(uint64_t a, uint64_t b) {
  a ^= b + 0x49a0f4dd15e5a8e3ULL + (a << 54) + (a >> 7);
  return a;
}

std::string TablespaceClause(const std::optional<std::string>& ts, const char* what) {
  if (!ts) return "";
  return fmt::format(" {} {}", what, pg::QuoteIdent(*ts));
}

inline char* PutU16(char* p, uint16_t v) {
  v = __builtin_bswap16(v);
  std::memcpy(p, &v, 2);
  return p + 2;
}
inline char* PutU32(char* p, uint32_t v) {
  v = __builtin_bswap32(v);
  std::memcpy(p, &v, 4);
  return p + 4;
}
inline char* PutU64(char* p, uint64_t v) {
  v = __builtin_bswap64(v);
  std::memcpy(p, &v, 8);
  return p + 8;
}
inline char* PutInt4Field(char* p, int64_t v) {
  p = PutU32(p, 4);
  return PutU32(p, static_cast<uint32_t>(static_cast<int32_t>(v)));
}
constexpr uint32_t kNullLength = 0xFFFFFFFFu;

}  // namespace

std::string DropTablesSql() {
  return "drop table if exists pgbench_accounts, pgbench_branches, pgbench_history, "
         "pgbench_tellers";
}

std::string PartitionName(int p) { return fmt::format("{}_{}", kAccounts, p); }

std::vector<std::string> CreateTablesSql(const InitOptions& o) {
  std::vector<std::string> out;
  const bool partitioned = o.partition_method != PartitionMethod::kNone && o.partitions > 0;
  for (const TableDdl& t : kTables) {
    const bool is_accounts = std::strcmp(t.table, kAccounts) == 0;
    std::string sql =
        fmt::format("create{} table {}({})", (o.unlogged_tables && !partitioned) ? " unlogged" : "",
                    t.table, o.BigintAids() ? t.bigint_columns : t.int_columns);
    if (partitioned && is_accounts) {
      sql += fmt::format(" partition by {} (aid)", PartitionMethodName(o.partition_method));
    } else if (t.fillfactor) {
      sql += fmt::format(" with (fillfactor={})", o.fillfactor);
    }
    sql += TablespaceClause(o.tablespace, "tablespace");
    out.push_back(std::move(sql));
  }
  if (!partitioned) return out;
  for (int p = 1; p <= o.partitions; ++p) {
    std::string bounds;
    if (o.partition_method == PartitionMethod::kRange) {
      const int64_t part_size = (o.AccountRows() + o.partitions - 1) / o.partitions;
      bounds = fmt::format(
          "for values from ({}) to ({})",
          p == 1 ? std::string("minvalue") : std::to_string((p - 1) * part_size + 1),
          p == o.partitions ? std::string("maxvalue") : std::to_string(p * part_size + 1));
    } else {
      bounds = fmt::format("for values with (modulus {}, remainder {})", o.partitions, p - 1);
    }
    out.push_back(fmt::format("create{} table {}\n  partition of {}\n  {} with (fillfactor={})",
                              o.unlogged_tables ? " unlogged" : "", PartitionName(p), kAccounts,
                              bounds, o.fillfactor));
  }
  return out;
}

AidRange RangePartitionAids(const InitOptions& o, int p) {
  const int64_t rows = o.AccountRows();
  const int64_t part_size = (rows + o.partitions - 1) / o.partitions;
  AidRange r;
  r.first = static_cast<int64_t>(p - 1) * part_size + 1;
  r.last = p == o.partitions ? rows : std::min<int64_t>(rows, static_cast<int64_t>(p) * part_size);
  return r;
}

int HashPartitionOf(int64_t aid, int partitions, bool bigint_aids) {
  uint32_t key;
  if (bigint_aids) {
    // hashint8extended folds the high half into the low one so that equal
    // values of int2/int4/int8 hash alike.
    uint32_t lo = static_cast<uint32_t>(aid);
    uint32_t hi = static_cast<uint32_t>(static_cast<uint64_t>(aid) >> 32);
    key = lo ^ (aid >= 0 ? hi : ~hi);
  } else {
    key = static_cast<uint32_t>(static_cast<int32_t>(aid));
  }
  uint64_t row_hash = HashCombine64(0, HashUint32Extended(key, kHashPartitionSeed));
  return static_cast<int>(row_hash % static_cast<uint64_t>(partitions)) + 1;
}

std::string PrimaryKeySql(const std::string& table, const std::string& column,
                          const InitOptions& o) {
  return fmt::format("alter table {} add primary key ({}){}", table, column,
                     TablespaceClause(o.index_tablespace, "using index tablespace"));
}

std::vector<std::string> ForeignKeysSql() {
  return {
      "alter table pgbench_tellers add constraint pgbench_tellers_bid_fkey foreign key (bid) "
      "references pgbench_branches",
      "alter table pgbench_accounts add constraint pgbench_accounts_bid_fkey foreign key (bid) "
      "references pgbench_branches",
      "alter table pgbench_history add constraint pgbench_history_bid_fkey foreign key (bid) "
      "references pgbench_branches",
      "alter table pgbench_history add constraint pgbench_history_tid_fkey foreign key (tid) "
      "references pgbench_tellers",
      "alter table pgbench_history add constraint pgbench_history_aid_fkey foreign key (aid) "
      "references pgbench_accounts",
  };
}

std::string ServerGenerateBranchesSql(const InitOptions& o) {
  return fmt::format(
      "insert into pgbench_branches(bid,bbalance) select bid, 0 from generate_series(1, {}) as bid",
      o.BranchRows());
}

std::string ServerGenerateTellersSql(const InitOptions& o) {
  return fmt::format(
      "insert into pgbench_tellers(tid,bid,tbalance) select tid, (tid - 1) / {} + 1, 0 "
      "from generate_series(1, {}) as tid",
      kTellersPerScale, o.TellerRows());
}

std::string ServerGenerateAccountsSql(const std::string& table, int64_t first, int64_t last) {
  return fmt::format(
      "insert into {}(aid,bid,abalance,filler) select aid, (aid - 1) / {} + 1, 0, '' "
      "from generate_series({}, {}) as aid",
      table, kAccountsPerScale, first, last);
}

namespace copy_binary {

void AppendHeader(std::string& buf) {
  static constexpr char kSignature[] = "PGCOPY\n\377\r\n";  // 11 bytes with the NUL
  buf.append(kSignature, sizeof kSignature);
  char tail[8];
  char* p = PutU32(tail, 0);  // flags: no OIDs
  PutU32(p, 0);               // header extension length
  buf.append(tail, sizeof tail);
}

void AppendTrailer(std::string& buf) {
  char t[2];
  PutU16(t, 0xFFFF);
  buf.append(t, 2);
}

void AppendAccount(std::string& buf, int64_t aid, bool bigint_aid) {
  char row[2 + 12 + 8 + 8 + 4];
  char* p = PutU16(row, 4);
  if (bigint_aid) {
    p = PutU32(p, 8);
    p = PutU64(p, static_cast<uint64_t>(aid));
  } else {
    p = PutInt4Field(p, aid);
  }
  p = PutInt4Field(p, BranchOfAccount(aid));
  p = PutInt4Field(p, 0);
  p = PutU32(p, 0);  // filler: empty string, blank-padded by the server
  buf.append(row, static_cast<size_t>(p - row));
}

void AppendBranch(std::string& buf, int64_t bid) {
  char row[2 + 8 + 8 + 4];
  char* p = PutU16(row, 3);
  p = PutInt4Field(p, bid);
  p = PutInt4Field(p, 0);
  p = PutU32(p, kNullLength);
  buf.append(row, static_cast<size_t>(p - row));
}

void AppendTeller(std::string& buf, int64_t tid) {
  char row[2 + 8 + 8 + 8 + 4];
  char* p = PutU16(row, 4);
  p = PutInt4Field(p, tid);
  p = PutInt4Field(p, BranchOfTeller(tid));
  p = PutInt4Field(p, 0);
  p = PutU32(p, kNullLength);
  buf.append(row, static_cast<size_t>(p - row));
}

}  // namespace copy_binary

}  // namespace pgrig::workload
