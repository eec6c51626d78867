// pgrig run: the main job.  A planned, repeated, observed and priced
// benchmark suite (runner/runner.h does the work; this file parses the options,
// validates them before anything happens, resolves the server, takes the
// facts once, prints progress and the summary, and chooses the exit code).
//
// `pgrig run` runs the shipped standard plan on the embedded cluster;
// `pgrig run PLAN` runs a shipped plan by name or a plan file.  Exit codes:
// 0 the suite is complete; 1 bad invocation or setup (nothing measured);
// 2 a run failed or the suite was interrupted (finished runs are kept:
// `pgrig run --resume DIR` continues).
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/bench_json.h"
#include "cli/commands.h"
#include "cli/exit_status.h"
#include "cli/parse_args.h"
#include "cli/server_probe.h"
#include "cli/target.h"
#include "cli/version.h"
#include "common/clock.h"
#include "common/fs.h"
#include "common/interrupt.h"
#include "cost/catalog.h"
#include "host/facts_json.h"
#include "host/host_facts.h"
#include "pg/connection.h"
#include "pg/connection_options.h"
#include "pgbuild/builder.h"
#include "plan/plan.h"
#include "plan/plan_search.h"
#include "results/suite_json.h"
#include "runner/runner.h"
#include "runner/suite_lock.h"
#include "runner/suite_setup.h"

namespace pgrig::cli {

namespace {

constexpr CommandName kRunCommand{"pgrig run"};

std::string Clock(double s) {
  const int t = static_cast<int>(std::max(0.0, s) + 0.5);
  return fmt::format("{}:{:02d}", t / 60, t % 60);
}

// Prints progress: one live line on a terminal, plain lines otherwise.
class ProgressPrinter {
 public:
  ProgressPrinter(bool quiet) : quiet_(quiet), tty_(isatty(STDERR_FILENO) == 1) {}

  void operator()(const runner::SuiteProgress& p) {
    using K = runner::SuiteProgress::Kind;
    if (p.kind == K::kNote) {
      Clear();
      if (!quiet_) std::fprintf(stderr, "%s\n", p.text.c_str());
      return;
    }
    if (quiet_) return;
    const std::string head =
        fmt::format("[run {}/{} · iteration {}/{} · cell {}/{}] {}", p.run_number, p.runs_to_do,
                    p.iteration, p.iterations, p.position, p.cells, p.cell_id);
    const std::string clock =
        fmt::format("elapsed {} · left ~{}", Clock(p.elapsed_s), Clock(p.remaining_s));
    if (tty_) {
      std::string line;
      if (p.kind == K::kRunStart)
        line = head + (p.warmup ? " warming up" : " starting") + " · " + clock;
      if (p.kind == K::kTick) line = head + fmt::format(" {:.0f} tps · ", p.current_tps) + clock;
      if (p.kind == K::kRunEnd) {
        Clear();
        std::fprintf(stderr, "%s: %s%s\n", head.c_str(),
                     p.text == "ok" ? fmt::format("{:.1f} tps", p.current_tps).c_str() : "",
                     p.text == "ok" ? "" : p.text.c_str());
        return;
      }
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
      live_ = true;
      std::fflush(stderr);
      return;
    }
    if (p.kind == K::kRunStart)
      std::fprintf(stderr, "%s: start (%s)\n", head.c_str(), clock.c_str());
    if (p.kind == K::kRunEnd) {
      std::fprintf(
          stderr, "%s: %s\n", head.c_str(),
          p.text == "ok" ? fmt::format("{:.1f} tps", p.current_tps).c_str() : p.text.c_str());
    }
    std::fflush(stderr);
  }

  void Clear() {
    if (live_) std::fprintf(stderr, "\r\033[K");
    live_ = false;
  }

