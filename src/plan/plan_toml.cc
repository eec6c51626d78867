// The plan reader: TOML text -> Plan.  Every key is checked against the keys
// its table may have, every value against its type and range, before the
// plan is returned; errors name "file:line", the key and the table, and an
// unknown key gets the closest known one suggested.  docs/plans.md is the
// user's description of the format; keep the two in step.
#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "common/fs.h"
#include "common/strings.h"
#include "engine/config.h"
#include "micro/lio_run.h"
#include "micro/lio_schema.h"
#include "micro/wal_flush.h"
#include "pgbuild/builder.h"
#include "plan/plan.h"
#include "plan/toml_text.h"
#include "script/variables.h"
#include "tpcc/schema.h"

namespace pgrig::plan {
namespace {

namespace fs = std::filesystem;

constexpr std::array<std::string_view, 4> kTopKeys = {"plan", "workload", "variant", "build"};
constexpr std::array<std::string_view, 5> kBuildKeys = {"name", "source", "profile", "cflags",
                                                        "configure"};
constexpr std::array<std::string_view, 19> kPlanKeys = {"name",
                                                        "description",
                                                        "scale",
                                                        "size",
                                                        "partitions",
                                                        "clients",
                                                        "threads",
                                                        "protocols",
                                                        "duration_s",
                                                        "warmup_s",
                                                        "iterations",
                                                        "rate_tps",
                                                        "latency_limit_ms",
                                                        "max_tries",
                                                        "checkpoint",
                                                        "vacuum",
                                                        "settings",
                                                        "profile",
                                                        "builds"};
constexpr std::array<std::string_view, 11> kWorkloadKeys = {
    "name",    "kind",    "builtin", "file",      "scripts", "writes",
    "defines", "clients", "threads", "protocols", "profile"};
constexpr std::array<std::string_view, 9> kLioKeys = {
    "name",      "kind",       "tables",           "scale",   "fit",
    "work_unit", "update_pct", "update_work_unit", "sessions"};
constexpr std::array<std::string_view, 9> kTpccKeys = {
    "name",      "kind",    "warehouses", "procedures", "check_warehouses",
    "max_tries", "clients", "threads",    "protocols"};
constexpr std::array<std::string_view, 6> kFsyncKeys = {
    "name", "kind", "dir", "seconds_per_test", "write_sizes", "writers"};
constexpr std::array<std::string_view, 3> kScriptKeys = {"builtin", "file", "weight"};
// The longest duration_s and warmup_s: -T's range, an int of seconds (the
// runner rounds them to one).
constexpr double kMaxSeconds = 2147483647;
constexpr std::array<std::string_view, 2> kVariantKeys = {"name", "settings"};

const char* TypeName(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
    case toml::node_type::time:
    case toml::node_type::date_time:
      return "a date/time";
    default:
      return "nothing";
  }
}

int LineOf(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

bool IsName(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
  }
  return true;
}

// A PostgreSQL setting name as pg_settings spells it (lower case), with one
// optional "prefix." for extension settings.
bool IsSettingName(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  bool start = true;
  int dots = 0;
  for (char c : s) {
    if (c == '.') {
      if (start || ++dots > 1) return false;
      start = true;
      continue;
    }
    const bool letter = (c >= 'a' && c <= 'z') || c == '_';
    if (!letter && !(c >= '0' && c <= '9' && !start)) return false;
    start = false;
  }
  return !start;
}

// How a table is called in messages: "[plan]", "[[workload]] 'rw'".
struct Where {
  std::string name;
  int line = 0;  // the table's own line, for errors about missing keys
};

class Reader {
 public:
  Reader(std::string file, fs::path dir) : file_(std::move(file)), dir_(std::move(dir)) {}

  Status Error(int line, const std::string& message) const {
    return InvalidArgument(fmt::format("{}:{}: {}", file_, line, message));
  }
  Status Error(const toml::node& n, const std::string& message) const {
    return Error(LineOf(n), message);
  }

  // A path as written in the plan: relative ones are to the plan's directory.
  std::string PathOf(const std::string& p) const {
    return (fs::path(p).is_absolute() ? fs::path(p) : dir_ / p).lexically_normal().string();
  }

  Status CheckKeys(const toml::table& t, std::span<const std::string_view> known,
                   const Where& where) const {
    for (auto&& [key, node] : t) {
      const std::string_view k = key.str();
      if (std::find(known.begin(), known.end(), k) != known.end()) continue;
      std::vector<std::string> names(known.begin(), known.end());
      std::vector<std::string> close = ClosestNames(k, names, 1);
      std::string msg = fmt::format("unknown key '{}' in {}", k, where.name);
      if (!close.empty()) {
        msg += fmt::format("; did you mean '{}'?", close[0]);
      } else {
        msg += fmt::format(" (known keys: {})", Join(names, ", "));
      }
      const int line =
          key.source().begin.line > 0 ? static_cast<int>(key.source().begin.line) : LineOf(node);
      return Error(line, msg);
    }
    return Status::Ok();
  }

  Status WrongType(const toml::node& n, std::string_view key, const Where& where,
                   std::string_view want) const {
    return Error(n,
                 fmt::format("'{}' in {} must be {}, got {}", key, where.name, want, TypeName(n)));
  }

  Result<std::optional<std::string>> String(const toml::table& t, std::string_view key,
                                            const Where& where) const {
    const toml::node* n = t.get(key);
    if (n == nullptr) return std::optional<std::string>();
    if (!n->is_string()) return WrongType(*n, key, where, "a string");
    return std::optional<std::string>(n->as_string()->get());
  }

  Result<std::optional<bool>> Bool(const toml::table& t, std::string_view key,
                                   const Where& where) const {
    const toml::node* n = t.get(key);
    if (n == nullptr) return std::optional<bool>();
    if (!n->is_boolean()) return WrongType(*n, key, where, "true or false");
    return std::optional<bool>(n->as_boolean()->get());
  }

