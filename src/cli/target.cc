#include "cli/target.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/strings.h"
#include "runner/suite_lock.h"
#include "tune/from_facts.h"
#include "tune/settings.h"

namespace pgrig::cli {

Result<EmbeddedTuning> EmbeddedTuningFromEnv() {
  EmbeddedTuning t;
  const char* profile = std::getenv("PGRIG_EMBEDDED_PROFILE");
  t.profile_name = profile && *profile ? profile : "benchmark";
  if (t.profile_name != "none") {
    auto parsed = tune::ParseProfile(t.profile_name);
    if (!parsed.ok())
      return parsed.status().WithContext("PGRIG_EMBEDDED_PROFILE=" + t.profile_name);
    t.profile = *parsed;
  }
  const char* memory = std::getenv("PGRIG_EMBEDDED_MEMORY");
  if (memory && *memory) {
    const std::string context = std::string("PGRIG_EMBEDDED_MEMORY=") + memory;
    auto bytes = tune::ParseSize(memory);
    if (!bytes.ok()) return bytes.status().WithContext(context);
    t.memory = *bytes;
    PGRIG_RETURN_IF_ERROR(tune::ValidateOverrides({.memory = t.memory}).WithContext(context));
  }
  return t;
}

Result<cluster::StartAction> StartEmbedded(cluster::Cluster& c, bool quiet) {
  // Checked before the cluster is created or started.
  PGRIG_ASSIGN_OR_RETURN(const EmbeddedTuning tuning, EmbeddedTuningFromEnv());
  PGRIG_ASSIGN_OR_RETURN(cluster::StartAction action, c.Start());
  if (!quiet) {
    for (const cluster::Cluster::Other& other : c.OthersRunning()) {
      const std::string which =
          other.build.empty() ? "the installed server" : "build " + other.build;
      const std::string stop = other.build.empty() ? "" : " --pg " + other.build;
      std::fprintf(stderr,
                   "pgrig: warning: the embedded cluster of %s is running too (%s); it shares "
                   "the machine with what this one measures: pgrig cluster stop%s\n",
                   which.c_str(), other.home.c_str(), stop.c_str());
    }
  }
  if (action != cluster::StartAction::kInitializedAndStarted || !tuning.profile) return action;
  Status s = ApplyTuneProfileToEmbedded(c, *tuning.profile, tuning.memory);
  if (!s.ok()) {
    return s.WithContext("the embedded cluster was created but tuning it with the " +
                         tuning.profile_name +
                         " profile failed (PostgreSQL's defaults are still in place; "
                         "PGRIG_EMBEDDED_PROFILE=none skips tuning)");
  }
  if (!quiet) {
    const std::string memory =
        tuning.memory ? " for " + HumanBytes(*tuning.memory) + " of memory (PGRIG_EMBEDDED_MEMORY)"
                      : "";
    std::fprintf(stderr,
                 "pgrig: tuned the new embedded cluster with the %s profile%s%s; see \"pgrig tune "
                 "--all\"\n",
                 tuning.profile_name.c_str(), memory.c_str(),
                 *tuning.profile == tune::Profile::kBenchmark
                     ? " (it trades durability for speed: synchronous_commit=off, "
                       "wal_level=minimal; fine for throwaway benchmark data only)"
                     : "");
  }
  return action;
}

namespace {

// What an interrupted run left on t's server: restored, refused or warned of.
Status SettleLeft(Target& t, const pg::ConnectionParams& named, const TargetOptions& o) {
  const bool quiet = o.quiet;
  // One session for every check; a server that cannot be reached leaves it
  // not valid(), and the command's own connection then says why.
  pg::Connection conn = pg::ConnectOrInvalid(t.params);
  auto settled = runner::SettleLeftSettings(conn, t.params, t.cluster ? &*t.cluster : nullptr,
                                            o.restore_left, RestoreSettingsCommand(named));
  if (!settled.ok()) return settled.status();
  if (!settled->restored.empty()) {
    std::fprintf(stderr,
                 "pgrig: restored %s, which an interrupted pgrig run had left changed on %s\n",
                 Join(settled->restored, ", ").c_str(),
                 t.embedded ? "the embedded cluster" : t.params.Describe().c_str());
  }
  t.restored_settings = settled->restored;
  t.left_in_use = settled->in_use;
  if (settled->in_use && !quiet) {
    const runner::LeftSettings& l = *settled->in_use;
    std::fprintf(stderr,
                 "pgrig: warning: a pgrig run (pid %lld, since %s) has %s changed on this server "
                 "and is still going; what this command does sees those settings\n",
                 static_cast<long long>(l.pid), l.created_at.c_str(), Join(l.names, ", ").c_str());
  }
  // Restoring closed the session (the server may have restarted).
  if (!settled->restored.empty() && (o.keep_connection || (o.warn_if_suite && !quiet))) {
    conn = pg::ConnectOrInvalid(t.params);
  }
  if (o.warn_if_suite && !quiet && conn.valid()) {
    auto holder = runner::SuiteOnServer(conn);
    if (holder.ok() && *holder) {
      std::fprintf(stderr,
                   "pgrig: warning: a pgrig run suite is measuring this server (%s); what this "
                   "command measures shares the server with it, and so does the suite\n",
                   (*holder)->Describe().c_str());
    }
  }
  if (o.keep_connection) t.conn = std::move(conn);
  return Status::Ok();
}

}  // namespace

Status CheckNoBuildForNamedServer(const pg::ConnectionParams& named) {
  const std::string build = cluster::ClusterEnv::FromProcess().pg_build;
  if (build.empty() || !named.NamesAServer()) return Status::Ok();
  return InvalidArgument(fmt::format(
      "--pg (or PGRIG_PG={}) chooses the PostgreSQL build of the embedded cluster, but the "
      "command names a server (-h/-p/-U/-d, --db or PG* variables); drop one",
      build));
}

std::string RestoreSettingsCommand(const pg::ConnectionParams& named) {
  std::string cmd = "pgrig run --restore-settings";
  auto add = [&cmd](const char* flag, const std::string& v) {
    if (!v.empty()) cmd += std::string(" ") + flag + " " + ShellQuote(v);
  };
  add("-h", named.host);
  add("-p", named.port);
  add("-U", named.user);
  add("-d", named.dbname.find_first_of("=:") == std::string::npos
                ? named.dbname
                : pg::RedactConninfo(named.dbname));
  return cmd;
}

Result<Target> ResolveTarget(const pg::ConnectionParams& named, const TargetOptions& options) {
  const bool quiet = options.quiet;
  Target t;
  if (named.NamesAServer()) {
    PGRIG_RETURN_IF_ERROR(CheckNoBuildForNamedServer(named));
    t.params = named;
    PGRIG_RETURN_IF_ERROR(SettleLeft(t, named, options));
    return t;
  }
  PGRIG_ASSIGN_OR_RETURN(cluster::Cluster c,
                         cluster::Cluster::Open({.build = options.build.value_or("")}));
  PGRIG_ASSIGN_OR_RETURN(cluster::StartAction action, StartEmbedded(c, quiet));
  if (!quiet && action != cluster::StartAction::kAlreadyRunning) {
    std::fprintf(
        stderr, "pgrig: %s the embedded cluster%s in %s\n",
        action == cluster::StartAction::kInitializedAndStarted ? "created and started" : "started",
        c.build().empty() ? "" : (" of build " + c.build()).c_str(), c.home().c_str());
  }
  t.params = c.Params();
  t.params.application_name = named.application_name;
  t.embedded = true;
  t.cluster.emplace(std::move(c));
  PGRIG_RETURN_IF_ERROR(SettleLeft(t, named, options));
  return t;
}

}  // namespace pgrig::cli
