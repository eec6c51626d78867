// `pgrig fleet run` in compare mode: the same plan on each `sut` host, its
// results copied back, ready for `pgrig compare`.
//
// Per host (all at once, or one after another): make <work_dir>/<run id>
// there, copy the plan file into it, run `PGRIG run PLAN --out
// <work_dir>/<run id>/results --label LABEL [--usd-per-hour N | --instance T]`
// with the host's `env`, streaming every output line to the caller prefixed
// with the host's label (and redacted), then copy the results directory back
// to <results_dir>/<run id>/<label>.  A host that fails (unreachable, its run
// failed, the copy failed) is recorded with the reason; the others go on.
// Results a failed run left behind are still copied back when they exist
// (a suite that stopped early is marked incomplete in its suite.json).
//
// When `cancel` becomes true (Ctrl-C), each running host's remote pgrig gets
// SIGINT (through a second ssh command, by the pid its shell reported), has
// 60 s to stop and write what it finished, and its partial results are
// copied back; only then is ssh killed.
//
// The hosts must have been checked first (check.h): the pgrig command per
// host comes from its HostCheck.  The progress callback is called from one
// thread per host, serialised by a mutex here.  Nothing here prints.
#ifndef PGRIG_FLEET_RUN_H_
#define PGRIG_FLEET_RUN_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "fleet/check.h"
#include "fleet/fleet_file.h"
#include "fleet/ssh.h"

namespace pgrig::fleet {

enum class Schedule { kParallel, kSequential };

struct CompareRunOptions {
  std::string run_id;      // names the run's directories here and on the hosts
  std::string plan_file;   // the plan, located on this machine
  Schedule schedule = Schedule::kParallel;
  std::chrono::seconds host_timeout{std::chrono::hours(24)};
  std::chrono::seconds copy_timeout{std::chrono::minutes(10)};
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(const std::string& line)> on_line;  // "[label] text", redacted
};

enum class HostOutcome { kCompleted, kFailed, kSkipped };

const char* HostOutcomeName(HostOutcome o);

struct HostRun {
  const FleetHost* host = nullptr;
  HostOutcome outcome = HostOutcome::kSkipped;
  std::string local_results;  // the copied results directory; empty when none came back
  std::string message;        // why it failed or was skipped (redacted)
};

// `checks` are CheckFleet's results (same order as fleet.hosts); hosts that
// are not sut, or not ready, are skipped with the reason.
std::vector<HostRun> RunCompare(const Fleet& fleet, const std::vector<HostCheck>& checks,
                                const SshTransport& ssh, const CompareRunOptions& options);

}  // namespace pgrig::fleet

#endif  // PGRIG_FLEET_RUN_H_
