#include "fleet/run.h"

#include <fmt/format.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "common/enum_names.h"
#include "common/fs.h"
#include "common/strings.h"
#include "fleet/host_failure.h"
#include "fleet/line_runner.h"

namespace pgrig::fleet {
namespace {

constexpr std::string_view kPidTag = "pgrig-fleet-pid:";
// How long an interrupted remote run gets to stop by itself.
constexpr std::chrono::seconds kInterruptGrace{60};

struct Shared {
  std::mutex mu;
  const CompareRunOptions* options = nullptr;

  void Done(const HostRun& run) {
    if (!options->on_host_done) return;
    std::lock_guard<std::mutex> lock(mu);
    options->on_host_done(run);
  }

  void Say(const std::string& label, std::string_view text) {
    SayPrefixed(mu, options->on_line, label, text);
  }
};

std::string FormatPrice(double usd) { return fmt::format("{:.6g}", usd); }

// The host's embedded cluster (the one its pgrig run uses, under the host's
// PGRIG_HOME), as `PGRIG cluster status --json` there says.
enum class ClusterState { kUnknown, kStopped, kRunning };

struct ClusterProbe {
  ClusterState state = ClusterState::kUnknown;
  std::string why;  // when unknown
};

ClusterProbe ProbeCluster(const FleetHost& h, const std::string& pgrig, const SshTransport& ssh) {
  auto r = ssh.Run(h.destination, RemoteCommand{.argv = {pgrig, "cluster", "status", "--json"},
                                                .env = h.env,
                                                .timeout = std::chrono::seconds(60)});
  if (!r.ok()) return {.why = r.status().message()};
  if (!r->success()) {
    return {.why = fmt::format("`pgrig cluster status` exited with status {}: {}", r->exit_code,
                               RedactLine(Trim(r->err)))};
  }
  nlohmann::json j = nlohmann::json::parse(r->out, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("running") || !j["running"].is_boolean()) {
    return {.why = "`pgrig cluster status --json` did not say whether it runs"};
  }
  return {.state = j["running"].get<bool>() ? ClusterState::kRunning : ClusterState::kStopped};
}

struct SettleInput {
  ClusterProbe before;   // before the run
  long remote_pid = 0;   // the remote pgrig run's, 0 when unknown
  bool aborted = false;  // a second Ctrl-C: nothing more is waited for
};

// After the host's run (whatever its outcome): stops the embedded cluster
// when this run started it, unless the fleet file keeps it, and never while
// the remote pgrig run still goes.  Says what it did; returns a warning for
// the host's summary ("" when none).
std::string SettleCluster(const FleetHost& h, const std::string& pgrig, const SshTransport& ssh,
                          const SettleInput& in, const std::function<void(std::string_view)>& say) {
  const std::string stop_hint =
      "stop it there with `" + RemoteShellLine({pgrig, "cluster", "stop"}, h.env) + "`";
  if (h.keep_cluster) {
    if (ProbeCluster(h, pgrig, ssh).state == ClusterState::kRunning) {
      say("left its embedded cluster running (keep_cluster)");
    }
    return "";
  }
  const ClusterProbe& before = in.before;
  if (before.state == ClusterState::kRunning) {
    say("left its embedded cluster running: it was running before the run");
    return "";
  }
  if (before.state == ClusterState::kUnknown) {
    say("could not tell whether its embedded cluster was running before the run (" + before.why +
        "): left as the run left it");
    return "";
  }
  if (in.aborted) {
    say("did not stop its embedded cluster (second interrupt); " + stop_hint);
    return "its embedded cluster may still be running (second interrupt): " + stop_hint;
  }
  const ClusterProbe after = ProbeCluster(h, pgrig, ssh);
  if (after.state == ClusterState::kStopped) return "";
  if (after.state == ClusterState::kUnknown) {
    say("warning: could not stop its embedded cluster: " + after.why);
    return "its embedded cluster may still be running (" + after.why + ")";
  }
  // The remote shell says "busy" instead of stopping while the run it
  // started still goes (it restores settings as it stops).
  std::vector<std::string> argv = {
      "sh",
      "-c",
      "if [ \"$0\" -gt 0 ] && kill -0 \"$0\" 2>/dev/null; then echo pgrig-fleet-busy; exit 0; "
      "fi; exec \"$@\"",
      std::to_string(in.remote_pid),
      pgrig,
      "cluster",
      "stop"};
  auto stop =
      ssh.Run(h.destination,
              RemoteCommand{.argv = argv, .env = h.env, .timeout = std::chrono::seconds(180)});
  if (stop.ok() && stop->success() && stop->out.find("pgrig-fleet-busy") != std::string::npos) {
    say(
        fmt::format("left its embedded cluster running: its pgrig run (pid {}) still goes there; "
                    "{} once it ends",
                    in.remote_pid, stop_hint));
    return "its embedded cluster was left running (its pgrig run still goes): " + stop_hint;
  }
  if (stop.ok() && stop->success()) {
    say("stopped its embedded cluster (this run started it)");
    return "";
  }
  const std::string why = stop.ok() ? fmt::format("`pgrig cluster stop` exited with status {}: {}",
                                                  stop->exit_code, RedactLine(Trim(stop->err)))
                                    : stop.status().message();
  say("warning: could not stop its embedded cluster: " + why);
  return "its embedded cluster may still be running (" + why + "): " + stop_hint;
}

HostRun RunOne(const Fleet& fleet, const FleetHost& h, const HostCheck& check,
               const SshTransport& ssh, const CompareRunOptions& o, Shared& shared) {
  HostRun run;
  run.host = &h;
  const std::string remote_dir = h.work_dir + "/" + o.run_id;
  const std::string remote_plan = remote_dir + "/plan.toml";
  const std::string remote_results = remote_dir + "/results";
  auto fail = [&](std::string why) {
    run.outcome = HostOutcome::kFailed;
    run.message = RedactLine(why);
    shared.Say(h.label, "failed: " + run.message);
    return run;
  };

  run.remote_results = remote_results;
  // The run directory and every directory a script file goes to.
  std::set<std::string> dirs = {remote_dir};
  for (const PlanFile& f : o.plan_files) {
    std::string parent =
        std::filesystem::path(remote_dir + "/" + f.relative).parent_path().string();
    dirs.insert(parent);
  }
  std::vector<std::string> mkdir = {"mkdir", "-p"};
  mkdir.insert(mkdir.end(), dirs.begin(), dirs.end());
  auto mk =
      ssh.Run(h.destination, RemoteCommand{.argv = mkdir, .timeout = std::chrono::seconds(60)});
  if (!mk.ok()) return fail(mk.status().message());
  if (!mk->success()) return fail("cannot make " + remote_dir + " there: " + mk->err);
  Status sent =
      ssh.CopyTo(h.destination, o.plan_file, remote_plan, CopyKind::kFile, o.copy_timeout);
  if (!sent.ok()) return fail(sent.message());
  for (const PlanFile& f : o.plan_files) {
    Status s = ssh.CopyTo(h.destination, f.local, remote_dir + "/" + f.relative, CopyKind::kFile,
                          o.copy_timeout);
    if (!s.ok()) return fail("copying the plan's script " + f.local + ": " + s.message());
  }

  // Whether the run will start the host's embedded cluster (stopped again
  // at the end); not asked when the fleet file keeps it.
  const ClusterProbe cluster_before =
      h.keep_cluster ? ClusterProbe{} : ProbeCluster(h, check.pgrig, ssh);

  // --resume: continue a partial suite there, or start again from nothing.
  bool continue_suite = false;
  if (o.resume == ResumeMode::kContinuePartial) {
    auto probe =
        ssh.Run(h.destination, RemoteCommand{.argv = {"test", "-f", remote_results + "/suite.json"},
                                             .timeout = std::chrono::seconds(60)});
    if (!probe.ok()) return fail(probe.status().message());
    continue_suite = probe->success();
    if (!continue_suite) {
      auto rm = ssh.Run(h.destination, RemoteCommand{.argv = {"rm", "-rf", remote_results},
                                                     .timeout = std::chrono::seconds(60)});
      if (!rm.ok()) return fail(rm.status().message());
    }
  }

  std::vector<std::string> argv =
      continue_suite ? std::vector<std::string>{check.pgrig,    "run",     "--resume",
                                                remote_results, "--label", h.label}
                     : std::vector<std::string>{check.pgrig,    "run",     remote_plan, "--out",
                                                remote_results, "--label", h.label};
  if (h.usd_per_hour) {
    argv.insert(argv.end(), {"--usd-per-hour", FormatPrice(*h.usd_per_hour)});
  } else if (h.instance) {
    argv.insert(argv.end(), {"--instance", *h.instance});
  }
  shared.Say(h.label, "running " + RemoteShellLine(argv, {}));
  // The remote shell says its pid, then becomes pgrig run: on Ctrl-C the
  // remote run gets SIGINT (it keeps its finished runs and restores
  // settings) instead of losing its connection.
  std::vector<std::string> wrapped = {"sh", "-c",
                                      "echo " + std::string(kPidTag) + "$$; exec \"$@\"", "sh"};
  wrapped.insert(wrapped.end(), argv.begin(), argv.end());
  RemoteCommand command{.argv = wrapped, .env = h.env};
  std::atomic<long> remote_pid{0};
  std::atomic<bool> hard_cancel{false};
  std::atomic<bool> finished{false};
  std::atomic<bool> interrupted{false};
  ErrorTail tail;
  LineRunOptions lo;
  lo.argv = ssh.SshArgv(h.destination, command);
  lo.timeout = o.host_timeout;
  lo.cancel = &hard_cancel;
  lo.on_line = [&](Stream s, std::string_view line) {
    if (s == Stream::kOut && remote_pid == 0 && line.starts_with(kPidTag)) {
      remote_pid = std::atol(std::string(line.substr(kPidTag.size())).c_str());
      return;
    }
    tail.Add(s, line);
    shared.Say(h.label, line);
  };
  std::thread watcher([&] {
    std::chrono::steady_clock::time_point signalled{};
    while (!finished) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (o.cancel == nullptr || !o.cancel->load() || hard_cancel) continue;
      if (o.abort != nullptr && o.abort->load()) {
        hard_cancel = true;
        continue;
      }
      if (!interrupted) {
        interrupted = true;
        signalled = std::chrono::steady_clock::now();
        if (remote_pid <= 0) {
          hard_cancel = true;
          continue;
        }
        shared.Say(h.label, "interrupting the remote run (SIGINT)");
        (void)ssh.Run(h.destination,
                      RemoteCommand{.argv = {"kill", "-INT", std::to_string(remote_pid.load())},
                                    .timeout = std::chrono::seconds(20)});
      } else if (std::chrono::steady_clock::now() - signalled > kInterruptGrace) {
        hard_cancel = true;
      }
    }
  });
  auto result = RunWithLines(lo);
  finished = true;
  watcher.join();
  if (!result.ok()) return fail(result.status().message());
  Status ssh_status = ssh.CheckSshFailure(h.destination, "the run", *result);

