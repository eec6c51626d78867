#include "fleet/client_mode.h"

#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

#include "common/fs.h"
#include "fleet/host_failure.h"
#include "fleet/line_runner.h"
#include "fleet/merge.h"
#include "observe/bottleneck.h"
#include "observe/observe.h"
#include "pg/connection.h"
#include "results/observation_json.h"
#include "tpcc/measure.h"
#include "tpcc/run.h"
#include "tpcc/run_args.h"
#include "workload/bench_options.h"

namespace pgrig::fleet {
namespace {

using nlohmann::json;

// After the go: the window, plus time for connecting, finishing and writing.
constexpr std::chrono::seconds kRunSlack{300};

// One client host during the run; guarded by Coordinator::mu.
struct Client {
  size_t index = 0;
  const FleetHost* host = nullptr;
  const HostCheck* check = nullptr;
  int stdin_fd = -1;
  bool ready = false;
  bool ended = false;
  std::string error;  // why it failed (redacted)
  std::string remote_result;
  std::atomic<bool> kill{false};
};

struct Coordinator {
  std::mutex mu;
  std::condition_variable cv;
  const ClientRunOptions* options = nullptr;

  void Say(const std::string& label, std::string_view text) {
    SayPrefixed(mu, options->on_line, label, text);
  }
};

// Writes all of `text` to a pipe whose reader may be gone, without SIGPIPE
// killing this process: SIGPIPE is blocked on this thread and a pending one
// is consumed.
bool WriteToPipe(int fd, std::string_view text) {
  sigset_t pipe_set, old;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  bool ok = true;
  size_t done = 0;
  while (done < text.size()) {
    ssize_t w = ::write(fd, text.data() + done, text.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      ok = false;
      break;
    }
    done += static_cast<size_t>(w);
  }
  if (!ok) {
    timespec zero{0, 0};
    (void)sigtimedwait(&pipe_set, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return ok;
}

void RunClient(const Fleet& fleet, const SshTransport& ssh, const ClientRunOptions& o,
               std::chrono::seconds run_timeout, Client& c, Coordinator& co) {
  const FleetHost& h = *c.host;
  auto finish = [&](std::string error) {
    std::lock_guard<std::mutex> lock(co.mu);
    c.ended = true;
    c.error = RedactLine(error);
    co.cv.notify_all();
  };
  const std::string remote_dir = h.work_dir + "/" + o.run_id;
  c.remote_result = remote_dir + "/result.json";
  auto mk = ssh.Run(h.destination, RemoteCommand{.argv = {"mkdir", "-p", remote_dir},
                                                 .timeout = std::chrono::seconds(60)});
  if (!mk.ok()) return finish(mk.status().message());
  if (!mk->success()) return finish("cannot make " + remote_dir + " there: " + mk->err);

  // Each client runs pgrig bench, or pgrig tpcc run (the fleet file has one).
  std::vector<std::string> argv = {c.check->pgrig, "bench"};
  if (fleet.tpcc) argv = {c.check->pgrig, "tpcc", "run"};
  const std::vector<std::string>& args = fleet.tpcc ? *fleet.tpcc : *fleet.bench;
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--db", *fleet.server, "--json", c.remote_result});
  std::map<std::string, std::string> env = h.env;
  env[kFleetStartGateEnv] = std::to_string(o.ready_timeout.count());
  co.Say(h.label, "running " + RedactLine(RemoteShellLine(argv, {})));
  // stdin_data only decides that ssh keeps its stdin (no -n): the go line
  // goes through the pipe that on_stdin hands over.
  RemoteCommand command{.argv = argv, .env = env, .stdin_data = "\n"};
  LineRunOptions lo;
  lo.argv = ssh.SshArgv(h.destination, command);
  lo.timeout = run_timeout;
  lo.cancel = &c.kill;
  lo.on_stdin = [&](int fd) {
    std::lock_guard<std::mutex> lock(co.mu);
    c.stdin_fd = fd;
  };
  ErrorTail tail;
  lo.on_line = [&](Stream s, std::string_view line) {
    tail.Add(s, line);
    if (s == Stream::kOut && line == kFleetReadyLine) {
      std::lock_guard<std::mutex> lock(co.mu);
      c.ready = true;
      co.cv.notify_all();
      return;
    }
    co.Say(h.label, RedactLine(line));
  };
  auto result = RunWithLines(lo);
  if (!result.ok()) return finish(result.status().message());
  Status ssh_status = ssh.CheckSshFailure(h.destination, "the benchmark", *result);
  finish(DescribeHostFailure(h.destination, fleet.tpcc ? "pgrig tpcc run" : "pgrig bench", *result,
                             ssh_status, tail));
}

void CloseStdin(Client& c) {
  if (c.stdin_fd >= 0) ::close(c.stdin_fd);
  c.stdin_fd = -1;
}

// One line of a libpq message (they span lines).
std::string OneLine(std::string text) {
  for (char& ch : text) {
    if (ch == '\n' || ch == '\t') ch = ' ';
  }
  return text;
}

// Clients mode over `pgrig tpcc run`: what only the controller can read on
// the server, since every client sees its own commits only.  Open() checks
// the load before any client starts; Before() reads the counts once every
// client is ready (their warm-ups done) and before "go"; After(), once
// every client ended, reads them again and checks conditions 1-4 on every
// warehouse.
class TpccWatch {
 public:
  static Result<TpccWatch> Open(const std::string& server) {
    TpccWatch w;
    PGRIG_ASSIGN_OR_RETURN(w.conn_,
                           pg::Connect({.dbname = server, .application_name = "pgrig-fleet-tpcc"}));
    PGRIG_RETURN_IF_ERROR(tpcc::ReadLoad(w.conn_).status());
    return w;
  }
  Status Before() {
    auto n = tpcc::NewOrderCounter(conn_);
    auto u = tpcc::UndeliveredOrders(conn_);
    if (!n.ok() || !u.ok()) {
      return Unavailable("the server's TPC-C counts could not be read before the start: " +
                         OneLine((n.ok() ? u.status() : n.status()).message()));
    }
    new_orders_before_ = *n;
    undelivered_before_ = *u;
    return Status::Ok();
  }
  TpccServerCounts After() {
    TpccServerCounts c;
    auto n = tpcc::NewOrderCounter(conn_);
    auto u = tpcc::UndeliveredOrders(conn_);
    if (!n.ok() || !u.ok()) {
      c.problems.push_back("the server's TPC-C counts could not be read after the run: " +
                           OneLine((n.ok() ? u.status() : n.status()).message()));
      return c;
    }
    c.new_orders = *n - new_orders_before_;
    c.undelivered_before = undelivered_before_;
    c.undelivered_after = *u;
    auto checked = tpcc::CheckConditionsAfterRun(conn_, {});
    if (!checked.ok()) {
      c.problems.push_back("conditions 1-4 could not be checked after the run: " +
                           OneLine(checked.status().message()));
      return c;
    }
    c.conditions = std::move(checked->conditions);
    c.consistent = checked->consistent;
    c.problems = std::move(checked->broken);
    return c;
  }

 private:
  pg::Connection conn_;
  int64_t new_orders_before_ = 0;
  int64_t undelivered_before_ = 0;
};

}  // namespace

Result<int> CheckClientBench(const std::vector<std::string>& bench) {
  // pgbench's own parser reads the arguments, as `pgrig bench` will on each
  // client, so an option's value is never mistaken for an option.
  std::vector<std::string> argv = {"bench"};
  argv.insert(argv.end(), bench.begin(), bench.end());
  std::vector<char*> raw;
  for (std::string& a : argv) raw.push_back(a.data());
  if (workload::IsPgbenchInitMode(static_cast<int>(raw.size()), raw.data())) {
    return InvalidArgument("-i: every client runs the same -T window; use -T SECONDS, not -i");
  }
  const workload::BenchParse parsed = workload::ParseBenchArgsQuietly(bench);
  if (parsed.action == workload::BenchParse::Action::kExit) {
    if (parsed.exit_code == 0) {
      return InvalidArgument("these arguments print something and run no benchmark; remove it");
    }
    std::string why = parsed.err.substr(0, parsed.err.find('\n'));
    const std::string prefix = std::string(workload::kBenchProgram) + ": error: ";
    if (why.rfind(prefix, 0) == 0) why = why.substr(prefix.size());
    return InvalidArgument(why);
  }
  const workload::BenchOptions& o = parsed.options;
  const pg::ConnectionParams& c = o.conn;
  if (!o.json_path.empty() || !c.host.empty() || !c.port.empty() || !c.user.empty() ||
      !c.dbname.empty()) {
    return InvalidArgument(
        "the fleet sets the server ('server') and the results file itself; remove -h, -p, -U, "
        "--db, the database and --json from 'bench'");
  }
  if (o.duration_s <= 0) {
    return InvalidArgument(
        "no -T SECONDS: every client runs the same timed window; use -T SECONDS, not -t");
  }
  if (o.duration_s > 86400) {
    return InvalidArgument(
        fmt::format("-T {} is not a number of seconds from 1 to 86400", o.duration_s));
  }
  return o.duration_s;
}

Result<ClientTpcc> CheckClientTpcc(const std::vector<std::string>& tpcc) {
  PGRIG_ASSIGN_OR_RETURN(tpcc::RunArgs a, tpcc::ParseRunArgs(tpcc));
  const pg::ConnectionParams& c = a.conn;
  if (!a.json_path.empty() || !c.host.empty() || !c.port.empty() || !c.user.empty() ||
      !c.dbname.empty()) {
    return InvalidArgument(
        "the fleet sets the server ('server') and the results file itself; remove -h, -p, -U, "
        "-d, the database and --json from 'tpcc'");
  }
  if (a.check_warehouses != 0) {
    return InvalidArgument(
        "--check-warehouses: the fleet controller checks conditions 1-4 on every warehouse "
        "after all clients ended; remove it");
  }
  return ClientTpcc{.duration_s = a.duration_s, .warmup_s = a.warmup_s};
}

namespace {

using Clients = std::vector<std::unique_ptr<Client>>;

// The fleet's client hosts, each ready (checked) to run; the others are
// marked in `out`.  Empty with out.message set when a client is not ready:
// a fleet short of a client is not the fleet asked for.
Clients ClientsToRun(const Fleet& fleet, const std::vector<HostCheck>& checks, ClientModeRun& out) {
  Clients clients;
  std::string not_ready;
  for (size_t i = 0; i < fleet.hosts.size(); ++i) {
    HostRun& r = out.hosts[i];
    r.host = &fleet.hosts[i];
    if (fleet.hosts[i].role != HostRole::kClient) {
      r.message = "not a client host";
      continue;
    }
    if (i >= checks.size() ||
        (checks[i].state != HostState::kReady && checks[i].state != HostState::kCopied)) {
      r.outcome = HostOutcome::kFailed;
      r.message = i < checks.size() ? "not ready: " + checks[i].message : "not checked";
      not_ready += (not_ready.empty() ? "" : ", ") + fleet.hosts[i].label;
      continue;
    }
    auto c = std::make_unique<Client>();
    c->index = i;
    c->host = &fleet.hosts[i];
    c->check = &checks[i];
    clients.push_back(std::move(c));
  }
  if (!not_ready.empty()) {
    out.message = "not started: client host(s) " + not_ready + " not ready";
    clients.clear();
  }
  return clients;
}

// Waits until every client is ready, one failed, the time is up or Ctrl-C;
// empty when all are ready, else why not.
std::string AwaitReady(const Clients& clients, Coordinator& co, const ClientRunOptions& o,
                       std::chrono::seconds warmup) {
  const auto deadline = std::chrono::steady_clock::now() + o.ready_timeout + warmup;
  std::string refusal;
  std::unique_lock<std::mutex> lock(co.mu);
  while (refusal.empty()) {
    size_t ready = 0;
    for (auto& c : clients) {
      if (c->ready && c->stdin_fd >= 0 && !c->ended) ++ready;
      if (c->ended) {
        refusal = c->host->label +
                  " ended before the start: " + (c->error.empty() ? "it exited" : c->error);
      }
    }
    if (!refusal.empty() || ready == clients.size()) break;
    if (o.cancel != nullptr && o.cancel->load()) {
      refusal = "interrupted before the start";
    } else if (std::chrono::steady_clock::now() >= deadline) {
      std::string late;
      for (auto& c : clients) {
        if (!c->ready) late += (late.empty() ? "" : ", ") + c->host->label;
      }
      refusal = fmt::format("client(s) {} not ready within {} s", late,
                            (o.ready_timeout + warmup).count());
    } else {
      co.cv.wait_for(lock, std::chrono::milliseconds(100));
    }
  }
  return refusal;
}

// After a refusal, or on Ctrl-C after the go, gives the clients a moment to
// stop by themselves, then ends their ssh.  Returns when every client ended.
void ReapClients(const Clients& clients, Coordinator& co, const ClientRunOptions& o, bool started) {
  auto stop_at = std::chrono::steady_clock::time_point::max();
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(co.mu);
      bool all = true;
      for (auto& c : clients) all = all && c->ended;
      if (all) return;
    }
    const bool cancelled = o.cancel != nullptr && o.cancel->load();
    if ((!started || cancelled) && stop_at == std::chrono::steady_clock::time_point::max()) {
      stop_at = std::chrono::steady_clock::now() + std::chrono::seconds(started ? 2 : 30);
    }
    if (std::chrono::steady_clock::now() >= stop_at) {
      for (auto& c : clients) c->kill = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// Copies each client's result back into `dir`; a failed client's result is
// kept when it wrote one, but its numbers are not summed.
std::vector<ClientHostResult> CopyResultsBack(const Clients& clients, const std::string& dir,
                                              const SshTransport& ssh, const ClientRunOptions& o,
                                              Coordinator& co, ClientModeRun& out) {
  std::vector<ClientHostResult> results;
  for (auto& c : clients) {
    HostRun& r = out.hosts[c->index];
    ClientHostResult hr;
    hr.label = c->host->label;
    hr.file = dir + "/host-" + hr.label + ".json";
    Status copied = ssh.CopyFrom(c->host->destination, c->remote_result, hr.file, CopyKind::kFile,
                                 o.copy_timeout);
    if (copied.ok()) {
      r.local_results = hr.file;
      auto text = ReadWholeFile(hr.file);
      if (text.ok()) {
        json doc = json::parse(*text, nullptr, /*allow_exceptions=*/false);
        if (!doc.is_discarded()) hr.doc = std::move(doc);
      }
      if (!hr.doc) hr.error = "its result " + hr.file + " is not JSON";
    } else {
      hr.error = "copying its result back failed: " + RedactLine(copied.message());
    }
    if (r.outcome == HostOutcome::kFailed) {
      hr.error = r.message + (hr.doc ? "" : "; " + hr.error);
      hr.doc.reset();  // a failed client's numbers are not summed
    } else if (!hr.doc) {
      r.outcome = HostOutcome::kFailed;
      r.message = hr.error;
    } else {
      r.message = "result in " + hr.file;
    }
    co.Say(hr.label,
           r.outcome == HostOutcome::kCompleted ? "done: " + r.message : "failed: " + r.message);
    results.push_back(std::move(hr));
  }
  return results;
}

}  // namespace

ClientModeRun RunClientMode(const Fleet& fleet, const std::vector<HostCheck>& checks,
                            const SshTransport& ssh, const ClientRunOptions& o) {
  ClientModeRun out;
  out.hosts.resize(fleet.hosts.size());
  Coordinator co;
  co.options = &o;
  Result<int> duration = 0;
  std::chrono::seconds warmup{0};
  if (fleet.tpcc) {
    auto t = CheckClientTpcc(*fleet.tpcc);
    duration = t.ok() ? Result<int>(t->duration_s) : Result<int>(t.status());
    if (t.ok()) warmup = std::chrono::seconds(t->warmup_s);
  } else {
    duration = CheckClientBench(fleet.bench.value_or(std::vector<std::string>{}));
  }
  if (!duration.ok() || !fleet.server) {
    out.message = duration.ok() ? "no 'server' in the fleet file" : duration.status().message();
    return out;
  }
  Clients clients = ClientsToRun(fleet, checks, out);
  if (clients.empty()) {
    if (out.message.empty()) out.message = "not started: no client hosts";
    return out;
  }
  // TPC-C: the controller's own connection reads the server's counts; a
  // database without a finished load is refused before any client starts.
  std::optional<TpccWatch> tpcc_watch;
  if (fleet.tpcc) {
    auto w = TpccWatch::Open(*fleet.server);
    if (!w.ok()) {
      out.message = "not started: " + RedactLine(w.status().message()) + "; no client started";
      return out;
    }
    tpcc_watch = std::move(w).value();
  }
  json facts = nullptr;
  if (o.server_facts) facts = o.server_facts();

  const auto run_timeout = o.ready_timeout + warmup + std::chrono::seconds(*duration) + kRunSlack;
  std::vector<std::thread> threads;
  for (auto& c : clients) {
    Client* cp = c.get();
    threads.emplace_back([&, cp] { RunClient(fleet, ssh, o, run_timeout, *cp, co); });
  }
  std::string refusal = AwaitReady(clients, co, o, warmup);
  // Every client warmed up and connected: the counts the window starts from.
  if (refusal.empty() && tpcc_watch) {
    if (Status st = tpcc_watch->Before(); !st.ok()) refusal = RedactLine(st.message());
  }

  std::unique_ptr<observe::Observer> observer;
  std::string observe_note;
  if (refusal.empty()) {
    observe::ObserveOptions oo;
    oo.server = pg::ConnectionParams{.dbname = *fleet.server, .application_name = "pgrig-observer"};
    oo.server_is_local = o.server_is_local;
    auto started = observe::Observer::Start(oo);
    if (started.ok()) {
      observer = std::move(started).value();
    } else {
      observe_note = started.status().message();
    }
    std::lock_guard<std::mutex> lock(co.mu);
    for (auto& c : clients) {
      if (!WriteToPipe(c->stdin_fd, "go\n")) {
        c->error = "could not send the start signal";
      }
      CloseStdin(*c);
    }
    out.started = true;
  } else {
    // No client gets "go": each remote bench sees its input end and refuses.
    std::lock_guard<std::mutex> lock(co.mu);
    for (auto& c : clients) CloseStdin(*c);
    out.message = "not started: " + refusal + "; no client started its load";
  }
  if (!out.started) {
    co.Say("fleet", out.message);
  } else {
    co.Say("fleet",
           fmt::format("all {} clients ready: go ({} s window)", clients.size(), *duration));
  }
  std::thread reaper([&] { ReapClients(clients, co, o, out.started); });
  for (std::thread& t : threads) t.join();
  reaper.join();
  json observation = nullptr;
  json bottleneck = nullptr;
  if (observer) {
    const observe::Observation obs = observer->Stop();
    observation = results::ObservationJson(obs);
    // The clients ran elsewhere (their CPU is in the merged result, per
    // host), so nothing is said of them here.  The host's CPU is the
    // server's only when the server runs on this machine; otherwise this
    // machine's load would be taken for the server's, and no bottleneck is
    // named.
    if (o.server_is_local)
      bottleneck = results::BottleneckJson(observe::Diagnose(obs, observe::ClientUse{}));
  }
  if (!observe_note.empty()) observation = json{{"notes", json::array({observe_note})}};

  for (auto& c : clients) {
    HostRun& r = out.hosts[c->index];
    r.outcome = c->error.empty() ? HostOutcome::kCompleted : HostOutcome::kFailed;
    r.message = c->error;
  }
  if (!out.started) {
    for (auto& c : clients) {
      HostRun& r = out.hosts[c->index];
      r.outcome = HostOutcome::kFailed;
      if (r.message.empty()) r.message = "not started";
    }
    return out;
  }

  const std::string dir = fleet.results_dir + "/" + o.run_id;
  if (Status made = MakeDirs(dir, 0755); !made.ok()) {
    out.message = "results directory " + dir + ": " + made.message();
    return out;
  }
  std::vector<ClientHostResult> results = CopyResultsBack(clients, dir, ssh, o, co, out);
  MergeOptions mo;
  if (tpcc_watch) mo.tpcc = tpcc_watch->After();
  mo.tool_version = o.tool_version;
  mo.command_line = o.command_line;
  mo.facts = facts;
  mo.observation = observation;
  mo.bottleneck = bottleneck;
  auto merged = MergeClientResults(results, mo);
  if (!merged.ok()) {
    out.partial = true;
    out.message = "merge failed: " + merged.status().message();
    return out;
  }
  out.partial = (*merged)["fleet"]["partial"].get<bool>();
  const std::string file = dir + "/merged.json";
  if (Status w = WriteFileAtomically(file, merged->dump(2) + "\n"); !w.ok()) {
    out.message = "writing " + file + ": " + w.message();
    return out;
  }
  out.merged_file = file;
  return out;
}

}  // namespace pgrig::fleet