  // An integer in [min, max].
  Result<std::optional<int64_t>> Int(const toml::table& t, std::string_view key, const Where& where,
                                     int64_t min, int64_t max) const {
    const toml::node* n = t.get(key);
    if (n == nullptr) return std::optional<int64_t>();
    if (!n->is_integer()) return WrongType(*n, key, where, "an integer");
    const int64_t v = n->as_integer()->get();
    if (v < min || v > max) {
      return Error(*n, fmt::format("'{}' in {} must be from {} to {}, got {}", key, where.name, min,
                                   max, v));
    }
    return std::optional<int64_t>(v);
  }

  // A finite number (integer or float) above `min` (or at least, when
  // `min_inclusive`) and at most `max`.
  Result<std::optional<double>> Number(const toml::table& t, std::string_view key,
                                       const Where& where, double min, bool min_inclusive,
                                       double max = std::numeric_limits<double>::infinity()) const {
    const toml::node* n = t.get(key);
    if (n == nullptr) return std::optional<double>();
    double v = 0;
    if (n->is_integer()) {
      v = static_cast<double>(n->as_integer()->get());
    } else if (n->is_floating_point()) {
      v = n->as_floating_point()->get();
    } else {
      return WrongType(*n, key, where, "a number");
    }
    if (!std::isfinite(v) || v < min || (!min_inclusive && v == min)) {
      return Error(*n, fmt::format("'{}' in {} must be {} {}, got {}", key, where.name,
                                   min_inclusive ? "at least" : "greater than", min, v));
    }
    if (v > max) {
      return Error(
          *n, fmt::format("'{}' in {} must be at most {:.0f}, got {}", key, where.name, max, v));
    }
    return std::optional<double>(v);
  }

  // `n` when it is one value, its elements when it is a list (which must not
  // be empty), to be read one by one.
  Result<std::vector<const toml::node*>> OneOrList(const toml::node& n, std::string_view key,
                                                   const Where& where) const {
    std::vector<const toml::node*> items;
    if (const toml::array* arr = n.as_array()) {
      if (arr->empty()) return Error(n, fmt::format("'{}' in {} is empty", key, where.name));
      for (const toml::node& el : *arr) items.push_back(&el);
    } else {
      items.push_back(&n);
    }
    return items;
  }

  // A count or a list of counts: 8, "cores", ["cores", "2*cores"].
  Result<std::vector<CountExpr>> Counts(const toml::table& t, std::string_view key,
                                        const Where& where) const {
    std::vector<CountExpr> out;
    const toml::node* n = t.get(key);
    if (n == nullptr) return out;
    PGRIG_ASSIGN_OR_RETURN(std::vector<const toml::node*> items, OneOrList(*n, key, where));
    for (const toml::node* el : items) {
      std::string text;
      if (el->is_integer()) {
        const int64_t v = el->as_integer()->get();
        if (v < 1) {
          return Error(*el,
                       fmt::format("'{}' in {} must be at least 1, got {}", key, where.name, v));
        }
        text = std::to_string(v);
      } else if (el->is_string()) {
        text = el->as_string()->get();
      } else {
        return WrongType(*el, key, where, "a count (8, \"cores\", \"2*cores\") or a list of them");
      }
      Result<CountExpr> c = ParseCountExpr(text);
      if (!c.ok())
        return Error(*el, fmt::format("'{}' in {}: {}", key, where.name, c.status().message()));
      out.push_back(std::move(c).value());
    }
    return out;
  }

  Result<std::vector<script::QueryMode>> Protocols(const toml::table& t, std::string_view key,
                                                   const Where& where) const {
    std::vector<script::QueryMode> out;
    const toml::node* n = t.get(key);
    if (n == nullptr) return out;
    PGRIG_ASSIGN_OR_RETURN(std::vector<const toml::node*> items, OneOrList(*n, key, where));
    for (const toml::node* el : items) {
      if (!el->is_string()) {
        return WrongType(*el, key, where, "\"simple\", \"extended\" or \"prepared\" (or a list)");
      }
      const std::string& s = el->as_string()->get();
      std::optional<script::QueryMode> mode = script::ParseQueryMode(s);
      if (!mode) {
        return Error(*el, fmt::format("'{}' in {}: unknown protocol \"{}\"; use \"simple\", "
                                      "\"extended\" or \"prepared\"",
                                      key, where.name, s));
      }
      out.push_back(*mode);
    }
    return out;
  }

  // name -> value as PostgreSQL takes it; strings as written, integers in
  // decimal, floats in their shortest exact form, booleans "on"/"off".
  Result<std::map<std::string, std::string>> Settings(const toml::table& t, std::string_view key,
                                                      const Where& where) const {
    std::map<std::string, std::string> out;
    const toml::node* n = t.get(key);
    if (n == nullptr) return out;
    const toml::table* tab = n->as_table();
    if (tab == nullptr) return WrongType(*n, key, where, "a table of setting = value");
    for (auto&& [k, v] : *tab) {
      const std::string name = ToLower(k.str());
      const int line =
          k.source().begin.line > 0 ? static_cast<int>(k.source().begin.line) : LineOf(v);
      if (!IsSettingName(name)) {
        return Error(line, fmt::format("'{}' in {}: \"{}\" is not a setting name", key, where.name,
                                       k.str()));
      }
      if (out.count(name) != 0) {
        return Error(line,
                     fmt::format("'{}' in {}: setting '{}' is given twice", key, where.name, name));
      }
      std::optional<std::string> value = SettingValue(v);
      if (!value) {
        return Error(v, fmt::format("setting '{}' in {} must be a string, number or boolean, "
                                    "got {}",
                                    name, where.name, TypeName(v)));
      }
      out.emplace(name, std::move(*value));
    }
    return out;
  }