  // Whatever results exist come back, also after a failure.
  const std::string local = fleet.results_dir + "/" + o.run_id + "/" + h.label;
  Status made = MakeDirs(fleet.results_dir + "/" + o.run_id, 0755);
  // A copy from an earlier attempt (before --resume) would make scp nest
  // the new one inside it; the remote directory holds all of it anyway.
  if (made.ok()) (void)RemoveTree(local);
  Status copied = made.ok() ? ssh.CopyFrom(h.destination, remote_results, local,
                                           CopyKind::kDirectory, o.copy_timeout)
                            : made;
  if (copied.ok()) run.local_results = local;
  const std::string cluster_warning =
      SettleCluster(h, check.pgrig, ssh,
                    {.before = cluster_before,
                     .remote_pid = remote_pid.load(),
                     .aborted = o.abort != nullptr && o.abort->load()},
                    [&](std::string_view line) { shared.Say(h.label, line); });
  const std::string warned = cluster_warning.empty() ? "" : "; WARNING: " + cluster_warning;

  const std::string partial = copied.ok() ? "; its partial results were copied back" : "";
  if (interrupted) return fail("interrupted" + partial + warned);
  if (std::string why = DescribeHostFailure(h.destination, "pgrig run", *result, ssh_status, tail);
      !why.empty()) {
    return fail(why + partial + warned);
  }
  if (!copied.ok()) return fail("copying the results back failed: " + copied.message() + warned);
  run.outcome = HostOutcome::kCompleted;
  run.message = "results in " + local + warned;
  shared.Say(h.label, "done: " + run.message);
  return run;
}

}  // namespace

