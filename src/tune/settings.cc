#include "tune/settings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "common/strings.h"

namespace pgrig::tune {

namespace {

// PostgreSQL's limits (src/backend/utils/misc/guc_tables.c, 8kB blocks,
// 64-bit build): INT_MAX, MAX_KILOBYTES (= INT_MAX on 64-bit) and
// MAX_BACKENDS (0x3FFFF).
constexpr double kIntMax = 2147483647.0;
constexpr double kMaxKilobytes = kIntMax;
constexpr double kMaxBackends = 262143.0;
constexpr double kBlock = 8192.0;
constexpr double kK = 1024.0;
constexpr double kDblMax = 1.7976931348623157e308;

struct SettingInfo {
  ValueKind kind;
  const char* pg_unit;  // the unit pg_settings reports; "" for none
  bool is_bool;
  int since;  // first major version that has the setting
  // Range in the canonical unit (bytes, ms, plain); -1 ("auto") is allowed
  // on top of it when minus_one.
  double min, max;
  bool minus_one;
  const char* context;             // pg_settings.context
  std::vector<std::string> words;  // enum values (empty: any word / bool)
};

// The settings the tuner proposes, budgets or accepts with --set offline.
const std::map<std::string, SettingInfo, std::less<>>& Table() {
  using V = ValueKind;
  static const auto* t = new std::map<std::string, SettingInfo, std::less<>>{
      {"shared_buffers",
       {V::kBytes, "8kB", false, 0, 16 * kBlock, kIntMax / 2 * kBlock, false, "postmaster", {}}},
      {"effective_cache_size",
       {V::kBytes, "8kB", false, 0, kBlock, kIntMax * kBlock, false, "user", {}}},
      {"wal_buffers",
       {V::kBytes, "8kB", false, 0, kBlock, (kIntMax / kBlock) * kBlock, true, "postmaster", {}}},
      {"temp_buffers",
       {V::kBytes, "8kB", false, 0, 100 * kBlock, kIntMax / 2 * kBlock, false, "user", {}}},
      {"work_mem", {V::kBytes, "kB", false, 0, 64 * kK, kMaxKilobytes * kK, false, "user", {}}},
      {"maintenance_work_mem",
       {V::kBytes, "kB", false, 0, 1024 * kK, kMaxKilobytes * kK, false, "user", {}}},
      {"autovacuum_work_mem",
       {V::kBytes, "kB", false, 0, 1024 * kK, kMaxKilobytes * kK, true, "sighup", {}}},
      {"huge_page_size", {V::kBytes, "kB", false, 14, 0, kIntMax * kK, false, "postmaster", {}}},
      {"min_wal_size",
       {V::kBytes, "MB", false, 0, 2 * kK * kK, kMaxKilobytes * kK * kK, false, "sighup", {}}},
      {"max_wal_size",
       {V::kBytes, "MB", false, 0, 2 * kK * kK, kMaxKilobytes * kK * kK, false, "sighup", {}}},
      {"vacuum_buffer_usage_limit",
       {V::kBytes, "kB", false, 16, 0, 16 * kK * kK * kK, false, "user", {}}},
      {"io_combine_limit", {V::kBytes, "8kB", false, 17, kBlock, 128 * kBlock, false, "user", {}}},
      {"checkpoint_timeout", {V::kMillis, "s", false, 0, 30000, 86400000, false, "sighup", {}}},
      {"max_connections", {V::kInteger, "", false, 0, 1, kMaxBackends, false, "postmaster", {}}},
      {"superuser_reserved_connections",
       {V::kInteger, "", false, 0, 0, kMaxBackends, false, "postmaster", {}}},
      {"reserved_connections",
       {V::kInteger, "", false, 16, 0, kMaxBackends, false, "postmaster", {}}},
      {"max_worker_processes",
       {V::kInteger, "", false, 0, 0, kMaxBackends, false, "postmaster", {}}},
      {"max_parallel_workers", {V::kInteger, "", false, 0, 0, 1024, false, "user", {}}},
      {"max_parallel_workers_per_gather", {V::kInteger, "", false, 0, 0, 1024, false, "user", {}}},
      {"max_parallel_maintenance_workers", {V::kInteger, "", false, 0, 0, 1024, false, "user", {}}},
      {"effective_io_concurrency", {V::kInteger, "", false, 0, 0, 1000, false, "user", {}}},
      {"maintenance_io_concurrency", {V::kInteger, "", false, 0, 0, 1000, false, "user", {}}},
      {"default_statistics_target", {V::kInteger, "", false, 0, 1, 10000, false, "user", {}}},
      {"autovacuum_max_workers",
       {V::kInteger, "", false, 0, 1, kMaxBackends, false, "postmaster", {}}},
      {"autovacuum_worker_slots",
       {V::kInteger, "", false, 18, 1, kMaxBackends, false, "postmaster", {}}},
      {"io_workers", {V::kInteger, "", false, 18, 1, 32, false, "sighup", {}}},
      {"io_max_concurrency", {V::kInteger, "", false, 18, 1, 1024, true, "postmaster", {}}},
      {"max_wal_senders", {V::kInteger, "", false, 0, 0, kMaxBackends, false, "postmaster", {}}},
      {"max_locks_per_transaction",
       {V::kInteger, "", false, 0, 10, kIntMax, false, "postmaster", {}}},
      {"max_prepared_transactions",
       {V::kInteger, "", false, 0, 0, kMaxBackends, false, "postmaster", {}}},
      {"random_page_cost", {V::kReal, "", false, 0, 0, kDblMax, false, "user", {}}},
      {"checkpoint_completion_target", {V::kReal, "", false, 0, 0, 1, false, "sighup", {}}},
      {"hash_mem_multiplier", {V::kReal, "", false, 0, 1, 1000, false, "user", {}}},
      {"huge_pages", {V::kWord, "", false, 0, 0, 0, false, "postmaster", {"on", "off", "try"}}},
      {"wal_level",
       {V::kWord, "", false, 0, 0, 0, false, "postmaster", {"minimal", "replica", "logical"}}},
      {"synchronous_commit",
       {V::kWord,
        "",
        false,
        0,
        0,
        0,
        false,
        "user",
        {"local", "remote_write", "remote_apply", "on", "off"}}},
      {"archive_mode",
       {V::kWord, "", false, 0, 0, 0, false, "postmaster", {"always", "on", "off"}}},
      {"wal_compression", {V::kWord, "", false, 0, 0, 0, false, "superuser", {}}},
      {"io_method",
       {V::kWord, "", false, 18, 0, 0, false, "postmaster", {"sync", "worker", "io_uring"}}},
      {"summarize_wal", {V::kWord, "", true, 17, 0, 0, false, "sighup", {}}},
      {"jit", {V::kWord, "", true, 0, 0, 0, false, "user", {}}},
      {"fsync", {V::kWord, "", true, 0, 0, 0, false, "sighup", {}}},
      {"full_page_writes", {V::kWord, "", true, 0, 0, 0, false, "sighup", {}}},
  };
  return *t;
}

const SettingInfo* Find(std::string_view name) {
  auto it = Table().find(name);
  return it == Table().end() ? nullptr : &it->second;
}

std::string FormatReal(double v) {
  std::string s = fmt::format("{:.3f}", v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// Splits "16GB" into 16 and "GB"; "0.5" into 0.5 and "".
bool SplitNumber(std::string_view text, double* number, std::string* unit) {
  text = Trim(text);
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.' ||
                             (i == 0 && (text[i] == '-' || text[i] == '+')))) {
    ++i;
  }
  auto n = ParseDouble(text.substr(0, i));
  if (!n) return false;
  *number = *n;
  *unit = std::string(Trim(text.substr(i)));
  return true;
}

std::optional<double> ByteUnit(std::string_view unit) {
  std::string u = ToLower(unit);
  if (u == "b" || u == "bytes") return 1.0;
  if (u == "k" || u == "kb" || u == "kib") return static_cast<double>(kKiB);
  if (u == "m" || u == "mb" || u == "mib") return static_cast<double>(kMiB);
  if (u == "g" || u == "gb" || u == "gib") return static_cast<double>(kGiB);
  if (u == "t" || u == "tb" || u == "tib") return static_cast<double>(kGiB) * 1024.0;
  return std::nullopt;
}

}  // namespace

std::string SettingValue::ToConf() const {
  switch (kind) {
    case ValueKind::kBytes: {
      if (integer < 0) return std::to_string(integer);
      uint64_t b = static_cast<uint64_t>(integer);
      if (b >= kGiB && b % kGiB == 0) return fmt::format("{}GB", b / kGiB);
      if (b >= kMiB && b % kMiB == 0) return fmt::format("{}MB", b / kMiB);
      return fmt::format("{}kB", b / kKiB);
    }
    case ValueKind::kMillis: {
      if (integer < 0) return std::to_string(integer);
      if (integer >= 3600000 && integer % 3600000 == 0)
        return fmt::format("{}h", integer / 3600000);
      if (integer >= 60000 && integer % 60000 == 0) return fmt::format("{}min", integer / 60000);
      if (integer >= 1000 && integer % 1000 == 0) return fmt::format("{}s", integer / 1000);
      return fmt::format("{}ms", integer);
    }
    case ValueKind::kInteger:
      return std::to_string(integer);
    case ValueKind::kReal:
      return FormatReal(real);
    case ValueKind::kWord:
      return word;
  }
  return "";
}

bool SettingValue::operator==(const SettingValue& o) const {
  if (kind == ValueKind::kWord || o.kind == ValueKind::kWord) {
    return kind == o.kind && word == o.word;
  }
  return Number() == o.Number();
}

ValueKind KindOf(std::string_view name) {
  const SettingInfo* i = Find(name);
  return i ? i->kind : ValueKind::kWord;
}

std::optional<double> UnitMultiplier(std::string_view unit) {
  if (unit.empty()) return 1.0;
  if (unit == "ms") return 1.0;
  if (unit == "s") return 1000.0;
  if (unit == "min") return 60000.0;
  if (unit == "h") return 3600000.0;
  if (unit == "d") return 86400000.0;
  // Size units may carry a count: "8kB", "16MB".
  size_t i = 0;
  while (i < unit.size() && std::isdigit(static_cast<unsigned char>(unit[i]))) ++i;
  double count = i == 0 ? 1.0 : static_cast<double>(ParseInt64(unit.substr(0, i)).value_or(0));
  auto base = ByteUnit(unit.substr(i));
  if (!base || count <= 0) return std::nullopt;
  return count * *base;
}

double InUnit(const SettingValue& v, std::string_view unit) {
  if (v.kind != ValueKind::kBytes && v.kind != ValueKind::kMillis) return v.Number();
  if (v.integer < 0) return static_cast<double>(v.integer);
  auto m = UnitMultiplier(unit);
  return m ? v.Number() / *m : v.Number();
}

Result<SettingValue> FromPgSettings(std::string_view name, std::string_view setting,
                                    std::string_view unit, std::string_view vartype) {
  if (vartype == "bool" || vartype == "enum" || vartype == "string") {
    return SettingValue::Word(ToLower(Trim(setting)));
  }
  if (vartype == "real") {
    auto d = ParseDouble(Trim(setting));
    if (!d)
      return Internal(fmt::format("pg_settings shows {} = '{}', not a number", name, setting));
    return SettingValue::Real(*d);
  }
  auto n = ParseInt64(Trim(setting));
  if (!n)
    return Internal(fmt::format("pg_settings shows {} = '{}', not an integer", name, setting));
  if (*n < 0 || unit.empty()) {
    ValueKind k = KindOf(name);
    if (unit.empty() || k == ValueKind::kWord) return SettingValue::Integer(*n);
    SettingValue v = SettingValue::Integer(*n);
    v.kind = k;
    return v;
  }
  auto m = UnitMultiplier(unit);
  if (!m) return Internal(fmt::format("pg_settings shows {} in unknown unit '{}'", name, unit));
  bool time = unit == "ms" || unit == "s" || unit == "min" || unit == "h" || unit == "d";
  int64_t canonical = static_cast<int64_t>(static_cast<double>(*n) * *m);
  return time ? SettingValue::Millis(canonical)
              : SettingValue::Bytes(static_cast<uint64_t>(canonical));
}

Result<SettingValue> ParseUserValue(std::string_view name, std::string_view text) {
  const SettingInfo* info = Find(name);
  std::string t(Trim(text));
  if (t.size() >= 2 && t.front() == '\'' && t.back() == '\'') t = t.substr(1, t.size() - 2);
  if (t.empty()) return InvalidArgument(fmt::format("no value given for {}", name));
  ValueKind kind = info ? info->kind : ValueKind::kWord;
  if (kind == ValueKind::kWord) {
    std::string w = ToLower(t);
    if (info && info->is_bool) {
      if (w == "on" || w == "true" || w == "yes" || w == "1") return SettingValue::Word("on");
      if (w == "off" || w == "false" || w == "no" || w == "0") return SettingValue::Word("off");
      return InvalidArgument(fmt::format("{} is on or off, not '{}'", name, t));
    }
    return SettingValue::Word(w);
  }
  double number = 0;
  std::string unit;
  if (!SplitNumber(t, &number, &unit)) {
    return InvalidArgument(fmt::format("'{}' is not a valid value for {}", t, name));
  }
  if (kind == ValueKind::kReal) {
    if (!unit.empty())
      return InvalidArgument(fmt::format("{} takes a plain number, not '{}'", name, t));
    return SettingValue::Real(number);
  }
  if (kind == ValueKind::kInteger) {
    if (!unit.empty() || number != std::floor(number)) {
      return InvalidArgument(fmt::format("{} takes a whole number, not '{}'", name, t));
    }
    return SettingValue::Integer(static_cast<int64_t>(number));
  }
  if (number == -1 && unit.empty()) {
    SettingValue v = SettingValue::Integer(-1);
    v.kind = kind;
    return v;
  }
  if (number < 0) return InvalidArgument(fmt::format("{} cannot be negative ('{}')", name, t));
  std::string pg_unit = info && *info->pg_unit ? info->pg_unit : "kB";
  if (kind == ValueKind::kMillis) {
    auto m = UnitMultiplier(unit.empty() ? std::string_view(pg_unit) : std::string_view(unit));
    if (!m || (!unit.empty() && ByteUnit(unit))) {
      return InvalidArgument(
          fmt::format("'{}' for {}: use a time unit (ms, s, min, h, d)", t, name));
    }
    return SettingValue::Millis(static_cast<int64_t>(number * *m));
  }
  std::optional<double> m = unit.empty() ? UnitMultiplier(pg_unit) : ByteUnit(unit);
  if (!m) {
    return InvalidArgument(fmt::format("'{}' for {}: use a size unit (kB, MB, GB, TB)", t, name));
  }
  return SettingValue::Bytes(static_cast<uint64_t>(number * *m));
}

Result<uint64_t> ParseSize(std::string_view text) {
  double number = 0;
  std::string unit;
  if (!SplitNumber(text, &number, &unit) || number < 0) {
    return InvalidArgument(fmt::format("'{}' is not a size; write it like 16GB or 512MB", text));
  }
  if (unit.empty()) {
    return InvalidArgument(
        fmt::format("'{}' has no unit; write it like {}GB or {}MB", text, text, text));
  }
  auto m = ByteUnit(unit);
  if (!m || *m == 1.0) {
    return InvalidArgument(
        fmt::format("'{}': unknown size unit '{}'; use MB, GB or TB", text, unit));
  }
  const double bytes = number * *m;
  if (!std::isfinite(bytes) || bytes > static_cast<double>(kMaxParsedSize)) {
    return InvalidArgument(fmt::format("'{}' is too large; pgrig takes sizes up to {}TB", text,
                                       kMaxParsedSize / (kGiB * 1024)));
  }
  return static_cast<uint64_t>(bytes);
}

SettingMap DefaultSettings(int major) {
  SettingMap m;
  m["max_connections"] = SettingValue::Integer(100);
  m["superuser_reserved_connections"] = SettingValue::Integer(3);
  if (major >= 16) m["reserved_connections"] = SettingValue::Integer(0);
  m["shared_buffers"] = SettingValue::Bytes(128 * kMiB);
  m["effective_cache_size"] = SettingValue::Bytes(4 * kGiB);
  SettingValue auto_size = SettingValue::Integer(-1);
  auto_size.kind = ValueKind::kBytes;
  m["wal_buffers"] = auto_size;
  m["autovacuum_work_mem"] = auto_size;
  m["temp_buffers"] = SettingValue::Bytes(8 * kMiB);
  m["work_mem"] = SettingValue::Bytes(4 * kMiB);
  m["maintenance_work_mem"] = SettingValue::Bytes(64 * kMiB);
  m["min_wal_size"] = SettingValue::Bytes(80 * kMiB);
  m["max_wal_size"] = SettingValue::Bytes(1 * kGiB);
  m["checkpoint_timeout"] = SettingValue::Millis(5 * 60000);
  m["checkpoint_completion_target"] = SettingValue::Real(major >= 14 ? 0.9 : 0.5);
  m["max_worker_processes"] = SettingValue::Integer(8);
  m["max_parallel_workers"] = SettingValue::Integer(8);
  m["max_parallel_workers_per_gather"] = SettingValue::Integer(2);
  m["max_parallel_maintenance_workers"] = SettingValue::Integer(2);
  // PostgreSQL 18 raised both to 16 (asynchronous I/O).
  m["effective_io_concurrency"] = SettingValue::Integer(major >= 18 ? 16 : 1);
  m["maintenance_io_concurrency"] = SettingValue::Integer(major >= 18 ? 16 : 10);
  if (major >= 16) {
    // 256kB in 16; PostgreSQL 17 raised it to 2MB.
    m["vacuum_buffer_usage_limit"] = SettingValue::Bytes(major >= 17 ? 2 * kMiB : 256 * kKiB);
  }
  if (major >= 17) {
    m["io_combine_limit"] = SettingValue::Bytes(128 * kKiB);
    m["summarize_wal"] = SettingValue::Word("off");
  }
  if (major >= 18) {
    m["io_method"] = SettingValue::Word("worker");
    m["io_workers"] = SettingValue::Integer(3);
    m["autovacuum_worker_slots"] = SettingValue::Integer(16);
    SettingValue auto_conc = SettingValue::Integer(-1);
    m["io_max_concurrency"] = auto_conc;
  }
  m["default_statistics_target"] = SettingValue::Integer(100);
  m["autovacuum_max_workers"] = SettingValue::Integer(3);
  m["max_wal_senders"] = SettingValue::Integer(10);
  m["max_locks_per_transaction"] = SettingValue::Integer(64);
  m["max_prepared_transactions"] = SettingValue::Integer(0);
  m["random_page_cost"] = SettingValue::Real(4.0);
  // PostgreSQL 15 raised the default from 1.0 to 2.0.
  m["hash_mem_multiplier"] = SettingValue::Real(major >= 15 ? 2.0 : 1.0);
  m["huge_pages"] = SettingValue::Word("try");
  m["wal_level"] = SettingValue::Word("replica");
  m["synchronous_commit"] = SettingValue::Word("on");
  m["archive_mode"] = SettingValue::Word("off");
  m["wal_compression"] = SettingValue::Word("off");
  m["jit"] = SettingValue::Word("on");
  m["fsync"] = SettingValue::Word("on");
  m["full_page_writes"] = SettingValue::Word("on");
  return m;
}

std::string OfflineContext(std::string_view name, int server_major) {
  // PostgreSQL 18 made autovacuum_max_workers reloadable (the slots it draws
  // from, autovacuum_worker_slots, are fixed at start).
  if (name == "autovacuum_max_workers" && server_major >= 18) return "sighup";
  const SettingInfo* i = Find(name);
  return i ? i->context : "user";
}

bool NeedsRestartOffline(std::string_view name, int server_major) {
  return OfflineContext(name, server_major) == "postmaster";
}

bool KnownSetting(std::string_view name, int server_major) {
  const SettingInfo* i = Find(name);
  return i && i->since <= server_major;
}

std::optional<std::string> ClosestSetting(std::string_view name, int server_major) {
  std::optional<std::string> best;
  size_t best_d = 0;
  for (const auto& [n, info] : Table()) {
    if (info.since > server_major) continue;
    size_t d = EditDistance(name, n);
    if (!best || d < best_d) {
      best = n;
      best_d = d;
    }
  }
  if (best && best_d > std::max<size_t>(3, name.size() / 3)) return std::nullopt;
  return best;
}

std::optional<SettingRange> RangeOf(std::string_view name, int server_major) {
  const SettingInfo* i = Find(name);
  if (!i || i->kind == ValueKind::kWord) return std::nullopt;
  SettingRange r{i->min, i->max, i->minus_one};
  if (name == "io_combine_limit" && server_major < 18) r.max = 32 * kBlock;  // 256kB before 18
  return r;
}

Status CheckOfflineValue(std::string_view name, const SettingValue& v, int server_major) {
  const SettingInfo* i = Find(name);
  if (!i || i->since > server_major) {
    std::string msg = i ? fmt::format("{} does not exist before PostgreSQL {} (this is {})", name,
                                      i->since, server_major)
                        : fmt::format("pgrig does not know a setting called {} in PostgreSQL {}",
                                      name, server_major);
    if (auto c = ClosestSetting(name, server_major); c && *c != name) {
      msg += fmt::format("; did you mean {}?", *c);
    }
    return InvalidArgument("--set " + msg);
  }
  if (i->kind == ValueKind::kWord) {
    std::vector<std::string> words = i->words;
    if (name == "wal_compression") {
      words = server_major >= 15 ? std::vector<std::string>{"pglz", "lz4", "zstd", "on", "off"}
                                 : std::vector<std::string>{"on", "off"};
    }
    if (words.empty()) return Status::Ok();  // booleans were checked when parsed
    if (std::find(words.begin(), words.end(), v.word) == words.end()) {
      return InvalidArgument(fmt::format("--set {}: '{}' is not one of {} in PostgreSQL {}", name,
                                         v.word, Join(words, ", "), server_major));
    }
    return Status::Ok();
  }
  auto r = RangeOf(name, server_major);
  if (!r) return Status::Ok();
  const double n = v.Number();
  if (r->minus_one && n == -1) return Status::Ok();
  bool ok = n >= r->min && n <= r->max;
  // 0 turns the vacuum ring off; otherwise PostgreSQL wants 128kB to 16GB.
  if (name == "vacuum_buffer_usage_limit" && n != 0 && n < 128 * kK) ok = false;
  if (!ok) {
    auto show = [&](double x) {
      if (i->kind == ValueKind::kBytes)
        return SettingValue::Bytes(static_cast<uint64_t>(x)).ToConf();
      if (i->kind == ValueKind::kMillis)
        return SettingValue::Millis(static_cast<int64_t>(x)).ToConf();
      if (i->kind == ValueKind::kReal) return FormatReal(x);
      return fmt::format("{}", static_cast<int64_t>(x));
    };
    std::string range = i->kind == ValueKind::kReal && r->max >= kDblMax
                            ? fmt::format("at least {}", show(r->min))
                            : fmt::format("{} to {}", show(r->min), show(r->max));
    if (name == "vacuum_buffer_usage_limit") range = "0, or 128kB to 16GB";
    return InvalidArgument(fmt::format("--set {}={} is outside what PostgreSQL {} accepts ({}{})",
                                       name, v.ToConf(), server_major, range,
                                       r->minus_one ? ", or -1" : ""));
  }
  return Status::Ok();
}

int64_t GetInt(const SettingMap& m, const std::string& name, int64_t fallback) {
  auto it = m.find(name);
  return it == m.end() || !it->second.numeric() ? fallback
                                                : static_cast<int64_t>(it->second.Number());
}

double GetReal(const SettingMap& m, const std::string& name, double fallback) {
  auto it = m.find(name);
  return it == m.end() || !it->second.numeric() ? fallback : it->second.Number();
}

std::string GetWord(const SettingMap& m, const std::string& name, const std::string& fallback) {
  auto it = m.find(name);
  return it == m.end() ? fallback : it->second.ToConf();
}

}  // namespace pgrig::tune
