#include "tune/apply.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "common/fs.h"
#include "common/strings.h"

namespace pgrig::tune {

namespace {

namespace stdfs = std::filesystem;

// pg_file_settings reports a restart-only setting that was added or changed
// in a file as "setting could not be applied", and one that was removed as
// 'parameter "x" cannot be changed without restarting the server': both are
// expected (pending_restart), not faults.
bool OnlyNeedsRestart(std::string_view error) {
  return error == "setting could not be applied" ||
         error.find("cannot be changed without restarting the server") != std::string_view::npos;
}

std::string UtcNow() {
  auto now = std::chrono::system_clock::now();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:03d}Z", buf, static_cast<int>(ms % 1000));
}

Status Fault(const ApplyOptions& o, std::string_view step) {
  return o.fault ? o.fault(step) : Status::Ok();
}

Result<std::vector<std::pair<std::string, std::string>>> AutoConfEntries(pg::Connection& conn) {
  PGRIG_ASSIGN_OR_RETURN(
      pg::QueryResult r,
      conn.Exec("SELECT name, setting FROM pg_file_settings "
                "WHERE sourcefile LIKE '%/postgresql.auto.conf' AND name IS NOT NULL "
                "ORDER BY seqno"));
  std::vector<std::pair<std::string, std::string>> out;
  for (int i = 0; i < r.rows(); ++i) out.emplace_back(r.Get(i, 0), r.Get(i, 1));
  return out;
}

// Config-file errors other than "needs a restart", as "file:line: name: error".
Result<std::set<std::string>> FileErrors(pg::Connection& conn) {
  PGRIG_ASSIGN_OR_RETURN(
      pg::QueryResult r,
      conn.Exec("SELECT coalesce(sourcefile, ''), coalesce(sourceline, 0), coalesce(name, ''), "
                "error FROM pg_file_settings WHERE error IS NOT NULL"));
  std::set<std::string> out;
  for (int i = 0; i < r.rows(); ++i) {
    if (OnlyNeedsRestart(r.Get(i, 3))) continue;
    out.insert(fmt::format("{}:{}: {}: {}", r.Get(i, 0), r.Get(i, 1), r.Get(i, 2), r.Get(i, 3)));
  }
  return out;
}

// Makes postgresql.auto.conf hold exactly `entries`.
Status WriteEntries(pg::Connection& conn,
                    const std::vector<std::pair<std::string, std::string>>& entries) {
  PGRIG_RETURN_IF_ERROR(conn.Exec("ALTER SYSTEM RESET ALL").status());
  for (const auto& [name, value] : entries) {
    PGRIG_RETURN_IF_ERROR(conn.Exec(fmt::format("ALTER SYSTEM SET {} = {}", pg::QuoteIdent(name),
                                                pg::QuoteLiteral(value)))
                              .status());
  }
  return Status::Ok();
}

Status Reload(pg::Connection& conn) {
  PGRIG_ASSIGN_OR_RETURN(std::string ok, conn.QueryValue("SELECT pg_reload_conf()"));
  if (ok != "t") return Internal("pg_reload_conf() returned false; is the server shutting down?");
  return Status::Ok();
}

// Puts the backup back and reloads; the original error is what the caller
// reports, so a failure here is appended to it.
Status RestoreAfter(pg::Connection& conn, const Backup& b, const Status& why) {
  Status s = WriteEntries(conn, b.entries);
  if (s.ok()) s = Reload(conn);
  if (!s.ok()) {
    return Status(why.code(),
                  fmt::format("{}; restoring the configuration ALSO failed ({}); the backup is {}",
                              why.message(), s.message(), b.path));
  }
  return Status(why.code(),
                why.message() + "; the previous configuration was restored from " + b.path);
}

nlohmann::json BackupToJson(const Backup& b) {
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& [n, v] : b.entries) entries.push_back({{"name", n}, {"setting", v}});
  return {{"schema", "pgrig.tune-backup/1"},
          {"created_at", b.created_at},
          {"server_id", b.server_id},
          {"data_directory", b.data_directory},
          {"server_version", b.server_version},
          {"entries", entries},
          {"auto_conf",
           b.auto_conf_text ? nlohmann::json(*b.auto_conf_text) : nlohmann::json(nullptr)}};
}

}  // namespace

bool LiveValueMatches(const SettingValue& live, const SettingValue& want) {
  if (!live.numeric() || !want.numeric()) return ToLower(live.ToConf()) == ToLower(want.ToConf());
  double a = live.Number(), b = want.Number();
  // PostgreSQL rounds sizes down to its unit (8kB pages, MB for WAL sizes).
  if (want.kind == ValueKind::kBytes)
    return std::fabs(a - b) < std::max(1048576.0, 0.001 * std::fabs(b));
  return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b));
}