Result<std::vector<PlanFile>> PlanScriptFiles(const plan::Plan& plan) {
  namespace fs = std::filesystem;
  std::vector<PlanFile> files;
  std::set<std::string> seen;
  const fs::path dir = fs::path(plan.source_path).parent_path().lexically_normal();
  for (const plan::Workload& w : plan.workloads) {
    for (const plan::ScriptRef& ref : w.scripts) {
      if (ref.kind != plan::ScriptRef::Kind::kFile || !seen.insert(ref.spec).second) continue;
      fs::path rel = fs::path(ref.spec).lexically_normal().lexically_relative(dir);
      if (rel.empty() || rel.is_absolute() || *rel.begin() == "..") {
        return InvalidArgument(fmt::format(
            "{}: workload '{}' uses the script {}, which is not in the plan's directory {}; a "
            "fleet copies the scripts beside the plan, so move the script there (or below it) "
            "and name it by a relative path",
            plan.source_path, w.name, ref.spec, dir.string()));
      }
      files.push_back(PlanFile{ref.spec, rel.string()});
    }
  }
  return files;
}

const char* HostOutcomeName(HostOutcome o) {
  static constexpr const char* kNames[] = {"completed", "failed", "skipped"};
  return NameAt<HostOutcome::kSkipped>(o, kNames);
}