 private:
  bool quiet_;
  bool tty_;
  bool live_ = false;
};

}  // namespace

namespace {

struct RunOptions {
  std::string plan_arg;
  std::string out_dir;
  std::string label;
  bool quick = false;
  std::string instance;
  std::string region;
  std::optional<double> usd_per_hour;
  pg::ConnectionParams params;
  std::string resume_dir;
  std::string on_error = "stop";
  bool quiet = false;
  bool dry_run = false;
  bool restore_settings = false;
  bool profile = false;
};

void AddRunOptions(CLI::App& app, RunOptions& o) {
  app.set_help_flag("--help", "print this help and exit");
  app.add_option("plan", o.plan_arg, "a shipped plan's name or a plan file (default: standard)");
  app.add_option("--out", o.out_dir, "results directory (default results/<label>-<UTC time>)");
  app.add_option("--label", o.label,
                 "names the results directory and the suite (default: the plan's name)");
  app.add_flag("--quick", o.quick, "the quick plan (about a minute) instead of the standard one");
  app.add_option("--instance", o.instance,
                 "price the results as this cloud instance type (price catalog)");
  app.add_option("--region", o.region, "catalog region for --instance when the type is in several");
  app.add_option("--usd-per-hour", o.usd_per_hour, "price the results at this USD per hour")
      ->check(CLI::PositiveNumber);
  pg::AddConnectionOptions(&app, &o.params);
  app.add_option("--resume", o.resume_dir,
                 "continue the interrupted suite in this results directory");
  app.add_option("--on-error", o.on_error, "after a failed run: stop (default) or continue")
      ->check(CLI::IsMember({"stop", "continue"}));
  app.add_flag("-q,--quiet", o.quiet, "no progress lines");
  app.add_flag("--profile", o.profile,
               "profile the server with perf on the last iteration of every cell "
               "(docs/profiles.md)");
  app.add_flag("--dry-run", o.dry_run,
               "print the cells and the time estimate; run and write nothing");
  app.add_flag("--restore-settings", o.restore_settings,
               "run nothing: put back the server settings an interrupted run left changed on "
               "the server (-h/-p/-U/-d, or the embedded cluster), then exit");
}

// --restore-settings: settles the server's record and says what it did.
int RestoreLeftSettings(const RunOptions& o) {
  if (!o.plan_arg.empty() || o.quick || !o.out_dir.empty() || !o.resume_dir.empty() || o.dry_run ||
      o.profile) {
    return Fail(kRunCommand,
                "--restore-settings runs nothing: give it only the server options (-h/-p/-U/-d)");
  }
  auto target =
      ResolveTarget(o.params, {.quiet = o.quiet, .restore_left = true, .warn_if_suite = false});
  if (!target.ok()) return Fail(kRunCommand, target.status().message());
  const std::string where = target->embedded ? "the embedded cluster" : target->params.Describe();
  if (target->left_in_use) {
    return Fail(kRunCommand,
                fmt::format("the settings changed on {} belong to a pgrig run that is still going "
                            "(pid {}); it restores them when it ends",
                            where, target->left_in_use->pid));
  }
  if (target->restored_settings.empty()) {
    std::printf("pgrig run: no settings left to restore on %s\n", where.c_str());
  } else {
    std::printf("pgrig run: restored %s on %s\n", Join(target->restored_settings, ", ").c_str(),
                where.c_str());
  }
  return kExitOk;
}

// A plan's PostgreSQL builds (plan::Plan::builds): their embedded clusters,
// checked before anything starts, one running at a time; at the end each is
// left running or stopped as it was before.
class BuildClusters {
 public:
  // Refuses a named server, --pg/PGRIG_PG and a build that does not exist
  // and is not among `to_make` (the plan's [[build]] entries still to be
  // built).  Opens nothing yet.
  static Result<BuildClusters> Check(const plan::Plan& plan, const pg::ConnectionParams& named,
                                     const std::vector<std::string>& to_make) {
    BuildClusters out;
    const std::string where =
        "plan '" + plan.name + "' compares PostgreSQL builds (" + Join(plan.builds, ", ") + ")";
    if (named.NamesAServer()) {
      return InvalidArgument(where +
                             ", which run on pgrig's embedded clusters: drop -h/-p/-U/-d, --db "
                             "and PG* variables");
    }
    if (const std::string env = cluster::ClusterEnv::FromProcess().pg_build; !env.empty()) {
      return InvalidArgument(where + ", but --pg (or PGRIG_PG=" + env +
                             ") chooses one build; drop it");
    }
    for (const std::string& b : plan.builds) {
      const std::string build = b == plan::kInstalledBuild ? "" : b;
      out.names_.push_back(build);
      if (std::find(to_make.begin(), to_make.end(), b) != to_make.end()) continue;
      auto c = cluster::Cluster::Open({.build = build});
      if (!c.ok()) return c.status().WithContext(where);
    }
    return out;
  }