namespace {

bool SourceOverridesFile(const std::string& source) {
  return source == "database" || source == "user" || source == "database user" ||
         source == "command line" || source == "client" || source == "session" ||
         source == "environment variable";
}

}  // namespace

Result<std::string> ServerId(pg::Connection& conn) {
  auto id = conn.QueryValue("SELECT system_identifier::text FROM pg_control_system()");
  if (!id.ok()) {
    return Status(id.status().code(),
                  "cannot read the server's system identifier (pg_control_system()): " +
                      id.status().message());
  }
  return *id;
}

Status CheckPrivileges(pg::Connection& conn, const std::vector<const Recommendation*>& changes) {
  PGRIG_ASSIGN_OR_RETURN(
      std::string super,
      conn.QueryValue("SELECT rolsuper FROM pg_roles WHERE rolname = current_user"));
  if (super == "t") return Status::Ok();
  PGRIG_ASSIGN_OR_RETURN(std::string user, conn.QueryValue("SELECT current_user"));
  std::vector<std::string> missing;
  if (conn.server_version() >= 150000) {
    for (const auto* r : changes) {
      auto ok = conn.ExecParams("SELECT has_parameter_privilege($1, 'ALTER SYSTEM')", {r->name});
      if (!ok.ok() || ok->rows() != 1 || ok->Get(0, 0) != "t") missing.push_back(r->name);
    }
    if (missing.empty()) {
      auto fs = conn.Exec("SELECT count(*) FROM pg_file_settings");
      if (fs.ok()) return Status::Ok();
      return PermissionDenied(fmt::format(
          "role '{}' may ALTER SYSTEM but cannot read pg_file_settings, which pgrig needs to check "
          "the new file; connect as a superuser (-U postgres)",
          user));
    }
  }
  return PermissionDenied(fmt::format(
      "role '{}' cannot change server settings: ALTER SYSTEM needs a superuser{}; connect as a "
      "superuser with -U (nothing was changed)",
      user,
      conn.server_version() >= 150000
          ? fmt::format(" or GRANT ALTER SYSTEM ON PARAMETER {}", Join(missing, ", "))
          : ""));
}

Status Validate(const std::vector<const Recommendation*>& changes, const CurrentSettings& current) {
  for (const auto* r : changes) {
    auto it = current.find(r->name);
    if (it == current.end()) {
      return InvalidArgument(fmt::format("{}: this server has no such setting", r->name));
    }
    const CurrentSetting& c = it->second;
    if (c.vartype == "bool") {
      if (r->proposed != "on" && r->proposed != "off") {
        return InvalidArgument(fmt::format("{} = '{}': must be on or off", r->name, r->proposed));
      }
    } else if (c.vartype == "enum") {
      if (std::find(c.enumvals.begin(), c.enumvals.end(), r->value.word) == c.enumvals.end()) {
        return InvalidArgument(fmt::format("{} = '{}': this server accepts only {}", r->name,
                                           r->proposed, Join(c.enumvals, ", ")));
      }
    } else if (c.vartype == "integer" || c.vartype == "real") {
      if (!r->value.numeric()) {
        return InvalidArgument(fmt::format("{} = '{}': must be a number", r->name, r->proposed));
      }
      double v = InUnit(r->value, c.unit);
      auto lo = ParseDouble(c.min_val);
      auto hi = ParseDouble(c.max_val);
      if ((lo && v < *lo) || (hi && v > *hi)) {
        return InvalidArgument(fmt::format(
            "{} = '{}' is outside what this server accepts ({} to {}{}); nothing was changed",
            r->name, r->proposed, c.min_val, c.max_val, c.unit.empty() ? "" : " x " + c.unit));
      }
    }
  }
  return Status::Ok();
}