std::vector<HostRun> RunCompare(const Fleet& fleet, const std::vector<HostCheck>& checks,
                                const SshTransport& ssh, const CompareRunOptions& options) {
  Shared shared;
  shared.options = &options;
  std::vector<HostRun> runs(fleet.hosts.size());
  std::vector<size_t> todo;
  for (size_t i = 0; i < fleet.hosts.size(); ++i) {
    runs[i].host = &fleet.hosts[i];
    if (fleet.hosts[i].role != HostRole::kSut) {
      runs[i].message = "not a sut host";
    } else if (auto sk = options.skip.find(fleet.hosts[i].label); sk != options.skip.end()) {
      runs[i].message = sk->second;
    } else if (options.cancel != nullptr && options.cancel->load()) {
      runs[i].message = "interrupted before it started";
    } else if (i >= checks.size() ||
               (checks[i].state != HostState::kReady && checks[i].state != HostState::kCopied)) {
      runs[i].message = i < checks.size() ? "not ready: " + checks[i].message : "not checked";
      shared.Say(fleet.hosts[i].label, "skipped: " + runs[i].message);
    } else {
      todo.push_back(i);
    }
  }
  if (options.schedule == Schedule::kSequential) {
    for (size_t i : todo) {
      if (options.cancel != nullptr && options.cancel->load()) break;
      runs[i] = RunOne(fleet, fleet.hosts[i], checks[i], ssh, options, shared);
      shared.Done(runs[i]);
    }
  } else {
    std::vector<std::thread> threads;
    for (size_t i : todo) {
      threads.emplace_back([&, i] {
        runs[i] = RunOne(fleet, fleet.hosts[i], checks[i], ssh, options, shared);
        shared.Done(runs[i]);
      });
    }
    for (std::thread& t : threads) t.join();
  }
  return runs;
}

void RecordHostRun(const HostRun& run, ManifestHost& entry) {
  entry.results = run.local_results;
  entry.remote_results = run.remote_results;
  entry.message = RedactLine(run.message);
  switch (run.outcome) {
    case HostOutcome::kCompleted:
      entry.outcome = ManifestOutcome::kCompleted;
      break;
    case HostOutcome::kFailed:
      entry.outcome = !run.local_results.empty() &&
                              std::filesystem::is_regular_file(run.local_results + "/suite.json")
                          ? ManifestOutcome::kPartial
                          : ManifestOutcome::kFailed;
      break;
    case HostOutcome::kSkipped:
      entry.outcome = ManifestOutcome::kPending;  // skipped this time: still to do
      break;
  }
}

}  // namespace pgrig::fleet
