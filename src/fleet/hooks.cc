#include "fleet/hooks.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <mutex>
#include <thread>

#include "common/enum_names.h"
#include "common/fs.h"
#include "fleet/line_runner.h"
#include "fleet/ssh.h"

extern char** environ;

namespace pgrig::fleet {
namespace {

constexpr size_t kMinSecretLength = 6;

bool LooksSecret(std::string_view name) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  for (std::string_view word : {"PASSWORD", "SECRET", "TOKEN", "CREDENTIAL"}) {
    if (upper.find(word) != std::string::npos) return true;
  }
  return upper.size() > 4 && upper.ends_with("_KEY");
}

std::string Elapsed(std::chrono::milliseconds ms) {
  return fmt::format("{:.1f} s", static_cast<double>(ms.count()) / 1000.0);
}

// Serialises on_line across the hosts' threads.
struct Printer {
  std::mutex mu;
  const std::function<void(const std::string&)>* sink = nullptr;
  void operator()(const std::string& line) {
    if (sink == nullptr || !*sink) return;
    std::lock_guard<std::mutex> lock(mu);
    (*sink)(line);
  }
};

}  // namespace

const char* HookKindName(HookKind k) {
  return k == HookKind::kProvision ? "provision" : "teardown";
}

const char* HookStatusName(HookStatus s) {
  static constexpr const char* kNames[] = {"succeeded", "failed", "timed out", "aborted",
                                           "not started"};
  return NameAt<HookStatus::kNotStarted>(s, kNames);
}

std::vector<std::pair<std::string, std::string>> HookEnvironment(const HookContext& ctx) {
  return {{"PGRIG_FLEET_HOOK", HookKindName(ctx.kind)}, {"PGRIG_FLEET_LABEL", ctx.label},
          {"PGRIG_FLEET_DESTINATION", ctx.destination}, {"PGRIG_FLEET_RUN_ID", ctx.run_id},
          {"PGRIG_FLEET_RESULTS", ctx.results_dir},     {"PGRIG_FLEET_FILE", ctx.fleet_file}};
}

std::string RedactHookLine(std::string_view line) {
  std::string out = RedactLine(line);
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view kv(*e);
    size_t eq = kv.find('=');
    if (eq == std::string_view::npos || !LooksSecret(kv.substr(0, eq))) continue;
    std::string_view value = kv.substr(eq + 1);
    if (value.size() < kMinSecretLength) continue;
    for (size_t pos; (pos = out.find(value)) != std::string::npos;)
      out.replace(pos, value.size(), "***");
  }
  return out;
}

std::string HookLogFile(const std::string& results_dir, const std::string& label) {
  return results_dir + "/hooks/" + (label.empty() ? std::string("fleet") : label) + ".log";
}

HookOutcome RunHook(const Hook& hook, const HookContext& ctx, const HookRunOptions& options) {
  HookOutcome outcome;
  outcome.kind = ctx.kind;
  outcome.label = ctx.label;
  const std::string who = ctx.label.empty() ? "fleet" : ctx.label;
  const std::string tag = fmt::format("[{}] {}: ", who, HookKindName(ctx.kind));
  std::ofstream log;
  if (!options.log_file.empty()) {
    (void)MakeDirs(options.log_file.substr(0, options.log_file.rfind('/')), 0755);
    log.open(options.log_file, std::ios::app);
  }
  auto say = [&](const std::string& text) {
    std::string line = RedactHookLine(text);
    if (log.is_open()) log << HookKindName(ctx.kind) << ": " << line << '\n' << std::flush;
    if (options.on_line) options.on_line(tag + line);
  };

  LineRunOptions lo;
  lo.argv = {"env"};
  for (const auto& [k, v] : HookEnvironment(ctx)) lo.argv.push_back(k + "=" + v);
  lo.argv.insert(lo.argv.end(), hook.argv.begin(), hook.argv.end());
  lo.timeout = hook.timeout;
  lo.cancel = options.abort;
  lo.on_line = [&](Stream, std::string_view line) { say(std::string(line)); };
  say(fmt::format("running {} (timeout {} s)", RemoteShellLine(hook.argv, {}),
                  hook.timeout.count()));
  const auto start = std::chrono::steady_clock::now();
  auto r = RunWithLines(lo);
  outcome.took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  if (!r.ok()) {
    outcome.status = HookStatus::kFailed;
    outcome.message = r.status().message();
  } else if (r->timed_out) {
    bool aborted = options.abort != nullptr && options.abort->load();
    outcome.status = aborted ? HookStatus::kAborted : HookStatus::kTimedOut;
    outcome.message =
        aborted
            ? fmt::format("killed (its process group) by a second Ctrl-C after {}",
                          Elapsed(outcome.took))
            : fmt::format("timed out after {} s: killed (its process group)", hook.timeout.count());
  } else if (!r->success()) {
    outcome.status = HookStatus::kFailed;
    outcome.message =
        r->signal != 0
            ? fmt::format("killed by signal {} after {}", r->signal, Elapsed(outcome.took))
            : fmt::format("exited with {} after {}", r->exit_code, Elapsed(outcome.took));
  } else {
    outcome.status = HookStatus::kSucceeded;
    outcome.message = "succeeded in " + Elapsed(outcome.took);
  }
  outcome.message = RedactHookLine(outcome.message);
  say(outcome.message);
  return outcome;
}

