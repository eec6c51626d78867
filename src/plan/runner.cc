#include "plan/runner.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>
#include <set>
#include <utility>

#include "common/clock.h"
#include "common/fs.h"
#include "engine/engine.h"
#include "plan/cell_settings.h"
#include "plan/observe.h"
#include "plan/suite_json.h"
#include "script/prng.h"
#include "script/script.h"
#include "script/variables.h"
#include "workload/pgbench_loader.h"

namespace pgrig::plan {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// pgbench's tables take about 16 MB per unit of scale with their indexes.
constexpr double kBytesPerScale = 16.0 * 1024 * 1024;
// Seconds per run beyond its duration and warm-up: VACUUM, CHECKPOINT,
// connections, writing the suite.
constexpr double kOverheadPerRunS = 2.0;

// One workload's scripts, parsed once and shared by all of its runs.
struct PreparedWorkload {
  std::shared_ptr<const script::NameTable> names;
  std::shared_ptr<const std::vector<script::Script>> scripts;
  std::shared_ptr<const script::Variables> base_variables;
  std::vector<ResultScript> result_scripts;
};

Result<PreparedWorkload> PrepareWorkload(const Workload& w) {
  auto names = std::make_shared<script::NameTable>();
  auto scripts = std::make_shared<std::vector<script::Script>>();
  PreparedWorkload out;
  for (const ScriptRef& ref : w.scripts) {
    std::string text;
    std::string source;
    if (ref.kind == ScriptRef::Kind::kBuiltin) {
      auto b = script::FindBuiltin(ref.spec);
      if (!b.ok()) {
        return InvalidArgument("workload '" + w.name + "': " + b.status().message());
      }
      text = std::string((*b)->text);
      source = std::string((*b)->desc);
    } else {
      auto t = ReadWholeFile(ref.spec);
      if (!t.ok()) {
        return InvalidArgument("workload '" + w.name + "': could not read script file \"" + ref.spec +
                               "\": " + t.status().message());
      }
      text = std::move(t).value();
      source = ref.spec;
    }
    auto s = script::ParseScript(text, source, *names);
    if (!s.ok()) return InvalidArgument("workload '" + w.name + "': " + s.status().message());
    s->weight = ref.weight;
    ResultScript rs{.desc = s->desc,
                    .weight = ref.weight,
                    .spec = ref.spec,
                    .is_file = ref.kind == ScriptRef::Kind::kFile,
                    .command_lines = {}};
    for (const auto& c : s->commands) rs.command_lines.push_back(c.first_line);
    out.result_scripts.push_back(std::move(rs));
    scripts->push_back(std::move(s).value());
  }
  for (const char* n : {"client_id", "scale", "default_seed", "random_seed"}) names->Intern(n);
  for (const auto& [k, v] : w.defines) names->Intern(k);
  std::shared_ptr<const script::NameTable> frozen = names;
  auto vars = std::make_shared<script::Variables>(frozen);
  for (const auto& [k, v] : w.defines) {
    Status s = vars->SetStringByName("option", k, v);
    if (!s.ok()) return InvalidArgument("workload '" + w.name + "': " + s.message());
  }
  out.names = frozen;
  out.scripts = scripts;
  out.base_variables = vars;
  return out;
}

struct ScaleChoice {
  int scale = 1;
  std::string reason;
};

Result<ScaleChoice> ChooseScale(const Plan& plan, pg::Connection& conn,
                                std::optional<uint64_t> memory_bytes) {
  if (plan.size == SizeTarget::kScale) {
    return ScaleChoice{plan.scale, "scale " + std::to_string(plan.scale) + " from plan '" + plan.name + "'"};
  }
  auto sb = conn.Exec("select pg_size_bytes(current_setting('shared_buffers'))");
  if (!sb.ok()) return sb.status();
  const double shared_buffers = std::atof(std::string(sb->Get(0, 0)).c_str());
  const double mib = 1024.0 * 1024.0;
  auto need_memory = [&]() -> Result<double> {
    if (!memory_bytes) {
      return FailedPrecondition("plan '" + plan.name + "' sizes its data to the machine's memory, "
                                "which could not be read; give the plan a scale instead");
    }
    return static_cast<double>(*memory_bytes);
  };
  switch (plan.size) {
    case SizeTarget::kFitsSharedBuffers: {
      const int s = std::max(1, static_cast<int>(shared_buffers * 0.75 / kBytesPerScale));
      return ScaleChoice{s, "scale " + std::to_string(s) + ": about " + std::to_string(static_cast<int>(s * 16)) +
                                " MB of tables and indexes, 3/4 of shared_buffers (" +
                                std::to_string(static_cast<int64_t>(shared_buffers / mib)) + " MB)"};
    }
    case SizeTarget::kFitsRam: {
      PGRIG_ASSIGN_OR_RETURN(double mem, need_memory());
      const int s = std::max({1, static_cast<int>(mem * 0.5 / kBytesPerScale),
                              static_cast<int>(shared_buffers * 2 / kBytesPerScale)});
      return ScaleChoice{s, "scale " + std::to_string(s) + ": about half of the memory (" +
                                std::to_string(static_cast<int64_t>(mem / mib)) +
                                " MB), above shared_buffers (" +
                                std::to_string(static_cast<int64_t>(shared_buffers / mib)) + " MB)"};
    }
    case SizeTarget::kLargerThanRam: {
      PGRIG_ASSIGN_OR_RETURN(double mem, need_memory());
      const int s = std::max(1, static_cast<int>(mem * 1.5 / kBytesPerScale));
      return ScaleChoice{s, "scale " + std::to_string(s) + ": about 1.5 times the memory (" +
                                std::to_string(static_cast<int64_t>(mem / mib)) + " MB)"};
    }
    case SizeTarget::kScale:
      break;
  }
  return ScaleChoice{plan.scale, "scale from the plan"};
}

// The scale pgbench_branches holds, or nullopt when the table is missing.
Result<std::optional<int>> ExistingScale(pg::Connection& conn) {
  auto t = conn.Exec("select to_regclass('pgbench_branches') is not null and "
                     "to_regclass('pgbench_accounts') is not null and "
                     "to_regclass('pgbench_tellers') is not null and "
                     "to_regclass('pgbench_history') is not null");
  if (!t.ok()) return t.status();
  if (std::string(t->Get(0, 0)) != "t") return std::optional<int>();
  auto c = conn.Exec("select count(*) from pgbench_branches");
  if (!c.ok()) return c.status();
  return std::optional<int>(std::atoi(std::string(c->Get(0, 0)).c_str()));
}

bool IsLocal(pg::Connection& conn) {
  auto r = conn.Exec("select inet_server_addr()::text");
  if (!r.ok()) return false;
  if (r->IsNull(0, 0)) return true;
  const std::string a(r->Get(0, 0));
  return a.rfind("127.", 0) == 0 || a.rfind("::1", 0) == 0;
}

std::string OneValue(pg::Connection& conn, const char* sql) {
  auto r = conn.Exec(sql);
  if (!r.ok() || r->rows() < 1 || r->IsNull(0, 0)) return "";
  return std::string(r->Get(0, 0));
}

double NowS() { return static_cast<double>(MonotonicNanos()) / 1e9; }

int DurationSeconds(double s) { return std::max(1, static_cast<int>(std::lround(s))); }

class Runner {
 public:
  explicit Runner(const SuiteOptions& o) : o_(o), started_(NowS()) {}

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
  Status EnsureData();
  json NewSuite() const;
  // One (cell, iteration): returns false when the suite must stop.
  bool RunOne(int cell_index, int iteration, int position);
  engine::EngineConfig Config(int cell_index, int duration_s) const;
  Status Save();

