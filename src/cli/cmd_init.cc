// `pgrig init`: pgbench's tables and data, loaded in parallel.  Takes `pgbench
// -i`'s command line (see workload/pgbench_init_options.h), prints pgbench's
// step lines, a progress bar on a terminal (plain lines otherwise) and
// pgbench's "done in ..." summary.  The work itself is
// workload/pgbench_loader.h.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "cli/exit_status.h"
#include "cli/target.h"
#include "cli/version.h"
#include "common/clock.h"
#include "workload/pgbench_init_options.h"
#include "workload/pgbench_loader.h"

namespace pgrig::cli {

namespace {

using workload::InitStep;

constexpr char kUsageHead[] =
    "pgrig init creates pgbench's tables and loads them, over several connections at once.\n"
    "It takes pgbench -i's options: replace \"pgbench -i\" by \"pgrig init\" (or link pgrig\n"
    "as \"pgbench\" and keep the command line).\n"
    "\n"
    "Usage:\n"
    "  pgrig init [OPTION]... [DBNAME]\n"
    "\n"
    "Initialization options:\n"
    "  -i, --initialize         accepted and ignored (pgbench's mode switch)\n";

// After workload::kInitOptionsHelp.
constexpr char kUsageTail[] =
    "  -j, --jobs=NUM           loading connections (pgrig's; default: the number of cores)\n"
    "\n"
    "Options to select what to run, Benchmarking options:\n"
    "  pgbench's benchmarking options (-c, -t, -T, -S, -f, ...) are refused here, as\n"
    "  pgbench -i refuses them; \"pgrig bench\" runs the benchmark.\n"
    "\n"
    "Common options:\n"
    "  -d, --debug              print every SQL statement sent\n";

// After workload::kConnectionOptionsHelp.
constexpr char kUsageEnd[] =
    "\n"
    "With no server named (-h/-p/-U, DBNAME, --db, or PGHOST, PGPORT, PGUSER,\n"
    "PGDATABASE, ...) the embedded cluster is used, started on demand; ~/.pgpass is\n"
    "honoured.  Nothing starts or connects for a refused command line.\n"
    "\n"
    "The result is what pgbench -i leaves: same tables, columns, keys, rows and\n"
    "statistics, so pgbench and pgrig bench run against it unchanged.  How it gets\n"
    "there differs: each table or partition is loaded by its own binary COPY ...\n"
    "FREEZE, up to -j at once.  When a later p step wants primary keys, the server\n"
    "decides when they are built: with wal_level = minimal, unlogged tables or\n"
    "several partitions loading at once, each table's load transaction sorts its key\n"
    "right after its COPY; otherwise step p builds them as pgbench does (a note says\n"
    "which ran and why; PGRIG_INIT_KEYS=during-load|after-each-load|separate-step\n"
    "forces one).  Step d moves the old tables to a schema pgrig_init_trash_<pid>\n"
    "and drops it in the background while the load runs (a plain DROP, as\n"
    "pgbench's, when other objects depend on them).\n"
    "Exit status: 0 done, 1 bad option, cannot connect, or loading failed (nothing\n"
    "half-loaded is left behind).\n";

// Prints pgbench's step lines and the load's progress.  Step callbacks come
// from the loader's Run() thread; statements (with -d) from its workers.
class ConsoleObserver : public workload::InitObserver {
 public:
  ConsoleObserver(const workload::PgbenchLoader& loader, const workload::InitOptions& options)
      : loader_(loader), options_(options), tty_(::isatty(STDERR_FILENO) == 1) {}

  ~ConsoleObserver() override { StopProgress(/*print_final=*/false); }

  void OnStepStart(InitStep step) override {
    std::lock_guard<std::mutex> lock(print_mu_);
    switch (step) {
      case InitStep::kDropTables:
        std::fprintf(stderr, "dropping old tables...\n");
        break;
      case InitStep::kCreateTables:
        std::fprintf(stderr, "creating tables...\n");
        if (options_.partitions > 0) {
          std::fprintf(stderr, "creating %d partitions...\n", options_.partitions);
        }
        break;
      case InitStep::kClientGenerate:
        std::fprintf(stderr, "generating data (client-side) over up to %d connections...\n",
                     loader_.jobs());
        StartProgressLocked();
        break;
      case InitStep::kServerGenerate:
        std::fprintf(stderr, "generating data (server-side)...\n");
        break;
      case InitStep::kVacuum:
        std::fprintf(stderr, "vacuuming...\n");
        break;
      case InitStep::kPrimaryKeys:
        std::fprintf(stderr, "creating primary keys...\n");
        break;
      case InitStep::kForeignKeys:
        std::fprintf(stderr, "creating foreign keys...\n");
        break;
    }
    std::fflush(stderr);
  }

  void OnStepDone(InitStep step, double /*seconds*/) override {
    if (step == InitStep::kClientGenerate) StopProgress(/*print_final=*/true);
  }