  Result<std::map<std::string, std::string>> Defines(const toml::table& t,
                                                     const Where& where) const {
    std::map<std::string, std::string> out;
    const toml::node* n = t.get("defines");
    if (n == nullptr) return out;
    const toml::table* tab = n->as_table();
    if (tab == nullptr) return WrongType(*n, "defines", where, "a table of name = value");
    for (auto&& [k, v] : *tab) {
      const std::string_view name = k.str();
      bool ok = !name.empty();
      for (char c : name) {
        ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_');
      }
      if (!ok) {
        return Error(v, fmt::format("'defines' in {}: \"{}\" is not a variable name (letters, "
                                    "digits and '_')",
                                    where.name, name));
      }
      std::optional<std::string> value;
      if (v.is_boolean()) {
        value = v.as_boolean()->get() ? "true" : "false";
      } else {
        value = SettingValue(v);
      }
      if (!value) {
        return Error(v, fmt::format("'defines.{}' in {} must be a string, number or boolean, "
                                    "got {}",
                                    name, where.name, TypeName(v)));
      }
      out.emplace(std::string(name), std::move(*value));
    }
    return out;
  }

  static std::optional<std::string> SettingValue(const toml::node& v) {
    if (v.is_string()) return v.as_string()->get();
    if (v.is_integer()) return std::to_string(v.as_integer()->get());
    if (v.is_floating_point()) {
      const double d = v.as_floating_point()->get();
      if (!std::isfinite(d)) return std::nullopt;
      return fmt::format("{}", d);
    }
    if (v.is_boolean()) return std::string(v.as_boolean()->get() ? "on" : "off");
    return std::nullopt;
  }

  // A script reference: a builtin (any unambiguous prefix, as pgbench's -b)
  // or a file (resolved against the plan's directory, read and parsed so a
  // bad script fails now, not in the middle of a suite).
  Result<ScriptRef> Script(const toml::node& at, const std::optional<std::string>& builtin,
                           const std::optional<std::string>& file, int64_t weight,
                           const Where& where) const {
    ScriptRef ref;
    ref.weight = static_cast<int>(weight);
    if (builtin) {
      Result<const script::BuiltinScript*> b = script::FindBuiltin(*builtin);
      if (!b.ok()) {
        std::vector<std::string> names;
        for (const auto& s : script::BuiltinScripts()) names.emplace_back(s.name);
        return Error(at, fmt::format("'builtin' in {}: {}; the builtins are {}", where.name,
                                     b.status().message(), Join(names, ", ")));
      }
      ref.kind = ScriptRef::Kind::kBuiltin;
      ref.spec = std::string((*b)->name);
      return ref;
    }
    const fs::path p = fs::path(*file).is_absolute() ? fs::path(*file) : dir_ / *file;
    const std::string abs = fs::absolute(p).lexically_normal().string();
    std::error_code ec;
    if (!fs::is_regular_file(abs, ec)) {
      return Error(at, fmt::format("'file' in {}: script file \"{}\" not found (looked for {})",
                                   where.name, *file, abs));
    }
    Result<std::string> text = ReadWholeFile(abs);
    if (!text.ok()) {
      return Error(at, fmt::format("'file' in {}: {}", where.name, text.status().message()));
    }
    script::NameTable names;
    Result<script::Script> parsed = script::ParseScript(*text, abs, names);
    if (!parsed.ok()) {
      return Error(at, fmt::format("'file' in {}: script \"{}\" does not parse: {}", where.name,
                                   *file, std::string(Trim(parsed.status().message()))));
    }
    if (parsed->commands.empty()) {
      return Error(at,
                   fmt::format("'file' in {}: script \"{}\" has no commands", where.name, *file));
    }
    ref.kind = ScriptRef::Kind::kFile;
    ref.spec = abs;
    return ref;
  }

  // An integer or a list of integers, each in [min, max].
  Result<std::optional<std::vector<int>>> IntList(const toml::table& t, std::string_view key,
                                                  const Where& where, int64_t min,
                                                  int64_t max) const {
    const toml::node* n = t.get(key);
    if (n == nullptr) return std::optional<std::vector<int>>();
    PGRIG_ASSIGN_OR_RETURN(std::vector<const toml::node*> items, OneOrList(*n, key, where));
    std::vector<int> out;
    for (const toml::node* el : items) {
      if (!el->is_integer()) return WrongType(*el, key, where, "an integer or a list of them");
      const int64_t v = el->as_integer()->get();
      if (v < min || v > max) {
        return Error(*el, fmt::format("'{}' in {} must be from {} to {}, got {}", key, where.name,
                                      min, max, v));
      }
      out.push_back(static_cast<int>(v));
    }
    return std::optional<std::vector<int>>(std::move(out));
  }