  const SuiteOptions& o_;
  double started_;
  std::vector<PreparedWorkload> workloads_;
  // Per cell: per-connection and server-level settings.
  std::vector<SplitSettings> cell_settings_;
  bool any_server_settings_ = false;
  std::unique_ptr<ServerSettings> server_settings_;
  ScaleChoice scale_;
  bool loaded_ = false;
  std::string data_directory_;
  std::string database_;
  bool local_ = true;
  json suite_;
  int next_run_ = 1;
  int runs_to_do_ = 0;
  int run_number_ = 0;
  int runs_made_ = 0;
  SuiteEnd end_ = SuiteEnd::kCompleted;
  std::vector<std::string> warnings_;
};

Status Runner::Prepare() {
  for (const Workload& w : o_.plan.workloads) {
    PGRIG_ASSIGN_OR_RETURN(PreparedWorkload p, PrepareWorkload(w));
    workloads_.push_back(std::move(p));
  }
  auto conn = pg::Connect(o_.target);
  if (!conn.ok()) return conn.status();
  // Settings of every cell, validated before anything changes.
  std::map<std::string, SplitSettings> by_variant;
  for (int v = -1; v < static_cast<int>(o_.plan.variants.size()); ++v) {
    std::map<std::string, std::string> all = o_.plan.settings;
    std::string name = "default";
    if (v >= 0) {
      const SettingsVariant& var = o_.plan.variants[static_cast<size_t>(v)];
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
  for (const Cell& c : o_.cells) {
    cell_settings_.push_back(by_variant[std::to_string(c.variant)]);
    if (!cell_settings_.back().server.empty()) any_server_settings_ = true;
  }
  local_ = IsLocal(*conn);
  database_ = OneValue(*conn, "select current_database()");
  if (local_) data_directory_ = OneValue(*conn, "select current_setting('data_directory', true)");
  if (o_.resume && (*o_.resume)["scale"].is_object()) {
    scale_.scale = (*o_.resume)["scale"].value("value", 1);
    scale_.reason = "scale " + std::to_string(scale_.scale) + " as recorded by the suite being resumed";
  } else {
    PGRIG_ASSIGN_OR_RETURN(scale_, ChooseScale(o_.plan, *conn, o_.memory_bytes));
  }
  return Status::Ok();
}

Status Runner::EnsureData() {
  auto conn = pg::Connect(o_.target);
  if (!conn.ok()) return conn.status();
  PGRIG_ASSIGN_OR_RETURN(std::optional<int> existing, ExistingScale(*conn));
  if (existing && *existing == scale_.scale) {
    Note("data: pgbench's tables already hold scale " + std::to_string(scale_.scale) +
         " in database " + database_ + "; reusing them");
    return Status::Ok();
  }
  Note("data: loading scale " + std::to_string(scale_.scale) + " into database " + database_ +
       (existing ? " (it held scale " + std::to_string(*existing) + ")" : std::string()) + "...");
  *conn = pg::Connection();
  workload::InitOptions init;
  init.scale = scale_.scale;
  init.partitions = o_.plan.init_partitions;
  if (init.partitions > 0) init.partition_method = workload::PartitionMethod::kRange;
  init.quiet = true;
  workload::PgbenchLoader loader(init, o_.target);
  const double t0 = NowS();
  auto report = loader.Run(nullptr);
  if (!report.ok()) {
    return Status(report.status().code(), "loading pgbench's tables at scale " +
                                              std::to_string(scale_.scale) + " failed: " +
                                              report.status().message());
  }
  loaded_ = true;
  Note("data: loaded in " + std::to_string(static_cast<int>(NowS() - t0 + 0.5)) + " s");
  return Status::Ok();
}

json Runner::NewSuite() const {
  json cells = json::array();
  for (const Cell& c : o_.cells) {
    json cj = CellToJson(o_.plan, c);
    const SplitSettings& s = cell_settings_[cells.size()];
    cj["settings"] = {{"per_connection", s.per_connection}, {"server", s.server}};
    cj["summary"] = nullptr;
    cells.push_back(cj);
  }
  json price = nullptr;
  if (o_.price) {
    price = {{"usd_per_hour", o_.price->usd_per_hour},
             {"instance_type", o_.price->instance_type.empty() ? json(nullptr) : json(o_.price->instance_type)},
             {"from", o_.price->from}};
  }
  json plan_json{{"name", o_.plan.name},
                 {"description", o_.plan.description},
                 {"source_path", o_.plan.source_path},
                 {"source_text", o_.plan.source_text},
                 {"parsed", PlanToJson(o_.plan)}};
  return json{
      {"schema", kSuiteSchema},
      {"tool", {{"name", "pgrig"}, {"version", o_.tool_version}, {"command", "run"}}},
      {"command_line", o_.command_line},
      {"label", o_.label},
      {"started_at", IsoTimestampUtc(WallSeconds())},
      {"ended_at", nullptr},
      {"resumed_at", json::array()},
      {"complete", false},
      {"stop_reason", nullptr},
      {"wall_s", nullptr},
      {"cpus", o_.cpus},
      {"plan", plan_json},
      {"target", {{"description", o_.server.target}, {"embedded", o_.server.embedded}, {"local", local_}}},
      {"scale", {{"value", scale_.scale}, {"reason", scale_.reason}, {"loaded", loaded_}}},
      {"facts", o_.facts},
      {"settings",
       {{"all_cells", o_.plan.settings},
        {"server_changed", any_server_settings_},
        {"restored", nullptr}}},
      {"price", price},
      {"iterations", o_.plan.iterations},
      {"cells", cells},
      {"runs", json::array()},
      {"notes", json::array()},
  };
}

engine::EngineConfig Runner::Config(int cell_index, int duration_s) const {
  const Cell& cell = o_.cells[static_cast<size_t>(cell_index)];
  const PreparedWorkload& w = workloads_[static_cast<size_t>(cell.workload)];
  engine::EngineConfig cfg;
  cfg.target = WithConnectionSettings(o_.target, cell_settings_[static_cast<size_t>(cell_index)].per_connection);
  cfg.scripts = w.scripts;
  cfg.names = w.names;
  cfg.base_variables = w.base_variables;
  cfg.scale = scale_.scale;
  cfg.clients = cell.clients;
  cfg.threads = std::min(cell.threads, cell.clients);
  cfg.duration_s = duration_s;
  cfg.mode = cell.protocol;
  cfg.rate_tps = o_.plan.rate_tps.value_or(0);
  cfg.latency_limit_us =
      o_.plan.latency_limit_ms ? static_cast<int64_t>(std::llround(*o_.plan.latency_limit_ms * 1000)) : 0;
  cfg.max_tries = static_cast<uint32_t>(o_.plan.max_tries);
  auto seed = script::ParseRandomSeed("time");
  cfg.random_seed = seed.ok() ? *seed : static_cast<uint64_t>(WallSeconds() * 1e6);
  cfg.series_interval_s = 1;
  cfg.stop_requested = o_.stop_requested;
  return cfg;
}

Status Runner::Save() {
  UpdateCellSummaries(suite_);
  return WriteSuiteFiles(o_.out_dir, suite_);
}

bool Runner::RunOne(int cell_index, int iteration, int position) {
  const Cell& cell = o_.cells[static_cast<size_t>(cell_index)];
  const Workload& wl = o_.plan.workloads[static_cast<size_t>(cell.workload)];
  ++run_number_;
  SuiteProgress base;
  base.cell_id = cell.id;
  base.position = position;
  base.cells = static_cast<int>(o_.cells.size());
  base.iteration = iteration + 1;
  base.iterations = o_.plan.iterations;
  base.run_number = run_number_;
  base.runs_to_do = runs_to_do_;
  const double per_run = o_.plan.duration_s + o_.plan.warmup_s + kOverheadPerRunS;
  auto remaining = [&](double into_run) {
    return std::max(0.0, per_run * (runs_to_do_ - run_number_ + 1) - into_run);
  };
  auto emit = [&](SuiteProgress p) {
    p.elapsed_s = NowS() - started_;
    if (o_.on_progress) o_.on_progress(p);
  };
  const double run_t0 = NowS();
  {
    SuiteProgress p = base;
    p.kind = SuiteProgress::Kind::kRunStart;
    p.warmup = o_.plan.warmup_s > 0;
    p.remaining_s = remaining(0);
    emit(p);
  }

  json run{{"run", next_run_++},
           {"cell", cell.id},
           {"iteration", iteration},
           {"position", position},
           {"status", "failed"},
           {"error", nullptr},
           {"started_at", IsoTimestampUtc(WallSeconds())},
           {"ended_at", nullptr},
           {"before_run", json::array()},
           {"warmup_s", o_.plan.warmup_s > 0 ? json(DurationSeconds(o_.plan.warmup_s)) : json(0)},
           {"server_settings", json::object()},
           {"result", nullptr},
           {"observation", nullptr},
           {"bottleneck", nullptr},
           {"notes", json::array()}};
  std::string error;
  bool interrupted = false;

  // Server-level settings of this cell.
  if (server_settings_) {
    auto applied = server_settings_->Apply(cell_settings_[static_cast<size_t>(cell_index)].server);
    if (!applied.ok()) {
      error = "applying the cell's server settings failed: " + applied.status().message();
    } else {
      run["server_settings"] = cell_settings_[static_cast<size_t>(cell_index)].server;
      if (applied->restarted) run["notes"].push_back("the server was restarted for this cell's settings");
    }
  }
  // Between runs: VACUUM (writing workloads), CHECKPOINT.
  if (error.empty()) {
    auto conn = pg::Connect(o_.target);
    if (!conn.ok()) {
      error = "could not connect before the run: " + conn.status().message();
    } else {
      std::vector<std::string> actions;
      const bool vacuum = o_.plan.vacuum == VacuumPolicy::kAlways ||
                          (o_.plan.vacuum == VacuumPolicy::kWriteWorkloads && wl.writes);
      if (vacuum) {
        actions = {"VACUUM pgbench_branches", "VACUUM pgbench_tellers", "TRUNCATE pgbench_history"};
      }
      if (o_.plan.checkpoint_between_runs) actions.push_back("CHECKPOINT");
      for (const auto& sql : actions) {
        auto r = conn->Exec(sql);
        if (r.ok()) {
          run["before_run"].push_back(sql);
        } else {
          run["notes"].push_back(sql + " failed: " + r.status().message());
        }
      }
    }
  }
  // Warm-up: the same cell, discarded.
  if (error.empty() && o_.plan.warmup_s > 0 && !Stopping()) {
    auto warm = engine::RunBenchmark(Config(cell_index, DurationSeconds(o_.plan.warmup_s)));
    if (!warm.ok()) {
      error = "warm-up: " + warm.status().message();
    } else if (warm->stop_reason == engine::StopReason::kInterrupted) {
      interrupted = true;
    } else if (warm->stop_reason == engine::StopReason::kAborted) {
      error = "warm-up aborted: " + warm->first_abort_message;
    }
  }
  if (Stopping()) interrupted = true;

  // The measured run, observed.
  if (error.empty() && !interrupted) {
    std::unique_ptr<Observer> observer;
    ObserveOptions oo;
    oo.data_directory = data_directory_;
    oo.server = o_.target;
    oo.database = database_;
    oo.server_is_local = local_;
    auto started = Observer::Start(oo);
    if (started.ok()) {
      observer = std::move(started).value();
    } else {
      run["notes"].push_back("no observation: " + started.status().message());
    }
    const int duration = DurationSeconds(o_.plan.duration_s);
    engine::EngineConfig cfg = Config(cell_index, duration);
    cfg.progress_s = 1;
    const double measured_t0 = NowS();
    cfg.on_progress = [&](const stats::IntervalStats& s, double len_s, double elapsed_s) {
      SuiteProgress p = base;
      p.kind = SuiteProgress::Kind::kTick;
      p.current_tps = len_s > 0 ? static_cast<double>(s.transactions) / len_s : 0;
      p.remaining_s = remaining(NowS() - run_t0);
      (void)elapsed_s;
      emit(p);
    };
    auto r = engine::RunBenchmark(cfg);
    (void)measured_t0;
    Observation obs;
    if (observer) obs = observer->Stop();
    if (!r.ok()) {
      error = r.status().message();
    } else if (r->stop_reason == engine::StopReason::kInterrupted) {
      interrupted = true;
    } else {
      ResultInputs in;
      in.tool_version = o_.tool_version;
      in.command = "run";
      in.command_line = o_.command_line;
      in.server = o_.server;
      in.cpus = o_.cpus;
      in.scripts = workloads_[static_cast<size_t>(cell.workload)].result_scripts;
      ResultOptions& ro = in.options;
      ro.clients = cfg.clients;
      ro.threads = cfg.threads;
      ro.duration_s = duration;
      ro.mode = cfg.mode;
      ro.scale = cfg.scale;
      ro.rate_tps = cfg.rate_tps;
      ro.latency_limit_us = cfg.latency_limit_us;
      ro.max_tries = static_cast<int>(cfg.max_tries);
      ro.no_vacuum = run["before_run"].empty();
      ro.progress_s = 1;
      ro.random_seed = std::to_string(cfg.random_seed);
      ro.defines = wl.defines;
      // The suite holds the facts once (suite.facts); a run's own "facts" is null.
      run["result"] = RunResultToJson(in, *r, nullptr);
      if (observer) {
        run["observation"] = obs.ToJson();
        const ClientUse use = ClientUseOf(*r, obs, o_.cpus);
        run["bottleneck"] = Diagnose(obs, use).ToJson();
      }
      if (r->stop_reason == engine::StopReason::kAborted) {
        error = "the run was aborted: " +
                (r->first_abort_message.empty() ? std::string("a client aborted") : r->first_abort_message);
      } else {
        run["status"] = "ok";
      }
      SuiteProgress p = base;
      p.kind = SuiteProgress::Kind::kRunEnd;
      p.current_tps = r->Tps();
      p.remaining_s = remaining(NowS() - run_t0);
      p.text = error.empty() ? "ok" : "failed: " + error;
      emit(p);
    }
  }
  if (interrupted && error.empty()) {
    // An unfinished run is not kept: --resume runs it again.
    end_ = SuiteEnd::kInterrupted;
    --next_run_;
    return false;
  }
  run["ended_at"] = IsoTimestampUtc(WallSeconds());
  if (!error.empty()) {
    run["status"] = "failed";
    run["error"] = error;
    if (run["result"].is_null()) {
      SuiteProgress p = base;
      p.kind = SuiteProgress::Kind::kRunEnd;
      p.text = "failed: " + error;
      emit(p);
    }
  }
  ++runs_made_;
  suite_["runs"].push_back(run);
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
  PGRIG_RETURN_IF_ERROR(MakeDirs(o_.out_dir));
  PGRIG_RETURN_IF_ERROR(Prepare());
  Note("scale: " + scale_.reason);
  if (any_server_settings_ || fs::exists(MarkerPath(o_.out_dir))) {
    ServerSettingsOptions so;
    so.state_dir = o_.out_dir;
    so.embedded = o_.embedded;
    auto ss = ServerSettings::Open(o_.target, so);
    if (!ss.ok()) return ss.status();
    server_settings_ = std::move(ss).value();
    if (any_server_settings_) Note("settings: server-level settings will be applied per cell and restored at the end");
  }
  Status data = EnsureData();
  if (!data.ok()) {
    if (server_settings_) (void)server_settings_->RestoreAll();
    return data;
  }

  std::set<std::pair<std::string, int>> finished;
  if (o_.resume) {
    suite_ = *o_.resume;
    for (const auto& f : FinishedRuns(suite_)) finished.insert(f);
    for (const json& r : suite_["runs"]) next_run_ = std::max(next_run_, r.value("run", 0) + 1);
    suite_["resumed_at"].push_back(IsoTimestampUtc(WallSeconds()));
    suite_["complete"] = false;
    suite_["ended_at"] = nullptr;
    suite_["stop_reason"] = nullptr;
    Note("resume: " + std::to_string(finished.size()) + " finished runs kept");
  } else {
    suite_ = NewSuite();
  }
  int total = 0;
  for (int it = 0; it < o_.plan.iterations; ++it) {
    for (const Cell& c : o_.cells) {
      if (!finished.count({c.id, it})) ++runs_to_do_;
      ++total;
    }
  }
  PGRIG_RETURN_IF_ERROR(Save());

  bool go_on = true;
  for (int it = 0; it < o_.plan.iterations && go_on; ++it) {
    const std::vector<int> order = IterationOrder(o_.cells.size(), it);
    for (size_t pos = 0; pos < order.size() && go_on; ++pos) {
      const int ci = order[pos];
      if (finished.count({o_.cells[static_cast<size_t>(ci)].id, it})) continue;
      if (Stopping()) {
        end_ = SuiteEnd::kInterrupted;
        go_on = false;
        break;
      }
      go_on = RunOne(ci, it, static_cast<int>(pos) + 1);
    }
  }
  if (Stopping() && end_ == SuiteEnd::kCompleted) end_ = SuiteEnd::kInterrupted;

  if (server_settings_) {
    Status restored = server_settings_->RestoreAll();
    suite_["settings"]["restored"] = restored.ok();
    if (!restored.ok()) {
      warnings_.push_back("server settings could not all be restored: " + restored.message());
      suite_["notes"].push_back(warnings_.back());
    } else if (any_server_settings_) {
      Note("settings: the server's original settings are restored");
    }
  }
  SuiteOutcome out;
  const auto done = FinishedRuns(suite_);
  out.runs_ok = static_cast<int>(done.size());
  out.runs_failed = static_cast<int>(suite_["runs"].size()) - out.runs_ok;
  const bool all = static_cast<int>(std::set(done.begin(), done.end()).size()) == total;
  out.end = end_;
  if (end_ == SuiteEnd::kCompleted && !all) out.end = SuiteEnd::kRunFailed;
  suite_["complete"] = all;
  suite_["stop_reason"] = SuiteEndName(out.end);
  suite_["ended_at"] = IsoTimestampUtc(WallSeconds());
  out.runs_made = runs_made_;
  out.wall_s = NowS() - started_;
  suite_["wall_s"] = suite_["wall_s"].is_number() ? suite_["wall_s"].get<double>() + out.wall_s : out.wall_s;
  Status saved = Save();
  if (!saved.ok()) return saved;
  out.warnings = warnings_;
  out.suite = suite_;
  return out;
}

}  // namespace

const char* SuiteEndName(SuiteEnd e) {
  switch (e) {
    case SuiteEnd::kCompleted:
      return "completed";
    case SuiteEnd::kInterrupted:
      return "interrupted";
    case SuiteEnd::kRunFailed:
      return "run_failed";
  }
  return "completed";
}

Result<SuiteOutcome> RunSuite(const SuiteOptions& options) {
  if (options.cells.empty()) return InvalidArgument("the plan has no cells to run");
  Runner runner(options);
  return runner.Run();
}

double EstimateSuiteSeconds(const Plan& plan, size_t cell_count) {
  return static_cast<double>(cell_count) * plan.iterations *
         (std::max(1.0, std::round(plan.duration_s)) +
          (plan.warmup_s > 0 ? std::max(1.0, std::round(plan.warmup_s)) : 0.0) + kOverheadPerRunS);
}

Status CheckWorkloads(const Plan& plan) {
  for (const Workload& w : plan.workloads) {
    auto p = PrepareWorkload(w);
    if (!p.ok()) return p.status();
  }
  return Status::Ok();
}

Status CheckOutDir(const std::string& dir) {
  std::error_code ec;
  fs::path p(dir);
  if (fs::exists(p, ec)) {
    if (!fs::is_directory(p, ec)) return InvalidArgument("--out " + dir + " exists and is not a directory");
    if (!fs::is_empty(p, ec)) {
      return InvalidArgument("--out " + dir +
                             " is not empty; name a new directory (or continue a suite with --resume " + dir + ")");
    }
    if (access(dir.c_str(), W_OK) != 0) {
      return InvalidArgument("--out " + dir + " is not writable: " + std::strerror(errno));
    }
    return Status::Ok();
  }
  // The nearest existing ancestor must be a writable directory.
  fs::path parent = fs::absolute(p, ec).parent_path();
  while (!parent.empty() && !fs::exists(parent, ec)) parent = parent.parent_path();
  if (parent.empty()) parent = "/";
  if (!fs::is_directory(parent, ec)) {
    return InvalidArgument("cannot create " + dir + ": " + parent.string() + " is not a directory");
  }
  if (access(parent.c_str(), W_OK) != 0) {
    return InvalidArgument("cannot create " + dir + ": " + parent.string() + " is not writable: " +
                           std::strerror(errno));
  }
  return Status::Ok();
}

Status CheckResumable(const json& suite, const Plan& plan) {
  if (!suite.is_object() || suite.value("schema", "") != kSuiteSchema) {
    return InvalidArgument(std::string("not a ") + kSuiteSchema + " document");
  }
  if (suite.value("complete", false)) {
    return InvalidArgument("the suite is complete; there is nothing to resume");
  }
  const json& p = suite["plan"];
  if (!p.is_object() || p.value("source_text", "") != plan.source_text || p.value("name", "") != plan.name) {
    return InvalidArgument("the suite was made with a different plan than '" + plan.name +
                           "'; resume it with the same plan file");
  }
  return Status::Ok();
}

}  // namespace pgrig::plan