  void OnStatement(int connection, const std::string& sql) override {
    std::lock_guard<std::mutex> lock(print_mu_);
    ClearBarLocked();
    if (connection < 0) {
      std::fprintf(stderr, "pgrig init: debug: [background drop] %s\n", sql.c_str());
    } else {
      std::fprintf(stderr, "pgrig init: debug: [connection %d] %s\n", connection, sql.c_str());
    }
  }

  // Stops the progress thread (also after a failed run).
  void StopProgress(bool print_final) {
    {
      std::lock_guard<std::mutex> lock(stop_mu_);
      if (!progress_thread_.joinable()) return;
      stop_ = true;
    }
    stop_cv_.notify_all();
    progress_thread_.join();
    std::lock_guard<std::mutex> lock(print_mu_);
    ClearBarLocked();
    if (print_final) {
      workload::InitProgress p = loader_.Progress();
      PrintLineLocked(p, SecondsSince(step_start_ns_));
    }
    std::fflush(stderr);
  }

 private:
  static double SecondsSince(int64_t ns) {
    return static_cast<double>(MonotonicNanos() - ns) / 1e9;
  }

  void StartProgressLocked() {
    step_start_ns_ = MonotonicNanos();
    stop_ = false;
    next_line_rows_ = kLineEveryRows;
    next_quiet_s_ = kQuietEverySeconds;
    progress_thread_ = std::thread([this] { ProgressLoop(); });
  }

  void ProgressLoop() {
    std::unique_lock<std::mutex> lock(stop_mu_);
    while (!stop_cv_.wait_for(lock, std::chrono::milliseconds(tty_ ? 100 : 200),
                              [this] { return stop_; })) {
      workload::InitProgress p = loader_.Progress();
      const double elapsed = SecondsSince(step_start_ns_);
      std::lock_guard<std::mutex> print_lock(print_mu_);
      if (tty_ && !options_.quiet) {
        DrawBarLocked(p, elapsed);
      } else if (options_.quiet) {
        if (elapsed >= next_quiet_s_ && p.rows_done < p.rows_total) {
          PrintLineLocked(p, elapsed);
          while (next_quiet_s_ <= elapsed) next_quiet_s_ += kQuietEverySeconds;
        }
      } else if (p.rows_done >= next_line_rows_ && p.rows_done < p.rows_total) {
        // Like pgbench: a line per 100000 rows (at most one per poll).
        PrintLineLocked(p, elapsed);
        next_line_rows_ = (p.rows_done / kLineEveryRows + 1) * kLineEveryRows;
      }
    }
  }

  static double Remaining(const workload::InitProgress& p, double elapsed) {
    if (p.rows_done <= 0) return 0;
    return static_cast<double>(p.rows_total - p.rows_done) * elapsed /
           static_cast<double>(p.rows_done);
  }

  static int Percent(const workload::InitProgress& p) {
    return p.rows_total > 0 ? static_cast<int>(p.rows_done * 100 / p.rows_total) : 100;
  }

  void PrintLineLocked(const workload::InitProgress& p, double elapsed) {
    std::fprintf(stderr, "%lld of %lld tuples (%d%%) done (elapsed %.2f s, remaining %.2f s)\n",
                 static_cast<long long>(p.rows_done), static_cast<long long>(p.rows_total),
                 Percent(p), elapsed, Remaining(p, elapsed));
  }

  void DrawBarLocked(const workload::InitProgress& p, double elapsed) {
    constexpr int kWidth = 30;
    const int pct = Percent(p);
    const int filled = pct * kWidth / 100;
    std::string bar(static_cast<size_t>(filled), '#');
    bar.append(static_cast<size_t>(kWidth - filled), '.');
    int n =
        std::fprintf(stderr, "\r[%s] %3d%% %lld of %lld tuples (elapsed %.1f s, remaining %.1f s)",
                     bar.c_str(), pct, static_cast<long long>(p.rows_done),
                     static_cast<long long>(p.rows_total), elapsed, Remaining(p, elapsed));
    if (n < bar_chars_) std::fprintf(stderr, "%*s", bar_chars_ - n, "");
    bar_chars_ = std::max(bar_chars_, n);
    std::fflush(stderr);
  }

  void ClearBarLocked() {
    if (bar_chars_ > 0) std::fprintf(stderr, "\r%*s\r", bar_chars_, "");
    bar_chars_ = 0;
  }

  static constexpr int64_t kLineEveryRows = 100000;
  static constexpr double kQuietEverySeconds = 5.0;

  const workload::PgbenchLoader& loader_;
  const workload::InitOptions& options_;
  const bool tty_;

