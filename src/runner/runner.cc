#include "runner/runner.h"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <set>
#include <thread>
#include <utility>

#include "common/clock.h"
#include "common/enum_names.h"
#include "common/fs.h"
#include "common/pause_point.h"
#include "common/strings.h"
#include "engine/engine.h"
#include "host/server_cpu.h"
#include "micro/lio_load.h"
#include "micro/lio_run.h"
#include "observe/bottleneck.h"
#include "observe/observe.h"
#include "results/lio_json.h"
#include "results/observation_json.h"
#include "results/result_doc.h"
#include "results/schemas.h"
#include "results/suite_doc.h"
#include "results/suite_json.h"
#include "results/tpcc_section.h"
#include "results/wal_flush_json.h"
#include "runner/cell_settings.h"
#include "runner/server_settings.h"
#include "runner/suite_setup.h"
#include "script/prng.h"
#include "script/script.h"
#include "script/variables.h"
#include "tpcc/loader.h"
#include "tpcc/measure.h"
#include "tpcc/schema.h"
#include "tune/apply.h"
#include "workload/bench_options.h"
#include "workload/pgbench_loader.h"

namespace pgrig::runner {

using observe::ClientUse;
using observe::ClientUseOf;
using observe::Diagnose;
using observe::Observation;
using observe::ObserveOptions;
using observe::Observer;

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// One workload's scripts, parsed once and shared by all of its runs.
double NowS() { return static_cast<double>(MonotonicNanos()) / 1e9; }

int DurationSeconds(double s) { return std::max(1, static_cast<int>(std::lround(s))); }

// User + system CPU seconds of this process so far.
double ProcessCpuSeconds() {
  struct rusage ru {};
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  auto sec = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
  };
  return sec(ru.ru_utime) + sec(ru.ru_stime);
}

// 1234567 -> "1.23M".
std::string Millions(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fM", v / 1e6);
  return buf;
}

class Runner {
 public:
  explicit Runner(const SuiteOptions& o)
      : o_(o), started_(NowS()), target_(o.target), embedded_(o.embedded), server_(o.server) {}

  Result<SuiteOutcome> Run();

 private:
  void Note(const std::string& text) {
    if (!o_.on_progress) return;
    SuiteProgress p;
    p.kind = SuiteProgress::Kind::kNote;
    p.text = text;
    p.elapsed_s = NowS() - started_;
    o_.on_progress(p);
  }
  bool Stopping() const { return o_.stop_requested != nullptr && o_.stop_requested->load(); }
  Status Prepare();
  // Reads what the runner needs of the server at target_ (locality, data
  // directory, database) and checks every cell's settings and clients
  // against it; the first call keeps the settings' split (cell_settings_).
  Status ReadServer(bool first);
  // With builds: has the caller start build `b`'s cluster (after restoring
  // the server-level settings on the one running) and reads its server.
  Status Activate(int b);
  // Makes `build`'s server the measured one, ready to run cells: activated,
  // server-level settings opened, data loaded or found, facts taken.
  Status Enter(int build);
  // The server-level settings' keeper for the server at target_.
  Status OpenServerSettings();
  Status EnsureData();
  // The lio tables of the plan's lio workloads: reused when they exist with
  // the planned count and size, else made by micro::InitLio.
  Status EnsureLioData();
  // The TPC-C-like load of the plan's tpcc workloads: reused when one of
  // the planned warehouses is there (with the functions when a workload
  // runs `procedures`), else made by tpcc::Loader.
  Status EnsureTpccData();
  // The measured run of a tpcc cell (its own warm-up, the counts and
  // conditions 1-4 around it); fills run.result etc.
  void MeasureTpcc(int cell_index, const SuiteProgress& base, results::SuiteRun& run,
                   std::string& error, bool& interrupted);
  // The plan's fsync workload, once; its document goes to the suite's fsync.
  void RunFsyncOnce();
  micro::LioRunOptions LioOptions(int cell_index) const;
  // What a micro-benchmark document records besides the measurement.
  results::MicroDocInputs MicroInputs() const {
    return results::MicroDocInputs{.tool_version = o_.tool_version,
                                   .command_line = o_.command_line,
                                   .server_version = server_.version,
                                   .server_version_num = server_.version_num,
                                   .server_target = server_.target,
                                   .embedded = server_.embedded,
                                   // pgrig.suite/2 packs its runs' histograms
                                   .histogram_form = results::BucketForm::kPacked};
  }
  // What every run's pgrig.result/1 records of the suite (tool, command,
  // server, CPUs); the caller adds the run's options and measures.
  results::ResultInputs RunInputs() const {
    results::ResultInputs in;
    in.tool_version = o_.tool_version;
    in.command = "run";
    in.command_line = o_.command_line;
    in.server = server_;
    in.cpus = o_.cpus;
    return in;
  }
  // The measured window of a lio cell, observed; fills run.result etc.
  void MeasureLio(int cell_index, const SuiteProgress& base, results::SuiteRun& run,
                  std::string& error, bool& interrupted);
  results::SuiteDoc NewSuite() const;
  // One (cell, iteration): returns false when the suite must stop.
  bool RunOne(int cell_index, int iteration, int position);
  // The end of an attempt: restores the server's settings, records how it
  // ended (`total` runs make the suite) and saves.
  SuiteOutcome Finish(int total);
  // The steps of RunOne.  A failure sets `error`, Ctrl-C `interrupted`;
  // each step does nothing once either is set.
  // The cell's server settings, then VACUUM (writing workloads) and
  // CHECKPOINT, recorded in `run`.
  void BeforeRun(int cell_index, results::SuiteRun& run, std::string& error);
  // The same cell for the warm-up time, discarded.
  void WarmUp(int cell_index, std::string& error, bool& interrupted);
  // The measured window of a pgbench cell, observed; fills run.result etc.
  // Whether this run of `cell` is profiled (the plan's or workload's
  // `profile`, or --profile; the last iteration).
  bool Profiled(const plan::Cell& cell, int iteration) const;
  // The profile's part of the run's document, folded stacks written under
  // the results directory; notes on `run` say what happened.
  results::ServerProfileDoc KeepProfile(const profile::ProfileMeasure& m, results::SuiteRun& run);
  void MeasureRun(int cell_index, const SuiteProgress& base, double run_t0, results::SuiteRun& run,
                  std::string& error, bool& interrupted);
  // An Observer for a measured window, or none with a note in `run`.
  std::unique_ptr<Observer> StartObserver(results::SuiteRun& run) const;
  void Emit(SuiteProgress p) const {
    p.elapsed_s = NowS() - started_;
    if (o_.on_progress) o_.on_progress(p);
  }
  // The suite's time left, `into_run` seconds into the current run.
  double Remaining(double into_run) const {
    const double per_run = o_.plan.duration_s + o_.plan.warmup_s + kOverheadPerRunS;
    return std::max(0.0, per_run * (runs_to_do_ - run_number_ + 1) - into_run);
  }
  engine::EngineConfig Config(int cell_index, int duration_s) const;
  Status Save();

