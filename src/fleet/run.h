// `pgrig fleet run` in compare mode: the same plan on each `sut` host, its
// results copied back, ready for `pgrig compare`.
//
// Per host (all at once, or one after another): make <work_dir>/<run id>
// there, copy the plan file into it (with the script files it names, at
// their paths relative to the plan), run `PGRIG run PLAN --out
// <work_dir>/<run id>/results --label LABEL [--usd-per-hour N | --instance T]`
// with the host's `env`, streaming every output line to the caller prefixed
// with the host's label (and redacted), then copy the results directory back
// to <results_dir>/<run id>/<label>.  A host that fails (unreachable, its run
// failed, the copy failed) is recorded with the reason; the others go on.
// Results a failed run left behind are still copied back when they exist
// (a suite that stopped early is marked incomplete in its suite.json).
//
// With ResumeMode::kContinuePartial (`fleet run --resume`), a host whose
// remote results directory holds a suite.json continues it with
// `PGRIG run --resume DIR`; otherwise that directory is removed and the run
// starts fresh.  Hosts named in `skip` are not run (outcome kSkipped, the
// reason given): completed before a resume, or their provision failed.
//
// When `cancel` becomes true (Ctrl-C), each running host's remote pgrig gets
// SIGINT (through a second ssh command, by the pid its shell reported), has
// 60 s to stop and write what it finished, and its partial results are
// copied back; only then is ssh killed.  When `abort` becomes true too (a
// second Ctrl-C), ssh is killed at once (the remote run already has its
// SIGINT) and what results exist are still copied back.
//
// The hosts must have been checked first (check.h): the pgrig command per
// host comes from its HostCheck.  The progress callback is called from one
// thread per host, serialised by a mutex here.  Nothing here prints.
#ifndef PGRIG_FLEET_RUN_H_
#define PGRIG_FLEET_RUN_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "fleet/check.h"
#include "fleet/fleet_file.h"
#include "fleet/manifest.h"
#include "fleet/ssh.h"
#include "plan/plan.h"

namespace pgrig::fleet {

enum class Schedule { kParallel, kSequential };
enum class ResumeMode { kFresh, kContinuePartial };

// A file the remote run needs beside the plan: a workload's script.
struct PlanFile {
  std::string local;     // absolute, on this machine
  std::string relative;  // where it goes, relative to the remote plan's directory
};

// The script files a plan names (file workloads), each relative to the
// plan's directory.  A script outside that directory cannot be placed beside
// the remote plan: InvalidArgument naming it and saying to move it there.
Result<std::vector<PlanFile>> PlanScriptFiles(const plan::Plan& plan);

struct HostRun;

struct CompareRunOptions {
  std::string run_id;     // names the run's directories here and on the hosts
  std::string plan_file;  // the plan, located on this machine
  Schedule schedule = Schedule::kParallel;
  std::chrono::seconds host_timeout{std::chrono::hours(24)};
  std::chrono::seconds copy_timeout{std::chrono::minutes(10)};
  std::vector<PlanFile> plan_files;  // copied beside the plan (PlanScriptFiles)
  ResumeMode resume = ResumeMode::kFresh;
  std::map<std::string, std::string> skip;  // label -> why it is not run
  const std::atomic<bool>* cancel = nullptr;
  // A second Ctrl-C: stop waiting for interrupted remote runs, kill ssh now.
  const std::atomic<bool>* abort = nullptr;
  std::function<void(const std::string& line)> on_line;  // "[label] text", redacted
  // Called as each host ends (from its thread, serialised with on_line).
  std::function<void(const HostRun& run)> on_host_done;
};

enum class HostOutcome { kCompleted, kFailed, kSkipped };

const char* HostOutcomeName(HostOutcome o);

struct HostRun {
  const FleetHost* host = nullptr;
  HostOutcome outcome = HostOutcome::kSkipped;
  std::string local_results;   // the copied results directory; empty when none came back
  std::string remote_results;  // <work_dir>/<run id>/results on the host
  std::string message;         // why it failed or was skipped (redacted)
};

// What a finished host run means for its manifest entry: completed;
// partial when it failed but a suite.json came back, else failed; pending
// again when it was skipped this time.  The message is redacted.
void RecordHostRun(const HostRun& run, ManifestHost& entry);

// `checks` are CheckFleet's results (same order as fleet.hosts); hosts that
// are not sut, or not ready, are skipped with the reason.
std::vector<HostRun> RunCompare(const Fleet& fleet, const std::vector<HostCheck>& checks,
                                const SshTransport& ssh, const CompareRunOptions& options);

}  // namespace pgrig::fleet

#endif  // PGRIG_FLEET_RUN_H_
