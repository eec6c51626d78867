// Provisioning hooks: the fleet's and each host's `provision` and `teardown`
// commands (a cloud CLI, terraform), run on this machine around a fleet run.
//
// RunHook runs one hook: its argv (a string command is already `sh -c` from
// the fleet file) with the environment below added, in its own process
// group, with the hook's timeout; at the timeout (or when `abort` becomes
// true: a second Ctrl-C) the whole process group is killed and the outcome
// says so.  Every output line is redacted (RedactHookLine), appended to the
// hook's log file and handed to `on_line` as "[label] provision: text".
//
// Environment of every hook (on top of pgrig's own):
//   PGRIG_FLEET_HOOK         provision | teardown
//   PGRIG_FLEET_LABEL        the host's label; empty for the fleet's hooks
//   PGRIG_FLEET_DESTINATION  the host's ssh destination; empty for the fleet's
//   PGRIG_FLEET_RUN_ID       the fleet run's id
//   PGRIG_FLEET_RESULTS      the fleet run's local results directory
//   PGRIG_FLEET_FILE         the fleet file, as given
//
// RunWithHooks is the order of a whole run: fleet provision, host
// provisions (all hosts at once, or one after another), `body` (check and
// run), host teardowns, fleet teardown.  The teardown rule:
//   - the fleet's teardown runs always (after success, failure, a failed or
//     timed-out fleet provision, Ctrl-C);
//   - a host's teardown runs when that host's provision was started,
//     whatever came of it (failed, timed out, interrupted), or, for a host
//     without a provision hook, when the fleet provision succeeded (or there
//     is none); it does not run for a host whose provision never started
//     (the fleet provision failed, or Ctrl-C came before it).
// Hosts in `done` are left out of both.  A host whose provision failed is handed to `body` as
// unavailable (it is not checked or run; the other hosts go on).  `body` is not called when the
// fleet provision failed or `cancel` is already true.  A first Ctrl-C
// (`cancel`) lets running hooks finish and starts no new provision; a second
// one (`abort`) kills the running hooks and skips every teardown not yet
// started: the report lists them so the user can run them by hand.
//
// Nothing here prints.  `on_line` is called from several threads at once
// (one per host), serialised by a mutex here.  Thread-safe otherwise (no
// shared state).
#ifndef PGRIG_FLEET_HOOKS_H_
#define PGRIG_FLEET_HOOKS_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/fleet_file.h"

namespace pgrig::fleet {

enum class HookKind { kProvision, kTeardown };
const char* HookKindName(HookKind k);

struct HookContext {
  HookKind kind = HookKind::kProvision;
  std::string label;        // empty: the fleet's hook
  std::string destination;  // empty: the fleet's hook
  std::string run_id;
  std::string results_dir;  // the fleet run's local directory
  std::string fleet_file;
};

struct HookRunOptions {
  std::string log_file;  // appended to; empty: no log
  const std::atomic<bool>* abort = nullptr;
  std::function<void(const std::string& line)> on_line;
};

enum class HookStatus { kSucceeded, kFailed, kTimedOut, kAborted, kNotStarted };
const char* HookStatusName(HookStatus s);

struct HookOutcome {
  HookKind kind = HookKind::kProvision;
  std::string label;  // empty: the fleet's
  HookStatus status = HookStatus::kNotStarted;
  std::string message;  // for humans: what ran, how it ended
  std::chrono::milliseconds took{0};
};

// The environment a hook gets (the variables above), in a stable order.
std::vector<std::pair<std::string, std::string>> HookEnvironment(const HookContext& ctx);

// Masks passwords (RedactLine) and the values of this process's environment
// variables whose names say they are secret (containing PASSWORD, SECRET,
// TOKEN, CREDENTIAL, or ending in _KEY; values of 6 characters or more).
std::string RedactHookLine(std::string_view line);

HookOutcome RunHook(const Hook& hook, const HookContext& ctx, const HookRunOptions& options);

struct LifecycleOptions {
  std::string run_id;
  std::string results_dir;  // the fleet run's local directory; logs go to <it>/hooks/
  bool parallel_hosts = true;
  // Hosts left alone, neither provisioned nor torn down (--resume: they
  // completed in an earlier attempt).
  std::set<std::string> done;
  const std::atomic<bool>* cancel = nullptr;  // first Ctrl-C
  const std::atomic<bool>* abort = nullptr;   // second Ctrl-C
  std::function<void(const std::string& line)> on_line;
};

struct LifecycleReport {
  std::vector<HookOutcome> hooks;  // in the order they ended
  bool fleet_provision_failed = false;
  bool body_ran = false;
  // Host label -> why it is unavailable (its provision failed).
  std::map<std::string, std::string> unavailable;
  // Teardowns that should have run but did not (a second Ctrl-C): "fleet" or labels.
  std::vector<std::string> teardowns_skipped;
};

// The log file of a host's hooks (label) or of the fleet's (empty label).
std::string HookLogFile(const std::string& results_dir, const std::string& label);

LifecycleReport RunWithHooks(
    const Fleet& fleet, const LifecycleOptions& options,
    const std::function<void(const std::map<std::string, std::string>& unavailable)>& body);

}  // namespace pgrig::fleet

#endif  // PGRIG_FLEET_HOOKS_H_
