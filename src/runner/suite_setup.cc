#include "runner/suite_setup.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "common/fs.h"
#include "micro/wal_flush.h"
#include "results/schemas.h"
#include "results/suite_json.h"
#include "runner/runner.h"
#include "workload/bench_options.h"

namespace pgrig::runner {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// pgbench's tables take about 16 MB per unit of scale with their indexes.
constexpr double kBytesPerScale = 16.0 * 1024 * 1024;

}  // namespace

Result<PreparedWorkload> PrepareWorkload(const plan::Workload& w) {
  if (w.kind != plan::WorkloadKind::kPgbench) return PreparedWorkload{};  // no scripts
  std::vector<workload::ScriptSpec> specs;
  for (const plan::ScriptRef& ref : w.scripts) {
    specs.push_back(workload::ScriptSpec{.kind = ref.kind == plan::ScriptRef::Kind::kFile
                                                     ? workload::ScriptSpec::Kind::kFile
                                                     : workload::ScriptSpec::Kind::kBuiltin,
                                         .name = ref.spec,
                                         .weight = ref.weight});
  }
  const std::vector<std::pair<std::string, std::string>> defines(w.defines.begin(),
                                                                 w.defines.end());
  auto prepared = workload::PrepareScripts(specs, defines);
  if (!prepared.ok()) {
    return InvalidArgument("workload '" + w.name + "': " + prepared.status().message());
  }
  PreparedWorkload out;
  out.names = prepared->names;
  out.scripts = prepared->scripts;
  out.base_variables = prepared->base_variables;
  for (size_t i = 0; i < w.scripts.size(); ++i) {
    const script::Script& s = (*out.scripts)[i];
    results::ResultScript rs{.desc = s.desc,
                             .weight = w.scripts[i].weight,
                             .spec = w.scripts[i].spec,
                             .is_file = w.scripts[i].kind == plan::ScriptRef::Kind::kFile,
                             .command_lines = {}};
    for (const auto& c : s.commands) rs.command_lines.push_back(c.first_line);
    out.result_scripts.push_back(std::move(rs));
  }
  return out;
}

Result<ScaleChoice> ChooseScale(const plan::Plan& plan, pg::Connection& conn,
                                std::optional<uint64_t> memory_bytes) {
  if (plan.size == plan::SizeTarget::kScale) {
    return ScaleChoice{plan.scale,
                       "scale " + std::to_string(plan.scale) + " from plan '" + plan.name + "'"};
  }
  auto sb = conn.Exec("select pg_size_bytes(current_setting('shared_buffers'))");
  if (!sb.ok()) return sb.status();
  const double shared_buffers = std::atof(std::string(sb->Get(0, 0)).c_str());
  const double mib = 1024.0 * 1024.0;
  auto need_memory = [&]() -> Result<double> {
    if (!memory_bytes) {
      return FailedPrecondition("plan '" + plan.name +
                                "' sizes its data to the machine's memory, "
                                "which could not be read; give the plan a scale instead");
    }
    return static_cast<double>(*memory_bytes);
  };
  switch (plan.size) {
    case plan::SizeTarget::kFitsSharedBuffers: {
      const int s = std::max(1, static_cast<int>(shared_buffers * 0.75 / kBytesPerScale));
      return ScaleChoice{
          s, "scale " + std::to_string(s) + ": about " + std::to_string(static_cast<int>(s * 16)) +
                 " MB of tables and indexes, 3/4 of shared_buffers (" +
                 std::to_string(static_cast<int64_t>(shared_buffers / mib)) + " MB)"};
    }
    case plan::SizeTarget::kFitsRam: {
      PGRIG_ASSIGN_OR_RETURN(double mem, need_memory());
      const int s = std::max({1, static_cast<int>(mem * 0.5 / kBytesPerScale),
                              static_cast<int>(shared_buffers * 2 / kBytesPerScale)});
      return ScaleChoice{
          s, "scale " + std::to_string(s) + ": about half of the memory (" +
                 std::to_string(static_cast<int64_t>(mem / mib)) + " MB), above shared_buffers (" +
                 std::to_string(static_cast<int64_t>(shared_buffers / mib)) + " MB)"};
    }
    case plan::SizeTarget::kLargerThanRam: {
      PGRIG_ASSIGN_OR_RETURN(double mem, need_memory());
      const int s = std::max(1, static_cast<int>(mem * 1.5 / kBytesPerScale));
      return ScaleChoice{s, "scale " + std::to_string(s) + ": about 1.5 times the memory (" +
                                std::to_string(static_cast<int64_t>(mem / mib)) + " MB)"};
    }
    case plan::SizeTarget::kScale:
      break;
  }
  return ScaleChoice{plan.scale, "scale from the plan"};
}

