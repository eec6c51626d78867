// pgrig tune: recommend, explain and safely apply PostgreSQL settings for
// this machine (src/tune holds the rules and the apply, restart, restore and
// verify flow; this file parses the options, gathers the inputs, calls it and
// prints).
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/exit_status.h"
#include "cli/parse_args.h"
#include "cli/server_probe.h"
#include "cli/target.h"
#include "cluster/cluster.h"
#include "common/fs.h"
#include "common/process.h"
#include "common/strings.h"
#include "host/host_facts.h"
#include "host/server_facts.h"
#include "pg/connection.h"
#include "pg/connection_options.h"
#include "tune/apply.h"
#include "tune/apply_restart.h"
#include "tune/from_facts.h"
#include "tune/huge_pages.h"
#include "tune/recommend.h"
#include "tune/render.h"
#include "tune/rules.h"

namespace pgrig::cli {

namespace {

constexpr CommandName kTuneCommand{"pgrig tune"};

// Where backups go: beside the embedded cluster's home (like its .lock), so
// that destroying the embedded cluster never takes other servers' backups.
std::string DefaultBackupDir() { return cluster::DefaultHome() + ".tune-backups"; }

// The server binaries of `major` on this machine, for the huge-page probe.
std::optional<std::string> BinDirFor(int major, const ProcessRunner& runner) {
  std::string d = fmt::format("/usr/lib/postgresql/{}/bin", major);
  if (::access((d + "/postgres").c_str(), X_OK) == 0) return d;
  auto b = cluster::FindServerBinaries(runner);
  if (b.ok() && b->major_version == major) return b->bindir;
  return std::nullopt;
}

std::optional<RunAs> ServerAccountRunAs() {
  if (::geteuid() != 0) return std::nullopt;
  auto a = cluster::ChooseServerAccount();
  if (!a.ok() || a->is_self) return std::nullopt;
  return RunAs{a->uid, a->gid, a->home, a->name};
}

// Replaces the estimate with the server binary's own figure when it can.
void ProbeHugePagesInto(tune::TuneReport* report, const tune::CurrentSettings& current,
                        const ProcessRunner& runner) {
  const int major = report->inputs.server_major;
  if (major < 15) {
    report->huge_pages.notes.push_back(
        "PostgreSQL 13/14 cannot report shared_memory_size_in_huge_pages; this is an estimate");
    return;
  }
  auto bindir = BinDirFor(major, runner);
  if (!bindir) {
    report->huge_pages.notes.push_back(fmt::format(
        "no PostgreSQL {} server binaries here to ask for the exact figure; this is an estimate",
        major));
    return;
  }
  tune::HugePagesProbeOptions o{
      .runner = &runner, .bindir = *bindir, .run_as = ServerAccountRunAs()};
  auto h = tune::ProbeHugePages(tune::CandidateConfig(*report, current), major,
                                report->inputs.huge_page_size, o);
  if (!h.ok()) {
    report->huge_pages.notes.push_back("asking the server binary failed (" + h.status().message() +
                                       "); this is an estimate");
    return;
  }
  report->huge_pages = *h;
}

struct TuneOptions {
  std::string profile;
  std::string memory, data_size, storage, arch, page_size;
  std::optional<int> cpus, connections, server_version, smt;
  std::vector<std::string> sets;
  std::string format = "table";
  bool all = false, apply = false, dry_run = false, restart = false, rollback = false;
  bool offline = false, no_probe = false;
  std::string backup_dir;
  pg::ConnectionParams params;
  std::string positional_db;
};

}  // namespace

// Applies `profile` to a running embedded cluster and restarts it when a
// setting needs that.  For the cli layer (e.g. ResolveTarget after it created
// the cluster: issue 6, point 8).
Status ApplyTuneProfileToEmbedded(cluster::Cluster& c, tune::Profile profile,
                                  std::optional<uint64_t> memory) {
  PGRIG_ASSIGN_OR_RETURN(pg::Connection conn, pg::Connect(c.Params()));
  std::vector<std::string> notes;
  host::HostFacts hf = host::CollectHostFacts(SysFs("/"), {.storage_path = c.data_dir()});
  tune::TuneInputs in = tune::InputsFromFacts(hf, nullptr, &notes);
  if (memory) tune::ApplyOverrides({.memory = memory}, &in, &notes);
  in.server_major = conn.server_version() / 10000;
  PGRIG_ASSIGN_OR_RETURN(tune::CurrentSettings current, tune::ReadCurrentSettings(conn));
  PGRIG_ASSIGN_OR_RETURN(tune::TuneReport report, tune::Recommend(in, profile, current));
  tune::ClusterServer server(c);
  return tune::ApplyAndRestart(conn, report,
                               {.apply = {.backup_dir = DefaultBackupDir()}, .restart = &server})
      .status();
}

namespace {

void AddTuneOptions(CLI::App& app, TuneOptions& o) {
  app.set_help_flag("--help", "print this help and exit");
  app.add_option("--profile", o.profile,
                 "oltp, web, mixed, dw, desktop or benchmark (default: oltp; benchmark for the "
                 "embedded cluster)");
  app.add_option("--memory", o.memory,
                 "memory for the server, e.g. 16GB (default: this machine's, "
                 "container-aware)");
  app.add_option("--cpus", o.cpus,
                 "CPUs for the server (default: this machine's, container-aware)");
  app.add_option("--storage", o.storage, "hdd, ssd, nvme or san (default: detected)");
  app.add_option("--smt", o.smt,
                 "threads per core of the server's machine, e.g. 2 for x86 with SMT, 1 for "
                 "Graviton (default: detected; with --offline --memory/--cpus: 1, as given)");
  app.add_option("--arch", o.arch,
                 "architecture of the server's machine: x86_64, aarch64, ... (default: detected; "
                 "with --offline --memory/--cpus: unknown)");
  app.add_option("--page-size", o.page_size,
                 "kernel base page size of the server's machine: 4kB, 16kB or 64kB (default: "
                 "detected; with --offline --memory/--cpus: 4kB)");
  app.add_option("--connections", o.connections, "max_connections wanted (default: per profile)");
  app.add_option("--data-size", o.data_size, "size of the database, e.g. 20GB");
  app.add_option("--set", o.sets, "override one setting: --set name=value (repeatable)")
      ->allow_extra_args(false)
      ->type_name("NAME=VALUE");
  app.add_option("--format", o.format, "table, conf, alter-system or json");
  app.add_flag("--all", o.all, "table: also list settings already within 5% of the recommendation");
  app.add_flag("--apply", o.apply, "apply the changes (ALTER SYSTEM, reload, verify)");
  app.add_flag("--dry-run", o.dry_run, "check privileges and values and show what would change");
  app.add_flag("--restart", o.restart,
               "after --apply or --rollback, restart the embedded cluster if a setting needs it");
  app.add_flag("--rollback", o.rollback, "restore the configuration saved by the last --apply");
  app.add_option("--backup-dir", o.backup_dir,
                 "where --apply keeps backups (default: " + DefaultBackupDir() + ")");
  app.add_flag("--offline", o.offline, "no server: recommend for --server-version only");
  app.add_option("--server-version", o.server_version,
                 "PostgreSQL major version (13 to 18) with --offline");
  app.add_flag("--no-probe", o.no_probe, "do not ask the server binary for the huge page count");
  pg::AddConnectionOptions(&app, &o.params, &o.positional_db);
}

// The command line read into what the tuner takes, every value and
// combination checked before any server is touched.
struct TunePlanOptions {
  tune::Format format = tune::Format::kTable;
  std::optional<tune::Profile> profile;
  tune::InputOverrides given;
  // --offline with --memory and --cpus: another machine, known only from
  // the options.
  bool as_given = false;
  tune::Overrides overrides;
  std::string backup_dir;
};

Status CheckModes(const TuneOptions& o) {
  if (o.rollback && (o.apply || o.dry_run))
    return InvalidArgument("--rollback cannot be combined with --apply or --dry-run");
  if (o.restart && !o.apply && !o.rollback)
    return InvalidArgument("--restart goes with --apply or --rollback");
  if (o.offline && (o.apply || o.rollback || o.dry_run)) {
    return InvalidArgument(
        "--offline only prints recommendations; --apply, --dry-run and --rollback need a server");
  }
  if (o.offline && !o.server_version) {
    return InvalidArgument(fmt::format("--offline needs --server-version ({} to {})",
                                       tune::kMinServerMajor, tune::kMaxServerMajor));
  }
  if (o.server_version &&
      (*o.server_version < tune::kMinServerMajor || *o.server_version > tune::kMaxServerMajor)) {
    return InvalidArgument(
        fmt::format("--server-version {} is not supported; pgrig tune knows PostgreSQL {} to {}",
                    *o.server_version, tune::kMinServerMajor, tune::kMaxServerMajor));
  }
  if (!o.offline && o.server_version)
    return InvalidArgument("--server-version goes with --offline (a server reports its own)");
  if (o.restart && !o.offline && o.params.NamesAServer()) {
    return InvalidArgument(
        "--restart restarts only pgrig's embedded cluster; apply without it and restart "
        "your server yourself (nothing was changed)");
  }
  return Status::Ok();
}

Result<TunePlanOptions> CheckTuneOptions(const TuneOptions& o) {
  PGRIG_RETURN_IF_ERROR(CheckModes(o));
  TunePlanOptions t;
  PGRIG_ASSIGN_OR_RETURN(t.format, tune::ParseFormat(o.format));
  if (!o.profile.empty()) {
    PGRIG_ASSIGN_OR_RETURN(t.profile, tune::ParseProfile(o.profile));
  }
  auto size = [](const std::string& text, const char* option) -> Result<std::optional<uint64_t>> {
    if (text.empty()) return std::optional<uint64_t>();
    auto v = tune::ParseSize(text);
    if (!v.ok()) return InvalidArgument(std::string(option) + ": " + v.status().message());
    return std::optional<uint64_t>(*v);
  };
  tune::InputOverrides& given = t.given;
  PGRIG_ASSIGN_OR_RETURN(given.memory, size(o.memory, "--memory"));
  PGRIG_ASSIGN_OR_RETURN(given.data_size, size(o.data_size, "--data-size"));
  PGRIG_ASSIGN_OR_RETURN(given.page_size, size(o.page_size, "--page-size"));
  if (!o.storage.empty()) {
    PGRIG_ASSIGN_OR_RETURN(given.storage, tune::ParseStorageClass(o.storage));
  }
  if (!o.arch.empty()) {
    PGRIG_ASSIGN_OR_RETURN(given.arch, tune::ParseArch(o.arch));
  }
  given.cpus = o.cpus;
  given.threads_per_core = o.smt;
  given.connections = o.connections;
  PGRIG_RETURN_IF_ERROR(tune::ValidateOverrides(given));
  // --offline with --memory or --cpus describes another machine: nothing is
  // read from this one, so both are needed.
  t.as_given = o.offline && (given.memory || o.cpus);
  if (t.as_given && (!given.memory || !o.cpus)) {
    return InvalidArgument(
        "--offline with --memory or --cpus describes another machine; give both (and "
        "--storage, --smt, --arch, --page-size as they apply)");
  }
  for (const auto& set : o.sets) {
    PGRIG_ASSIGN_OR_RETURN(auto kv, tune::ParseOverride(set));
    t.overrides.values[kv.first] = kv.second;
  }
  t.backup_dir = o.backup_dir.empty() ? DefaultBackupDir() : o.backup_dir;
  return t;
}

int RollBack(pg::Connection& conn, const std::string& backup_dir,
             tune::RestartableServer* restart_server) {
  auto rb = tune::RollbackAndRestart(
      conn, {.apply = {.backup_dir = backup_dir}, .restart = restart_server});
  if (!rb.ok()) return Fail(kTuneCommand, rb.status().message());
  const tune::RollbackOutcome& done = rb->rolled_back;
  std::printf("Restored the configuration saved at %s (%s).\n", done.restored.created_at.c_str(),
              done.restored.path.c_str());
  if (rb->restarted) {
    std::printf("Restarted the embedded cluster.\n");
  } else if (!done.pending_restart.empty()) {
    std::printf("Waiting for a restart: %s\n", Join(done.pending_restart, ", ").c_str());
  }
  return kExitOk;
}

// The tuner's inputs: the options alone (another machine), or this
// machine's facts (and the server's, when connected) with the options laid
// over them.  `notes` get the tuner's notes, `notes_from` what they are
// about ("facts" or "assumed").
Result<tune::TuneInputs> GatherInputs(const TuneOptions& o, const TunePlanOptions& t,
                                      pg::Connection* conn, bool local,
                                      std::vector<std::string>* notes, std::string* notes_from) {
  tune::TuneInputs in;
  *notes_from = "facts";
  if (t.as_given) {
    in = tune::InputsAsGiven(t.given, notes);
    *notes_from = "assumed";
  } else if (local) {
    std::string data_dir;
    if (conn != nullptr) {
      auto d = conn->QueryValue("SHOW data_directory");
      if (d.ok()) data_dir = *d;
    }
    host::HostFacts hf = host::CollectHostFacts(SysFs("/"), {.storage_path = data_dir});
    std::optional<host::ServerFacts> sf;
    if (conn != nullptr) sf = ProbeServer(*conn, &hf);
    in = tune::InputsFromFacts(hf, sf ? &*sf : nullptr, notes);
    tune::ApplyOverrides(t.given, &in, notes);
  } else if (!t.given.memory || !o.cpus) {
    return InvalidArgument(
        "the server is on another machine, so this machine's facts do not describe it; "
        "give --memory and --cpus (and --storage) for the server's machine");
  } else {
    // A remote server: only the options describe its machine.
    in = tune::InputsAsGiven(t.given, notes);
    *notes_from = "assumed";
  }
  if (conn != nullptr) in.server_major = conn->server_version() / 10000;
  if (o.server_version) in.server_major = *o.server_version;
  return in;
}

// --dry-run and --apply once the report is printed.
int ApplyReport(const TuneOptions& o, const TunePlanOptions& t, pg::Connection& conn,
                const tune::TuneReport& report, const tune::CurrentSettings& current,
                const Target& target, tune::RestartableServer* restart_server) {
  auto changes = report.Changes();
  if (o.dry_run) {
    Status s = tune::CheckPrivileges(conn, changes);
    if (s.ok()) s = tune::Validate(changes, current);
    if (!s.ok()) return Fail(kTuneCommand, s.message());
    size_t restart = 0;
    for (auto* c : changes) restart += c->apply == tune::Apply::kRestart;
    std::fprintf(stderr,
                 "pgrig tune: dry run: %zu settings would change (%zu need a restart); the server "
                 "accepts every value; nothing was changed\n",
                 changes.size(), restart);
    return kExitOk;
  }
  if (changes.empty()) {
    std::fprintf(stderr, "pgrig tune: nothing to apply\n");
    return kExitOk;
  }
  auto flow = tune::ApplyAndRestart(
      conn, report, {.apply = {.backup_dir = t.backup_dir}, .restart = restart_server});
  if (!flow.ok()) return Fail(kTuneCommand, flow.status().message());
  const tune::ApplyOutcome& out = flow->applied;
  std::fprintf(stderr, "pgrig tune: applied %zu settings with ALTER SYSTEM (backup: %s)\n",
               out.applied.size(), out.backup_path.c_str());
  if (!out.took_effect.empty()) {
    std::fprintf(stderr, "  in effect now: %s\n", Join(out.took_effect, ", ").c_str());
  }
  for (const auto& ov : out.overridden) std::fprintf(stderr, "  overridden: %s\n", ov.c_str());
  if (out.pending_restart.empty()) return kExitOk;
  std::fprintf(stderr, "  waiting for a restart: %s\n", Join(out.pending_restart, ", ").c_str());
  if (!flow->restarted) {
    std::fprintf(stderr, "  restart the server to finish (%s)\n",
                 target.embedded
                     ? "pgrig tune --apply --restart, or pgrig cluster stop && pgrig cluster start"
                     : "for example pg_ctl restart or systemctl restart postgresql");
    return kExitOk;
  }
  std::fprintf(stderr, "pgrig tune: restarted the embedded cluster; every setting is in effect\n");
  return kExitOk;
}

}  // namespace

int RunTune(int argc, char** argv) {
  CLI::App app{
      "Recommend PostgreSQL settings for this machine and a workload profile, explain each one,\n"
      "and apply them safely (validate, back up, ALTER SYSTEM, reload, verify; roll back on any\n"
      "failure).  With no server named (-h/-p/-U/-d or PG* variables) the embedded cluster is\n"
      "tuned, with the benchmark profile unless --profile says otherwise.",
      "pgrig tune"};
  TuneOptions o;
  AddTuneOptions(app, o);
  if (auto code = ParseArgs(app, argc, argv)) return *code;
  if (Status s = pg::UseDatabaseOperand(&o.params, o.positional_db); !s.ok()) {
    return Fail(kTuneCommand, s.message());
  }

  // Everything the user typed is checked before any server is touched.
  auto checked = CheckTuneOptions(o);
  if (!checked.ok()) return Fail(kTuneCommand, checked.status().message());
  const TunePlanOptions& t = *checked;

  // --- the server ---
  std::optional<Target> target;
  std::optional<pg::Connection> conn;
  bool local = true;
  if (!o.offline) {
    auto resolved = ResolveTarget(o.params, {.quiet = t.format == tune::Format::kJson});
    if (!resolved.ok()) return Fail(kTuneCommand, resolved.status().message());
    target.emplace(std::move(resolved).value());
    auto c = pg::Connect(target->params);
    if (!c.ok()) return Fail(kTuneCommand, c.status().message());
    conn.emplace(std::move(c).value());
    local = pg::ServerIsLocal(*conn);
  }

  // --restart is refused above for a named server, so a restart here is
  // always of the embedded cluster.
  std::optional<tune::ClusterServer> embedded;
  if (o.restart && target && target->embedded) embedded.emplace(*target->cluster);
  tune::RestartableServer* restart_server = embedded ? &*embedded : nullptr;
  if (o.rollback) return RollBack(*conn, t.backup_dir, restart_server);

  // --- inputs: facts of this machine, then the user's overrides ---
  std::vector<std::string> notes;
  std::string notes_from;
  auto in = GatherInputs(o, t, conn ? &*conn : nullptr, local, &notes, &notes_from);
  if (!in.ok()) return Fail(kTuneCommand, in.status().message());
  const tune::Profile profile = t.profile.value_or(
      target && target->embedded ? tune::Profile::kBenchmark : tune::Profile::kOltp);

  tune::CurrentSettings current;
  if (conn) {
    auto cur = tune::ReadCurrentSettings(*conn);
    if (!cur.ok()) return Fail(kTuneCommand, cur.status().message());
    current = std::move(cur).value();
  }
  auto report = tune::Recommend(*in, profile, current, t.overrides);
  if (!report.ok()) return Fail(kTuneCommand, report.status().message() + " (nothing was changed)");
  RealProcessRunner runner;
  if (local && !o.no_probe) ProbeHugePagesInto(&*report, current, runner);
  if (!local) {
    report->huge_pages.notes.push_back(
        "the server is remote: run pgrig tune on its machine for the exact figure");
  }
  for (const auto& n : notes) report->warnings.push_back(notes_from + ": " + n);

  std::string text = tune::Render(*report, t.format, {.show_unchanged = o.all});
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (!o.apply && !o.dry_run) return kExitOk;
  return ApplyReport(o, t, *conn, *report, current, *target, restart_server);
}

}  // namespace pgrig::cli