  const SuiteOptions& o_;
  double started_;
  // The server measured now: SuiteOptions' one, or with builds the active
  // build's (Enter()).
  pg::ConnectionParams target_;
  cluster::Cluster* embedded_;
  results::ResultServer server_;
  int active_build_ = -1;  // the build whose cluster runs (-1: no builds)
  bool entered_ = false;   // Enter() has made the active server ready
  std::set<int> ready_;    // builds (or -1) whose data this invocation put in place
  std::vector<PreparedWorkload> workloads_;
  // Per cell: per-connection and server-level settings.
  std::vector<SplitSettings> cell_settings_;
  bool any_server_settings_ = false;
  std::unique_ptr<ServerSettings> server_settings_;
  ScaleChoice scale_;
  bool loaded_ = false;
  bool pgbench_ = true;                  // the plan has pgbench workloads (needs pgbench's tables)
  const plan::Workload* lio_ = nullptr;  // the first lio workload (all share the tables)
  const plan::Workload* fsync_ = nullptr;
  const plan::Workload* tpcc_ = nullptr;  // the first tpcc workload (all share the load)
  bool tpcc_procedures_ = false;          // some tpcc workload runs the functions
  std::string fsync_dir_;
  std::optional<results::SuiteLio> lio_data_;
  std::optional<results::SuiteTpcc> tpcc_data_;  // set by EnsureTpccData
  std::string data_directory_;
  std::string database_;
  bool local_ = true;
  std::optional<int> postmaster_pid_;  // the local server's, when found
  results::SuiteDoc suite_;
  int next_run_ = 1;
  int runs_to_do_ = 0;
  int run_number_ = 0;
  int runs_made_ = 0;
  SuiteEnd end_ = SuiteEnd::kCompleted;
  std::vector<std::string> warnings_;
};

Status Runner::Prepare() {
  pgbench_ = plan::HasWorkloadKind(o_.plan, plan::WorkloadKind::kPgbench);
  for (const plan::Workload& w : o_.plan.workloads) {
    if (w.kind == plan::WorkloadKind::kLio && lio_ == nullptr) lio_ = &w;
    if (w.kind == plan::WorkloadKind::kTpcc) {
      if (tpcc_ == nullptr) tpcc_ = &w;
      tpcc_procedures_ = tpcc_procedures_ || w.tpcc.procedures;
    }
  }
  if (tpcc_ != nullptr) {
    const int64_t warehouses = tpcc_->tpcc.warehouses.Resolve(o_.cpus);
    if (warehouses > tpcc::kMaxWarehouses) {
      return InvalidArgument(fmt::format(
          "plan '{}', workload '{}': warehouses = \"{}\" is {} on this machine's {} CPUs; "
          "pgrig tpcc loads 1 to {}",
          o_.plan.name, tpcc_->name, tpcc_->tpcc.warehouses.text, warehouses, o_.cpus,
          tpcc::kMaxWarehouses));
    }
  }
  fsync_ = plan::FsyncWorkload(o_.plan);
  for (size_t i = 0; i < o_.cells.size(); ++i) {
    if (o_.plan.workloads[static_cast<size_t>(o_.cells[i].workload)].kind !=
        plan::WorkloadKind::kLio) {
      continue;
    }
    Status v = micro::ValidateLioRun(LioOptions(static_cast<int>(i)));
    if (!v.ok()) {
      return InvalidArgument("plan '" + o_.plan.name + "', cell " + o_.cells[i].id + ": " +
                             v.message());
    }
  }
  for (const plan::Workload& w : o_.plan.workloads) {
    PGRIG_ASSIGN_OR_RETURN(PreparedWorkload p, PrepareWorkload(w));
    workloads_.push_back(std::move(p));
  }
  if (!o_.plan.builds.empty()) PGRIG_RETURN_IF_ERROR(Activate(0));
  PGRIG_RETURN_IF_ERROR(ReadServer(true));
  if (fsync_ != nullptr) {
    fsync_dir_ = fsync_->fsync.dir;
    if (fsync_dir_.empty() && data_directory_.empty()) {
      return InvalidArgument("plan '" + o_.plan.name + "', workload '" + fsync_->name +
                             "': no 'dir' and the server's data directory is not on this "
                             "machine (or not readable); give 'dir', a directory on the "
                             "storage to test");
    }
    if (fsync_dir_.empty()) fsync_dir_ = data_directory_;
    Status v = micro::ValidateFsync(FsyncOptionsFor(fsync_->fsync, fsync_dir_));
    if (!v.ok()) {
      return Status(v.code(),
                    "plan '" + o_.plan.name + "', workload '" + fsync_->name + "': " + v.message());
    }
  }
  if (!pgbench_) {
    scale_.scale = 0;
    scale_.reason = "no pgbench workloads: pgbench's tables are not needed";
  } else if (o_.resume && o_.resume->scale) {
    scale_.scale = o_.resume->scale->value;
    scale_.reason =
        "scale " + std::to_string(scale_.scale) + " as recorded by the suite being resumed";
  } else {
    PGRIG_ASSIGN_OR_RETURN(pg::Connection conn, pg::Connect(target_));
    PGRIG_ASSIGN_OR_RETURN(scale_, ChooseScale(o_.plan, conn, o_.memory_bytes));
  }
  // Every other build's server is checked too before anything changes.
  for (int b = 1; b < static_cast<int>(o_.plan.builds.size()); ++b) {
    PGRIG_RETURN_IF_ERROR(Activate(b));
  }
  return Status::Ok();
}

Status Runner::ReadServer(bool first) {
  auto conn = pg::Connect(target_);
  if (!conn.ok()) return conn.status();
  // Settings of every cell, validated before anything changes.
  std::map<std::string, SplitSettings> by_variant;
  for (int v = -1; v < static_cast<int>(o_.plan.variants.size()); ++v) {
    std::map<std::string, std::string> all = o_.plan.settings;
    std::string name = "default";
    if (v >= 0) {
      const plan::SettingsVariant& var = o_.plan.variants[static_cast<size_t>(v)];
      name = var.name;
      for (const auto& [k, val] : var.settings) all[k] = val;
    }
    auto split = SplitAndValidate(*conn, all);
    if (!split.ok()) {
      return InvalidArgument("plan '" + o_.plan.name + "', settings of variant '" + name +
                             "': " + split.status().message());
    }
    by_variant[std::to_string(v)] = std::move(split).value();
  }
  if (first) {
    for (const plan::Cell& c : o_.cells) {
      cell_settings_.push_back(by_variant[std::to_string(c.variant)]);
      if (!cell_settings_.back().server.empty()) any_server_settings_ = true;
    }
  }
  // Every cell's clients must find a connection: refused now, not after the
  // data load with "too many clients" in the middle of the suite.
  PGRIG_ASSIGN_OR_RETURN(ConnectionRoom room, ReadConnectionRoom(*conn));
  std::vector<std::map<std::string, std::string>> server_settings;
  for (const SplitSettings& s : cell_settings_) server_settings.push_back(s.server);
  PGRIG_RETURN_IF_ERROR(
      CheckClientsFit(o_.cells, server_settings, room).WithContext("plan '" + o_.plan.name + "'"));
  local_ = pg::ServerIsLocal(*conn);
  if (local_) {
    // The server's processes, so that the observer can tell other programs'
    // CPU from the measurement's own (observe.h client_pid/server_pid).
    auto pm = host::LocateLocalPostmaster(target_);
    if (pm.ok()) postmaster_pid_ = *pm;
  }
  database_ = OneValue(*conn, "select current_database()");
  if (local_) data_directory_ = OneValue(*conn, "select current_setting('data_directory', true)");
  return Status::Ok();
}

