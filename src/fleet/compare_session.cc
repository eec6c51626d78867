#include "fleet/compare_session.h"

#include <fmt/format.h>

#include <filesystem>
#include <thread>
#include <utility>

#include "common/clock.h"
#include "common/fs.h"
#include "common/process.h"
#include "fleet/instance_check.h"
#include "plan/plan.h"
#include "plan/plan_search.h"

namespace pgrig::fleet {

Result<std::string> ResumeDir(const std::string& resume, const std::string& fleet_file) {
  if (std::filesystem::is_regular_file(resume + "/" + kManifestName)) return resume;
  if (fleet_file.empty()) {
    return InvalidArgument("--resume " + resume +
                           ": no fleet run directory there; give the run's directory (it holds " +
                           kManifestName + "), or the fleet file and the run id");
  }
  PGRIG_ASSIGN_OR_RETURN(Fleet f, ReadFleetFile(fleet_file));
  std::string dir = f.results_dir + "/" + resume;
  if (!std::filesystem::is_regular_file(dir + "/" + kManifestName)) {
    return NotFound("--resume " + resume + ": neither " + resume + " nor " + dir +
                    " is a fleet run directory (no " + kManifestName + ")");
  }
  return dir;
}

namespace {

// A resumed run's directory must be where the fleet file puts its results.
Status CheckResumedRunDir(const CompareSession& s) {
  const std::string expected = s.fleet.results_dir + "/" + s.manifest.run_id;
  std::error_code ec;
  if (!std::filesystem::equivalent(s.run_dir, expected, ec)) {
    return InvalidArgument("--resume " + s.run_dir + ": the fleet file puts run " +
                           s.manifest.run_id + " in " + expected +
                           "; move the run directory back there (or resume that one)");
  }
  return Status::Ok();
}

}  // namespace

Result<CompareSession> PrepareCompareSession(std::string file, const std::string& resume,
                                             const std::string& tool_version) {
  CompareSession s;
  if (!resume.empty()) {
    PGRIG_ASSIGN_OR_RETURN(s.run_dir, ResumeDir(resume, file));
    PGRIG_ASSIGN_OR_RETURN(s.manifest, ReadManifest(s.run_dir));
    if (file.empty()) file = s.manifest.fleet_file;
    s.resuming = true;
  }
  if (file.empty()) return InvalidArgument("give the fleet file (FLEET.toml) or --resume RUN_DIR");
  PGRIG_ASSIGN_OR_RETURN(s.fleet, ReadFleetFile(file));
  if (s.fleet.mode != FleetMode::kCompare) {
    return InvalidArgument(file +
                           ": a clients-mode run cannot be resumed (its window is one "
                           "measurement); start it again with `pgrig fleet run " +
                           file + "`");
  }
  PGRIG_ASSIGN_OR_RETURN(std::string fleet_text, ReadWholeFile(file));
  PGRIG_ASSIGN_OR_RETURN(s.local, DescribeLocalPgrig(tool_version, RealProcessRunner()));
  const std::string exe_dir = std::filesystem::path(s.local.exe).parent_path().string();
  auto where = plan::LocatePlan(s.fleet.plan, plan::PlanSearchFromEnvironment(exe_dir));
  if (!where.ok()) return where.status().WithContext(file + ": plan");
  s.plan_file = where->path;
  PGRIG_ASSIGN_OR_RETURN(plan::Plan parsed, plan::ReadPlanFile(where->path));
  PGRIG_ASSIGN_OR_RETURN(s.plan_files, PlanScriptFiles(parsed));
  PGRIG_ASSIGN_OR_RETURN(std::string plan_text, ReadWholeFile(where->path));
  // Every declared instance must be in the catalog (its facts are compared later).
  PGRIG_ASSIGN_OR_RETURN(cost::LoadedCatalog loaded,
                         cost::LoadCatalog(cost::CatalogSearchFromEnvironment(exe_dir)));
  s.catalog = std::move(loaded.catalog);
  PGRIG_RETURN_IF_ERROR(CheckDeclaredInstances(s.fleet, s.catalog, file));
  if (s.resuming) {
    PGRIG_RETURN_IF_ERROR(CheckResumable(s.manifest, fleet_text, plan_text));
    PGRIG_RETURN_IF_ERROR(CheckResumedRunDir(s));
    return s;
  }
  const std::string run_id = CompactTimestampUtc(WallSeconds());
  s.run_dir = s.fleet.results_dir + "/" + run_id;
  s.manifest = NewManifest(s.fleet, run_id, file, fleet_text, where->path, plan_text);
  return s;
}

namespace {

// The sut hosts to check (not skipped), checked at once.
std::vector<HostCheck> CheckSutHosts(const CompareSession& s, const SshTransport& ssh,
                                     const HostsOptions& o,
                                     const std::map<std::string, std::string>& skip) {
  CheckOptions check_options;
  check_options.local = s.local;
  check_options.copy = o.copy;
  const Fleet& f = s.fleet;
  std::vector<HostCheck> checks(f.hosts.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < f.hosts.size(); ++i) {
    checks[i].host = &f.hosts[i];
    checks[i].message = "not checked";
    if (f.hosts[i].role != HostRole::kSut || skip.count(f.hosts[i].label) > 0) continue;
    threads.emplace_back([&, i] { checks[i] = CheckHost(f.hosts[i], ssh, check_options); });
  }
  for (std::thread& t : threads) t.join();
  return checks;
}

}  // namespace

void CheckAndRunHosts(CompareSession& s, const SshTransport& ssh, const HostsOptions& o,
                      const std::map<std::string, std::string>& unavailable) {
  const Fleet& f = s.fleet;
  std::map<std::string, std::string> skip = unavailable;
  for (const ManifestHost& mh : s.manifest.hosts) {
    if (mh.outcome == ManifestOutcome::kCompleted) {
      skip[mh.label] = "completed in an earlier attempt: " + mh.message;
      o.on_line(fmt::format("[{}] completed in an earlier attempt: not run again", mh.label));
    }
  }
  std::vector<HostCheck> checks = CheckSutHosts(s, ssh, o, skip);
  for (const HostCheck& c : checks) {
    if (c.host->role != HostRole::kSut || skip.count(c.host->label) > 0) continue;
    o.on_line(RedactLine(
        fmt::format("[{}] check: {} {}", c.host->label, HostStateName(c.state), c.message)));
  }
  for (const InstanceFinding& w : CheckInstances(checks, s.catalog, ssh)) {
    if (!w.warning.empty()) o.on_line(fmt::format("[{}] warning: {}", w.host->label, w.warning));
  }

  CompareRunOptions options;
  options.run_id = s.manifest.run_id;
  options.plan_file = s.plan_file;
  options.plan_files = s.plan_files;
  options.resume = s.resuming ? ResumeMode::kContinuePartial : ResumeMode::kFresh;
  options.skip = skip;
  options.schedule = o.sequential || !f.parallel ? Schedule::kSequential : Schedule::kParallel;
  options.cancel = o.cancel;
  options.abort = o.abort;
  options.on_line = o.on_line;
  options.on_host_done = [&](const HostRun& r) {  // serialised by RunCompare
    if (ManifestHost* mh = s.manifest.Find(r.host->label)) RecordHostRun(r, *mh);
    if (Status w = WriteManifest(s.run_dir, s.manifest); !w.ok()) {
      o.on_line("warning: cannot update the run's manifest: " + w.message());
    }
  };
  std::vector<HostRun> runs = RunCompare(f, checks, ssh, options);
  for (const HostCheck& c : checks) ssh.CloseMaster(c.host->destination);
  // Hosts that did not run this time (not ready, interrupted first) say why.
  for (const HostRun& r : runs) {
    ManifestHost* mh = s.manifest.Find(r.host->label);
    if (mh == nullptr || r.host->role != HostRole::kSut || r.outcome != HostOutcome::kSkipped ||
        skip.count(r.host->label) > 0) {
      continue;
    }
    mh->message = RedactLine(r.message);
    if (r.message.starts_with("not ready")) mh->outcome = ManifestOutcome::kFailed;
  }
}

void RecordHookOutcomes(CompareSession& s, const LifecycleReport& hooks) {
  for (const auto& [label, why] : hooks.unavailable) {
    if (ManifestHost* mh = s.manifest.Find(label)) {
      mh->outcome = ManifestOutcome::kFailed;
      mh->message = RedactLine(why);
    }
  }
  if (hooks.fleet_provision_failed) {
    for (ManifestHost& mh : s.manifest.hosts) {
      if (mh.outcome == ManifestOutcome::kPending) mh.message = "the fleet provision failed";
    }
  }
}

CompletedResults CollectCompleted(const CompareSession& s) {
  CompletedResults out;
  for (const ManifestHost& mh : s.manifest.hosts) {
    const FleetHost* h = nullptr;
    for (const FleetHost& fh : s.fleet.hosts) {
      if (fh.label == mh.label) h = &fh;
    }
    if (h == nullptr || h->role != HostRole::kSut) continue;
    out.sut_hosts.push_back(&mh);
    if (mh.outcome == ManifestOutcome::kCompleted) {
      out.dirs.push_back(mh.results);
    } else {
      out.all_completed = false;
    }
  }
  return out;
}

}  // namespace pgrig::fleet