  // Each build's cluster, and whether it runs now (to leave it so); once
  // every build exists.
  Status Open() {
    for (const std::string& build : names_) {
      auto c = cluster::Cluster::Open({.build = build});
      if (!c.ok()) return c.status();
      was_running_.push_back(c->RunningPid().has_value());
      clusters_.push_back(std::move(c).value());
    }
    targets_.resize(clusters_.size());
    return Status::Ok();
  }

  // Stops the other builds' clusters and starts build `b`'s.
  Result<runner::BuildServer> Activate(int b, bool quiet) {
    for (size_t i = 0; i < clusters_.size(); ++i) {
      if (static_cast<int>(i) == b || !clusters_[i].RunningPid()) continue;
      if (Status st = clusters_[i].Stop(); !st.ok()) {
        return st.WithContext("stopping the cluster of " + Name(i));
      }
    }
    auto t = ResolveTarget(
        {}, {.quiet = quiet, .warn_if_suite = false, .build = names_[static_cast<size_t>(b)]});
    if (!t.ok()) return t.status();
    auto con = pg::Connect(t->params);
    if (!con.ok()) return con.status();
    runner::BuildServer out;
    out.server.version_num = con->server_version();
    out.server.version = pg::ServerVersionText(out.server.version_num);
    out.server.target = t->params.Describe();
    out.server.embedded = true;
    out.target = t->params;
    std::optional<Target>& kept = targets_[static_cast<size_t>(b)];
    kept = std::move(t).value();
    out.embedded = &*kept->cluster;
    return out;
  }

  // Each cluster running or stopped as before the suite; what could not be
  // done, as warnings.
  std::vector<std::string> Restore() {
    std::vector<std::string> warnings;
    for (size_t i = 0; i < clusters_.size(); ++i) {
      const bool running = clusters_[i].RunningPid().has_value();
      if (running && !was_running_[i]) {
        if (Status st = clusters_[i].Stop(); !st.ok()) {
          warnings.push_back("could not stop the cluster of " + Name(i) + ": " + st.message());
        }
      }
    }
    for (size_t i = 0; i < clusters_.size(); ++i) {
      if (was_running_[i] && !clusters_[i].RunningPid()) {
        if (auto st = clusters_[i].Start(); !st.ok()) {
          warnings.push_back("could not start the cluster of " + Name(i) +
                             " again: " + st.status().message());
        }
      }
    }
    return warnings;
  }

 private:
  std::string Name(size_t i) const {
    return names_[i].empty() ? "the installed server" : "build " + names_[i];
  }

