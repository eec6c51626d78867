// ServerSettings and RecoverInterrupted (see server_settings.h): per-cell
// server settings on top of tune/apply.h, with a marker file that survives a
// killed run.
#include "runner/server_settings.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <thread>

#include "common/clock.h"
#include "common/fs.h"
#include "common/interrupt.h"
#include "common/pause_point.h"
#include "common/strings.h"
#include "runner/setting_value.h"
#include "tune/apply.h"

namespace pgrig::runner {

namespace {

constexpr char kMarkerSchema[] = "pgrig.settings-marker/1";
constexpr char kMarkerName[] = "settings-restore-pending.json";
constexpr char kBackupDirName[] = "settings-backups";

using Originals = std::map<std::string, ServerSettings::Original>;

// Sources of a value that win over the configuration files (pg_settings.source).
bool SourceOverridesFile(const std::string& source) {
  return source == "database" || source == "user" || source == "database user" ||
         source == "command line" || source == "environment variable" || source == "client";
}

// A process is identified by its pid and its start time (field 22 of
// /proc/<pid>/stat), so a reused pid is not mistaken for the run that wrote
// the marker.
std::optional<uint64_t> ProcessStartTicks(pid_t pid) {
  auto text = ReadWholeFile(fmt::format("/proc/{}/stat", pid));
  if (!text.ok()) return std::nullopt;
  size_t close = text->rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::vector<std::string> fields = SplitWords(std::string_view(*text).substr(close + 1));
  // After "pid (comm)": state is field 3, starttime field 22.
  if (fields.size() < 20) return std::nullopt;
  auto v = ParseInt64(fields[19]);
  if (!v) return std::nullopt;
  return static_cast<uint64_t>(*v);
}

struct Marker {
  std::string server_id;
  std::string data_directory;
  std::string backup_path;
  std::string created_at;
  int64_t pid = 0;
  uint64_t pid_start = 0;
  Originals originals;
};

nlohmann::json MarkerToJson(const Marker& m) {
  nlohmann::json originals = nlohmann::json::object();
  for (const auto& [name, o] : m.originals) {
    originals[name] = {{"in_auto_conf", o.in_auto_conf},
                       {"auto_conf_value", o.in_auto_conf ? nlohmann::json(o.auto_conf_value)
                                                          : nlohmann::json(nullptr)},
                       {"setting", o.setting},
                       {"context", o.context},
                       {"hidden", o.hidden}};
  }
  return {{"schema", kMarkerSchema},
          {"server_id", m.server_id},
          {"data_directory", m.data_directory},
          {"backup_path", m.backup_path},
          {"created_at", m.created_at},
          {"pid", m.pid},
          {"pid_start", m.pid_start},
          {"originals", originals}};
}

Result<Marker> ReadMarker(const std::string& path) {
  PGRIG_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  try {
    auto j = nlohmann::json::parse(text);
    if (j.value("schema", "") != kMarkerSchema) {
      return InvalidArgument(path + " is not a pgrig settings marker (schema " + kMarkerSchema +
                             ")");
    }
    Marker m;
    m.server_id = j.at("server_id").get<std::string>();
    m.data_directory = j.value("data_directory", "");
    m.backup_path = j.value("backup_path", "");
    m.created_at = j.value("created_at", "");
    m.pid = j.value("pid", int64_t{0});
    m.pid_start = j.value("pid_start", uint64_t{0});
    for (const auto& [name, o] : j.at("originals").items()) {
      ServerSettings::Original orig;
      orig.in_auto_conf = o.at("in_auto_conf").get<bool>();
      if (orig.in_auto_conf) orig.auto_conf_value = o.at("auto_conf_value").get<std::string>();
      orig.setting = o.at("setting").get<std::string>();
      orig.context = o.value("context", "");
      orig.hidden = o.value("hidden", false);
      m.originals.emplace(name, std::move(orig));
    }
    return m;
  } catch (const std::exception& e) {
    return InvalidArgument(fmt::format("{} is not a valid settings marker: {}", path, e.what()));
  }
}

// One pg_settings row as seen now, with where its value came from.
struct LiveSetting {
  tune::CurrentSetting row;
  bool from_auto_conf = false;
};

Result<std::map<std::string, LiveSetting>> ReadLive(pg::Connection& conn) {
  PGRIG_ASSIGN_OR_RETURN(
      pg::QueryResult r,
      conn.Exec("SELECT name, setting, coalesce(unit, ''), context, vartype, coalesce(source, ''), "
                "coalesce(sourcefile, ''), pending_restart FROM pg_settings"));
  std::map<std::string, LiveSetting> out;
  for (int i = 0; i < r.rows(); ++i) {
    LiveSetting l;
    l.row.name = r.Get(i, 0);
    l.row.setting = r.Get(i, 1);
    l.row.unit = r.Get(i, 2);
    l.row.context = r.Get(i, 3);
    l.row.vartype = r.Get(i, 4);
    l.row.source = r.Get(i, 5);
    std::string_view file = r.Get(i, 6);
    l.from_auto_conf = l.row.source == "configuration file" && file.size() >= 20 &&
                       file.substr(file.size() - 20) == "postgresql.auto.conf";
    l.row.pending_restart = r.Get(i, 7) == "t";
    out.emplace(l.row.name, std::move(l));
  }
  return out;
}

Status Reload(pg::Connection& conn) {
  PGRIG_ASSIGN_OR_RETURN(std::string ok, conn.QueryValue("SELECT pg_reload_conf()"));
  if (ok != "t") return Internal("pg_reload_conf() returned false; is the server shutting down?");
  return Status::Ok();
}

// Puts one setting's postgresql.auto.conf entry back as it was.
Status RevertEntry(pg::Connection& conn, const std::string& name,
                   const ServerSettings::Original& o) {
  std::string sql = o.in_auto_conf ? fmt::format("ALTER SYSTEM SET {} = {}", pg::QuoteIdent(name),
                                                 pg::QuoteLiteral(o.auto_conf_value))
                                   : fmt::format("ALTER SYSTEM RESET {}", pg::QuoteIdent(name));
  return conn.Exec(sql).status().WithContext(sql);
}

Status Fault(const ServerSettingsOptions& o, std::string_view step) {
  return o.fault ? o.fault(step) : Status::Ok();
}

// What one setting should show once the change is live.
struct Expect {
  std::optional<CheckedSetting> wanted;  // nullopt: the original
  std::string original_setting;
  bool original_hidden = false;  // ServerSettings::Original::hidden
};

enum class Wait { kLive, kNeedsRestart };

// Polls pg_settings until every expectation holds or waits only for a
// restart.  Each round reads through a new connection: that is what the
// benchmark's connections will see, a reload reaches the postmaster (and so
// new sessions) asynchronously, and backend-context settings never change in
// a session that already runs.  `restart_done`: after a restart nothing may
// still be pending.
Result<Wait> AwaitSettings(const pg::ConnectionParams& target,
                           const std::map<std::string, Expect>& expect,
                           std::chrono::milliseconds timeout, bool restart_done) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (int round = 0;; ++round) {
    PGRIG_ASSIGN_OR_RETURN(pg::Connection conn, pg::Connect(target));
    PGRIG_ASSIGN_OR_RETURN(auto live, ReadLive(conn));
    std::vector<std::string> wrong;
    bool pending = false;
    for (const auto& [name, e] : expect) {
      auto it = live.find(name);
      if (it == live.end()) {
        wrong.push_back(name + " is missing from pg_settings");
        continue;
      }
      const LiveSetting& l = it->second;
      // An original value hidden by a per-database or per-role one cannot be
      // seen in a session; the entry put back in postgresql.auto.conf is all
      // there is to check then.
      bool ok = e.wanted ? LiveMatches(l.row, *e.wanted, l.from_auto_conf)
                         : e.original_hidden || l.row.setting == e.original_setting ||
                               SourceOverridesFile(l.row.source);
      if (ok) continue;
      if (e.wanted && SourceOverridesFile(l.row.source)) {
        // No reload changes that: a per-database or per-role value, a
        // command-line option or the connection's own options (which the
        // benchmark's connections share) win over postgresql.auto.conf.
        return FailedPrecondition(fmt::format(
            "{} shows {} because it is set at the '{}' level (pg_settings.source), which wins "
            "over the server configuration: the benchmark would not run with {} = {}; remove that "
            "setting (ALTER ROLE/DATABASE ... RESET {}) or drop {} from the plan",
            name, l.row.setting + l.row.unit, l.row.source, name, e.wanted->text, name, name));
      }
      if (l.row.pending_restart && !restart_done) {
        pending = true;
        continue;
      }
      wrong.push_back(fmt::format("{} is {}{} instead of {}", name, l.row.setting, l.row.unit,
                                  e.wanted ? e.wanted->text : e.original_setting + l.row.unit));
    }
    if (wrong.empty()) return pending ? Wait::kNeedsRestart : Wait::kLive;
    if (std::chrono::steady_clock::now() > deadline || round > 10000) {
      return Internal("the server does not show the expected settings: " + Join(wrong, "; "));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// Connects; when the embedded cluster is down (a run killed during a
// restart), starts it first, with the backup's configuration if it does not
// start with the current one.
Result<pg::Connection> ConnectOrStart(const pg::ConnectionParams& target,
                                      const ServerSettingsOptions& o,
                                      const tune::Backup* fallback) {
  auto conn = pg::Connect(target);
  if (conn.ok() || !o.embedded) return conn;
  if (!o.embedded->RunningPid()) {
    auto started = o.embedded->Start();
    if (!started.ok() && fallback) {
      PGRIG_RETURN_IF_ERROR(tune::RestoreAutoConfFile(*fallback, o.embedded->data_dir()));
      started = o.embedded->Start();
    }
    if (!started.ok()) return started.status();
  }
  return pg::Connect(target);
}

// Puts every setting in `originals` back, reloads, restarts the embedded
// cluster when a postmaster-context value waits for it, and verifies.
Status RestoreOriginals(pg::Connection& conn, const pg::ConnectionParams& target,
                        const ServerSettingsOptions& o, const Originals& originals,
                        const tune::Backup* fallback) {
  if (originals.empty()) return Status::Ok();
  for (const auto& [name, orig] : originals) PGRIG_RETURN_IF_ERROR(RevertEntry(conn, name, orig));
  PGRIG_RETURN_IF_ERROR(Reload(conn));
  std::map<std::string, Expect> expect;
  for (const auto& [name, orig] : originals) {
    expect[name] = Expect{std::nullopt, orig.setting, orig.hidden};
  }
  PGRIG_ASSIGN_OR_RETURN(Wait w, AwaitSettings(target, expect, o.verify_timeout, false));
  if (w == Wait::kLive) return Status::Ok();
  if (!o.embedded) {
    return FailedPrecondition(
        "the original values are written back but some wait for a server restart, and pgrig does "
        "not restart a server it does not run; restart it to finish the restore");
  }
  PausePoint("restore");
  conn = pg::Connection();  // the restart ends this session
  PGRIG_RETURN_IF_ERROR(RestartEmbedded(*o.embedded, fallback));
  PGRIG_ASSIGN_OR_RETURN(conn, pg::Connect(target));
  return AwaitSettings(target, expect, o.verify_timeout, true).status();
}

// True when the process that wrote the marker is still running (and is not us).
bool WriterAlive(const Marker& m) {
  if (m.pid <= 0 || m.pid == ::getpid()) return false;
  auto start = ProcessStartTicks(static_cast<pid_t>(m.pid));
  return start && *start == m.pid_start;
}

// Whether this session may change every setting in `names` (tune's check).
Status CheckMayChange(pg::Connection& conn, const std::vector<std::string>& names) {
  std::vector<tune::Recommendation> recs(names.size());
  std::vector<const tune::Recommendation*> ptrs;
  for (size_t i = 0; i < names.size(); ++i) {
    recs[i].name = names[i];
    ptrs.push_back(&recs[i]);
  }
  return tune::CheckPrivileges(conn, ptrs);
}

// The plan's settings as recommendations, for tune's safe apply.
tune::TuneReport PlanSettingsReport(const std::vector<const CheckedSetting*>& settings,
                                    const tune::CurrentSettings& current) {
  tune::TuneReport tr;
  tr.has_server = true;
  for (const CheckedSetting* c : settings) {
    tune::Recommendation r;
    r.name = c->name;
    r.proposed = c->text;
    r.value = c->value;
    r.unit = current.at(c->name).unit;
    r.context = c->context;
    r.apply = c->context == "postmaster" ? tune::Apply::kRestart : tune::Apply::kReload;
    r.changed = true;
    r.reason = "plan setting";
    r.rule = "plan";
    tr.recommendations.push_back(std::move(r));
  }
  return tr;
}

// Once the settings are restored: the marker, then the record's backups
// (they were that suite's alone) and every directory of it left empty
// (rmdir leaves one that is not).
Status RemoveRecord(const std::string& state_dir) {
  const std::string marker = state_dir + "/" + kMarkerName;
  if (::unlink(marker.c_str()) != 0 && errno != ENOENT) {
    return Internal(fmt::format("settings restored, but cannot remove {}", marker));
  }
  (void)RemoveTree(state_dir + "/" + kBackupDirName);
  const std::filesystem::path dir = state_dir;
  if (::rmdir(dir.c_str()) == 0 && dir.parent_path().filename() == "servers" &&
      ::rmdir(dir.parent_path().c_str()) == 0) {
    ::rmdir(dir.parent_path().parent_path().c_str());  // <home>.state (SettingsStateDir)
  }
  return Status::Ok();
}

}  // namespace

std::string MarkerPath(const std::string& state_dir) { return state_dir + "/" + kMarkerName; }

// Restarts the embedded cluster.  If it does not come up with the new
// configuration, the postgresql.auto.conf of `fallback` (the state at
// Open()) is written back and the cluster started with it; that is an error
// for the caller all the same.
Status RestartEmbedded(cluster::Cluster& c, const tune::Backup* fallback) {
  PGRIG_RETURN_IF_ERROR(c.Stop().WithContext("stopping the embedded cluster to apply settings"));
  auto started = c.Start();
  if (started.ok()) return Status::Ok();
  if (!fallback) {
    return Status(started.status().code(),
                  "the embedded cluster did not start again: " + started.status().message());
  }
  Status restore = tune::RestoreAutoConfFile(*fallback, c.data_dir());
  auto again = restore.ok() ? c.Start() : Result<cluster::StartAction>(restore);
  if (!again.ok()) {
    return Internal(fmt::format(
        "the embedded cluster did not start with the new settings ({}), and starting it with the "
        "configuration from {} failed too ({}); see `pgrig cluster logs`",
        started.status().message(), fallback->path, again.status().message()));
  }
  return FailedPrecondition(
      fmt::format("the embedded cluster did not start with the new settings ({}); the original "
                  "postgresql.auto.conf was put back from {} and the cluster is running again",
                  started.status().message(), fallback->path));
}

Status RecoverInterrupted(const pg::ConnectionParams& target,
                          const ServerSettingsOptions& options) {
  if (options.state_dir.empty())
    return InvalidArgument("no state directory given for the settings marker");
  std::string path = MarkerPath(options.state_dir);
  if (::access(path.c_str(), F_OK) != 0) return Status::Ok();
  PGRIG_ASSIGN_OR_RETURN(Marker m, ReadMarker(path));
  if (WriterAlive(m)) {
    return FailedPrecondition(fmt::format(
        "{}: the pgrig process that changed these settings (pid {}) is still running; let it "
        "finish or stop it, then try again",
        path, m.pid));
  }
  std::optional<tune::Backup> backup;
  if (!m.backup_path.empty()) {
    auto b = tune::ReadBackup(m.backup_path);
    if (b.ok()) backup = std::move(b).value();
  }
  auto conn = ConnectOrStart(target, options, backup ? &*backup : nullptr);
  if (!conn.ok()) {
    return Status(conn.status().code(),
                  fmt::format("cannot reach the server to restore the settings an interrupted run "
                              "changed ({}): {}",
                              path, conn.status().message()));
  }
  PGRIG_ASSIGN_OR_RETURN(std::string id, tune::ServerId(*conn));
  if (id != m.server_id) {
    return FailedPrecondition(fmt::format(
        "{} records settings changed on server {} (data directory {}), but the target is server "
        "{}; run against that server to restore them, or remove the marker if it was restored "
        "by hand (backup: {})",
        path, m.server_id, m.data_directory, id, m.backup_path));
  }
  Status s = RestoreOriginals(*conn, target, options, m.originals, backup ? &*backup : nullptr);
  if (!s.ok()) {
    return Status(s.code(),
                  fmt::format("restoring the settings an interrupted run changed ({}): {}; "
                              "the backup of postgresql.auto.conf is {}",
                              path, s.message(), m.backup_path));
  }
  return RemoveRecord(options.state_dir);
}

std::string SettingsStateDir(const std::string& server_id) {
  return cluster::DefaultHome() + ".state/servers/" + server_id;
}

Result<std::optional<LeftSettings>> FindLeftSettings(const std::string& state_dir) {
  const std::string path = MarkerPath(state_dir);
  if (::access(path.c_str(), F_OK) != 0) return std::optional<LeftSettings>();
  PGRIG_ASSIGN_OR_RETURN(Marker m, ReadMarker(path));
  LeftSettings l;
  l.marker = path;
  for (const auto& [name, o] : m.originals) l.names.push_back(name);
  l.pid = m.pid;
  l.created_at = m.created_at;
  l.backup_path = m.backup_path;
  l.writer_alive = WriterAlive(m);
  return std::optional<LeftSettings>(std::move(l));
}

Result<std::optional<LeftSettings>> FindEmbeddedLeftSettings(const cluster::Cluster& c) {
  std::optional<std::string> id = c.SystemIdentifier();
  if (!id) return std::optional<LeftSettings>();
  return FindLeftSettings(SettingsStateDir(*id));
}

Result<SettledSettings> SettleLeftSettings(pg::Connection& conn, const pg::ConnectionParams& target,
                                           cluster::Cluster* embedded, bool restore,
                                           const std::string& restore_command) {
  // A server that cannot be reached or identified has no record to find:
  // the command's own connection then says what is wrong, as it would have.
  if (!conn.valid()) return SettledSettings{};
  auto id = tune::ServerId(conn);
  if (!id.ok()) return SettledSettings{};
  ServerSettingsOptions so;
  so.state_dir = SettingsStateDir(*id);
  so.embedded = embedded;
  PGRIG_ASSIGN_OR_RETURN(std::optional<LeftSettings> left, FindLeftSettings(so.state_dir));
  SettledSettings out;
  if (!left) return out;
  if (left->writer_alive) {
    out.in_use = std::move(left);
    return out;
  }
  if (!embedded && !restore) {
    return FailedPrecondition(fmt::format(
        "an interrupted pgrig run (pid {}, {}) left {} changed on this server (record {}, backup "
        "of postgresql.auto.conf {}); nothing was done.  Restore them with: {}",
        left->pid, left->created_at, Join(left->names, ", "), left->marker, left->backup_path,
        restore_command));
  }
  // Restoring may restart the server: no session of ours stays open over it.
  conn = pg::Connection();
  PGRIG_RETURN_IF_ERROR(RecoverInterrupted(target, so));
  out.restored = std::move(left->names);
  return out;
}

ServerSettings::ServerSettings(pg::ConnectionParams target, ServerSettingsOptions options)
    : target_(std::move(target)), options_(std::move(options)) {}

Result<std::unique_ptr<ServerSettings>> ServerSettings::Open(const pg::ConnectionParams& target,
                                                             const ServerSettingsOptions& options) {
  if (options.state_dir.empty()) {
    return InvalidArgument("no state directory given for the settings backup and marker");
  }
  PGRIG_RETURN_IF_ERROR(MakeDirs(options.state_dir, 0700));
  PGRIG_RETURN_IF_ERROR(RecoverInterrupted(target, options));
  std::unique_ptr<ServerSettings> s(new ServerSettings(target, options));
  PGRIG_ASSIGN_OR_RETURN(s->conn_, pg::Connect(target));
  PGRIG_ASSIGN_OR_RETURN(s->backup_,
                         tune::TakeBackup(s->conn_, options.state_dir + "/" + kBackupDirName));
  s->server_id_ = s->backup_.server_id;
  Status w = s->WriteMarker();
  if (!w.ok()) {
    s->restored_ = true;  // nothing changed; nothing to restore
    return w;
  }
  return s;
}

Status ServerSettings::WriteMarker() {
  Marker m;
  m.server_id = server_id_;
  m.data_directory = backup_.data_directory;
  m.backup_path = backup_.path;
  m.created_at = IsoTimestampUtc(WallSeconds());
  m.pid = ::getpid();
  m.pid_start = ProcessStartTicks(::getpid()).value_or(0);
  m.originals = originals_;
  Status s =
      WriteFileAtomically(MarkerPath(options_.state_dir), MarkerToJson(m).dump(2) + "\n", 0600);
  return s.ok() ? s : Status(s.code(), "cannot write the settings marker: " + s.message());
}

Status ServerSettings::Reconnect() {
  if (conn_.valid() && PQstatus(conn_.raw()) == CONNECTION_OK) return Status::Ok();
  auto c = ConnectOrStart(target_, options_, &backup_);
  if (!c.ok()) return c.status();
  conn_ = std::move(c).value();
  return Status::Ok();
}

Status ServerSettings::RestoreLocked() {
  std::vector<std::string> names;
  for (const auto& [name, o] : originals_) names.push_back(name);
  CriticalSection guard(fmt::format(
      "\npgrig: restoring the server's settings ({}); interrupt once more to stop the restore "
      "and leave them changed (the next pgrig command on this server restores them from {})\n",
      Join(names, ", "), MarkerPath(options_.state_dir)));
  Status s = Reconnect();
  if (s.ok()) s = RestoreOriginals(conn_, target_, options_, originals_, &backup_);
  if (s.ok()) applied_.clear();
  return s;
}

Result<ApplyReport> ServerSettings::Apply(const std::map<std::string, std::string>& wanted_in) {
  if (restored_) {
    return FailedPrecondition(
        "the server settings were already restored; open a new ServerSettings");
  }
  PGRIG_RETURN_IF_ERROR(Reconnect());
  PGRIG_ASSIGN_OR_RETURN(tune::CurrentSettings current, tune::ReadCurrentSettings(conn_));
  PGRIG_ASSIGN_OR_RETURN(std::vector<CheckedSetting> checked, CheckSettings(current, wanted_in));
  std::map<std::string, CheckedSetting> wanted;
  for (auto& c : checked) wanted.emplace(c.name, std::move(c));

  std::vector<const CheckedSetting*> to_set;
  std::vector<std::string> to_revert;
  for (const auto& [name, c] : wanted) {
    auto it = applied_.find(name);
    if (it == applied_.end() || it->second != c.text) to_set.push_back(&c);
  }
  for (const auto& [name, text] : applied_) {
    if (!wanted.count(name)) to_revert.push_back(name);
  }
  ApplyReport report;
  if (to_set.empty() && to_revert.empty()) return report;

  // Everything that can be refused is refused before the first change.
  std::vector<std::string> touched;
  for (const auto* c : to_set) touched.push_back(c->name);
  touched.insert(touched.end(), to_revert.begin(), to_revert.end());
  std::vector<std::string> restart_only;
  for (const auto& name : touched) {
    if (current.at(name).context == "postmaster") restart_only.push_back(name);
  }
  if (!restart_only.empty() && !options_.embedded) {
    return FailedPrecondition(fmt::format(
        "{} can only change when the server restarts, and pgrig never restarts a server it does "
        "not run ({}); set {} on that server yourself or benchmark the embedded cluster; nothing "
        "was changed",
        Join(restart_only, ", "), target_.Describe(), restart_only.size() == 1 ? "it" : "them"));
  }
  PGRIG_RETURN_IF_ERROR(CheckMayChange(conn_, touched));

  // The marker names the original of every setting about to change.
  for (const auto& name : touched) {
    if (originals_.count(name)) continue;
    Original o;
    o.setting = current.at(name).setting;
    o.context = current.at(name).context;
    o.hidden = SourceOverridesFile(current.at(name).source);
    for (const auto& [entry, value] : backup_.entries) {
      if (entry == name) {  // the last entry for a name is the one in force
        o.in_auto_conf = true;
        o.auto_conf_value = value;
      }
    }
    originals_.emplace(name, std::move(o));
  }
  PGRIG_RETURN_IF_ERROR(WriteMarker());

  // From here on a failure puts every original back before returning.
  auto fail = [this](const Status& why) -> Status {
    Status r = RestoreLocked();
    if (r.ok()) return Status(why.code(), why.message() + "; the original settings were restored");
    return Status(why.code(),
                  fmt::format("{}; restoring the original settings ALSO failed ({}); "
                              "the marker {} keeps what to restore",
                              why.message(), r.message(), MarkerPath(options_.state_dir)));
  };
  if (Status s = Fault(options_, "marker"); !s.ok()) return fail(s);

  for (const auto& name : to_revert) {
    if (Status s = RevertEntry(conn_, name, originals_.at(name)); !s.ok()) return fail(s);
    applied_.erase(name);
    report.changed.push_back(name);
    if (Status s = Fault(options_, "revert:" + name); !s.ok()) return fail(s);
  }

  // Backend-context settings (log_connections...) reach new sessions only,
  // which tune's verification in this session cannot see: they are written
  // here and verified below through new connections.
  std::vector<const CheckedSetting*> via_tune;
  for (const auto* c : to_set) {
    if (c->context != "backend" && c->context != "superuser-backend") {
      via_tune.push_back(c);
      continue;
    }
    std::string sql =
        fmt::format("ALTER SYSTEM SET {} = {}", pg::QuoteIdent(c->name), pg::QuoteLiteral(c->text));
    if (Status s = conn_.Exec(sql).status(); !s.ok()) return fail(s.WithContext(sql));
    report.changed.push_back(c->name);
    if (Status s = Fault(options_, "alter:" + c->name); !s.ok()) return fail(s);
  }
  if (!via_tune.empty()) {
    // tune's safe apply: validation, backup, ALTER SYSTEM, file check,
    // reload, verification, and its own rollback on failure.
    const tune::TuneReport tr = PlanSettingsReport(via_tune, current);
    tune::ApplyOptions ao;
    ao.backup_dir = options_.state_dir + "/" + kBackupDirName;
    ao.verify_timeout = options_.verify_timeout;
    ao.fault = options_.fault;
    auto out = tune::ApplyRecommendations(conn_, tr, ao);
    if (!out.ok()) return fail(out.status());
    for (const auto* c : via_tune) report.changed.push_back(c->name);
  } else {
    if (Status s = Reload(conn_); !s.ok()) return fail(s);
  }
  report.reloaded = true;

  std::map<std::string, Expect> expect;
  for (const auto& [name, c] : wanted) expect[name] = Expect{c, ""};
  for (const auto& name : to_revert) {
    const Original& o = originals_.at(name);
    expect[name] = Expect{std::nullopt, o.setting, o.hidden};
  }
  auto waited = AwaitSettings(target_, expect, options_.verify_timeout, false);
  if (!waited.ok()) return fail(waited.status());
  if (*waited == Wait::kNeedsRestart) {
    PausePoint("settings");
    conn_ = pg::Connection();
    if (Status s = RestartEmbedded(*options_.embedded, &backup_); !s.ok()) return fail(s);
    report.restarted = true;
    auto c = pg::Connect(target_);
    if (!c.ok()) return fail(c.status());
    conn_ = std::move(c).value();
    if (Status s = Fault(options_, "restarted"); !s.ok()) return fail(s);
    auto after = AwaitSettings(target_, expect, options_.verify_timeout, true);
    if (!after.ok()) return fail(after.status());
  }
  applied_.clear();
  for (const auto& [name, c] : wanted) applied_[name] = c.text;
  return report;
}

Status ServerSettings::RestoreAll() {
  if (restored_) return Status::Ok();
  PGRIG_RETURN_IF_ERROR(RestoreLocked());
  PGRIG_RETURN_IF_ERROR(RemoveRecord(options_.state_dir));
  restored_ = true;
  return Status::Ok();
}

ServerSettings::~ServerSettings() {
  if (!restored_) (void)RestoreAll();
}

}  // namespace pgrig::runner