Result<Backup> TakeBackup(pg::Connection& conn, const std::string& backup_dir) {
  if (backup_dir.empty()) return InvalidArgument("no backup directory given");
  Backup b;
  PGRIG_ASSIGN_OR_RETURN(b.server_id, ServerId(conn));
  PGRIG_ASSIGN_OR_RETURN(b.data_directory, conn.QueryValue("SHOW data_directory"));
  PGRIG_ASSIGN_OR_RETURN(b.server_version, conn.QueryValue("SHOW server_version"));
  PGRIG_ASSIGN_OR_RETURN(b.entries, AutoConfEntries(conn));
  // Only a superuser (or pg_read_server_files) may read the file itself; the
  // entries above are enough to restore it over SQL.
  auto text = conn.QueryValue("SELECT pg_read_file('postgresql.auto.conf')");
  if (text.ok()) b.auto_conf_text = *text;
  b.created_at = UtcNow();
  std::string dir = backup_dir + "/" + b.server_id;
  PGRIG_RETURN_IF_ERROR(MakeDirs(dir, 0700));
  // ":" is awkward in file names on some systems; the time sorts as text.
  std::string stamp = b.created_at;
  std::replace(stamp.begin(), stamp.end(), ':', '-');
  b.path = dir + "/" + stamp + ".json";
  for (int n = 1; ::access(b.path.c_str(), F_OK) == 0; ++n) {
    b.path = fmt::format("{}/{}-{}.json", dir, stamp, n);
  }
  Status s = WriteFileAtomically(b.path, BackupToJson(b).dump(2) + "\n", 0600);
  if (!s.ok()) return Status(s.code(), "cannot write the configuration backup: " + s.message());
  return b;
}

Result<Backup> ReadBackup(const std::string& path) {
  PGRIG_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  try {
    auto j = nlohmann::json::parse(text);
    if (j.value("schema", "") != "pgrig.tune-backup/1") {
      return InvalidArgument(path + " is not a pgrig tune backup");
    }
    Backup b;
    b.path = path;
    b.created_at = j.value("created_at", "");
    b.server_id = j.value("server_id", "");
    b.data_directory = j.value("data_directory", "");
    b.server_version = j.value("server_version", "");
    for (const auto& e : j.at("entries")) {
      b.entries.emplace_back(e.at("name").get<std::string>(), e.at("setting").get<std::string>());
    }
    if (j.contains("auto_conf") && j["auto_conf"].is_string()) b.auto_conf_text = j["auto_conf"];
    return b;
  } catch (const std::exception& e) {
    return InvalidArgument(fmt::format("{} is not a valid backup: {}", path, e.what()));
  }
}

Result<Backup> LatestBackup(const std::string& backup_dir, const std::string& server_id) {
  std::string dir = backup_dir + "/" + server_id;
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : stdfs::directory_iterator(dir, ec)) {
    std::string n = e.path().filename().string();
    if (n.size() > 5 && n.compare(n.size() - 5, 5, ".json") == 0) names.push_back(n);
  }
  if (names.empty()) {
    return NotFound(
        fmt::format("no pgrig tune backup for this server (system id {}) in {}; "
                    "nothing to roll back",
                    server_id, dir));
  }
  std::sort(names.begin(), names.end());
  return ReadBackup(dir + "/" + names.back());
}

std::string AutoConfText(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string out =
      "# Do not edit this file manually!\n"
      "# It will be overwritten by the ALTER SYSTEM command.\n";
  for (const auto& [n, v] : entries) {
    std::string q;
    for (char c : v) {
      if (c == '\'')
        q += "''";
      else
        q += c;
    }
    out += fmt::format("{} = '{}'\n", n, q);
  }
  return out;
}

Status RestoreAutoConfFile(const Backup& backup, const std::string& data_dir) {
  struct stat st;
  if (::stat(data_dir.c_str(), &st) != 0) {
    return NotFound("data directory " + data_dir + " does not exist");
  }
  std::string path = data_dir + "/postgresql.auto.conf";
  std::string text = backup.auto_conf_text ? *backup.auto_conf_text : AutoConfText(backup.entries);
  PGRIG_RETURN_IF_ERROR(WriteFileAtomically(path, text, 0600));
  if (::chown(path.c_str(), st.st_uid, st.st_gid) != 0 && ::geteuid() == 0) {
    return Internal("cannot give " + path + " back to the data directory's owner");
  }
  return Status::Ok();
}