  std::vector<std::string> names_;  // "" for the installed server
  std::vector<cluster::Cluster> clusters_;
  std::vector<bool> was_running_;
  std::vector<std::optional<Target>> targets_;  // the clusters started for the suite
};

// The plan's [[build]] entries whose build is not there yet, each checked
// as `pgrig pg build` checks (source, profile, flags) before anything
// happens, and built by Make() once the run holds the pgrig home's lock.
// An entry whose build exists must have been made as it says.
class MissingBuilds {
 public:
  static Result<MissingBuilds> Check(const plan::Plan& plan) {
    MissingBuilds out;
    if (plan.build_entries.empty()) return out;
    const std::string home = cluster::DefaultHome();
    const std::vector<pgbuild::ListedBuild> listed = pgbuild::ListBuilds(home);
    out.machine_ = pgbuild::DetectBuildMachine();
    for (const plan::BuildEntry& e : plan.build_entries) {
      const std::string where =
          fmt::format("{}:{}: [[build]] '{}'",
                      plan.source_path.empty() ? plan.name : plan.source_path, e.line, e.name);
      auto profile = pgbuild::ParseProfile(e.profile);
      if (!profile.ok()) return profile.status().WithContext(where);
      pgbuild::BuildSpec spec{.source = e.source,
                              .name = e.name,
                              .request = {.profile = *profile,
                                          .extra_cflags = e.cflags,
                                          .extra_configure = e.configure},
                              .home = home};
      auto found = std::find_if(listed.begin(), listed.end(),
                                [&e](const pgbuild::ListedBuild& l) { return l.name == e.name; });
      if (found != listed.end()) {
        if (!found->manifest) {
          return FailedPrecondition(
              fmt::format("{}: the build exists but {}", where, found->error));
        }
        std::string version;  // the source's, when it is still there to say
        if (auto info = pgbuild::InspectSource(e.source); info.ok()) version = info->version;
        Status same = pgbuild::CheckMadeAsRequested(*found->manifest, spec.request, version);
        if (!same.ok()) return same.WithContext(where);
        continue;
      }
      auto checked = pgbuild::CheckBuild(spec, out.machine_);
      if (!checked.ok()) return checked.status().WithContext(where);
      out.versions_.push_back(checked->info.version);
      out.specs_.push_back(std::move(spec));
    }
    return out;
  }

  std::vector<std::string> names() const {
    std::vector<std::string> n;
    for (const pgbuild::BuildSpec& s : specs_) n.push_back(s.name);
    return n;
  }

  // One line per build to make, for the start of the run and --dry-run.
  std::vector<std::string> Describe() const {
    std::vector<std::string> lines;
    for (size_t i = 0; i < specs_.size(); ++i) {
      const pgbuild::BuildSpec& s = specs_[i];
      lines.push_back(fmt::format(
          "build {} is made first: PostgreSQL {} from {}, profile {}{}", s.name, versions_[i],
          s.source, pgbuild::ProfileName(s.request.profile),
          s.request.extra_cflags.empty() ? "" : ", CFLAGS += " + s.request.extra_cflags));
    }
    return lines;
  }

  // Builds them in order, a progress line per step; a failed or cancelled
  // build leaves nothing of itself but its log (pgbuild::BuildPostgres), and
  // the builds made before it stay for the next run.
  Status Make(const std::atomic<bool>* cancel) {
    for (const pgbuild::BuildSpec& spec : specs_) {
      auto m = pgbuild::BuildPostgres(spec, machine_,
                                      {.line =
                                           [&spec](const std::string& l) {
                                             std::printf("pgrig run: build %s: %s\n",
                                                         spec.name.c_str(), l.c_str());
                                             std::fflush(stdout);
                                           }},
                                      cancel);
      if (!m.ok()) return m.status().WithContext("building " + spec.name + " for the plan");
      std::printf("pgrig run: built %s (PostgreSQL %s, profile %s) in %s\n", m->name.c_str(),
                  m->version.c_str(), m->profile.c_str(), Clock(m->build_seconds).c_str());
    }
    std::fflush(stdout);
    return Status::Ok();
  }