// The scale pgbench_branches holds, or nullopt when the table is missing.
Result<ExistingData> ReadExistingData(pg::Connection& conn) {
  ExistingData d;
  auto t = conn.Exec(
      "select to_regclass('pgbench_branches') is not null and "
      "to_regclass('pgbench_accounts') is not null and "
      "to_regclass('pgbench_tellers') is not null and "
      "to_regclass('pgbench_history') is not null");
  if (!t.ok()) return t.status();
  if (std::string(t->Get(0, 0)) != "t") return d;
  d.present = true;
  auto c = conn.Exec(
      "select (select count(*) from pgbench_branches), (select count(*) from pgbench_tellers), "
      "coalesce(obj_description('pgbench_accounts'::regclass, 'pg_class'), ''), "
      "to_regclass('pgbench_branches_pkey') is not null and "
      "to_regclass('pgbench_tellers_pkey') is not null and "
      "to_regclass('pgbench_accounts_pkey') is not null");
  if (!c.ok()) return c.status();
  d.scale = std::atoi(std::string(c->Get(0, 0)).c_str());
  const int64_t tellers = std::atoll(std::string(c->Get(0, 1)).c_str());
  const std::string comment(c->Get(0, 2));
  if (comment.rfind(kLoadInProgress, 0) == 0) {
    d.incomplete = "a load that did not finish left them (\"" + comment + "\")";
    return d;
  }
  if (std::string(c->Get(0, 3)) != "t") {
    d.incomplete = "a primary key is missing, so their load did not finish";
    return d;
  }
  // The key makes this a look at one end of the index.
  auto a = conn.Exec("select coalesce(max(aid), 0) from pgbench_accounts");
  if (!a.ok()) return a.status();
  const int64_t max_aid = std::atoll(std::string(a->Get(0, 0)).c_str());
  if (tellers != 10LL * d.scale || max_aid != 100000LL * d.scale) {
    d.incomplete =
        fmt::format("{} branches, {} tellers and accounts up to aid {} are not one scale's rows",
                    d.scale, tellers, max_aid);
  }
  return d;
}

std::string OneValue(pg::Connection& conn, const char* sql) {
  auto r = conn.Exec(sql);
  if (!r.ok() || r->rows() < 1 || r->IsNull(0, 0)) return "";
  return std::string(r->Get(0, 0));
}

double EstimateSuiteSeconds(const plan::Plan& plan, size_t cell_count) {
  double fsync_s = 0;
  if (const plan::Workload* f = plan::FsyncWorkload(plan)) {
    // Every method (and open_datasync with O_DIRECT) x size x writer count.
    fsync_s = static_cast<double>(micro::PlatformSyncMethods().size() + 1) *
              static_cast<double>(f->fsync.write_sizes.size() * f->fsync.writers.size()) *
              (f->fsync.seconds_per_test + 0.2);
  }
  return fsync_s + static_cast<double>(cell_count) * plan.iterations *
                       (std::max(1.0, std::round(plan.duration_s)) +
                        (plan.warmup_s > 0 ? std::max(1.0, std::round(plan.warmup_s)) : 0.0) +
                        kOverheadPerRunS);
}