Status Runner::Activate(int b) {
  if (server_settings_) {
    Status restored = server_settings_->RestoreAll();
    server_settings_.reset();
    if (!restored.ok()) {
      suite_.settings_restored = false;  // --resume restores from the record
      return restored.WithContext("restoring the server-level settings on build '" +
                                  o_.plan.builds[static_cast<size_t>(active_build_)] +
                                  "' before switching builds");
    }
  }
  const std::string& name = o_.plan.builds[static_cast<size_t>(b)];
  if (!o_.activate_build) return Internal("a plan with builds needs SuiteOptions::activate_build");
  Result<BuildServer> s = o_.activate_build(b);
  if (!s.ok()) return s.status().WithContext("build '" + name + "'");
  target_ = s->target;
  embedded_ = s->embedded;
  server_ = s->server;
  active_build_ = b;
  entered_ = false;
  postmaster_pid_.reset();
  Note("build: " + name + ", PostgreSQL " + server_.version + " (" + server_.target + ")");
  // The first activation comes before Prepare() has split the settings; it
  // reads the server itself.
  if (cell_settings_.empty()) return Status::Ok();
  return ReadServer(false).WithContext("build '" + name + "'");
}

Status Runner::OpenServerSettings() {
  if (!any_server_settings_ || server_settings_) return Status::Ok();
  ServerSettingsOptions so;
  PGRIG_ASSIGN_OR_RETURN(pg::Connection conn, pg::Connect(target_));
  PGRIG_ASSIGN_OR_RETURN(std::string server_id, tune::ServerId(conn));
  so.state_dir = SettingsStateDir(server_id);
  so.embedded = embedded_;
  auto ss = ServerSettings::Open(target_, so);
  if (!ss.ok()) return ss.status();
  server_settings_ = std::move(ss).value();
  Note(
      "settings: server-level settings will be applied per cell and restored at the end "
      "(record: " +
      so.state_dir + ")");
  return Status::Ok();
}

Status Runner::Enter(int build) {
  if (build != active_build_) PGRIG_RETURN_IF_ERROR(Activate(build));
  if (entered_) return Status::Ok();
  PGRIG_RETURN_IF_ERROR(OpenServerSettings());
  if (pgbench_) PGRIG_RETURN_IF_ERROR(EnsureData());
  if (lio_ != nullptr) PGRIG_RETURN_IF_ERROR(EnsureLioData());
  if (tpcc_ != nullptr) PGRIG_RETURN_IF_ERROR(EnsureTpccData());
  entered_ = true;
  if (!ready_.insert(build).second) return Status::Ok();
  // Facts describe what is measured: taken after the load (a suite that
  // never got past its load takes them again when resumed).
  if (o_.facts_after_load) {
    const bool first_facts = ready_.size() == 1 && (!o_.resume || suite_.runs.empty());
    const bool per_build = build >= 0 && static_cast<size_t>(build) < suite_.builds.size();
    if (first_facts || per_build) {
      nlohmann::json f = o_.facts_after_load(target_);
      if (per_build && f.is_object() && f.contains("server")) {
        suite_.builds[static_cast<size_t>(build)].server = f["server"];
      }
      if (first_facts) suite_.facts = std::move(f);
    }
  }
  if (lio_ != nullptr) suite_.lio = lio_data_;
  if (suite_.scale && loaded_) suite_.scale->loaded = true;
  if (tpcc_data_) {
    // Loaded by an earlier attempt (or build) stays loaded.
    const bool loaded_before = suite_.tpcc && suite_.tpcc->loaded;
    suite_.tpcc = tpcc_data_;
    suite_.tpcc->loaded = tpcc_data_->loaded || loaded_before;
  }
  return Status::Ok();
}

// The loader's observer during a suite's data load: marks the tables as
// being loaded once they exist (ReadExistingData then refuses them until
// the mark is taken off), and holds the test's "load" pause point.
class LoadMarks : public workload::InitObserver {
 public:
  explicit LoadMarks(const pg::ConnectionParams& target) : target_(target) {}
  void OnStepStart(workload::InitStep step) override {
    if (step == workload::InitStep::kVacuum) PausePoint("load");
  }
  void OnStepDone(workload::InitStep step, double /*seconds*/) override {
    if (step != workload::InitStep::kCreateTables) return;
    auto c = pg::Connect(target_);
    if (c.ok()) {
      marked_ = c->Exec(fmt::format("COMMENT ON TABLE pgbench_accounts IS {}",
                                    pg::QuoteLiteral(fmt::format(
                                        "{} (pid {}); the tables are incomplete until it ends",
                                        kLoadInProgress, ::getpid()))))
                    .ok();
    }
  }
  bool marked() const { return marked_; }

 private:
  pg::ConnectionParams target_;
  bool marked_ = false;
};

