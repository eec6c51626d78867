#include "tune/settings.h"

#include <cmath>
#include <set>

#include <fmt/format.h>

#include "common/strings.h"

namespace pgrig::tune {

namespace {

struct SettingInfo {
  ValueKind kind;
  const char* pg_unit;  // the unit pg_settings reports; "" for none
  bool is_bool;
};

// The settings the tuner proposes or budgets.  Units are pg_settings' own.
const std::map<std::string, SettingInfo, std::less<>>& Table() {
  static const auto* t = new std::map<std::string, SettingInfo, std::less<>>{
      {"shared_buffers", {ValueKind::kBytes, "8kB", false}},
      {"effective_cache_size", {ValueKind::kBytes, "8kB", false}},
      {"wal_buffers", {ValueKind::kBytes, "8kB", false}},
      {"temp_buffers", {ValueKind::kBytes, "8kB", false}},
      {"work_mem", {ValueKind::kBytes, "kB", false}},
      {"maintenance_work_mem", {ValueKind::kBytes, "kB", false}},
      {"autovacuum_work_mem", {ValueKind::kBytes, "kB", false}},
      {"huge_page_size", {ValueKind::kBytes, "kB", false}},
      {"min_wal_size", {ValueKind::kBytes, "MB", false}},
      {"max_wal_size", {ValueKind::kBytes, "MB", false}},
      {"checkpoint_timeout", {ValueKind::kMillis, "s", false}},
      {"max_connections", {ValueKind::kInteger, "", false}},
      {"superuser_reserved_connections", {ValueKind::kInteger, "", false}},
      {"reserved_connections", {ValueKind::kInteger, "", false}},
      {"max_worker_processes", {ValueKind::kInteger, "", false}},
      {"max_parallel_workers", {ValueKind::kInteger, "", false}},
      {"max_parallel_workers_per_gather", {ValueKind::kInteger, "", false}},
      {"max_parallel_maintenance_workers", {ValueKind::kInteger, "", false}},
      {"effective_io_concurrency", {ValueKind::kInteger, "", false}},
      {"maintenance_io_concurrency", {ValueKind::kInteger, "", false}},
      {"default_statistics_target", {ValueKind::kInteger, "", false}},
      {"autovacuum_max_workers", {ValueKind::kInteger, "", false}},
      {"max_wal_senders", {ValueKind::kInteger, "", false}},
      {"max_locks_per_transaction", {ValueKind::kInteger, "", false}},
      {"max_prepared_transactions", {ValueKind::kInteger, "", false}},
      {"random_page_cost", {ValueKind::kReal, "", false}},
      {"checkpoint_completion_target", {ValueKind::kReal, "", false}},
      {"hash_mem_multiplier", {ValueKind::kReal, "", false}},
      {"huge_pages", {ValueKind::kWord, "", false}},
      {"wal_level", {ValueKind::kWord, "", false}},
      {"synchronous_commit", {ValueKind::kWord, "", false}},
      {"archive_mode", {ValueKind::kWord, "", false}},
      {"wal_compression", {ValueKind::kWord, "", false}},
      {"jit", {ValueKind::kWord, "", true}},
      {"fsync", {ValueKind::kWord, "", true}},
      {"full_page_writes", {ValueKind::kWord, "", true}},
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
      if (integer >= 3600000 && integer % 3600000 == 0) return fmt::format("{}h", integer / 3600000);
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
    if (!d) return Internal(fmt::format("pg_settings shows {} = '{}', not a number", name, setting));
    return SettingValue::Real(*d);
  }
  auto n = ParseInt64(Trim(setting));
  if (!n) return Internal(fmt::format("pg_settings shows {} = '{}', not an integer", name, setting));
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
  return time ? SettingValue::Millis(canonical) : SettingValue::Bytes(static_cast<uint64_t>(canonical));
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
    if (!unit.empty()) return InvalidArgument(fmt::format("{} takes a plain number, not '{}'", name, t));
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
    return InvalidArgument(fmt::format("'{}': unknown size unit '{}'; use MB, GB or TB", text, unit));
  }
  return static_cast<uint64_t>(number * *m);
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
  m["effective_io_concurrency"] = SettingValue::Integer(1);
  m["maintenance_io_concurrency"] = SettingValue::Integer(10);
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

bool NeedsRestartOffline(std::string_view name, int /*server_major*/) {
  // "postmaster" context in every release 13–17.
  static const std::set<std::string, std::less<>> kRestart = {
      "shared_buffers",        "max_connections",           "max_worker_processes",
      "huge_pages",            "huge_page_size",            "wal_buffers",
      "wal_level",             "max_wal_senders",           "autovacuum_max_workers",
      "max_locks_per_transaction", "max_prepared_transactions", "archive_mode",
      "superuser_reserved_connections", "reserved_connections"};
  return kRestart.count(name) > 0;
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