LifecycleReport RunWithHooks(
    const Fleet& fleet, const LifecycleOptions& o,
    const std::function<void(const std::map<std::string, std::string>& unavailable)>& body) {
  LifecycleReport report;
  Printer print;
  print.sink = &o.on_line;
  std::mutex mu;  // guards report
  auto cancelled = [&] { return o.cancel != nullptr && o.cancel->load(); };
  auto aborted = [&] { return o.abort != nullptr && o.abort->load(); };
  auto run = [&](const Hook& hook, HookKind kind, const FleetHost* host) {
    HookContext ctx{.kind = kind,
                    .label = host != nullptr ? host->label : "",
                    .destination = host != nullptr ? host->destination : "",
                    .run_id = o.run_id,
                    .results_dir = o.results_dir,
                    .fleet_file = fleet.file};
    HookRunOptions ro{.log_file = HookLogFile(o.results_dir, ctx.label),
                      .abort = o.abort,
                      .on_line = [&](const std::string& l) { print(l); }};
    HookOutcome out = RunHook(hook, ctx, ro);
    std::lock_guard<std::mutex> lock(mu);
    report.hooks.push_back(out);
    return out;
  };
  // Runs fn(host) for each host, all at once or one after another.
  auto for_hosts = [&](const std::vector<const FleetHost*>& hosts,
                       const std::function<void(const FleetHost&)>& fn) {
    if (!o.parallel_hosts) {
      for (const FleetHost* h : hosts) fn(*h);
      return;
    }
    std::vector<std::thread> threads;
    for (const FleetHost* h : hosts) threads.emplace_back([&fn, h] { fn(*h); });
    for (std::thread& t : threads) t.join();
  };

  // Hosts whose teardown is due (their provision phase was reached).
  std::vector<const FleetHost*> reached;
  if (fleet.provision && !aborted()) {
    HookOutcome out = run(*fleet.provision, HookKind::kProvision, nullptr);
    report.fleet_provision_failed = out.status != HookStatus::kSucceeded;
  }
  if (!report.fleet_provision_failed) {
    std::vector<const FleetHost*> hosts;
    for (const FleetHost& h : fleet.hosts) {
      if (o.done.count(h.label) == 0) hosts.push_back(&h);
    }
    for_hosts(hosts, [&](const FleetHost& h) {
      if (h.provision && cancelled()) return;  // never started: no teardown due
      {
        std::lock_guard<std::mutex> lock(mu);
        reached.push_back(&h);
      }
      if (!h.provision) return;
      HookOutcome out = run(*h.provision, HookKind::kProvision, &h);
      if (out.status != HookStatus::kSucceeded) {
        std::lock_guard<std::mutex> lock(mu);
        report.unavailable[h.label] = std::string("its provision hook ") + out.message;
      }
    });
    if (!cancelled()) {
      report.body_ran = true;
      body(report.unavailable);
    }
  }
  // Teardowns, in fleet order of the reached hosts, then the fleet's.
  std::vector<const FleetHost*> due;
  for (const FleetHost& h : fleet.hosts) {
    if (h.teardown && std::find(reached.begin(), reached.end(), &h) != reached.end()) {
      due.push_back(&h);
    }
  }
  for_hosts(due, [&](const FleetHost& h) {
    if (aborted()) {
      std::lock_guard<std::mutex> lock(mu);
      report.teardowns_skipped.push_back(h.label);
      return;
    }
    run(*h.teardown, HookKind::kTeardown, &h);
  });
  if (fleet.teardown) {
    if (aborted()) {
      report.teardowns_skipped.push_back("fleet");
    } else {
      run(*fleet.teardown, HookKind::kTeardown, nullptr);
    }
  }
  return report;
}

}  // namespace pgrig::fleet