Result<ApplyOutcome> ApplyRecommendations(pg::Connection& conn, const TuneReport& report,
                                          const ApplyOptions& options) {
  ApplyOutcome out;
  std::vector<const Recommendation*> changes = report.Changes();
  if (changes.empty()) return out;
  PGRIG_RETURN_IF_ERROR(CheckPrivileges(conn, changes));
  PGRIG_ASSIGN_OR_RETURN(CurrentSettings before, ReadCurrentSettings(conn));
  PGRIG_RETURN_IF_ERROR(Validate(changes, before));
  PGRIG_ASSIGN_OR_RETURN(std::set<std::string> errors_before, FileErrors(conn));

  PGRIG_ASSIGN_OR_RETURN(Backup backup, TakeBackup(conn, options.backup_dir));
  out.backup_path = backup.path;
  auto fail = [&](const Status& s) { return RestoreAfter(conn, backup, s); };
  if (Status s = Fault(options, "backup"); !s.ok()) return fail(s);

  for (const auto* r : changes) {
    auto res = conn.Exec(fmt::format("ALTER SYSTEM SET {} = {}", pg::QuoteIdent(r->name),
                                     pg::QuoteLiteral(r->proposed)));
    if (!res.ok()) return fail(res.status().WithContext("ALTER SYSTEM SET " + r->name));
    out.applied.push_back(r->name);
    if (Status s = Fault(options, "alter:" + r->name); !s.ok()) return fail(s);
  }

  // The candidate file, parsed by the server without applying it.
  auto errors_after = FileErrors(conn);
  if (!errors_after.ok()) return fail(errors_after.status());
  std::vector<std::string> fresh;
  for (const auto& e : *errors_after) {
    if (!errors_before.count(e)) fresh.push_back(e);
  }
  if (!fresh.empty()) {
    return fail(InvalidArgument("the server rejects the new configuration: " + Join(fresh, "; ")));
  }
  if (Status s = Fault(options, "checked"); !s.ok()) return fail(s);

  if (Status s = Reload(conn); !s.ok()) return fail(s);
  if (Status s = Fault(options, "reloaded"); !s.ok()) return fail(s);

  // A reload reaches this backend asynchronously: poll.
  auto deadline = std::chrono::steady_clock::now() + options.verify_timeout;
  std::vector<std::string> not_yet;
  while (true) {
    auto now_settings = ReadCurrentSettings(conn);
    if (!now_settings.ok()) return fail(now_settings.status());
    not_yet.clear();
    out.took_effect.clear();
    out.pending_restart.clear();
    out.overridden.clear();
    for (const auto* r : changes) {
      auto found = now_settings->find(r->name);
      if (found == now_settings->end()) {
        return fail(NotFound(fmt::format(
            "after the reload pg_settings has no row for {}; this server does not know the setting",
            r->name)));
      }
      const CurrentSetting& c = found->second;
      auto live = FromPgSettings(c.name, c.setting, c.unit, c.vartype);
      bool matches = live.ok() && LiveValueMatches(*live, r->value);
      if (matches) {
        out.took_effect.push_back(r->name);
      } else if (c.context == "postmaster" && c.pending_restart) {
        out.pending_restart.push_back(r->name);
      } else if (SourceOverridesFile(c.source)) {
        out.overridden.push_back(
            fmt::format("{} (set by {}, which wins over the config file)", r->name, c.source));
      } else {
        not_yet.push_back(fmt::format("{} is {} instead of {}", r->name,
                                      live.ok() ? live->ToConf() : c.setting, r->proposed));
      }
    }
    if (not_yet.empty()) break;
    if (std::chrono::steady_clock::now() > deadline) {
      return fail(
          Internal("after the reload the new values did not take effect: " + Join(not_yet, "; ")));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return out;
}

Result<RollbackOutcome> Rollback(pg::Connection& conn, const ApplyOptions& options) {
  PGRIG_ASSIGN_OR_RETURN(std::string id, ServerId(conn));
  PGRIG_ASSIGN_OR_RETURN(Backup target, LatestBackup(options.backup_dir, id));
  // What is there now, kept in memory to undo a rollback that fails midway.
  PGRIG_ASSIGN_OR_RETURN(auto now_entries, AutoConfEntries(conn));
  Backup now;
  now.entries = now_entries;
  now.path = "(the configuration before the rollback)";
  auto fail = [&](const Status& s) { return RestoreAfter(conn, now, s); };

  PGRIG_ASSIGN_OR_RETURN(std::set<std::string> errors_before, FileErrors(conn));
  if (Status s = WriteEntries(conn, target.entries); !s.ok()) return fail(s);
  auto errors_after = FileErrors(conn);
  if (!errors_after.ok()) return fail(errors_after.status());
  for (const auto& e : *errors_after) {
    if (!errors_before.count(e)) {
      return fail(InvalidArgument("the server rejects the restored configuration: " + e));
    }
  }
  if (Status s = Reload(conn); !s.ok()) return fail(s);

  RollbackOutcome out;
  out.restored = target;
  // Let the reload land, then list what still waits for a restart.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto settings = ReadCurrentSettings(conn);
  if (settings.ok()) {
    for (const auto& [name, s] : *settings) {
      if (s.pending_restart) out.pending_restart.push_back(name);
    }
  }
  // Mark it used so that the next rollback restores the one before.
  std::string used = target.path + ".rolled-back";
  if (::rename(target.path.c_str(), used.c_str()) != 0) {
    return Internal("rolled back, but cannot mark " + target.path + " as used");
  }
  return out;
}

}  // namespace pgrig::tune
