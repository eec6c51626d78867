#include "micro/lio_schema.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

#include "common/strings.h"

namespace pgrig::micro {

namespace {

constexpr const char* kScaleHelp =
    "give blocks (\"131072\"), or a size per table with kB, MB or GB (\"1GB\", \"512MB\")";

}  // namespace

Result<int64_t> ParseLioScale(std::string_view text) {
  std::string t = ToLower(Trim(text));
  size_t i = 0;
  while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.')) ++i;
  std::string number = t.substr(0, i);
  std::string unit(Trim(std::string_view(t).substr(i)));
  std::optional<double> v = ParseDouble(number);
  if (number.empty() || !v || !std::isfinite(*v)) {
    return InvalidArgument(fmt::format("--scale \"{}\" is not a size: {}", text, kScaleHelp));
  }
  double bytes_per_unit = 0;
  if (unit.empty() || unit == "blocks" || unit == "block") {
    bytes_per_unit = kBlockBytes;
  } else if (unit == "kb" || unit == "k") {
    bytes_per_unit = 1024.0;
  } else if (unit == "mb" || unit == "m") {
    bytes_per_unit = 1024.0 * 1024;
  } else if (unit == "gb" || unit == "g") {
    bytes_per_unit = 1024.0 * 1024 * 1024;
  } else if (unit == "tb" || unit == "t") {
    bytes_per_unit = 1024.0 * 1024 * 1024 * 1024;
  } else {
    return InvalidArgument(
        fmt::format("--scale \"{}\": unknown unit \"{}\"; {}", text, unit, kScaleHelp));
  }
  const double blocks = std::floor(*v * bytes_per_unit / kBlockBytes);
  if (blocks < 1) {
    return InvalidArgument(
        fmt::format("--scale \"{}\" is less than one 8 KB block per table; {}", text, kScaleHelp));
  }
  if (blocks > static_cast<double>(kMaxBlocksPerTable)) {
    return InvalidArgument(
        fmt::format("--scale \"{}\" is more than {} blocks (16 TiB) per table; give a smaller size",
                    text, kMaxBlocksPerTable));
  }
  return static_cast<int64_t>(blocks);
}

int64_t EstimatedIndexBlocks(int64_t blocks) {
  // A leaf entry of a bigint key is 16 bytes plus a 4-byte line pointer;
  // 8192 bytes less the page overhead hold ~406, ~365 at 90% fill.  Inner
  // pages add about 1/365 more; the metapage one.
  const int64_t leaves = (blocks + 364) / 365;
  return leaves + (leaves + 364) / 365 + 1;
}

Result<int64_t> FitBlocksPerTable(int64_t shared_buffers_blocks, int tables, double fraction) {
  if (tables < 1) return InvalidArgument("--tables must be at least 1");
  const double budget = static_cast<double>(shared_buffers_blocks) * fraction / tables;
  // blocks + index(blocks) <= budget; the index is ~0.28% of the heap.
  int64_t blocks = static_cast<int64_t>(budget / (1.0 + 1.0 / 365 + 1.0 / (365.0 * 365)));
  while (blocks > 0 && blocks + EstimatedIndexBlocks(blocks) > static_cast<int64_t>(budget)) {
    --blocks;
  }
  if (blocks < 64) {
    return FailedPrecondition(fmt::format(
        "--fit: shared_buffers holds {} blocks ({} MB); {:.0f}% of it for {} tables leaves {} "
        "blocks per table (at least 64 needed); use fewer --tables or raise shared_buffers",
        shared_buffers_blocks, shared_buffers_blocks * kBlockBytes / (1024 * 1024), fraction * 100,
        tables, blocks));
  }
  return std::min(blocks, kMaxBlocksPerTable);
}

std::string LioTableName(int table) { return fmt::format("t{}", table); }
std::string LioQualifiedName(int table) { return fmt::format("{}.t{}", kLioSchema, table); }

std::string LioCreateSql(int table) {
  const std::string q = LioQualifiedName(table);
  return fmt::format(
      "DROP TABLE IF EXISTS {0};"
      "CREATE TABLE {0} (id bigint NOT NULL, k bigint NOT NULL, scratch bigint NOT NULL,"
      " pad text NOT NULL) WITH (fillfactor = 10, autovacuum_enabled = off);"
      "ALTER TABLE {0} ALTER COLUMN pad SET STORAGE PLAIN",
      q);
}

std::string LioLoadSql(int table, int64_t blocks) {
  return fmt::format(
      "INSERT INTO {0} (id, k, scratch, pad) SELECT g, (g * {1}::bigint) % {2}, 0, repeat('x', {3})"
      " FROM generate_series(0::bigint, {2}::bigint - 1) AS g",
      LioQualifiedName(table), kKeyMultiplier, blocks, kPadBytes);
}

std::string LioIndexSql(int table) {
  return fmt::format("CREATE INDEX {}_k ON {} (k)", LioTableName(table), LioQualifiedName(table));
}

std::string LioVacuumSql(int table) {
  return fmt::format("VACUUM (ANALYZE) {}", LioQualifiedName(table));
}

std::string LioVerifySql(int table) {
  return fmt::format(
      "SELECT count(*), count(DISTINCT (ctid::text::point)[0]),"
      " coalesce(max((ctid::text::point)[0])::bigint + 1, 0) FROM {}",
      LioQualifiedName(table));
}

std::string LioWarmSql(int table) {
  return fmt::format("SELECT count(*), sum(scratch) FROM {} WHERE k >= 0", LioQualifiedName(table));
}

std::string LioSelectRangeSql(int table, int work_unit) {
  return fmt::format("SELECT count(*), sum(scratch) FROM {} WHERE k BETWEEN $1 AND $1 + {}",
                     LioQualifiedName(table), work_unit - 1);
}

std::string LioUpdateRangeSql(int table, int work_unit) {
  return fmt::format("UPDATE {} SET scratch = scratch + 1 WHERE k BETWEEN $1 AND $1 + {}",
                     LioQualifiedName(table), work_unit - 1);
}

std::string LioLoopFunctionSql(int table) {
  return fmt::format(
      "CREATE OR REPLACE FUNCTION {0}.loop_t{1}(wu int, uwu int, upct int, n bigint,"
      " seconds float8, OUT ranges bigint, OUT nrows bigint, OUT updates bigint,"
      " OUT updated bigint) LANGUAGE plpgsql AS $f$\n"
      "DECLARE\n"
      "  stop timestamptz := clock_timestamp() + make_interval(secs => seconds);\n"
      "  c bigint; s bigint; first bigint;\n"
      "BEGIN\n"
      "  ranges := 0; nrows := 0; updates := 0; updated := 0;\n"
      "  LOOP\n"
      "    EXIT WHEN clock_timestamp() >= stop;\n"
      "    IF upct > 0 AND random() * 100 < upct THEN\n"
      "      first := floor(random() * (n - uwu + 1))::bigint;\n"
      "      UPDATE {2} SET scratch = scratch + 1 WHERE k BETWEEN first AND first + uwu - 1;\n"
      "      GET DIAGNOSTICS c = ROW_COUNT;\n"
      "      updates := updates + 1; updated := updated + c;\n"
      "    ELSE\n"
      "      first := floor(random() * (n - wu + 1))::bigint;\n"
      "      SELECT count(*), sum(scratch) INTO c, s FROM {2}"
      " WHERE k BETWEEN first AND first + wu - 1;\n"
      "      ranges := ranges + 1; nrows := nrows + c;\n"
      "    END IF;\n"
      "  END LOOP;\n"
      "END\n"
      "$f$",
      kLioSchema, table, LioQualifiedName(table));
}

std::string LioLoopCallSql(int table) {
  return fmt::format("SELECT ranges, nrows, updates, updated FROM {}.loop_t{}($1, $2, $3, $4, $5)",
                     kLioSchema, table);
}

std::string DbCountersSql() {
  return "SELECT blks_hit, blks_read, xact_commit, tup_returned, tup_fetched, tup_updated"
         " FROM pg_stat_database WHERE datname = current_database()";
}

Result<CounterDelta> Subtract(const DbCounters& start, const DbCounters& end) {
  if (end.blks_hit < start.blks_hit || end.blks_read < start.blks_read ||
      end.xact_commit < start.xact_commit || end.tup_fetched < start.tup_fetched ||
      end.tup_updated < start.tup_updated) {
    return FailedPrecondition(
        "pg_stat_database counters went backwards during the window (statistics reset?); "
        "run again without resetting statistics");
  }
  if (end.at_s < start.at_s) return Internal("counter readings out of order");
  CounterDelta d;
  d.blks_hit = end.blks_hit - start.blks_hit;
  d.blks_read = end.blks_read - start.blks_read;
  d.xact_commit = end.xact_commit - start.xact_commit;
  d.tup_fetched = end.tup_fetched - start.tup_fetched;
  d.tup_updated = end.tup_updated - start.tup_updated;
  d.window_s = end.at_s - start.at_s;
  return d;
}

double PerSecond(int64_t count, double window_s) {
  return window_s > 0 ? static_cast<double>(count) / window_s : 0;
}

}  // namespace pgrig::micro