  // A path as written in the plan, made absolute against the plan's directory.
  std::string PlanRelative(const std::string& p) const {
    const fs::path path = fs::path(p).is_absolute() ? fs::path(p) : dir_ / p;
    return fs::absolute(path).lexically_normal().string();
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
  fs::path dir_;
};

bool BuiltinWrites(std::string_view name) { return name != "select-only"; }

// `kind = "lio"`: the lio tables' count and size, the range reads, the
// session counts (the cells).
Result<Workload> ReadLioWorkload(const Reader& r, const toml::table& t, const Where& where,
                                 const std::optional<std::string>& name) {
  PGRIG_RETURN_IF_ERROR(r.CheckKeys(t, kLioKeys, where));
  Workload w;
  w.kind = WorkloadKind::kLio;
  w.name = name.value_or("lio");
  LioParams& p = w.lio;
  PGRIG_ASSIGN_OR_RETURN(std::optional<int64_t> tables,
                         r.Int(t, "tables", where, 1, micro::kMaxLioTables));
  if (tables) p.tables = static_cast<int>(*tables);
  PGRIG_ASSIGN_OR_RETURN(std::optional<bool> fit, r.Bool(t, "fit", where));
  if (const toml::node* sc = t.get("scale")) {
    if (fit) {
      return r.Error(*t.get("fit"),
                     fmt::format("give either 'scale' or 'fit' in {}, not both", where.name));
    }
    std::string text;
    if (sc->is_integer()) {
      text = std::to_string(sc->as_integer()->get());
    } else if (sc->is_string()) {
      text = sc->as_string()->get();
    } else {
      return r.WrongType(*sc, "scale", where,
                         "blocks per table (an integer) or a size like \"64MB\"");
    }
    Result<int64_t> blocks = micro::ParseLioScale(text);
    if (!blocks.ok()) {
      return r.Error(*sc, fmt::format("'scale' in {}: {}", where.name, blocks.status().message()));
    }
    p.blocks_per_table = *blocks;
    p.size_text = text;
  } else if (fit && !*fit) {
    return r.Error(*t.get("fit"), fmt::format("'fit' in {} is false but there is no 'scale': give "
                                              "'scale' (blocks or a size per table) or fit = true",
                                              where.name));
  }
  PGRIG_ASSIGN_OR_RETURN(std::optional<int64_t> wu, r.Int(t, "work_unit", where, 1, 1000000));
  if (wu) p.work_unit = static_cast<int>(*wu);
  PGRIG_ASSIGN_OR_RETURN(std::optional<int64_t> up, r.Int(t, "update_pct", where, 0, 100));
  if (up) p.update_pct = static_cast<int>(*up);
  PGRIG_ASSIGN_OR_RETURN(std::optional<int64_t> uwu,
                         r.Int(t, "update_work_unit", where, 1, 1000000));
  if (uwu) p.update_work_unit = static_cast<int>(*uwu);
  if (p.blocks_per_table) {
    const char* key = nullptr;
    int64_t need = 0;
    if (p.work_unit > *p.blocks_per_table) {
      key = "work_unit";
      need = p.work_unit;
    } else if (p.update_pct > 0 && p.update_work_unit > *p.blocks_per_table) {
      key = "update_work_unit";
      need = p.update_work_unit;
    }
    if (key != nullptr) {
      // An unset work unit is the default; the error then points at 'scale'.
      const toml::node* given = t.get(key);
      return r.Error(given != nullptr ? *given : *t.get("scale"),
                     fmt::format("'{}' in {} is {} blocks{}, more than a table holds "
                                 "({} blocks, 'scale' {}); use a smaller work unit "
                                 "or a larger scale",
                                 key, where.name, need, given != nullptr ? "" : " (the default)",
                                 *p.blocks_per_table, p.size_text));
    }
  }
  w.writes = p.update_pct > 0;
  PGRIG_ASSIGN_OR_RETURN(w.clients, r.Counts(t, "sessions", where));
  for (const CountExpr& c : w.clients) {
    if (c.per_core == 0 && c.constant > micro::kMaxLioSessions) {
      return r.Error(*t.get("sessions"),
                     fmt::format("'sessions' in {}: {} is more than {} sessions", where.name,
                                 c.constant, micro::kMaxLioSessions));
    }
  }
  return w;
}

// `kind = "fsync"`: the flush test of a directory, once per suite.
Result<Workload> ReadFsyncWorkload(const Reader& r, const toml::table& t, const Where& where,
                                   const std::optional<std::string>& name) {
  PGRIG_RETURN_IF_ERROR(r.CheckKeys(t, kFsyncKeys, where));
  Workload w;
  w.kind = WorkloadKind::kFsync;
  w.name = name.value_or("fsync");
  w.writes = true;
  FsyncParams& p = w.fsync;
  PGRIG_ASSIGN_OR_RETURN(std::optional<std::string> dir, r.String(t, "dir", where));
  if (dir) {
    if (dir->empty()) {
      return r.Error(*t.get("dir"), fmt::format("'dir' in {} is empty: give a directory on the "
                                                "storage to test, or leave 'dir' out for the "
                                                "server's data directory",
                                                where.name));
    }
    p.dir = r.PlanRelative(*dir);
  }
  PGRIG_ASSIGN_OR_RETURN(std::optional<double> secs,
                         r.Number(t, "seconds_per_test", where, 0, false, micro::kMaxFsyncSeconds));
  if (secs) {
    p.seconds_per_test = *secs;
  }
  PGRIG_ASSIGN_OR_RETURN(std::optional<std::vector<int>> sizes,
                         r.IntList(t, "write_sizes", where, 512, 1 << 20));
  if (sizes) {
    for (int v : *sizes) {
      if (v % 512 != 0) {
        return r.Error(
            *t.get("write_sizes"),
            fmt::format("'write_sizes' in {}: {} is not a multiple of 512 bytes", where.name, v));
      }
    }
    p.write_sizes = *sizes;
  }
  PGRIG_ASSIGN_OR_RETURN(std::optional<std::vector<int>> writers,
                         r.IntList(t, "writers", where, 1, micro::kMaxFsyncWriters));
  if (writers) p.writers = *writers;
  return w;
}

// `kind = "tpcc"`: the warehouses loaded, how the transactions are sent
// and the clients, threads and protocols of its cells (prepared unless
// given: `pgrig tpcc run`'s default).
Result<Workload> ReadTpccWorkload(const Reader& r, const toml::table& t, const Where& where,
                                  const std::optional<std::string>& name) {
  PGRIG_RETURN_IF_ERROR(r.CheckKeys(t, kTpccKeys, where));
  Workload w;
  w.kind = WorkloadKind::kTpcc;
  w.name = name.value_or("tpcc");
  w.writes = true;
  TpccParams& p = w.tpcc;
  if (const toml::node* wh = t.get("warehouses")) {
    if (wh->is_array()) {
      return r.WrongType(*wh, "warehouses", where, "one count (4, \"cores\", \"4*cores\")");
    }
    if (wh->is_integer()) {
      PGRIG_ASSIGN_OR_RETURN(std::optional<int64_t> n,
                             r.Int(t, "warehouses", where, 1, tpcc::kMaxWarehouses));
      p.warehouses =
          CountExpr{.constant = *n, .per_core = 0, .divisor = 1, .text = std::to_string(*n)};
    } else {
      PGRIG_ASSIGN_OR_RETURN(std::vector<CountExpr> one, r.Counts(t, "warehouses", where));
      p.warehouses = one.front();
    }
  }
  PGRIG_ASSIGN_OR_RETURN(std::optional<bool> procs, r.Bool(t, "procedures", where));
  p.procedures = procs.value_or(false);
  PGRIG_ASSIGN_OR_RETURN(std::optional<int64_t> cw,
                         r.Int(t, "check_warehouses", where, 1, tpcc::kMaxWarehouses));
  if (cw) p.check_warehouses = static_cast<int>(*cw);
  PGRIG_ASSIGN_OR_RETURN(std::optional<int64_t> tries, r.Int(t, "max_tries", where, 1, 1000));
  if (tries) p.max_tries = static_cast<int>(*tries);
  PGRIG_ASSIGN_OR_RETURN(w.clients, r.Counts(t, "clients", where));
  PGRIG_ASSIGN_OR_RETURN(w.threads, r.Counts(t, "threads", where));
  PGRIG_ASSIGN_OR_RETURN(w.protocols, r.Protocols(t, "protocols", where));
  if (w.protocols.empty()) w.protocols = {script::QueryMode::kPrepared};
  return w;
}

Result<Workload> ReadWorkload(const Reader& r, const toml::table& t, int index) {
  Where where{fmt::format("[[workload]] #{}", index + 1), LineOf(t)};
  PGRIG_ASSIGN_OR_RETURN(std::optional<std::string> name, r.String(t, "name", where));
  if (name) {
    if (!IsName(*name)) {
      return r.Error(*t.get("name"), fmt::format("'name' in {} must be 1-63 characters of a-z, "
                                                 "0-9, '_' and '-', got \"{}\"",
                                                 where.name, *name));
    }
    where.name = fmt::format("[[workload]] '{}'", *name);
  }
  PGRIG_ASSIGN_OR_RETURN(std::optional<std::string> kind, r.String(t, "kind", where));
  if (kind && *kind == "lio") return ReadLioWorkload(r, t, where, name);
  if (kind && *kind == "fsync") return ReadFsyncWorkload(r, t, where, name);
  if (kind && *kind == "tpcc") return ReadTpccWorkload(r, t, where, name);
  if (kind && *kind != "pgbench") {
    return r.Error(*t.get("kind"), fmt::format("'kind' in {}: unknown kind \"{}\"; use "
                                               "\"pgbench\" (the default: scripts), \"lio\", "
                                               "\"fsync\" or \"tpcc\"",
                                               where.name, *kind));
  }
  PGRIG_RETURN_IF_ERROR(r.CheckKeys(t, kWorkloadKeys, where));

  Workload w;
  PGRIG_ASSIGN_OR_RETURN(std::optional<std::string> builtin, r.String(t, "builtin", where));
  PGRIG_ASSIGN_OR_RETURN(std::optional<std::string> file, r.String(t, "file", where));
  const toml::node* scripts = t.get("scripts");
  const int given = (builtin ? 1 : 0) + (file ? 1 : 0) + (scripts != nullptr ? 1 : 0);
  if (given != 1) {
    return r.Error(where.line, fmt::format("{} needs exactly one of 'builtin', 'file' or "
                                           "'scripts', got {}",
                                           where.name, given));
  }
  bool writes = false;
  if (scripts == nullptr) {
    const toml::node& at = *t.get(builtin ? "builtin" : "file");
    PGRIG_ASSIGN_OR_RETURN(ScriptRef ref, r.Script(at, builtin, file, 1, where));
    w.scripts.push_back(std::move(ref));
  } else {
    const toml::array* arr = scripts->as_array();
    if (arr == nullptr || arr->empty()) {
      return r.WrongType(*scripts, "scripts", where,
                         "a non-empty list like [{builtin=\"tpcb-like\", weight=2}, "
                         "{file=\"x.sql\"}]");
    }
    int64_t total = 0;
    for (size_t i = 0; i < arr->size(); ++i) {
      const toml::node& el = *arr->get(i);
      const toml::table* st = el.as_table();
      const Where swhere{fmt::format("scripts[{}] of {}", i, where.name), LineOf(el)};
      if (st == nullptr) {
        return r.WrongType(el, "scripts", where, "a list of {builtin=...} or {file=...} tables");
      }
      PGRIG_RETURN_IF_ERROR(r.CheckKeys(*st, kScriptKeys, swhere));
      PGRIG_ASSIGN_OR_RETURN(std::optional<std::string> sb, r.String(*st, "builtin", swhere));
      PGRIG_ASSIGN_OR_RETURN(std::optional<std::string> sf, r.String(*st, "file", swhere));
      PGRIG_ASSIGN_OR_RETURN(std::optional<int64_t> weight,
                             r.Int(*st, "weight", swhere, 0, 2147483647));
      if ((sb ? 1 : 0) + (sf ? 1 : 0) != 1) {
        return r.Error(el, fmt::format("{} needs exactly one of 'builtin' or 'file'", swhere.name));
      }
      const toml::node& at = *st->get(sb ? "builtin" : "file");
      PGRIG_ASSIGN_OR_RETURN(ScriptRef ref, r.Script(at, sb, sf, weight.value_or(1), swhere));
      total += ref.weight;
      w.scripts.push_back(std::move(ref));
    }
    if (total <= 0) {
      return r.Error(*scripts,
                     fmt::format("'scripts' in {}: the total weight must not be zero", where.name));
    }
  }
  for (const ScriptRef& s : w.scripts) {
    if (s.weight > 0) {
      writes = writes || s.kind == ScriptRef::Kind::kFile || BuiltinWrites(s.spec);
    }
  }
  if (name) {
    w.name = *name;
  } else if (w.scripts.size() == 1 && w.scripts[0].kind == ScriptRef::Kind::kBuiltin) {
    w.name = w.scripts[0].spec;
  } else {
    return r.Error(where.line, fmt::format("{} needs a 'name' (only a single builtin names "
                                           "itself)",
                                           where.name));
  }
  PGRIG_ASSIGN_OR_RETURN(std::optional<bool> writes_key, r.Bool(t, "writes", where));
  w.writes = writes_key.value_or(writes);
  PGRIG_ASSIGN_OR_RETURN(w.defines, r.Defines(t, where));
  PGRIG_ASSIGN_OR_RETURN(w.clients, r.Counts(t, "clients", where));
  PGRIG_ASSIGN_OR_RETURN(w.threads, r.Counts(t, "threads", where));
  PGRIG_ASSIGN_OR_RETURN(w.protocols, r.Protocols(t, "protocols", where));
  PGRIG_ASSIGN_OR_RETURN(w.profile, r.Bool(t, "profile", where));
  return w;
}

Result<SettingsVariant> ReadVariant(const Reader& r, const toml::table& t, int index) {
  Where where{fmt::format("[[variant]] #{}", index + 1), LineOf(t)};
  PGRIG_ASSIGN_OR_RETURN(std::optional<std::string> name, r.String(t, "name", where));
  if (!name) return r.Error(where.line, fmt::format("{} needs a 'name'", where.name));
  if (!IsName(*name)) {
    return r.Error(*t.get("name"), fmt::format("'name' in {} must be 1-63 characters of a-z, "
                                               "0-9, '_' and '-', got \"{}\"",
                                               where.name, *name));
  }
  where.name = fmt::format("[[variant]] '{}'", *name);
  PGRIG_RETURN_IF_ERROR(r.CheckKeys(t, kVariantKeys, where));
  SettingsVariant v;
  v.name = *name;
  PGRIG_ASSIGN_OR_RETURN(v.settings, r.Settings(t, "settings", where));
  return v;
}

// A [[build]] table: a PostgreSQL build the plan makes when it is missing.
Result<BuildEntry> ReadBuildEntry(const Reader& r, const toml::table& t, int index) {
  Where where{fmt::format("[[build]] #{}", index + 1), LineOf(t)};
  PGRIG_ASSIGN_OR_RETURN(std::optional<std::string> name, r.String(t, "name", where));
  if (!name) return r.Error(where.line, fmt::format("{} needs a 'name'", where.name));
  if (Status v = pgbuild::ValidateBuildName(*name); !v.ok()) {
    return r.Error(*t.get("name"), fmt::format("'name' in {}: {}", where.name, v.message()));
  }
  if (*name == kInstalledBuild) {
    return r.Error(*t.get("name"),
                   fmt::format("'name' in {}: \"{}\" is the server pgrig finds without a build, "
                               "not one to build; choose another name",
                               where.name, kInstalledBuild));
  }
  where.name = fmt::format("[[build]] '{}'", *name);
  PGRIG_RETURN_IF_ERROR(r.CheckKeys(t, kBuildKeys, where));
  BuildEntry b;
  b.name = *name;
  b.line = where.line;
  PGRIG_ASSIGN_OR_RETURN(std::optional<std::string> source, r.String(t, "source", where));
  if (!source || source->empty()) {
    return r.Error(where.line,
                   fmt::format("{} needs a 'source': a PostgreSQL release tarball or source tree "
                               "(scripts/pg-source.sh fetches the installed version's)",
                               where.name));
  }
  b.source = r.PathOf(*source);
  PGRIG_ASSIGN_OR_RETURN(std::optional<std::string> profile, r.String(t, "profile", where));
  if (profile) {
    if (auto p = pgbuild::ParseProfile(*profile); !p.ok()) {
      return r.Error(*t.get("profile"),
                     fmt::format("'profile' in {}: {}", where.name, p.status().message()));
    }
    b.profile = *profile;
  }
  PGRIG_ASSIGN_OR_RETURN(std::optional<std::string> cflags, r.String(t, "cflags", where));
  b.cflags = cflags.value_or("");
  if (const toml::node* n = t.get("configure")) {
    PGRIG_ASSIGN_OR_RETURN(std::vector<const toml::node*> items,
                           r.OneOrList(*n, "configure", where));
    for (const toml::node* el : items) {
      if (!el->is_string() || el->as_string()->get().empty()) {
        return r.WrongType(*el, "configure", where,
                           "a configure option such as \"--with-blocksize=16\", or a list");
      }
      b.configure.push_back(el->as_string()->get());
    }
  }
  return b;
}

Status ReadPlanTable(const Reader& r, const toml::table& t, Plan* plan) {
  const Where where{"[plan]", LineOf(t)};
  PGRIG_RETURN_IF_ERROR(r.CheckKeys(t, kPlanKeys, where));
  PGRIG_ASSIGN_OR_RETURN(std::optional<std::string> name, r.String(t, "name", where));
  if (name) {
    if (!IsName(*name)) {
      return r.Error(*t.get("name"), fmt::format("'name' in [plan] must be 1-63 characters of "
                                                 "a-z, 0-9, '_' and '-', got \"{}\"",
                                                 *name));
    }
    plan->name = *name;
  }
  PGRIG_ASSIGN_OR_RETURN(std::optional<std::string> desc, r.String(t, "description", where));
  plan->description = desc.value_or("");

  PGRIG_ASSIGN_OR_RETURN(std::optional<int64_t> scale, r.Int(t, "scale", where, 1, 1000000));
  PGRIG_ASSIGN_OR_RETURN(std::optional<std::string> size, r.String(t, "size", where));
  if (scale && size) {
    return r.Error(*t.get("size"), "give either 'scale' or 'size' in [plan], not both");
  }
  if (scale) plan->scale = static_cast<int>(*scale);
  if (size) {
    std::string s = *size;
    std::replace(s.begin(), s.end(), '_', '-');
    if (s == "fits-shared-buffers") {
      plan->size = SizeTarget::kFitsSharedBuffers;
    } else if (s == "fits-ram") {
      plan->size = SizeTarget::kFitsRam;
    } else if (s == "larger-than-ram") {
      plan->size = SizeTarget::kLargerThanRam;
    } else {
      return r.Error(*t.get("size"), fmt::format("'size' in [plan]: unknown size \"{}\"; use "
                                                 "\"fits-shared-buffers\", \"fits-ram\" or "
                                                 "\"larger-than-ram\" (or 'scale = N')",
                                                 *size));
    }
  }
  PGRIG_ASSIGN_OR_RETURN(std::optional<int64_t> parts, r.Int(t, "partitions", where, 0, 100000));
  plan->init_partitions = static_cast<int>(parts.value_or(0));

  PGRIG_ASSIGN_OR_RETURN(plan->clients, r.Counts(t, "clients", where));
  PGRIG_ASSIGN_OR_RETURN(plan->threads, r.Counts(t, "threads", where));
  PGRIG_ASSIGN_OR_RETURN(plan->protocols, r.Protocols(t, "protocols", where));

  PGRIG_ASSIGN_OR_RETURN(std::optional<double> duration,
                         r.Number(t, "duration_s", where, 0, false, kMaxSeconds));
  if (duration) plan->duration_s = *duration;
  PGRIG_ASSIGN_OR_RETURN(std::optional<double> warmup,
                         r.Number(t, "warmup_s", where, 0, true, kMaxSeconds));
  if (warmup) plan->warmup_s = *warmup;
  PGRIG_ASSIGN_OR_RETURN(std::optional<int64_t> iters, r.Int(t, "iterations", where, 1, 1000));
  if (iters) plan->iterations = static_cast<int>(*iters);
  PGRIG_ASSIGN_OR_RETURN(plan->rate_tps, r.Number(t, "rate_tps", where, 0, false));
  PGRIG_ASSIGN_OR_RETURN(plan->latency_limit_ms, r.Number(t, "latency_limit_ms", where, 0, false,
                                                          engine::kMaxLatencyLimitMs));
  PGRIG_ASSIGN_OR_RETURN(std::optional<int64_t> tries, r.Int(t, "max_tries", where, 0, 2147483647));
  if (tries) plan->max_tries = static_cast<int>(*tries);
  PGRIG_ASSIGN_OR_RETURN(std::optional<bool> profile, r.Bool(t, "profile", where));
  if (profile) plan->profile = *profile;
  PGRIG_ASSIGN_OR_RETURN(std::optional<bool> checkpoint, r.Bool(t, "checkpoint", where));
  if (checkpoint) plan->checkpoint_between_runs = *checkpoint;
  PGRIG_ASSIGN_OR_RETURN(std::optional<std::string> vacuum, r.String(t, "vacuum", where));
  if (vacuum) {
    if (*vacuum == "writes") {
      plan->vacuum = VacuumPolicy::kWriteWorkloads;
    } else if (*vacuum == "always") {
      plan->vacuum = VacuumPolicy::kAlways;
    } else if (*vacuum == "never") {
      plan->vacuum = VacuumPolicy::kNever;
    } else {
      return r.Error(*t.get("vacuum"), fmt::format("'vacuum' in [plan]: unknown policy \"{}\"; "
                                                   "use \"writes\", \"always\" or \"never\"",
                                                   *vacuum));
    }
  }
  PGRIG_ASSIGN_OR_RETURN(plan->settings, r.Settings(t, "settings", where));
  if (const toml::node* n = t.get("builds")) {
    PGRIG_ASSIGN_OR_RETURN(std::vector<const toml::node*> items, r.OneOrList(*n, "builds", where));
    for (const toml::node* el : items) {
      if (!el->is_string()) {
        return r.WrongType(*el, "builds", where,
                           "a build name (\"installed\" or a `pgrig pg list` name) or a list");
      }
      const std::string& b = el->as_string()->get();
      if (Status v = pgbuild::ValidateBuildName(b); !v.ok()) {
        return r.Error(*el, fmt::format("'builds' in [plan]: {}", v.message()));
      }
      if (std::find(plan->builds.begin(), plan->builds.end(), b) != plan->builds.end()) {
        return r.Error(*el, fmt::format("'builds' in [plan] names \"{}\" twice", b));
      }
      plan->builds.push_back(b);
    }
  }
  return Status::Ok();
}

// The array of tables under `key`, or an error when it is something else.
Result<const toml::array*> TablesOf(const Reader& r, const toml::table& root,
                                    std::string_view key) {
  const toml::node* n = root.get(key);
  if (n == nullptr) return static_cast<const toml::array*>(nullptr);
  const toml::array* arr = n->as_array();
  bool ok = arr != nullptr;
  if (ok) {
    for (const toml::node& el : *arr) ok = ok && el.is_table();
  }
  if (!ok) {
    return r.Error(
        *n, fmt::format("'{}' must be a list of tables: write [[{}]] before each", key, key));
  }
  return arr;
}

}  // namespace

Result<Plan> ParsePlan(const std::string& text, const std::string& path) {
  const fs::path abs = path.empty() ? fs::path() : fs::absolute(path).lexically_normal();
  Reader r(path.empty() ? "<plan>" : path, abs.empty() ? fs::current_path() : abs.parent_path());
  PGRIG_ASSIGN_OR_RETURN(toml::table root, ParseTomlText(text, r.file()));
  PGRIG_RETURN_IF_ERROR(r.CheckKeys(root, kTopKeys, Where{"the plan file (top level)", 1}));

  Plan plan;
  plan.name = abs.empty() ? "plan" : abs.stem().string();
  plan.source_path = abs.string();
  plan.source_text = text;

  if (const toml::node* p = root.get("plan")) {
    if (!p->is_table()) {
      return r.Error(*p, "'plan' must be a table: write [plan] and its keys below it");
    }
    PGRIG_RETURN_IF_ERROR(ReadPlanTable(r, *p->as_table(), &plan));
  }
  if (plan.clients.empty()) plan.clients.push_back(CountExpr{.per_core = 1, .text = "cores"});
  if (plan.protocols.empty()) plan.protocols.push_back(script::QueryMode::kSimple);

  PGRIG_ASSIGN_OR_RETURN(const toml::array* workloads, TablesOf(r, root, "workload"));
  if (workloads == nullptr) {
    return r.Error(1,
                   "the plan has no workloads: add a [[workload]] table (e.g. builtin = "
                   "\"select-only\")");
  }
  std::set<std::string> names;
  std::optional<size_t> first_lio;  // index: the vector grows
  std::optional<size_t> first_tpcc;
  bool have_fsync = false;
  for (size_t i = 0; i < workloads->size(); ++i) {
    const toml::table& t = *workloads->get(i)->as_table();
    PGRIG_ASSIGN_OR_RETURN(Workload w, ReadWorkload(r, t, static_cast<int>(i)));
    if (!names.insert(w.name).second) {
      return r.Error(t, fmt::format("workload name '{}' is used twice; give each [[workload]] its "
                                    "own 'name'",
                                    w.name));
    }
    if (w.kind == WorkloadKind::kFsync) {
      if (have_fsync) {
        return r.Error(t, fmt::format("[[workload]] '{}': a plan has at most one fsync workload "
                                      "(it runs once per suite)",
                                      w.name));
      }
      have_fsync = true;
    }
    plan.workloads.push_back(std::move(w));
    if (const Workload& cur = plan.workloads.back(); cur.kind == WorkloadKind::kTpcc) {
      // Every tpcc workload runs on the same load.
      if (!first_tpcc) {
        first_tpcc = plan.workloads.size() - 1;
      } else if (const Workload& first = plan.workloads[*first_tpcc];
                 first.tpcc.warehouses.text != cur.tpcc.warehouses.text) {
        return r.Error(t, fmt::format("[[workload]] '{}': tpcc workloads share one load, so "
                                      "'warehouses' must be the same as in '{}' ({})",
                                      cur.name, first.name, first.tpcc.warehouses.text));
      }
    }
    if (plan.workloads.back().kind == WorkloadKind::kLio) {
      // Every lio workload reads the same tables (schema pgrig_lio).
      const Workload& cur = plan.workloads.back();
      if (!first_lio) {
        first_lio = plan.workloads.size() - 1;
      } else if (const Workload& first = plan.workloads[*first_lio];
                 first.lio.tables != cur.lio.tables ||
                 first.lio.blocks_per_table != cur.lio.blocks_per_table) {
        return r.Error(t, fmt::format("[[workload]] '{}': lio workloads share their tables, so "
                                      "'tables' and 'scale'/'fit' must be the same as in '{}' "
                                      "({} tables, {})",
                                      cur.name, first.name, first.lio.tables, first.lio.size_text));
      }
    }
  }

  // [[build]] entries: a name `builds` lists is made this way when missing;
  // any other joins the builds after those `builds` lists.
  PGRIG_ASSIGN_OR_RETURN(const toml::array* build_tables, TablesOf(r, root, "build"));
  if (build_tables != nullptr) {
    for (size_t i = 0; i < build_tables->size(); ++i) {
      const toml::table& t = *build_tables->get(i)->as_table();
      PGRIG_ASSIGN_OR_RETURN(BuildEntry b, ReadBuildEntry(r, t, static_cast<int>(i)));
      for (const BuildEntry& other : plan.build_entries) {
        if (other.name == b.name) {
          return r.Error(
              t, fmt::format("[[build]] '{}' is given twice (line {})", b.name, other.line));
        }
      }
      if (std::find(plan.builds.begin(), plan.builds.end(), b.name) == plan.builds.end()) {
        plan.builds.push_back(b.name);
      }
      plan.build_entries.push_back(std::move(b));
    }
  }

  PGRIG_ASSIGN_OR_RETURN(const toml::array* variants, TablesOf(r, root, "variant"));
  names.clear();
  if (variants != nullptr) {
    for (size_t i = 0; i < variants->size(); ++i) {
      const toml::table& t = *variants->get(i)->as_table();
      PGRIG_ASSIGN_OR_RETURN(SettingsVariant v, ReadVariant(r, t, static_cast<int>(i)));
      if (!names.insert(v.name).second) {
        return r.Error(t, fmt::format("variant name '{}' is used twice", v.name));
      }
      plan.variants.push_back(std::move(v));
    }
  }
  return plan;
}

Result<Plan> ReadPlanFile(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    return NotFound(
        fmt::format("plan file {} not found (plans shipped with pgrig are in plans/)", path));
  }
  PGRIG_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  return ParsePlan(text, path);
}

}  // namespace pgrig::plan