  std::mutex print_mu_;  // one writer to stderr at a time
  int bar_chars_ = 0;

  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::thread progress_thread_;
  int64_t step_start_ns_ = 0;
  int64_t next_line_rows_ = 0;
  double next_quiet_s_ = 0;
};

// Turns SIGINT/SIGTERM into PgbenchLoader::Cancel() on an ordinary thread
// (sigwait), so that cancellation can take locks and talk to the server.
class CancelOnSignal {
 public:
  explicit CancelOnSignal(workload::PgbenchLoader& loader) {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    sigaddset(&set_, SIGUSR1);  // our own "stop waiting"
    // Blocked before any worker thread exists, so all of them inherit it.
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
    thread_ = std::thread([this, &loader] {
      int sig = 0;
      if (sigwait(&set_, &sig) == 0 && sig != SIGUSR1) {
        std::fprintf(stderr, "\npgrig init: canceling (signal %d)...\n", sig);
        loader.Cancel();
      }
    });
  }
  ~CancelOnSignal() {
    pthread_kill(thread_.native_handle(), SIGUSR1);
    thread_.join();
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t set_;
  sigset_t old_;
  std::thread thread_;
};

// libpq messages span lines ("...failed: ...\n\tIs the server running...")
// and server errors start with "ERROR:  "; the error must be one line.
std::string OneLine(std::string s) {
  for (size_t at; (at = s.find("ERROR:  ")) != std::string::npos;) s.erase(at, 8);
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == '\n' || c == '\t' || c == '\r') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

constexpr CommandName kInitCommand{"pgrig init", ErrorStyle::kPgbench};

}  // namespace

int RunInit(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  auto parsed = workload::ParseInitCommandLine(args);
  if (!parsed.ok()) {
    // The first line is the error; a second one is pgbench's detail.
    std::string m = parsed.status().message();
    std::string detail;
    if (const size_t nl = m.find('\n'); nl != std::string::npos) {
      detail = m.substr(nl + 1);
      m.resize(nl);
    }
    if (m.find("option") != std::string::npos && m.find("must be in range") == std::string::npos &&
        m.find("invalid value") == std::string::npos &&
        m.find("cannot be used in initialization") == std::string::npos) {
      m += " (try \"pgrig init --help\")";
    }
    std::fprintf(stderr, "pgrig init: error: %s\n", m.c_str());
    if (!detail.empty()) std::fprintf(stderr, "pgrig init: detail: %s\n", detail.c_str());
    if (m.rfind("too many command-line arguments", 0) == 0) {
      std::fputs("pgrig init: hint: Try \"pgrig init --help\" for more information.\n", stderr);
    }
    return kExitBadInvocation;
  }
  if (parsed->help) {
    std::fputs(kUsageHead, stdout);
    std::fputs(workload::kInitOptionsHelp, stdout);
    std::fputs(kUsageTail, stdout);
    std::fputs(workload::kConnectionOptionsHelp, stdout);
    std::fputs(kUsageEnd, stdout);
    return kExitOk;
  }
  if (parsed->version) {
    std::printf("pgrig init (pgrig) %s\n", kVersion);
    return kExitOk;
  }
  if (const char* forced = std::getenv(workload::kKeyStrategyEnv); forced && *forced) {
    auto strategy = workload::ParseKeyStrategy(forced);
    if (!strategy.ok()) return Fail(kInitCommand, strategy.status());
    parsed->options.key_strategy = *strategy;
  }
  const workload::InitOptions& options = parsed->options;

  auto target = ResolveTarget(parsed->connection, {.keep_connection = true});
  if (!target.ok()) return Fail(kInitCommand, OneLine(target.status().message()));

  workload::PgbenchLoader loader(options, target->params);
  loader.AdoptConnection(std::move(target->conn));
  Result<workload::InitReport> report = Status(StatusCode::kInternal, "not run");
  {
    ConsoleObserver observer(loader, options);
    CancelOnSignal cancel(loader);
    report = loader.Run(&observer);
    observer.StopProgress(/*print_final=*/false);
  }
  if (!report.ok()) return Fail(kInitCommand, OneLine(report.status().message()));

  std::string stats;
  for (const auto& s : report->steps) {
    if (!stats.empty()) stats += ", ";
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s %.2f s", workload::InitStepName(s.step), s.seconds);
    stats += buf;
  }
  std::fprintf(stderr, "done in %.2f s (%s).\n", report->total_seconds, stats.c_str());
  for (const std::string& note : report->notes) {
    std::fprintf(stderr, "note: %s\n", note.c_str());
  }
  if (report->key_strategy) {
    // One line: which key strategy ran and why (init_key_strategy.h).
    const workload::KeyStrategyChoice& k = *report->key_strategy;
    switch (k.strategy) {
      case workload::KeyStrategy::kDuringLoad:
        std::fprintf(stderr,
                     "note: the primary keys were built while loading (%s); their time is part "
                     "of \"client-side generate\"\n",
                     k.reason.c_str());
        break;
      case workload::KeyStrategy::kAfterEachLoad:
        std::fprintf(stderr,
                     "note: the primary keys were built right after each table's load (%s); "
                     "their time is part of \"client-side generate\"\n",
                     k.reason.c_str());
        break;
      case workload::KeyStrategy::kSeparateStep:
        std::fprintf(stderr, "note: the primary keys were built in step p, as pgbench does (%s)\n",
                     k.reason.c_str());
        break;
    }
  }
  return kExitOk;
}

}  // namespace pgrig::cli