 private:
  pgbuild::BuildMachine machine_;
  std::vector<pgbuild::BuildSpec> specs_;
  std::vector<std::string> versions_;
};

// The plan to run and where its results go: the suite being resumed, or
// the named (or default) plan into a new directory.
struct ChosenSuite {
  plan::Plan plan;
  std::optional<results::SuiteDoc> previous;  // --resume: the suite so far
  std::string label;
  std::string out_dir;
};

Result<ChosenSuite> ChooseSuite(const RunOptions& o, const plan::PlanSearch& search) {
  if (o.quick && !o.plan_arg.empty()) {
    return InvalidArgument("give either a PLAN or --quick, not both");
  }
  if (!o.instance.empty() && o.usd_per_hour) {
    return InvalidArgument("give either --instance or --usd-per-hour, not both");
  }
  if (!o.resume_dir.empty() && !o.out_dir.empty()) {
    return InvalidArgument("--resume DIR writes into DIR; leave out --out");
  }
  ChosenSuite c;
  c.label = o.label;
  c.out_dir = o.out_dir;
  if (!o.resume_dir.empty()) {
    auto resumed = runner::ReadResumable(o.resume_dir, o.plan_arg);
    if (!resumed.ok()) {
      return InvalidArgument("--resume " + o.resume_dir + ": " + resumed.status().message());
    }
    c.plan = std::move(resumed->plan);
    c.previous = std::move(resumed->suite);
    if (c.label.empty()) c.label = resumed->label;
    c.out_dir = o.resume_dir;
  } else {
    const std::string name = !o.plan_arg.empty() ? o.plan_arg : o.quick ? "quick" : "standard";
    PGRIG_ASSIGN_OR_RETURN(plan::PlanLocation where, plan::LocatePlan(name, search));
    PGRIG_ASSIGN_OR_RETURN(c.plan, plan::ReadPlanFile(where.path));
  }
  if (c.label.empty()) c.label = c.plan.name;
  for (char ch : c.label) {
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.')) {
      return InvalidArgument("--label \"" + c.label +
                             "\": use letters, digits, '-', '_' and '.' only");
    }
  }
  if (c.out_dir.empty())
    c.out_dir = "results/" + c.label + "-" + CompactTimestampUtc(WallSeconds());
  return c;
}

void PrintDryRun(const plan::Plan& plan, const std::vector<plan::Cell>& cells,
                 const runner::PriceChoice& price, const std::string& out_dir) {
  for (int it = 0; it < plan.iterations; ++it) {
    std::printf("iteration %d:", it + 1);
    for (int ci : plan::IterationOrder(cells.size(), it)) {
      std::printf(" %s", cells[static_cast<size_t>(ci)].id.c_str());
    }
    std::printf("\n");
  }
  if (price.price) {
    std::printf("price: %.4f USD/hour (%s)\n", price.price->usd_per_hour,
                price.price->from.c_str());
  }
  if (!price.note.empty()) std::printf("%s\n", price.note.c_str());
  std::printf("results would go to %s (dry run: nothing started, nothing written)\n",
              out_dir.c_str());
}

// The cell table, the warnings, the totals and how it ended; the exit code.
int PrintOutcome(const runner::SuiteOutcome& outcome, const std::string& out_dir) {
  std::printf("\n%s", results::CellTable(outcome.suite).c_str());
  for (const auto& [cell, warning] : results::CellWarnings(outcome.suite)) {
    std::printf("warning: %s: %s\n", cell.c_str(), warning.c_str());
  }
  for (const auto& w : outcome.warnings) std::printf("warning: %s\n", w.c_str());
  std::printf("\n%d runs (%d failed) in %s; results in %s (summary.md, runs.csv, suite.json)\n",
              outcome.runs_ok + outcome.runs_failed, outcome.runs_failed,
              Clock(outcome.wall_s).c_str(), out_dir.c_str());
  switch (outcome.end) {
    case runner::SuiteEnd::kCompleted:
      return kExitOk;
    case runner::SuiteEnd::kInterrupted:
      std::printf("interrupted: the finished runs are kept; continue with: pgrig run --resume %s\n",
                  out_dir.c_str());
      return kExitRunFailure;
    case runner::SuiteEnd::kRunFailed:
      std::printf("a run failed: see summary.md; continue with: pgrig run --resume %s\n",
                  out_dir.c_str());
      return kExitRunFailure;
  }
  return kExitRunFailure;
}

}  // namespace