Status CheckWorkloads(const plan::Plan& plan) {
  for (const plan::Workload& w : plan.workloads) {
    auto p = PrepareWorkload(w);
    if (!p.ok()) return p.status();
    if (w.kind == plan::WorkloadKind::kFsync && !w.fsync.dir.empty()) {
      // The directory the plan names must be usable now (the data
      // directory, the default, is checked once the server is known).
      Status st = micro::ValidateFsync(FsyncOptionsFor(w.fsync, w.fsync.dir));
      if (!st.ok()) {
        return Status(st.code(), "workload '" + w.name + "', 'dir': " + st.message());
      }
    }
  }
  return Status::Ok();
}

micro::FsyncOptions FsyncOptionsFor(const plan::FsyncParams& p, const std::string& dir) {
  micro::FsyncOptions o;
  o.dir = dir;
  o.seconds_per_test = p.seconds_per_test;
  o.write_sizes = p.write_sizes;
  o.writers = p.writers;
  o.tmpfs = micro::TmpfsPolicy::kRefuse;
  return o;
}

Status CheckOutDir(const std::string& dir) {
  std::error_code ec;
  fs::path p(dir);
  if (fs::exists(p, ec)) {
    if (!fs::is_directory(p, ec))
      return InvalidArgument("--out " + dir + " exists and is not a directory");
    if (!fs::is_empty(p, ec)) {
      return InvalidArgument(
          "--out " + dir +
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
    return InvalidArgument("cannot create " + dir + ": " + parent.string() +
                           " is not writable: " + std::strerror(errno));
  }
  // access() says yes to root everywhere, /proc and /sys included: make (and
  // remove at once) a directory there to know that one can be made.
  std::string probe = (parent / ".pgrig-out-probe-XXXXXX").string();
  if (::mkdtemp(probe.data()) == nullptr) {
    return InvalidArgument("cannot create " + dir + ": no directory can be made in " +
                           parent.string() + " (" + std::strerror(errno) + ")");
  }
  ::rmdir(probe.c_str());
  return Status::Ok();
}

Status CheckResumable(const results::SuiteDoc& suite, const plan::Plan& plan,
                      const std::vector<plan::Cell>& cells) {
  if (suite.complete) return InvalidArgument("the suite is complete; there is nothing to resume");
  if (suite.plan_source_text != plan.source_text || suite.plan_name != plan.name) {
    return InvalidArgument("the suite was made with a different plan than '" + plan.name +
                           "'; resume it with the same plan file");
  }
  const std::vector<std::string> had = results::SuiteCellIds(suite);
  std::vector<std::string> now;
  for (const plan::Cell& c : cells) now.push_back(c.id);
  if (had != now) {
    return InvalidArgument(
        "the plan expands to other cells on this machine (" + std::to_string(now.size()) +
        " cells now, " + std::to_string(had.size()) +
        " in the suite; the CPU count changes 'cores'); resume it where it started");
  }
  return Status::Ok();
}

Result<PriceChoice> ChoosePrice(std::optional<double> usd_per_hour, const std::string& instance,
                                const std::string& detected_instance, const std::string& region,
                                const cost::CatalogSearch& search) {
  PriceChoice out;
  if (usd_per_hour) {
    out.price = PriceSpec{*usd_per_hour, "", "--usd-per-hour"};
    return out;
  }
  const bool from_facts = instance.empty();
  const std::string& type = from_facts ? detected_instance : instance;
  if (type.empty()) return out;
  auto loaded = cost::LoadCatalog(search);
  Result<cost::InstancePrice> found =
      loaded.ok() ? loaded->catalog.FindInstance(
                        type, cost::LookupOptions{.region = region, .provider = ""})
                  : Result<cost::InstancePrice>(loaded.status());
  if (found.ok()) {
    out.price =
        PriceSpec{found->usd_per_hour, found->instance_type,
                  fmt::format("{} {} {} in the price catalog ({}:{}, {}, {})",
                              from_facts ? "this machine's" : "--instance", found->provider,
                              found->instance_type, found->provenance.file, found->provenance.line,
                              found->provenance.date, found->provenance.source)};
  } else if (!from_facts) {
    return InvalidArgument("--instance " + instance + ": " + found.status().message());
  } else {
    out.note = "no price: this machine is " + type + ", which the price catalog does not list (" +
               found.status().message() + "); use --usd-per-hour";
  }
  return out;
}

Result<ResumedSuite> ReadResumable(const std::string& dir, const std::string& plan_arg) {
  auto text = ReadWholeFile(dir + "/suite.json");
  if (!text.ok()) {
    return InvalidArgument("no suite.json there (" + text.status().message() + ")");
  }
  ResumedSuite r;
  PGRIG_ASSIGN_OR_RETURN(r.suite, results::ParseSuiteDoc(*text, "suite.json"));
  if (r.suite.plan_source_text.empty()) return InvalidArgument("suite.json holds no plan");
  const std::string& path = r.suite.plan_source_path;
  const std::string& plan_text = r.suite.plan_source_text;
  PGRIG_ASSIGN_OR_RETURN(r.plan, plan::ParsePlan(plan_text, path.empty() ? "suite.json" : path));
  if (!r.suite.plan_name.empty()) r.plan.name = r.suite.plan_name;
  r.plan.source_path = path;
  r.plan.source_text = plan_text;
  if (!plan_arg.empty() && plan_arg != r.plan.name && plan_arg != r.plan.source_path) {
    return InvalidArgument("it continues plan '" + r.plan.name + "', not '" + plan_arg + "'");
  }
  r.label = r.suite.label.empty() ? r.plan.name : r.suite.label;
  return r;
}

}  // namespace pgrig::runner

namespace pgrig::runner {

Result<ConnectionRoom> ReadConnectionRoom(pg::Connection& conn) {
  PGRIG_ASSIGN_OR_RETURN(
      pg::QueryResult r,
      conn.Exec("SELECT current_setting('max_connections')::int, "
                "current_setting('superuser_reserved_connections')::int + "
                "coalesce(current_setting('reserved_connections', true)::int, 0), "
                "(SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' "
                "AND pid <> pg_backend_pid())"));
  ConnectionRoom room;
  room.max_connections = static_cast<int>(ParseInt64(r.Get(0, 0)).value_or(0));
  room.reserved = static_cast<int>(ParseInt64(r.Get(0, 1)).value_or(0));
  room.in_use = static_cast<int>(ParseInt64(r.Get(0, 2)).value_or(0));
  return room;
}

Status CheckClientsFit(const std::vector<plan::Cell>& cells,
                       const std::vector<std::map<std::string, std::string>>& server_settings,
                       const ConnectionRoom& room) {
  const plan::Cell* worst = nullptr;
  int worst_room = 0;
  for (size_t i = 0; i < cells.size(); ++i) {
    int max = room.max_connections;
    if (i < server_settings.size()) {
      auto it = server_settings[i].find("max_connections");
      if (it != server_settings[i].end()) {
        max = static_cast<int>(ParseInt64(it->second).value_or(max));
      }
    }
    const int free = max - room.reserved - room.in_use - kSuiteOwnSessions;
    if (cells[i].clients > free && (worst == nullptr || cells[i].clients > worst->clients)) {
      worst = &cells[i];
      worst_room = free;
    }
  }
  if (worst == nullptr) return Status::Ok();
  return InvalidArgument(fmt::format(
      "cell {} needs {} client connections, but the server has room for {} (max_connections {}, "
      "{} reserved, {} in use now, {} for pgrig itself); lower the plan's clients or raise "
      "max_connections (a server setting in the plan, or on the server); nothing was started",
      worst->id, worst->clients, std::max(worst_room, 0), room.max_connections, room.reserved,
      room.in_use, kSuiteOwnSessions));
}

}  // namespace pgrig::runner
