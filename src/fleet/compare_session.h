// A compare-mode fleet run from its fleet file to its hosts' outcomes in the
// run manifest: everything `pgrig fleet run` does between parsing its options
// and printing its summary, apart from the signals and the hooks' frame.
//
//   PrepareCompareSession   reads and checks everything (fleet file, plan and
//                           its scripts, declared instances, --resume) before
//                           any hook, connection or write
//   CheckAndRunHosts        inside the hooks: checks the sut hosts, compares
//                           their facts with their declared instance, runs
//                           the plan (RunCompare) and records each host's end
//                           in the manifest as it comes
//   RecordHookOutcomes      after the hooks: hosts whose provision failed
//   CompletedResults        the results directories to compare
//
// The session owns its manifest; writing it is the caller's (WriteManifest)
// except for the per-host updates CheckAndRunHosts makes as hosts end.
// Not thread-safe; one session per run.
#ifndef PGRIG_FLEET_COMPARE_SESSION_H_
#define PGRIG_FLEET_COMPARE_SESSION_H_

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "cost/catalog.h"
#include "fleet/check.h"
#include "fleet/fleet_file.h"
#include "fleet/hooks.h"
#include "fleet/manifest.h"
#include "fleet/run.h"
#include "fleet/ssh.h"

namespace pgrig::fleet {

struct CompareSession {
  Fleet fleet;
  LocalPgrig local;
  std::string plan_file;  // located on this machine
  std::vector<PlanFile> plan_files;
  cost::Catalog catalog;
  std::string run_dir;  // <results_dir>/<run id>
  Manifest manifest;
  bool resuming = false;
};

// The run directory --resume names: a directory holding a manifest, or a
// run id under the fleet file's results directory.
Result<std::string> ResumeDir(const std::string& resume, const std::string& fleet_file);

// `fleet_file` (may be empty with `resume`, which then names it through the
// manifest) read and checked; a new run gets a run id from the clock and a
// fresh manifest, a resumed one its manifest after CheckResumable.  Refuses a
// clients-mode fleet (it cannot be resumed and has its own path).
Result<CompareSession> PrepareCompareSession(std::string fleet_file, const std::string& resume,
                                             const std::string& tool_version);

struct HostsOptions {
  bool sequential = false;  // one host after another whatever the fleet says
  CopyPolicy copy = CopyPolicy::kCopyWhenNeeded;
  const std::atomic<bool>* cancel = nullptr;
  const std::atomic<bool>* abort = nullptr;
  std::function<void(const std::string& line)> on_line;  // redacted lines for people
};

// Checks and runs the sut hosts that are not `unavailable` (label -> why)
// and did not complete in an earlier attempt; rewrites the manifest in
// `s.run_dir` as each host ends.
void CheckAndRunHosts(CompareSession& s, const SshTransport& ssh, const HostsOptions& options,
                      const std::map<std::string, std::string>& unavailable);

// Hosts whose provision failed are failed in the manifest; with a failed
// fleet provision, the hosts still pending say so.
void RecordHookOutcomes(CompareSession& s, const LifecycleReport& hooks);

// The manifest's sut hosts (pointers into s.manifest), the results
// directories of those that completed, in the manifest's order, and whether
// every sut host completed.
struct CompletedResults {
  std::vector<const ManifestHost*> sut_hosts;
  std::vector<std::string> dirs;
  bool all_completed = true;
};
CompletedResults CollectCompleted(const CompareSession& s);

}  // namespace pgrig::fleet

#endif  // PGRIG_FLEET_COMPARE_SESSION_H_