Status Runner::EnsureData() {
  auto conn = pg::Connect(target_);
  if (!conn.ok()) return conn.status();
  PGRIG_ASSIGN_OR_RETURN(ExistingData existing, ReadExistingData(*conn));
  if (existing.present && existing.scale == scale_.scale && existing.incomplete.empty()) {
    Note("data: pgbench's tables already hold scale " + std::to_string(scale_.scale) +
         " in database " + database_ + "; reusing them");
    return Status::Ok();
  }
  std::string held;
  if (existing.present && !existing.incomplete.empty()) {
    held = " (the tables there cannot be used: " + existing.incomplete + ")";
  } else if (existing.present) {
    held = " (it held scale " + std::to_string(existing.scale) + ")";
  }
  Note("data: loading scale " + std::to_string(scale_.scale) + " into database " + database_ +
       held + "...");
  *conn = pg::Connection();
  workload::InitOptions init;
  init.scale = scale_.scale;
  init.partitions = o_.plan.init_partitions;
  if (init.partitions > 0) init.partition_method = workload::PartitionMethod::kRange;
  init.quiet = true;
  workload::PgbenchLoader loader(init, target_);
  LoadMarks marks(target_);
  const double t0 = NowS();
  // Ctrl-C during the load cancels it (the loader then drops what it created).
  std::atomic<bool> load_done{false};
  std::thread watcher([&] {
    for (int i = 0; i < 10 * 3600 * 24 && !load_done.load(); ++i) {
      if (Stopping()) {
        loader.Cancel();
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  auto report = loader.Run(&marks);
  load_done.store(true);
  watcher.join();
  if (!report.ok()) {
    return Status(report.status().code(), "loading pgbench's tables at scale " +
                                              std::to_string(scale_.scale) +
                                              " failed: " + report.status().message());
  }
  if (marks.marked()) {
    auto c = pg::Connect(target_);
    Status cleared =
        c.ok() ? c->Exec("COMMENT ON TABLE pgbench_accounts IS NULL").status() : c.status();
    if (!cleared.ok()) return cleared.WithContext("marking the loaded tables as complete");
  }
  loaded_ = true;
  Note("data: loaded in " + std::to_string(static_cast<int>(NowS() - t0 + 0.5)) + " s");
  return Status::Ok();
}

Status Runner::EnsureLioData() {
  const plan::LioParams& p = lio_->lio;
  auto conn = pg::Connect(target_);
  if (!conn.ok()) return conn.status();
  int64_t blocks = 0;
  std::string reason;
  if (p.blocks_per_table) {
    blocks = *p.blocks_per_table;
    reason = std::to_string(p.tables) + " tables of " + std::to_string(blocks) + " blocks (scale " +
             p.size_text + " in the plan)";
  } else {
    PGRIG_ASSIGN_OR_RETURN(int64_t sb, micro::SharedBuffersBlocks(*conn));
    auto fit = micro::FitBlocksPerTable(sb, p.tables);
    if (!fit.ok()) {
      return Status(fit.status().code(),
                    "lio workload '" + lio_->name + "': " + fit.status().message());
    }
    blocks = *fit;
    reason = std::to_string(p.tables) + " tables of " + std::to_string(blocks) +
             " blocks, sized to fit shared_buffers (" + std::to_string(sb) + " blocks)";
  }
  const int wu = std::max(p.work_unit, p.update_pct > 0 ? p.update_work_unit : 1);
  if (wu > blocks) {
    return InvalidArgument("lio workload '" + lio_->name + "': a range of " + std::to_string(wu) +
                           " blocks does not fit in a table of " + std::to_string(blocks) +
                           " blocks; give a smaller work_unit or a larger scale");
  }
  bool loaded = false;
  auto existing = micro::ReadLioTables(*conn);
  const bool reuse = existing.ok() && static_cast<int>(existing->size()) == p.tables &&
                     std::all_of(existing->begin(), existing->end(),
                                 [&](const micro::LioTableInfo& t) { return t.blocks == blocks; });
  if (reuse) {
    Note("lio data: " + reason + " already in database " + database_ + "; reusing them");
  } else {
    Note("lio data: making " + reason + " in database " + database_ + "...");
    *conn = pg::Connection();
    micro::LioInitOptions init;
    init.target = target_;
    init.tables = p.tables;
    init.blocks_per_table = blocks;
    init.stop_requested = o_.stop_requested;
    PGRIG_RETURN_IF_ERROR(micro::ValidateLioInit(init));
    const double t0 = NowS();
    auto r = micro::InitLio(init);
    if (!r.ok()) {
      return Status(r.status().code(), "making the lio tables failed: " + r.status().message());
    }
    loaded = true;
    Note("lio data: made in " + std::to_string(static_cast<int>(NowS() - t0 + 0.5)) + " s");
  }
  lio_data_ = results::SuiteLio{.tables = p.tables,
                                .blocks_per_table = blocks,
                                .size = p.size_text,
                                .reason = reason,
                                .loaded = loaded};
  return Status::Ok();
}

Status Runner::EnsureTpccData() {
  // Within 1..kMaxWarehouses: Prepare() refused more.
  const int warehouses = static_cast<int>(tpcc_->tpcc.warehouses.Resolve(o_.cpus));
  {
    auto conn = pg::Connect(target_);
    if (!conn.ok()) return conn.status();
    auto load = tpcc::ReadLoad(*conn);
    const bool functions = !tpcc_procedures_ || tpcc::HasProcedures(*conn);
    if (load.ok() && load->warehouses == warehouses && functions) {
      Note("tpcc data: " + std::to_string(warehouses) + " warehouses already in database " +
           database_ + "; reusing them (the orders earlier runs added are kept)");
      tpcc_data_ = results::SuiteTpcc{
          .warehouses = warehouses, .procedures = tpcc_procedures_, .loaded = false};
      return Status::Ok();
    }
    std::string held;
    if (load.ok() && load->warehouses != warehouses) {
      held = " (it held " + std::to_string(load->warehouses) + " warehouses)";
    } else if (load.ok()) {
      held = " (the transactions' functions are missing)";
    }
    Note("tpcc data: loading " + std::to_string(warehouses) + " warehouses into database " +
         database_ + held + "...");
  }
  const double t0 = NowS();
  tpcc::Loader loader(target_,
                      {.warehouses = warehouses,
                       .schema = {},
                       .jobs = std::max(1, o_.cpus),
                       .seed = 0,
                       .foreign_keys = false,
                       .procedures = tpcc_procedures_,
                       .now = {}},
                      {}, o_.stop_requested);
  auto report = loader.Run();
  if (!report.ok()) {
    return Status(report.status().code(), "loading the TPC-C-like data (" +
                                              std::to_string(warehouses) +
                                              " warehouses) failed: " + report.status().message());
  }
  Note("tpcc data: loaded in " + std::to_string(static_cast<int>(NowS() - t0 + 0.5)) + " s");
  tpcc_data_ =
      results::SuiteTpcc{.warehouses = warehouses, .procedures = tpcc_procedures_, .loaded = true};
  return Status::Ok();
}

void Runner::MeasureTpcc(int cell_index, const SuiteProgress& base, results::SuiteRun& run,
                         std::string& error, bool& interrupted) {
  const plan::Cell& cell = o_.cells[static_cast<size_t>(cell_index)];
  const plan::TpccParams& p = o_.plan.workloads[static_cast<size_t>(cell.workload)].tpcc;
  PausePoint("measure");
  auto seed = script::ParseRandomSeed("time");
  tpcc::MeasureOptions mo{
      .target = WithConnectionSettings(
          target_, cell_settings_[static_cast<size_t>(cell_index)].per_connection),
      .clients = cell.clients,
      .threads = cell.threads,
      .duration_s = DurationSeconds(o_.plan.duration_s),
      .warmup_s = o_.plan.warmup_s > 0 ? DurationSeconds(o_.plan.warmup_s) : 0,
      .progress_s = 1,
      .rate_tps = o_.plan.rate_tps.value_or(0),
      .max_tries = static_cast<uint32_t>(p.max_tries),
      .spec_timing = false,
      .procedures = p.procedures,
      .mode = cell.protocol,
      .seed = seed.ok() ? *seed : static_cast<uint64_t>(WallSeconds() * 1e6),
      .check_warehouses = p.check_warehouses,
      .stop_requested = o_.stop_requested,
      .on_message = {},
      .on_progress = [&](const stats::IntervalStats& s, double len_s, double /*elapsed_s*/) {
        SuiteProgress t = base;
        t.kind = SuiteProgress::Kind::kTick;
        t.current_tps = len_s > 0 ? static_cast<double>(s.transactions) / len_s : 0;
        Emit(t);
      }};
  auto measurer = tpcc::Measurer::Open(mo);
  if (!measurer.ok()) {
    error = measurer.status().message();
    return;
  }
  // The observer covers the warm-up too (Measurer runs it): its figures
  // describe the run's whole time.
  std::unique_ptr<Observer> observer = StartObserver(run);
  auto measured = measurer->Run();
  Observation obs;
  if (observer) obs = observer->Stop();
  if (!measured.ok() && Stopping()) {
    interrupted = true;
    return;
  }
  if (!measured.ok()) {
    error = measured.status().message();
    return;
  }
  const tpcc::Measurement& m = *measured;
  const bool stopped = m.run.stop_reason == engine::StopReason::kInterrupted;
  if (stopped || (m.warmup_ended_early && Stopping())) {
    interrupted = true;
    return;
  }
  results::ResultInputs in = RunInputs();
  measurer->FillResultInputs(m, &in);
  results::ResultDoc doc = results::BuildResultDoc(in, m.run, nullptr);
  doc.histogram_form = results::BucketForm::kPacked;  // pgrig.suite/2
  run.result = results::ResultDocToJson(doc);
  run.result["tpcc"] = results::TpccSectionJson(measurer->Section(m));
  if (observer && !m.warmup_ended_early) {
    run.observation = results::ObservationJson(obs);
    const ClientUse use = ClientUseOf(m.run, obs, o_.cpus);
    run.bottleneck = results::BottleneckJson(Diagnose(obs, use));
    run.disturbed = results::DisturbedJson(observe::AssessDisturbance(obs));
  }
  if (Profiled(cell, run.iteration)) {
    run.notes.push_back("the server was not profiled: tpcc cells are not profiled yet");
  }
  if (m.ok()) {
    run.ok = true;
  } else {
    error = "no NOPM: " + m.refused.front();
  }
  SuiteProgress done = base;
  done.kind = SuiteProgress::Kind::kRunEnd;
  done.current_tps = m.run.Tps();
  done.text = m.ok() ? fmt::format("ok: {:.0f} NOPM", m.figures.nopm) : "failed: " + error;
  Emit(done);
}

void Runner::RunFsyncOnce() {
  micro::FsyncOptions fo = FsyncOptionsFor(fsync_->fsync, fsync_dir_);
  fo.stop_requested = o_.stop_requested;
  fo.on_note = [this](const std::string& s) { Note("fsync: " + s); };
  Note("fsync: testing WAL flushes in " + fsync_dir_ + " (once for the suite)...");
  auto r = micro::RunFsync(fo);
  if (!r.ok()) {
    // The cells can still be measured; the suite says why there is no figure.
    warnings_.push_back("fsync test of " + fsync_dir_ + " failed: " + r.status().message());
    suite_.notes.push_back(warnings_.back());
    suite_.fsync = nullptr;
    return;
  }
  if (r->interrupted) return;  // not kept: --resume tests again
  const results::MicroDocInputs in = MicroInputs();
  results::FsyncDocContext ctx;
  if (auto conn = pg::Connect(target_); conn.ok()) {
    const std::string m = OneValue(*conn, "select current_setting('wal_sync_method')");
    if (!m.empty()) ctx.server_wal_sync_method = m;
  }
  ctx.suite_workload = fsync_->name;
  suite_.fsync = results::FsyncResultToJson(in, fo, *r, ctx);
  const results::FsyncHeadline h = results::ComputeFsyncHeadline(*r, ctx.server_wal_sync_method);
  if (h.best && h.best_test != nullptr) {
    Note("fsync: best method " + std::string(micro::SyncMethodName(*h.best)) + ", " +
         std::to_string(static_cast<int64_t>(h.best_test->ops_per_s())) + " flushes/s");
  }
}

micro::LioRunOptions Runner::LioOptions(int cell_index) const {
  const plan::Cell& cell = o_.cells[static_cast<size_t>(cell_index)];
  const plan::LioParams& p = o_.plan.workloads[static_cast<size_t>(cell.workload)].lio;
  micro::LioRunOptions lo;
  lo.target = cell_settings_.size() > static_cast<size_t>(cell_index)
                  ? WithConnectionSettings(
                        target_, cell_settings_[static_cast<size_t>(cell_index)].per_connection)
                  : target_;
  lo.total_sessions = cell.clients;
  lo.duration_s = o_.plan.duration_s;
  lo.warmup_s = o_.plan.warmup_s;
  lo.work_unit = p.work_unit;
  lo.update_pct = p.update_pct;
  lo.update_work_unit = p.update_work_unit;
  lo.stop_requested = o_.stop_requested;
  return lo;
}

void Runner::MeasureLio(int cell_index, const SuiteProgress& base, results::SuiteRun& run,
                        std::string& error, bool& interrupted) {
  const plan::Cell& cell = o_.cells[static_cast<size_t>(cell_index)];
  std::unique_ptr<Observer> observer = StartObserver(run);
  micro::LioRunOptions lo = LioOptions(cell_index);
  const double cpu0 = ProcessCpuSeconds();
  auto r = micro::RunLio(lo);
  const double cpu_s = ProcessCpuSeconds() - cpu0;
  Observation obs;
  if (observer) obs = observer->Stop();
  if (!r.ok() && Stopping()) {  // Ctrl-C during the sessions' set-up
    interrupted = true;
    return;
  }
  if (!r.ok()) {
    error = r.status().message();
    return;
  }
  if (r->interrupted) {
    interrupted = true;
    return;
  }
  const results::MicroDocInputs in = MicroInputs();
  run.result = results::LioResultToJson(in, lo, *r, nullptr);
  const double lio_per_s = micro::PerSecond(r->main.delta.logical_reads(), r->main.window_s);
  if (observer) {
    run.observation = results::ObservationJson(obs);
    ClientUse use;
    use.cpu_s = cpu_s;  // includes the table warm-up and checks before the window
    use.duration_s = r->main.window_s;
    use.threads = cell.clients;
    use.cpus = o_.cpus;
    use.tps = r->main.window_s > 0 ? static_cast<double>(r->main.ranges) / r->main.window_s : 0;
    run.bottleneck = results::BottleneckJson(Diagnose(obs, use));
    run.disturbed = results::DisturbedJson(observe::AssessDisturbance(obs));
  }
  for (const std::string& n : r->notes) run.notes.push_back(n);
  run.ok = true;
  SuiteProgress p = base;
  p.kind = SuiteProgress::Kind::kRunEnd;
  p.current_tps = 0;
  p.text = "ok: " + Millions(lio_per_s) + " logical reads/s";
  Emit(p);
}

std::unique_ptr<Observer> Runner::StartObserver(results::SuiteRun& run) const {
  ObserveOptions oo;
  oo.data_directory = data_directory_;
  oo.server = target_;
  oo.database = database_;
  oo.server_is_local = local_;
  oo.client_pid = ::getpid();
  oo.server_pid = postmaster_pid_;
  auto started = Observer::Start(oo);
  if (!started.ok()) {
    run.notes.push_back("no observation: " + started.status().message());
    return nullptr;
  }
  return std::move(started).value();
}

results::SuiteDoc Runner::NewSuite() const {
  results::SuiteDoc d;
  for (size_t i = 0; i < o_.cells.size(); ++i) {
    d.cells.push_back(results::SuiteCellJson(o_.plan, o_.cells[i], cell_settings_[i].per_connection,
                                             cell_settings_[i].server));
  }
  if (o_.price) {
    d.price = results::SuitePrice{.usd_per_hour = o_.price->usd_per_hour,
                                  .instance_type = o_.price->instance_type,
                                  .from = o_.price->from};
  }
  d.tool_version = o_.tool_version;
  d.command_line = o_.command_line;
  d.label = o_.label;
  d.started_at = IsoTimestampUtc(WallSeconds());
  d.cpus = o_.cpus;
  d.plan_name = o_.plan.name;
  d.plan_description = o_.plan.description;
  d.plan_source_path = o_.plan.source_path;
  d.plan_source_text = o_.plan.source_text;
  d.plan_parsed = results::PlanToJson(o_.plan);
  d.target_description = o_.plan.builds.empty()
                             ? server_.target
                             : "the embedded clusters of builds " + Join(o_.plan.builds, ", ");
  d.target_embedded = server_.embedded;
  d.target_local = local_;
  if (pgbench_) {
    d.scale =
        results::SuiteScale{.value = scale_.scale, .reason = scale_.reason, .loaded = loaded_};
  }
  d.lio = lio_data_;
  d.facts = o_.facts;
  d.settings_all_cells = o_.plan.settings;
  d.settings_server_changed = any_server_settings_;
  d.iterations = o_.plan.iterations;
  for (const std::string& b : o_.plan.builds) d.builds.push_back({.name = b});
  return d;
}

engine::EngineConfig Runner::Config(int cell_index, int duration_s) const {
  const plan::Cell& cell = o_.cells[static_cast<size_t>(cell_index)];
  const PreparedWorkload& w = workloads_[static_cast<size_t>(cell.workload)];
  // The cell as pgbench's options, so that it reaches the engine as
  // `pgrig bench` does.
  workload::BenchOptions bo;
  bo.clients = cell.clients;
  bo.threads = cell.threads;
  bo.duration_s = duration_s;
  bo.mode = cell.protocol;
  bo.rate_tps = o_.plan.rate_tps.value_or(0);
  bo.latency_limit_us = o_.plan.latency_limit_ms
                            ? static_cast<int64_t>(std::llround(*o_.plan.latency_limit_ms * 1000))
                            : 0;
  bo.max_tries = static_cast<uint32_t>(o_.plan.max_tries);
  auto seed = script::ParseRandomSeed("time");
  engine::EngineConfig cfg = workload::EngineConfigFor(
      bo, {.target = WithConnectionSettings(
               target_, cell_settings_[static_cast<size_t>(cell_index)].per_connection),
           .scripts = w.scripts,
           .names = w.names,
           .base_variables = w.base_variables,
           .scale = scale_.scale,
           .random_seed = seed.ok() ? *seed : static_cast<uint64_t>(WallSeconds() * 1e6)});
  cfg.stop_requested = o_.stop_requested;
  return cfg;
}

Status Runner::Save() {
  return results::WriteSuiteFiles(o_.out_dir, results::SuiteDocToJson(suite_));
}

void Runner::BeforeRun(int cell_index, results::SuiteRun& run, std::string& error) {
  const plan::Cell& cell = o_.cells[static_cast<size_t>(cell_index)];
  const plan::Workload& wl = o_.plan.workloads[static_cast<size_t>(cell.workload)];
  if (server_settings_) {
    auto applied = server_settings_->Apply(cell_settings_[static_cast<size_t>(cell_index)].server);
    if (!applied.ok()) {
      error = "applying the cell's server settings failed: " + applied.status().message();
      return;
    }
    run.server_settings = cell_settings_[static_cast<size_t>(cell_index)].server;
    if (applied->restarted) {
      run.notes.push_back("the server was restarted for this cell's settings");
    }
  }
  auto conn = pg::Connect(target_);
  if (!conn.ok()) {
    error = "could not connect before the run: " + conn.status().message();
    return;
  }
  std::vector<std::string> actions;
  const bool vacuum = o_.plan.vacuum == plan::VacuumPolicy::kAlways ||
                      (o_.plan.vacuum == plan::VacuumPolicy::kWriteWorkloads && wl.writes);
  if (vacuum && wl.kind == plan::WorkloadKind::kLio) {
    for (int t = 1; t <= wl.lio.tables; ++t)
      actions.push_back("VACUUM " + micro::LioQualifiedName(t));
  } else if (vacuum && wl.kind == plan::WorkloadKind::kTpcc) {
    // The tables the transactions update and insert into; item never changes.
    for (const tpcc::TableDef& t : tpcc::Tables()) {
      if (t.name != "item") actions.push_back("VACUUM " + std::string(t.name));
    }
  } else if (vacuum) {
    actions = {"VACUUM pgbench_branches", "VACUUM pgbench_tellers", "TRUNCATE pgbench_history"};
  }
  if (o_.plan.checkpoint_between_runs) actions.push_back("CHECKPOINT");
  for (const auto& sql : actions) {
    auto r = conn->Exec(sql);
    if (r.ok()) {
      run.before_run.push_back(sql);
    } else {
      run.notes.push_back(sql + " failed: " + r.status().message());
    }
  }
}

void Runner::WarmUp(int cell_index, std::string& error, bool& interrupted) {
  if (!error.empty() || o_.plan.warmup_s <= 0 || Stopping()) return;
  PausePoint("warmup");
  auto warm = engine::RunBenchmark(Config(cell_index, DurationSeconds(o_.plan.warmup_s)));
  if (!warm.ok() && Stopping()) {
    interrupted = true;
  } else if (!warm.ok()) {
    error = "warm-up: " + warm.status().message();
  } else if (warm->stop_reason == engine::StopReason::kInterrupted) {
    interrupted = true;
  } else if (warm->stop_reason == engine::StopReason::kAborted) {
    error = "warm-up aborted: " + warm->first_abort_message;
  }
}

bool Runner::Profiled(const plan::Cell& cell, int iteration) const {
  const plan::Workload& wl = o_.plan.workloads[static_cast<size_t>(cell.workload)];
  const bool wanted = o_.profile_all || wl.profile.value_or(o_.plan.profile);
  return wanted && iteration == o_.plan.iterations - 1;
}

results::ServerProfileDoc Runner::KeepProfile(const profile::ProfileMeasure& m,
                                              results::SuiteRun& run) {
  // Named by the run's number, which --resume never reuses.
  const std::string name = "profiles/run-" + std::to_string(run.run) + ".folded";
  std::string error;
  Status dir = m.profile ? MakeDirs(o_.out_dir + "/profiles") : Status();
  if (!dir.ok()) error = "could not create " + o_.out_dir + "/profiles: " + dir.message();
  results::ServerProfileDoc d =
      results::KeepServerProfile(m, o_.out_dir + "/" + name, dir.ok() ? name : "", &error);
  run.notes.push_back(m.profile ? "the server was profiled with perf (docs/profiles.md)"
                                : "the server was not profiled: " + m.unavailable);
  if (m.profile && m.profile->unreadable_records > 0) {
    run.notes.push_back("perf script printed " + std::to_string(m.profile->unreadable_records) +
                        " record(s) pgrig could not read, left out of the profile; the first, " +
                        m.unreadable_first);
  }
  if (!error.empty()) run.notes.push_back(error);
  return d;
}

void Runner::MeasureRun(int cell_index, const SuiteProgress& base, double run_t0,
                        results::SuiteRun& run, std::string& error, bool& interrupted) {
  const plan::Cell& cell = o_.cells[static_cast<size_t>(cell_index)];
  const plan::Workload& wl = o_.plan.workloads[static_cast<size_t>(cell.workload)];
  PausePoint("measure");
  std::unique_ptr<Observer> observer = StartObserver(run);
  // After the observer's connection is open, so that the children to come
  // back to include it (its queries' CPU is in the figure).
  host::ServerCpuWindow server_cpu = host::ServerCpuWindow::Prepare(target_);
  // A profiled run: perf samples the server over the same window
  // (docs/profiles.md).
  std::optional<profile::ServerProfiler> profiler;
  if (Profiled(cell, run.iteration)) profiler.emplace(profile::StartProfilerFor(server_cpu));
  const int duration = DurationSeconds(o_.plan.duration_s);
  engine::EngineConfig cfg = Config(cell_index, duration);
  cfg.start_gate = [&server_cpu, &profiler]() -> Status {
    server_cpu.Start();
    if (profiler) profiler->MarkWindowStart();
    return Status();
  };
  cfg.progress_s = 1;
  cfg.on_progress = [&](const stats::IntervalStats& s, double len_s, double /*elapsed_s*/) {
    SuiteProgress p = base;
    p.kind = SuiteProgress::Kind::kTick;
    p.current_tps = len_s > 0 ? static_cast<double>(s.transactions) / len_s : 0;
    p.remaining_s = Remaining(NowS() - run_t0);
    Emit(p);
  };
  auto r = engine::RunBenchmark(cfg);
  if (profiler) profiler->MarkWindowEnd();
  Observation obs;
  if (observer) obs = observer->Stop();
  const host::ServerCpuMeasure server_measure = server_cpu.Finish();
  std::optional<profile::ProfileMeasure> profile_measure;
  if (profiler) profile_measure = profiler->Finish();
  // Ctrl-C while the clients connect ends the engine with an error
  // ("interrupted while connecting"): that run was interrupted, not failed.
  if (!r.ok() && Stopping()) {
    interrupted = true;
    return;
  }
  if (!r.ok()) {
    error = r.status().message();
    return;
  }
  if (r->stop_reason == engine::StopReason::kInterrupted) {
    interrupted = true;
    return;
  }
  results::ResultInputs in = RunInputs();
  in.server_cpu = server_measure;
  if (profile_measure) in.server_profile = KeepProfile(*profile_measure, run);
  in.scripts = workloads_[static_cast<size_t>(cell.workload)].result_scripts;
  results::ResultOptions& ro = in.options;
  ro.clients = cfg.clients;
  ro.threads = cfg.threads;
  ro.duration_s = duration;
  ro.mode = cfg.mode;
  ro.scale = cfg.scale;
  ro.rate_tps = cfg.rate_tps;
  ro.latency_limit_us = cfg.latency_limit_us;
  ro.max_tries = static_cast<int>(cfg.max_tries);
  ro.no_vacuum = run.before_run.empty();
  ro.progress_s = 1;
  ro.random_seed = std::to_string(cfg.random_seed);
  ro.defines = wl.defines;
  // The suite holds the facts once (suite.facts); a run's own "facts" is null.
  results::ResultDoc doc = results::BuildResultDoc(in, *r, nullptr);
  doc.histogram_form = results::BucketForm::kPacked;  // pgrig.suite/2
  run.result = results::ResultDocToJson(doc);
  if (observer) {
    run.observation = results::ObservationJson(obs);
    const ClientUse use = ClientUseOf(*r, obs, o_.cpus);
    run.bottleneck = results::BottleneckJson(Diagnose(obs, use));
    run.disturbed = results::DisturbedJson(observe::AssessDisturbance(obs));
  }
  if (r->stop_reason == engine::StopReason::kAborted) {
    error =
        "the run was aborted: " +
        (r->first_abort_message.empty() ? std::string("a client aborted") : r->first_abort_message);
  } else {
    run.ok = true;
  }
  SuiteProgress p = base;
  p.kind = SuiteProgress::Kind::kRunEnd;
  p.current_tps = r->Tps();
  p.remaining_s = Remaining(NowS() - run_t0);
  p.text = error.empty() ? "ok" : "failed: " + error;
  Emit(p);
}

bool Runner::RunOne(int cell_index, int iteration, int position) {
  const plan::Cell& cell = o_.cells[static_cast<size_t>(cell_index)];
  const plan::Workload& wl = o_.plan.workloads[static_cast<size_t>(cell.workload)];
  ++run_number_;
  SuiteProgress base;
  base.cell_id = cell.id;
  base.position = position;
  base.cells = static_cast<int>(o_.cells.size());
  base.iteration = iteration + 1;
  base.iterations = o_.plan.iterations;
  base.run_number = run_number_;
  base.runs_to_do = runs_to_do_;
  const double run_t0 = NowS();
  {
    SuiteProgress p = base;
    p.kind = SuiteProgress::Kind::kRunStart;
    p.warmup = o_.plan.warmup_s > 0;
    p.remaining_s = Remaining(0);
    Emit(p);
  }

  results::SuiteRun run;
  run.run = next_run_++;
  run.cell = cell.id;
  run.iteration = iteration;
  run.position = position;
  run.started_at = IsoTimestampUtc(WallSeconds());
  run.warmup_s = o_.plan.warmup_s > 0 ? DurationSeconds(o_.plan.warmup_s) : 0;
  std::string error;
  bool interrupted = false;

  BeforeRun(cell_index, run, error);
  if (wl.kind == plan::WorkloadKind::kLio) {
    // RunLio warms its sessions up itself before the window.
    if (error.empty() && !Stopping()) MeasureLio(cell_index, base, run, error, interrupted);
  } else if (wl.kind == plan::WorkloadKind::kTpcc) {
    // The Measurer warms up itself, on its own connections.
    if (error.empty() && !Stopping()) MeasureTpcc(cell_index, base, run, error, interrupted);
  } else {
    WarmUp(cell_index, error, interrupted);
    if (Stopping()) interrupted = true;
    if (error.empty() && !interrupted)
      MeasureRun(cell_index, base, run_t0, run, error, interrupted);
  }
  if (interrupted && error.empty()) {
    // An unfinished run is not kept: --resume runs it again.
    end_ = SuiteEnd::kInterrupted;
    --next_run_;
    return false;
  }
  run.ended_at = IsoTimestampUtc(WallSeconds());
  if (!error.empty()) {
    run.ok = false;
    run.error = error;
    if (run.result.is_null()) {
      SuiteProgress p = base;
      p.kind = SuiteProgress::Kind::kRunEnd;
      p.text = "failed: " + error;
      Emit(p);
    }
  }
  ++runs_made_;
  suite_.runs.push_back(std::move(run));
  Status saved = Save();
  if (!saved.ok()) {
    warnings_.push_back("could not write the results: " + saved.message());
    end_ = SuiteEnd::kRunFailed;
    return false;
  }
  if (!error.empty() && o_.on_error == OnError::kStop) {
    end_ = SuiteEnd::kRunFailed;
    return false;
  }
  if (!error.empty()) end_ = SuiteEnd::kRunFailed;
  return true;
}

Result<SuiteOutcome> Runner::Run() {
  PGRIG_RETURN_IF_ERROR(Prepare());
  std::error_code ec;
  const bool created_dir = !fs::exists(o_.out_dir, ec);
  PGRIG_RETURN_IF_ERROR(MakeDirs(o_.out_dir));
  Note("scale: " + scale_.reason);
  // The suite's document exists before the first change to the server (the
  // data load), so that however this attempt ends, --resume finds it.
  std::set<std::pair<std::string, int>> finished;
  if (o_.resume) {
    suite_ = *o_.resume;
    for (const auto& f : results::FinishedRuns(suite_)) finished.insert(f);
    for (const results::SuiteRun& r : suite_.runs) next_run_ = std::max(next_run_, r.run + 1);
    suite_.resumed_at.push_back(IsoTimestampUtc(WallSeconds()));
    suite_.complete = false;
    suite_.ended_at.reset();
    suite_.stop_reason.reset();
    suite_.settings_restored.reset();
    Note("resume: " + std::to_string(finished.size()) + " finished runs kept");
  } else {
    suite_ = NewSuite();
  }
  if (Status saved = Save(); !saved.ok()) {
    if (created_dir) (void)RemoveTree(o_.out_dir);
    return saved.WithContext("writing " + o_.out_dir + "/suite.json");
  }

  int total = 0;
  for (int it = 0; it < o_.plan.iterations; ++it) {
    for (const plan::Cell& c : o_.cells) {
      if (!finished.count({c.id, it})) ++runs_to_do_;
      ++total;
    }
  }
  // Whatever stops the suite before a run (a data load or, with builds, a
  // cluster that will not start) ends it here, saying so.
  auto stopped_before_run = [&](const Status& why) {
    if (Stopping()) {
      end_ = SuiteEnd::kInterrupted;
    } else {
      end_ = SuiteEnd::kRunFailed;
      warnings_.push_back(why.message());
      suite_.notes.push_back(why.message());
    }
    return Finish(total);
  };
  // The first build to run (the one that runs first in iteration 0 with a
  // run to make); the only server without builds.
  int first_build = o_.cells.front().build;
  for (int it = 0, found = 0; it < o_.plan.iterations && !found; ++it) {
    for (int ci : plan::RunOrder(o_.cells, it)) {
      if (!finished.count({o_.cells[static_cast<size_t>(ci)].id, it})) {
        first_build = o_.cells[static_cast<size_t>(ci)].build;
        found = 1;
        break;
      }
    }
  }
  if (Status entered = Enter(first_build); !entered.ok()) return stopped_before_run(entered);
  if (fsync_ != nullptr && !suite_.fsync.is_object() && !Stopping()) {
    RunFsyncOnce();
  }
  bool go_on = true;
  for (int it = 0; it < o_.plan.iterations && go_on; ++it) {
    const std::vector<int> order = plan::RunOrder(o_.cells, it);
    for (size_t pos = 0; pos < order.size() && go_on; ++pos) {
      const int ci = order[pos];
      if (finished.count({o_.cells[static_cast<size_t>(ci)].id, it})) continue;
      if (Stopping()) {
        end_ = SuiteEnd::kInterrupted;
        go_on = false;
        break;
      }
      if (Status entered = Enter(o_.cells[static_cast<size_t>(ci)].build); !entered.ok()) {
        return stopped_before_run(entered);
      }
      go_on = RunOne(ci, it, static_cast<int>(pos) + 1);
    }
  }
  if (Stopping() && end_ == SuiteEnd::kCompleted) end_ = SuiteEnd::kInterrupted;
  return Finish(total);
}

SuiteOutcome Runner::Finish(int total) {
  bool restored_all = true;
  if (server_settings_) {
    Status restored = server_settings_->RestoreAll();
    restored_all = restored.ok();
    suite_.settings_restored = restored.ok();
    if (!restored.ok()) {
      warnings_.push_back("server settings could not all be restored: " + restored.message());
      suite_.notes.push_back(warnings_.back());
    } else if (any_server_settings_) {
      Note("settings: the server's original settings are restored");
    }
  }
  SuiteOutcome out;
  const auto done = results::FinishedRuns(suite_);
  out.runs_ok = static_cast<int>(done.size());
  out.runs_failed = static_cast<int>(suite_.runs.size()) - out.runs_ok;
  const bool all = static_cast<int>(std::set(done.begin(), done.end()).size()) == total;
  out.end = end_;
  // A suite is complete when every run is in it and the server is as it
  // was; --resume finishes a restore that failed (the record is kept).
  if (end_ == SuiteEnd::kCompleted && !(all && restored_all)) out.end = SuiteEnd::kRunFailed;
  suite_.complete = all && restored_all;
  suite_.stop_reason = SuiteEndName(out.end);
  suite_.ended_at = IsoTimestampUtc(WallSeconds());
  out.runs_made = runs_made_;
  out.wall_s = NowS() - started_;
  suite_.wall_s = suite_.wall_s.value_or(0) + out.wall_s;
  // The runs are over: a results file that cannot be written now (a full
  // disk) is a failed suite, exit 2, not a refused command.
  if (Status saved = Save(); !saved.ok()) {
    warnings_.push_back("could not write the results: " + saved.message());
    out.end = SuiteEnd::kRunFailed;
  }
  out.warnings = warnings_;
  out.suite = results::SuiteDocToJson(suite_);
  return out;
}

}  // namespace

const char* SuiteEndName(SuiteEnd e) {
  static constexpr const char* kNames[] = {"completed", "interrupted", "run_failed"};
  return NameAt<SuiteEnd::kRunFailed>(e, kNames, "completed");
}

Result<SuiteOutcome> RunSuite(const SuiteOptions& options) {
  if (options.cells.empty()) return InvalidArgument("the plan has no cells to run");
  Runner runner(options);
  return runner.Run();
}

}  // namespace pgrig::runner