int RunRun(int argc, char** argv) {
  CLI::App app{
      "The main job: a planned, repeated, observed benchmark suite.  Without PLAN, the shipped\n"
      "standard plan (select-only, tpcb-like, simple-update at client counts sized to this\n"
      "machine, 3 interleaved iterations) on the embedded cluster, or on the server named with\n"
      "--db/-h/-p/-U/-d.  PLAN is a shipped plan's name (standard, quick, scaling, protocols,\n"
      "jit, graviton-vs-xeon, lio, builds, tpcc) or a plan file (docs/plans.md).  Results go\n"
      "to results/<label>-<UTC time>/\n"
      "(suite.json, runs.csv, summary.md; docs/results-format.md).",
      "pgrig run"};
  RunOptions o;
  AddRunOptions(app, o);
  if (auto code = ParseArgs(app, argc, argv)) return *code;
  std::vector<std::string> raw(argv, argv + argc);
  const std::vector<std::string> command_line = pg::RedactedCommandLine(raw, "pgrig run");

  if (o.restore_settings) return RestoreLeftSettings(o);

  // --- Validate everything before anything happens. ----------------------
  const plan::PlanSearch search = plan::PlanSearchFromEnvironment(ExecutableDir());
  auto chosen = ChooseSuite(o, search);
  if (!chosen.ok()) return Fail(kRunCommand, chosen.status().message());
  const plan::Plan& plan = chosen->plan;
  const std::string& out_dir = chosen->out_dir;

  host::HostFacts hf = host::CollectHostFacts(SysFs("/"));
  const int cpus = host::UsableCpus(hf);
  auto cells = plan::ExpandPlan(plan, cpus);
  if (!cells.ok()) return Fail(kRunCommand, cells.status().message());
  if (Status w = runner::CheckWorkloads(plan); !w.ok()) return Fail(kRunCommand, w.message());
  std::optional<BuildClusters> builds;
  std::optional<MissingBuilds> to_make;
  if (!plan.builds.empty()) {
    auto missing = MissingBuilds::Check(plan);
    if (!missing.ok()) return Fail(kRunCommand, missing.status().message());
    to_make.emplace(std::move(missing).value());
    auto checked = BuildClusters::Check(plan, o.params, to_make->names());
    if (!checked.ok()) return Fail(kRunCommand, checked.status().message());
    builds.emplace(std::move(checked).value());
  }
  if (chosen->previous) {
    Status ok = runner::CheckResumable(*chosen->previous, plan, *cells);
    if (!ok.ok()) return Fail(kRunCommand, "--resume " + o.resume_dir + ": " + ok.message());
  }

  // Price: --usd-per-hour, --instance (catalog), or the cloud instance type.
  const std::string detected_instance =
      hf.virtualization.cloud ? hf.virtualization.cloud->instance_type : "";
  auto priced = runner::ChoosePrice(o.usd_per_hour, o.instance, detected_instance, o.region,
                                    cost::CatalogSearch{search.data_dir, search.exe_dir});
  if (!priced.ok()) return Fail(kRunCommand, priced.status().message());

  if (o.resume_dir.empty()) {
    if (Status s = runner::CheckOutDir(out_dir); !s.ok()) return Fail(kRunCommand, s.message());
  } else if (access(out_dir.c_str(), W_OK) != 0) {
    return Fail(kRunCommand, "--resume " + out_dir + " is not writable");
  }

  const double estimate = runner::EstimateSuiteSeconds(plan, cells->size());
  std::printf(
      "pgrig run: plan '%s'%s, %zu cells x %d iterations = %zu runs of %.0f s (warm-up %.0f s), "
      "about %s on %d CPUs\n",
      plan.name.c_str(), plan.source_path.empty() ? "" : (" (" + plan.source_path + ")").c_str(),
      cells->size(), plan.iterations, cells->size() * static_cast<size_t>(plan.iterations),
      plan.duration_s, plan.warmup_s, Clock(estimate).c_str(), cpus);
  if (to_make) {
    for (const std::string& line : to_make->Describe()) std::printf("%s\n", line.c_str());
  }
  if (o.dry_run) {
    PrintDryRun(plan, *cells, *priced, out_dir);
    return kExitOk;
  }
  if (!priced->note.empty() && !o.quiet) std::fprintf(stderr, "%s\n", priced->note.c_str());
  std::fflush(stdout);

  // --- The server, the facts, the suite. ----------------------------------
  const runner::SuiteHolder me = runner::ThisProcess(command_line);
  runner::SuiteOptions so;
  // Facts once the data is loaded, of whichever server was measured.
  so.facts_after_load = [&hf, &so](const pg::ConnectionParams& server) {
    auto c = pg::Connect(server);
    if (!c.ok()) return so.facts;
    host::HostFacts after = hf;
    const host::ServerFacts server_after = ProbeServer(*c, &after);
    return host::FactsToJson(after, server_after);
  };
  // One suite per server: the embedded cluster's lock before it is started.
  std::unique_ptr<runner::SuiteLock> embedded_lock;
  std::unique_ptr<runner::SuiteLock> server_lock;
  std::optional<Target> target;
  if (!o.params.NamesAServer()) {
    // The pgrig home's lock, which covers every build's cluster in it.
    auto lock = runner::SuiteLock::LockEmbedded(cluster::DefaultHome(), me);
    if (!lock.ok()) return Fail(kRunCommand, lock.status().message());
    embedded_lock = std::move(lock).value();
  }
  if (builds) {
    // The builds the plan makes, then every build's cluster as it is now.
    Status made = [&to_make] {
      InterruptScope interrupt;
      CriticalSection section("pgrig run: stopping the PostgreSQL build and removing its files\n");
      return to_make->Make(InterruptScope::flag());
    }();
    if (!made.ok()) return Fail(kRunCommand, made.message(), kExitRunFailure);
    if (Status opened = builds->Open(); !opened.ok()) return Fail(kRunCommand, opened.message());
    // Each build's cluster is started by the runner (activate_build).
    so.facts = host::FactsToJson(hf, std::nullopt);
    so.activate_build = [&builds, &o](int b) { return builds->Activate(b, o.quiet); };
  } else {
    auto resolved = ResolveTarget(o.params, {.quiet = o.quiet, .warn_if_suite = false});
    if (!resolved.ok()) return Fail(kRunCommand, resolved.status().message());
    target.emplace(std::move(resolved).value());
    auto locked = runner::SuiteLock::LockServer(target->params, me);
    if (!locked.ok()) return Fail(kRunCommand, locked.status().message());
    server_lock = std::move(locked).value();
    auto con = pg::Connect(target->params);
    if (!con.ok()) return Fail(kRunCommand, con.status().message());
    results::ResultServer server;
    server.version_num = con->server_version();
    server.version = pg::ServerVersionText(server.version_num);
    server.target = target->params.Describe();
    server.embedded = target->embedded;
    host::ServerFacts sf = ProbeServer(*con, &hf);
    *con = pg::Connection();
    if (!o.quiet) {
      std::fprintf(stderr, "server: PostgreSQL %s, %s%s\n", server.version.c_str(),
                   server.target.c_str(), server.embedded ? " (embedded cluster)" : "");
    }
    so.target = target->params;
    so.embedded = target->cluster ? &*target->cluster : nullptr;
    so.server = server;
    so.facts = host::FactsToJson(hf, sf);
  }
  so.plan = plan;
  so.cells = *cells;
  so.cpus = cpus;
  so.memory_bytes = hf.effective_memory_bytes;
  so.out_dir = out_dir;
  so.profile_all = o.profile;
  so.label = chosen->label;
  so.tool_version = kVersion;
  so.command_line = command_line;
  so.price = priced->price;
  so.on_error = o.on_error == "continue" ? runner::OnError::kContinue : runner::OnError::kStop;
  so.resume = chosen->previous;
  ProgressPrinter printer(o.quiet);
  so.on_progress = [&printer](const runner::SuiteProgress& p) { printer(p); };
  so.stop_requested = InterruptScope::flag();
  auto outcome = [&so] {
    InterruptScope interrupt;
    return runner::RunSuite(so);
  }();
  printer.Clear();
  if (builds) {
    for (const std::string& w : builds->Restore()) {
      std::fprintf(stderr, "pgrig run: warning: %s\n", w.c_str());
    }
  }
  if (!outcome.ok()) return Fail(kRunCommand, outcome.status().message());
  return PrintOutcome(*outcome, out_dir);
}

}  // namespace pgrig::cli
