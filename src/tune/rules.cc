#include "tune/rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/enum_names.h"
#include "common/strings.h"

namespace pgrig::tune {

namespace {

// Per-profile constants.  Sources: PGTune (le0pard/pgtune, configurationSlice.js)
// for connections, memory fractions, WAL sizes and statistics targets;
// timescaledb-tune for checkpoint_timeout; see docs/tune.md.
struct ProfileRow {
  Profile profile;
  const char* name;
  int connections;            // 0: sized from memory (benchmark)
  uint64_t sb_divisor;        // shared_buffers = memory / sb_divisor
  uint64_t ecs_num, ecs_den;  // effective_cache_size = memory * num / den
  uint64_t mwm_divisor;       // maintenance_work_mem = memory / mwm_divisor
  uint64_t wm_divisor;        // extra divisor on PGTune's work_mem formula
  int statistics_target;
  uint64_t min_wal, max_wal;
  int64_t checkpoint_timeout_ms;  // 0: keep the default
};

const ProfileRow kRows[] = {
    {Profile::kOltp, "oltp", 300, 4, 3, 4, 16, 1, 100, 2 * kGiB, 8 * kGiB, 15 * 60000},
    {Profile::kWeb, "web", 200, 4, 3, 4, 16, 1, 100, 1 * kGiB, 4 * kGiB, 15 * 60000},
    {Profile::kMixed, "mixed", 100, 4, 3, 4, 16, 2, 100, 1 * kGiB, 4 * kGiB, 15 * 60000},
    {Profile::kDw, "dw", 40, 4, 3, 4, 8, 2, 500, 4 * kGiB, 16 * kGiB, 15 * 60000},
    {Profile::kDesktop, "desktop", 20, 16, 1, 4, 16, 6, 100, 100 * kMiB, 2 * kGiB, 0},
    {Profile::kBenchmark, "benchmark", 0, 4, 3, 4, 16, 1, 100, 4 * kGiB, 16 * kGiB, 30 * 60000},
};

const ProfileRow& Row(Profile p) {
  for (const auto& r : kRows) {
    if (r.profile == p) return r;
  }
  return kRows[0];
}

// Estimates (see docs/tune.md, calibrated against `postgres -C
// shared_memory_size` of PostgreSQL 15 on x86-64).
constexpr uint64_t kBackendBaseline = 2 * kMiB;  // private memory of an idle backend
constexpr uint64_t kSharedFixed = 4 * kMiB;
constexpr uint64_t kSharedPerSlot = 24 * kKiB;
constexpr uint64_t kSharedPerLockSlot = 400;
constexpr double kSharedPerBuffer = 0.025;  // descriptors, hash table, checkpoint sort
constexpr int kAuxiliaryProcesses = 5;
constexpr uint64_t kVacuumDeadTupleCap = 1 * kGiB;  // PostgreSQL 13–16

uint64_t RoundDown(uint64_t v, uint64_t unit) { return v / unit * unit; }

// PostgreSQL's largest accepted value of a size setting, rounded down to
// `unit` (shared_buffers: INT_MAX/2 8kB pages; effective_cache_size: INT_MAX
// pages; work_mem: INT_MAX kB).
uint64_t PgMax(const char* name, int major, uint64_t unit) {
  auto r = RangeOf(name, major);
  return r ? RoundDown(static_cast<uint64_t>(r->max), unit) : UINT64_MAX;
}

const char* kClampNote = ", clamped to the largest value PostgreSQL accepts";

bool IsArm(const TuneInputs& in) { return in.arch == "aarch64" || in.arch == "arm64"; }

std::string Mem(uint64_t b) { return SettingValue::Bytes(b).ToConf(); }

int BenchmarkConnections(uint64_t memory) {
  // The same ladder the embedded cluster starts with (cluster::SizeForMemory):
  // the load engine opens up to ~1,000 client connections.
  if (memory >= 4 * kGiB) return 1100;
  if (memory >= 1 * kGiB) return 300;
  return 100;
}

uint64_t WalBuffersFor(uint64_t sb) {
  // PGTune: 3% of shared_buffers, at most 16MB (one WAL segment), rounded up
  // to 16MB when close to it, at least 32kB; whole 8kB pages.
  uint64_t v = sb * 3 / 100;
  if (v > 16 * kMiB) v = 16 * kMiB;
  if (v > 14 * kMiB) v = 16 * kMiB;
  v = RoundDown(v, 8 * kKiB);
  return std::max<uint64_t>(v, 32 * kKiB);
}

struct Knobs {
  int connections = 0;
  uint64_t shared_buffers = 0;
  uint64_t maintenance_work_mem = 0;
  std::optional<uint64_t> autovacuum_work_mem;
  uint64_t work_mem = 0;
  int max_worker_processes = 8;
  int max_parallel_workers = 8;
  int per_gather = 2;
  int maintenance_workers = 2;
  int autovacuum_workers = 3;
  int max_locks = 64;
  int io_workers = 3;  // PostgreSQL 18+
  bool minimal_wal = false;
};

}  // namespace

const char* ProfileName(Profile p) { return Row(p).name; }

const std::vector<Profile>& AllProfiles() {
  static const std::vector<Profile> k = {Profile::kOltp, Profile::kWeb,     Profile::kMixed,
                                         Profile::kDw,   Profile::kDesktop, Profile::kBenchmark};
  return k;
}

Result<Profile> ParseProfile(std::string_view name) {
  std::string n = ToLower(Trim(name));
  for (const auto& r : kRows) {
    if (n == r.name) return r.profile;
  }
  return InvalidArgument(fmt::format(
      "unknown profile '{}'; choose one of oltp, web, mixed, dw, desktop, benchmark", name));
}

constexpr const char* kStorageClassNames[] = {"hdd", "ssd", "nvme", "san"};

const char* StorageClassName(StorageClass s) {
  return NameAt<StorageClass::kSan>(s, kStorageClassNames, "ssd");
}

const std::vector<StorageClass>& AllStorageClasses() {
  static const std::vector<StorageClass> k = {StorageClass::kHdd, StorageClass::kSsd,
                                              StorageClass::kNvme, StorageClass::kSan};
  return k;
}

Result<StorageClass> ParseStorageClass(std::string_view name) {
  std::string n = ToLower(Trim(name));
  if (auto v = ValueAt<StorageClass::kSan>(n, kStorageClassNames)) return *v;
  return InvalidArgument(
      fmt::format("unknown storage class '{}'; choose one of hdd, ssd, nvme, san", name));
}

Status ValidateInputs(const TuneInputs& in) {
  if (in.memory_bytes < kMinMemoryBytes) {
    return InvalidArgument(fmt::format(
        "memory {} is below the 256MB pgrig can tune for; give --memory of at least 256MB",
        HumanBytes(in.memory_bytes)));
  }
  if (in.memory_bytes > kMaxMemoryBytes) {
    return InvalidArgument(
        fmt::format("memory {} is too large: pgrig tunes for at most 64TB; check --memory",
                    HumanBytes(in.memory_bytes)));
  }
  if (in.cpus < 1 || in.cpus > 4096) {
    return InvalidArgument(fmt::format("--cpus {} is out of range; give 1 to 4096", in.cpus));
  }
  if (in.threads_per_core < 1 || in.threads_per_core > 8) {
    return InvalidArgument(
        fmt::format("threads per core {} is out of range (1-8)", in.threads_per_core));
  }
  if (in.connections && (*in.connections < kMinConnections || *in.connections > kMaxConnections)) {
    return InvalidArgument(fmt::format("--connections {} is out of range; give {} to {}",
                                       *in.connections, kMinConnections, kMaxConnections));
  }
  if (in.server_major < kMinServerMajor || in.server_major > kMaxServerMajor) {
    return InvalidArgument(
        fmt::format("PostgreSQL {} is not supported by pgrig tune; it knows versions {} to {}",
                    in.server_major, kMinServerMajor, kMaxServerMajor));
  }
  if (in.huge_page_size == 0 || in.base_page_size == 0) {
    return InvalidArgument("page sizes must be positive");
  }
  return Status::Ok();
}

SettingMap Overlay(SettingMap base, const std::vector<Proposal>& proposals) {
  for (const auto& p : proposals) base[p.name] = p.value;
  return base;
}

MemoryBudget ComputeBudget(const SettingMap& config, uint64_t memory_bytes, int server_major) {
  SettingMap m = DefaultSettings(server_major);
  for (const auto& [k, v] : config) m[k] = v;
  auto u = [&](const char* name) {
    int64_t v = GetInt(m, name, 0);
    return v < 0 ? uint64_t{0} : static_cast<uint64_t>(v);
  };
  MemoryBudget b;
  b.memory_bytes = memory_bytes;
  b.limit_bytes = static_cast<uint64_t>(static_cast<double>(memory_bytes) * kBudgetFraction);
  const uint64_t sb = u("shared_buffers");
  const uint64_t conns = u("max_connections");
  const uint64_t wm = u("work_mem");
  const uint64_t mwm = u("maintenance_work_mem");
  const double hmm = GetReal(m, "hash_mem_multiplier", 1.0);
  int64_t wal_buffers = GetInt(m, "wal_buffers", -1);
  uint64_t wb = wal_buffers >= 0 ? static_cast<uint64_t>(wal_buffers)
                                 : std::clamp<uint64_t>(sb / 32, 64 * kKiB, 16 * kMiB);
  // PostgreSQL 18 reserves autovacuum_worker_slots process slots (whatever
  // autovacuum_max_workers says) and adds io_workers auxiliary processes.
  const uint64_t av_slots =
      server_major >= 18 ? u("autovacuum_worker_slots") : u("autovacuum_max_workers");
  const uint64_t aux = kAuxiliaryProcesses + (server_major >= 18 ? u("io_workers") : 0);
  const uint64_t slots = conns + av_slots + u("max_worker_processes") + u("max_wal_senders") +
                         u("max_prepared_transactions") + aux;
  const uint64_t locks = u("max_locks_per_transaction");
  uint64_t other_shared = static_cast<uint64_t>(static_cast<double>(sb) * kSharedPerBuffer) + wb +
                          kSharedFixed + slots * (kSharedPerSlot + kSharedPerLockSlot * locks);
  // One sort plus one hash node per query: work_mem + hash_mem_multiplier x work_mem.
  const uint64_t per_query = static_cast<uint64_t>(static_cast<double>(wm) * (1.0 + hmm));
  const uint64_t per_backend = kBackendBaseline + per_query;
  const uint64_t workers = u("max_parallel_workers");
  int64_t avwm_setting = GetInt(m, "autovacuum_work_mem", -1);
  uint64_t av_mem = avwm_setting >= 0 ? static_cast<uint64_t>(avwm_setting) : mwm;
  if (server_major < 17) av_mem = std::min(av_mem, kVacuumDeadTupleCap);
  const uint64_t avw = u("autovacuum_max_workers");

  b.shared_memory_bytes = sb + other_shared;
  b.lines.push_back({"shared_buffers", sb, "shared_buffers"});
  b.lines.push_back({"other shared memory", other_shared,
                     fmt::format("wal_buffers {} + buffer descriptors + lock table for {} process "
                                 "slots x {} locks",
                                 Mem(wb), slots, locks)});
  b.lines.push_back({"client backends", conns * per_backend,
                     fmt::format("{} connections x ({} baseline + work_mem {} x (1 + "
                                 "hash_mem_multiplier {}))",
                                 conns, Mem(kBackendBaseline), Mem(wm), hmm)});
  b.lines.push_back(
      {"parallel workers", workers * per_backend,
       fmt::format("max_parallel_workers {} x the same per-backend figure", workers)});
  b.lines.push_back({"autovacuum workers", avw * av_mem,
                     fmt::format("autovacuum_max_workers {} x {}{}", avw, Mem(av_mem),
                                 server_major < 17 && av_mem == kVacuumDeadTupleCap
                                     ? " (vacuum uses at most 1GB before PostgreSQL 17)"
                                     : "")});
  b.lines.push_back({"one maintenance command", mwm,
                     "maintenance_work_mem (CREATE INDEX or VACUUM; parallel maintenance "
                     "workers share it)"});
  for (const auto& l : b.lines) b.total_bytes += l.bytes;
  return b;
}

Status CheckInvariants(const SettingMap& c) {
  auto i = [&](const char* n) { return GetInt(c, n, 0); };
  if (i("max_parallel_workers") > i("max_worker_processes")) {
    return FailedPrecondition(fmt::format(
        "max_parallel_workers ({}) exceeds max_worker_processes ({}); parallel workers are taken "
        "from the worker-process pool",
        i("max_parallel_workers"), i("max_worker_processes")));
  }
  if (i("max_parallel_workers_per_gather") > i("max_parallel_workers")) {
    return FailedPrecondition(
        fmt::format("max_parallel_workers_per_gather ({}) exceeds max_parallel_workers ({})",
                    i("max_parallel_workers_per_gather"), i("max_parallel_workers")));
  }
  if (i("max_parallel_maintenance_workers") > i("max_parallel_workers")) {
    return FailedPrecondition(
        fmt::format("max_parallel_maintenance_workers ({}) exceeds max_parallel_workers ({})",
                    i("max_parallel_maintenance_workers"), i("max_parallel_workers")));
  }
  if (i("max_wal_senders") >= i("max_connections")) {
    return FailedPrecondition(fmt::format("max_wal_senders ({}) must be below max_connections ({})",
                                          i("max_wal_senders"), i("max_connections")));
  }
  if (i("superuser_reserved_connections") + i("reserved_connections") >= i("max_connections")) {
    return FailedPrecondition(fmt::format(
        "superuser_reserved_connections + reserved_connections ({}) must be below "
        "max_connections ({})",
        i("superuser_reserved_connections") + i("reserved_connections"), i("max_connections")));
  }
  if (i("min_wal_size") > i("max_wal_size")) {
    return FailedPrecondition(fmt::format("min_wal_size ({}) exceeds max_wal_size ({})",
                                          Mem(static_cast<uint64_t>(i("min_wal_size"))),
                                          Mem(static_cast<uint64_t>(i("max_wal_size")))));
  }
  if (c.count("min_wal_size") && i("min_wal_size") < static_cast<int64_t>(32 * kMiB)) {
    return FailedPrecondition("min_wal_size must be at least twice the 16MB WAL segment size");
  }
  if (c.count("autovacuum_worker_slots") &&
      i("autovacuum_max_workers") > i("autovacuum_worker_slots")) {
    return FailedPrecondition(fmt::format(
        "autovacuum_max_workers ({}) exceeds autovacuum_worker_slots ({}); PostgreSQL 18 starts "
        "no more autovacuum workers than it has slots",
        i("autovacuum_max_workers"), i("autovacuum_worker_slots")));
  }
  double cct = GetReal(c, "checkpoint_completion_target", 0.9);
  if (cct < 0 || cct > 1) {
    return FailedPrecondition(fmt::format("checkpoint_completion_target {} is outside 0..1", cct));
  }
  if (GetWord(c, "wal_level", "replica") == "minimal") {
    if (i("max_wal_senders") != 0) {
      return FailedPrecondition(fmt::format(
          "wal_level = minimal needs max_wal_senders = 0 (it is {}); the server would not start",
          i("max_wal_senders")));
    }
    if (GetWord(c, "archive_mode", "off") != "off") {
      return FailedPrecondition(
          "wal_level = minimal needs archive_mode = off; the server would not start");
    }
  }
  return Status::Ok();
}

std::string HugePagesSysctl(int64_t pages, uint64_t page_size, uint64_t default_size) {
  if (page_size == default_size || default_size == 0) {
    return fmt::format("vm.nr_hugepages = {}", pages);
  }
  return fmt::format("echo {} > /sys/kernel/mm/hugepages/hugepages-{}kB/nr_hugepages", pages,
                     page_size / kKiB);
}

HugePagesPlan EstimateHugePages(const MemoryBudget& budget, const TuneInputs& in) {
  HugePagesPlan h;
  h.page_size_bytes = in.huge_page_size;
  h.pages = static_cast<int64_t>((budget.shared_memory_bytes + h.page_size_bytes - 1) /
                                 h.page_size_bytes);
  h.exact = false;
  h.method = "estimate from the memory budget (the server binary was not asked)";
  h.sysctl = HugePagesSysctl(h.pages, h.page_size_bytes, in.huge_page_size);
  return h;
}

namespace {

// What every step of ComputePlan reads: the inputs, and what follows from
// them before anything is sized.
struct PlanContext {
  const TuneInputs& in;
  Profile profile;
  const ProfileRow& row;
  uint64_t mem;
  int major;
  double hmm;  // hash_mem_multiplier's default: 2 from PostgreSQL 15
  bool arm;
  int tpc;    // threads per core, at least 1
  int cores;  // physical cores, at least 1
};

// The knobs as sized, with what their reasons need to know of how they got
// there.
struct Sizing {
  Knobs k;
  std::string sb_reason;
  bool wm_clamped = false;    // work_mem hit PostgreSQL's largest value
  int per_gather_wanted = 0;  // before the budget lowered the parallel workers
  int maintenance_wanted = 0;
  std::vector<std::string> fitted;  // the knobs the budget lowered

  bool WasFitted(const char* n) const {
    return std::find(fitted.begin(), fitted.end(), n) != fitted.end();
  }
};

constexpr char kFitNote[] = " (lowered to keep the worst case within 90% of memory)";

void Propose(TunePlan& plan, std::string name, SettingValue v, std::string reason,
             std::string rule) {
  plan.proposals.push_back({std::move(name), std::move(v), std::move(reason), std::move(rule)});
}

// Parallel query: PGTune sizes from the CPU count; pgrig counts physical
// cores for the per-query figures, so two SMT siblings are not counted as
// two cores (on Graviton and most Arm servers every vCPU is a core).
void SizeWorkers(const PlanContext& c, Sizing& s) {
  const TuneInputs& in = c.in;
  Knobs& k = s.k;
  if (in.cpus >= 4) {
    k.max_worker_processes = std::max(8, in.cpus);
    k.max_parallel_workers = in.cpus;
    int half = (c.cores + 1) / 2;
    k.per_gather = c.profile == Profile::kDw ? half : std::min(half, 4);
    k.maintenance_workers = std::min(half, 4);
  } else {
    k.max_worker_processes = 8;
    k.max_parallel_workers = in.cpus;
    k.per_gather = in.cpus >= 2 ? 1 : 0;
    k.maintenance_workers = in.cpus >= 2 ? 1 : 0;
  }
  k.per_gather = std::min(k.per_gather, k.max_parallel_workers);
  k.maintenance_workers = std::min(k.maintenance_workers, k.max_parallel_workers);
  s.per_gather_wanted = k.per_gather;
  s.maintenance_wanted = k.maintenance_workers;
  k.autovacuum_workers = in.cpus >= 32 ? 5 : in.cpus >= 16 ? 4 : 3;
  // PGTune: about one I/O worker per four vCPUs, never below the default 3
  // nor above PostgreSQL's maximum 32.
  if (c.major >= 18) k.io_workers = std::min(32, std::max(3, in.cpus / 4));
}

// The sizes before the budget: the profile's fractions of memory, the
// database size when known, the CPU counts, and PGTune's work_mem.
Sizing InitialSizing(const PlanContext& c) {
  const TuneInputs& in = c.in;
  const ProfileRow& row = c.row;
  const uint64_t mem = c.mem;
  Sizing s;
  Knobs& k = s.k;
  k.connections = in.connections    ? *in.connections
                  : row.connections ? row.connections
                                    : BenchmarkConnections(mem);
  k.shared_buffers = std::max<uint64_t>(RoundDown(mem / row.sb_divisor, kMiB), 16 * kMiB);
  s.sb_reason = c.profile == Profile::kDesktop
                    ? "a desktop shares its memory with other programs: 1/16 of memory"
                    : "a quarter of memory caches hot pages; the OS page cache holds the rest";
  if (const uint64_t cap = PgMax("shared_buffers", c.major, kMiB); k.shared_buffers > cap) {
    k.shared_buffers = cap;
    s.sb_reason += std::string(kClampNote) + " (2^30 - 1 pages of 8kB)";
  }
  if (in.data_size_bytes && c.profile != Profile::kDesktop) {
    uint64_t fit = RoundDown(*in.data_size_bytes + *in.data_size_bytes / 4 + 64 * kMiB, kMiB);
    fit = std::max<uint64_t>(fit, 128 * kMiB);
    if (fit < k.shared_buffers) {
      k.shared_buffers = fit;
      s.sb_reason = fmt::format(
          "the whole database ({}) fits with 25% headroom; a larger pool would stay empty",
          HumanBytes(*in.data_size_bytes));
    }
  }
  k.maintenance_work_mem =
      std::clamp<uint64_t>(RoundDown(mem / row.mwm_divisor, kMiB), 16 * kMiB, 8 * kGiB);
  if (k.maintenance_work_mem > kVacuumDeadTupleCap) k.autovacuum_work_mem = kVacuumDeadTupleCap;

  SizeWorkers(c, s);
  if (c.profile == Profile::kDw || c.profile == Profile::kMixed) {
    k.max_locks = mem >= 32 * kGiB ? 512 : mem >= 16 * kGiB ? 256 : mem >= 8 * kGiB ? 128 : 64;
  }
  k.minimal_wal = c.profile == Profile::kDesktop || c.profile == Profile::kBenchmark;

  // PGTune's work_mem: what is left after shared_buffers, shared by every
  // connection and worker with three allocations each, then a per-profile
  // divisor; at least 4MB.
  double left = static_cast<double>(mem - std::min(mem, k.shared_buffers));
  double wm = left / (static_cast<double>(k.connections + k.max_worker_processes) * 3.0) /
              static_cast<double>(row.wm_divisor);
  k.work_mem = std::max<uint64_t>(RoundDown(static_cast<uint64_t>(wm), 64 * kKiB), 4 * kMiB);
  if (const uint64_t cap = PgMax("work_mem", c.major, 64 * kKiB); k.work_mem > cap) {
    k.work_mem = cap;
    s.wm_clamped = true;
  }
  return s;
}

// The settings the knobs stand for, as ComputeBudget reads them.
SettingMap KnobSettings(const Knobs& x, int major) {
  SettingMap m;
  m["max_connections"] = SettingValue::Integer(x.connections);
  m["shared_buffers"] = SettingValue::Bytes(x.shared_buffers);
  m["wal_buffers"] = SettingValue::Bytes(WalBuffersFor(x.shared_buffers));
  m["work_mem"] = SettingValue::Bytes(x.work_mem);
  m["maintenance_work_mem"] = SettingValue::Bytes(x.maintenance_work_mem);
  if (x.autovacuum_work_mem) m["autovacuum_work_mem"] = SettingValue::Bytes(*x.autovacuum_work_mem);
  m["max_worker_processes"] = SettingValue::Integer(x.max_worker_processes);
  m["max_parallel_workers"] = SettingValue::Integer(x.max_parallel_workers);
  m["max_parallel_workers_per_gather"] = SettingValue::Integer(x.per_gather);
  m["max_parallel_maintenance_workers"] = SettingValue::Integer(x.maintenance_workers);
  m["autovacuum_max_workers"] = SettingValue::Integer(x.autovacuum_workers);
  m["max_locks_per_transaction"] = SettingValue::Integer(x.max_locks);
  if (x.minimal_wal) m["max_wal_senders"] = SettingValue::Integer(0);
  if (major >= 18) m["io_workers"] = SettingValue::Integer(x.io_workers);
  return m;
}

// Fits the worst case into the budget.  Gives up first what costs least
// (docs/tune.md): work_mem down to 1MB, maintenance memory, the extra
// autovacuum workers, connections (unless the user fixed them), parallel
// workers, and shared_buffers last.
Status FitBudget(const PlanContext& c, Sizing& s) {
  const TuneInputs& in = c.in;
  const uint64_t mem = c.mem;
  const double hmm = c.hmm;
  Knobs& k = s.k;
  MemoryBudget budget = ComputeBudget(KnobSettings(k, c.major), mem, c.major);
  for (int guard = 0; !budget.fits() && guard < 400; ++guard) {
    const uint64_t over = budget.total_bytes - budget.limit_bytes;
    const uint64_t per_wm_byte_count = static_cast<uint64_t>(
        static_cast<double>(k.connections + k.max_parallel_workers) * (1.0 + hmm));
    if (k.work_mem > 1 * kMiB) {
      uint64_t cut = (over + per_wm_byte_count - 1) / std::max<uint64_t>(per_wm_byte_count, 1);
      uint64_t target = k.work_mem > cut ? k.work_mem - cut : 0;
      k.work_mem = std::max<uint64_t>(RoundDown(target, 64 * kKiB), 1 * kMiB);
      s.fitted.push_back("work_mem");
    } else if (k.maintenance_work_mem > 16 * kMiB) {
      k.maintenance_work_mem =
          std::max<uint64_t>(RoundDown(k.maintenance_work_mem / 2, kMiB), 16 * kMiB);
      if (k.autovacuum_work_mem && *k.autovacuum_work_mem >= k.maintenance_work_mem) {
        k.autovacuum_work_mem.reset();
      }
      s.fitted.push_back("maintenance_work_mem");
    } else if (k.autovacuum_workers > 3) {
      k.autovacuum_workers = 3;
      s.fitted.push_back("autovacuum_max_workers");
    } else if (!in.connections && k.connections > kMinConnections) {
      uint64_t per_conn = kBackendBaseline +
                          static_cast<uint64_t>(static_cast<double>(k.work_mem) * (1.0 + hmm)) +
                          kSharedPerSlot + kSharedPerLockSlot * static_cast<uint64_t>(k.max_locks);
      int cut = static_cast<int>((over + per_conn - 1) / per_conn);
      k.connections = std::max(kMinConnections, k.connections - std::max(cut, 1));
      s.fitted.push_back("max_connections");
    } else if (k.max_parallel_workers > 2) {
      k.max_parallel_workers = std::max(2, k.max_parallel_workers / 2);
      k.per_gather = std::min(k.per_gather, k.max_parallel_workers);
      k.maintenance_workers = std::min(k.maintenance_workers, k.max_parallel_workers);
      s.fitted.push_back("max_parallel_workers");
    } else if (k.shared_buffers > 32 * kMiB) {
      k.shared_buffers = std::max<uint64_t>(RoundDown(k.shared_buffers * 3 / 4, kMiB), 32 * kMiB);
      s.sb_reason = "lowered to fit the worst-case memory budget on this small machine";
      s.fitted.push_back("shared_buffers");
    } else {
      break;
    }
    budget = ComputeBudget(KnobSettings(k, c.major), mem, c.major);
  }
  if (!budget.fits()) {
    return ResourceExhausted(fmt::format(
        "{} connections cannot fit in {} of memory: the worst case needs {} even with work_mem "
        "1MB; lower --connections or give the server more memory",
        k.connections, HumanBytes(mem), HumanBytes(budget.total_bytes)));
  }
  return Status::Ok();
}

// max_connections and the memory settings.
void AddConnectionsAndMemory(const PlanContext& c, const Sizing& s, TunePlan& plan) {
  const TuneInputs& in = c.in;
  const ProfileRow& row = c.row;
  const Knobs& k = s.k;
  std::string conn_reason =
      in.connections ? "the number of connections asked for with --connections"
      : c.profile == Profile::kBenchmark
          ? "room for the load generator's clients (up to ~1,000) where memory allows"
          : fmt::format("typical connection count for a {} workload", row.name);
  if (s.WasFitted("max_connections")) conn_reason += kFitNote;
  Propose(plan, "max_connections", SettingValue::Integer(k.connections), conn_reason,
          "connections.profile");
  Propose(plan, "shared_buffers", SettingValue::Bytes(k.shared_buffers), s.sb_reason,
          "memory.shared_buffers");
  {
    uint64_t ecs = RoundDown(c.mem * row.ecs_num / row.ecs_den, kMiB);
    std::string why =
        c.profile == Profile::kDesktop
            ? "a quarter of memory is likely to be cache on a shared desktop"
            : "shared_buffers plus the OS page cache: about three quarters of memory can hold data";
    if (const uint64_t cap = PgMax("effective_cache_size", c.major, kMiB); ecs > cap) {
      ecs = cap;
      why += std::string(kClampNote) + " (2^31 - 1 pages of 8kB)";
    }
    Propose(plan, "effective_cache_size", SettingValue::Bytes(ecs), why,
            "memory.effective_cache_size");
  }
  Propose(plan, "maintenance_work_mem", SettingValue::Bytes(k.maintenance_work_mem),
          std::string(c.profile == Profile::kDw
                          ? "1/8 of memory (DW builds large indexes), at most 8GB"
                          : "1/16 of memory for VACUUM and CREATE INDEX, at most 8GB") +
              (s.WasFitted("maintenance_work_mem") ? kFitNote : ""),
          "memory.maintenance_work_mem");
  if (k.autovacuum_work_mem) {
    Propose(plan, "autovacuum_work_mem", SettingValue::Bytes(*k.autovacuum_work_mem),
            c.major < 17
                ? "vacuum cannot use more than 1GB for dead tuples before PostgreSQL 17, so each "
                  "autovacuum worker is capped there instead of at maintenance_work_mem"
                : "caps each autovacuum worker so several workers cannot each take all of "
                  "maintenance_work_mem",
            "memory.autovacuum_work_mem");
  }
  Propose(plan, "work_mem", SettingValue::Bytes(k.work_mem),
          s.WasFitted("work_mem")
              ? "the largest per-sort/hash memory that keeps the worst case within 90% of memory"
              : fmt::format("(memory - shared_buffers) / ((connections + worker processes) x "
                            "3){}, at least 4MB{}",
                            row.wm_divisor > 1 ? fmt::format(" / {}", row.wm_divisor) : "",
                            s.wm_clamped ? std::string(kClampNote) + " (2^31 - 1 kB)" : ""),
          "memory.work_mem");
}

// WAL buffers and sizes, and checkpoints.
void AddWal(const PlanContext& c, const Sizing& s, TunePlan& plan) {
  const ProfileRow& row = c.row;
  Propose(plan, "wal_buffers", SettingValue::Bytes(WalBuffersFor(s.k.shared_buffers)),
          "3% of shared_buffers, at most one 16MB WAL segment", "wal.wal_buffers");
  Propose(plan, "min_wal_size", SettingValue::Bytes(row.min_wal),
          "keeps recycled WAL segments for bursts instead of creating new files",
          "wal.size_profile");
  Propose(plan, "max_wal_size", SettingValue::Bytes(row.max_wal),
          c.profile == Profile::kBenchmark
              ? "checkpoints are driven by time, not WAL volume, so they do not fall inside "
                "short runs"
              : "spaces checkpoints out so that fewer full-page images are written",
          "wal.size_profile");
  Propose(plan, "checkpoint_completion_target", SettingValue::Real(0.9),
          "spreads checkpoint writes over 90% of the interval (the default from PostgreSQL 14)",
          "wal.checkpoint_completion_target");
  if (row.checkpoint_timeout_ms) {
    Propose(plan, "checkpoint_timeout", SettingValue::Millis(row.checkpoint_timeout_ms),
            "fewer checkpoints mean fewer full-page images and smoother I/O",
            "wal.checkpoint_timeout");
  }
}

// What the planner assumes of the storage, and how deep the I/O goes.
void AddPlannerAndIo(const PlanContext& c, TunePlan& plan) {
  const TuneInputs& in = c.in;
  const ProfileRow& row = c.row;
  bool rotating = in.storage == StorageClass::kHdd;
  {
    // PGTune: data that fits in memory is read from the page cache, so seeks
    // do not matter even on a hard disk; otherwise a hard disk keeps 4, and
    // so does a data warehouse (a low cost there picks index scans for large
    // retrievals, slower than sequential scans even on flash).
    const uint64_t cache = c.mem * row.ecs_num / row.ecs_den;
    const bool fits = in.data_size_bytes && *in.data_size_bytes <= cache;
    double rpc = 1.1;
    std::string why = "random reads on flash or SAN cost little more than sequential ones";
    if (fits) {
      why = fmt::format(
          "the database ({}) fits in the page cache ({}), so reads seldom reach the {}",
          HumanBytes(*in.data_size_bytes), HumanBytes(cache), rotating ? "disk's seeks" : "device");
    } else if (rotating) {
      rpc = 4.0;
      why = "seeks on spinning disks cost about four sequential reads";
    } else if (c.profile == Profile::kDw) {
      rpc = 4.0;
      why =
          "PostgreSQL's default: on a warehouse larger than memory a low cost picks index scans "
          "for large retrievals, which are slower than sequential scans even on flash "
          "(give --data-size when the data fits in memory)";
    }
    Propose(plan, "random_page_cost", SettingValue::Real(rpc), why, "planner.random_page_cost");
  }
  int eic = in.storage == StorageClass::kHdd   ? 2
            : in.storage == StorageClass::kSsd ? 200
            : in.storage == StorageClass::kSan ? 300
                                               : 1000;
  Propose(plan, "effective_io_concurrency", SettingValue::Integer(eic),
          rotating
              ? "a spinning disk gains little from more than a couple of reads in flight"
              : fmt::format("{} storage serves many reads in flight", StorageClassName(in.storage)),
          "io.effective_io_concurrency");
  Propose(plan, "maintenance_io_concurrency",
          SettingValue::Integer(std::max(eic, c.major >= 18 ? 16 : 10)),
          "maintenance work (VACUUM, recovery prefetch) can use the same I/O depth",
          "io.maintenance_io_concurrency");
  Propose(plan, "default_statistics_target", SettingValue::Integer(row.statistics_target),
          c.profile == Profile::kDw ? "analytic queries on skewed data need finer statistics"
                                    : "the default suits short queries",
          "planner.statistics_target");
}

// Background, parallel, autovacuum and I/O worker processes.
void AddWorkers(const PlanContext& c, const Sizing& s, TunePlan& plan) {
  const TuneInputs& in = c.in;
  const Knobs& k = s.k;
  std::string core_note =
      !in.threads_per_core_known
          ? fmt::format(
                "{} vCPUs counted as cores (threads per core not given; --smt 2 for an "
                "SMT machine)",
                in.cpus)
      : c.tpc > 1 ? fmt::format("{} vCPUs are {} physical cores with SMT", in.cpus, c.cores)
      : c.arm     ? fmt::format("each of the {} vCPUs is a full core (no SMT{})", in.cpus,
                            in.cpu_description.empty() ? "" : ", " + in.cpu_description)
                  : fmt::format("{} vCPUs, one thread per core", in.cpus);
  const std::string parallel_fit =
      "; lowered with max_parallel_workers to keep the worst case within 90% of memory";
  Propose(
      plan, "max_worker_processes", SettingValue::Integer(k.max_worker_processes),
      "one background worker per vCPU, never fewer than the default 8 (extensions use them too)",
      "parallel.worker_processes");
  Propose(plan, "max_parallel_workers", SettingValue::Integer(k.max_parallel_workers),
          s.WasFitted("max_parallel_workers")
              ? "fewer parallel workers than vCPUs, to keep the worst case within 90% of memory"
              : fmt::format("parallel workers up to the vCPU count ({})", in.cpus),
          "parallel.workers");
  Propose(plan, "max_parallel_workers_per_gather", SettingValue::Integer(k.per_gather),
          in.cpus < 2   ? "with one CPU a parallel query only adds overhead"
          : in.cpus < 4 ? fmt::format("one worker per query with {} vCPUs", in.cpus)
                        : fmt::format("half the physical cores{}; {}{}",
                                      c.profile == Profile::kDw ? "" : ", at most 4", core_note,
                                      k.per_gather < s.per_gather_wanted ? parallel_fit : ""),
          "parallel.per_gather");
  Propose(plan, "max_parallel_maintenance_workers", SettingValue::Integer(k.maintenance_workers),
          in.cpus < 2 ? "with one CPU parallel index builds only add overhead"
          : in.cpus < 4
              ? fmt::format("one worker per index build with {} vCPUs", in.cpus)
              : fmt::format("half the physical cores, at most 4; {}{}", core_note,
                            k.maintenance_workers < s.maintenance_wanted ? parallel_fit : ""),
          "parallel.maintenance");
  if (k.autovacuum_workers != 3) {
    Propose(plan, "autovacuum_max_workers", SettingValue::Integer(k.autovacuum_workers),
            fmt::format("{} vCPUs can vacuum more tables at once", in.cpus), "autovacuum.workers");
  } else if (s.WasFitted("autovacuum_max_workers")) {
    Propose(plan, "autovacuum_max_workers", SettingValue::Integer(3),
            fmt::format("the default: {} vCPUs could vacuum more tables at once, but each worker "
                        "may take maintenance_work_mem{}",
                        in.cpus, kFitNote),
            "autovacuum.workers");
  }
  if (c.major >= 18) {
    // Proposed only when above the default 3 (k.io_workers, sized above).
    const int iow = k.io_workers;
    if (iow > 3) {
      Propose(plan, "io_workers", SettingValue::Integer(iow),
              fmt::format("asynchronous reads (io_method = worker) are served by I/O worker "
                          "processes: one per four vCPUs ({}), at most 32",
                          in.cpus),
              "io.io_workers");
    }
    plan.advice.push_back(
        "PostgreSQL 18 reads through asynchronous I/O; pgrig keeps the default io_method = worker, "
        "which every build has.  io_method = io_uring can be faster on Linux but needs a server "
        "built with liburing and a kernel that allows io_uring; try it with --set "
        "io_method=io_uring on the server's machine.");
  }
}

// Lock table and huge pages: sized from the profile and shared_buffers.
void AddLocksAndHugePages(const PlanContext& c, const Sizing& s, TunePlan& plan) {
  const TuneInputs& in = c.in;
  const Knobs& k = s.k;
  if (k.max_locks != 64) {
    Propose(plan, "max_locks_per_transaction", SettingValue::Integer(k.max_locks),
            "analytic schemas touch many partitions per transaction (half of timescaledb-tune's "
            "figure for this memory)",
            "locks.partitions");
  }
  if (k.shared_buffers >= 2 * kGiB) {
    Propose(plan, "huge_pages", SettingValue::Word("try"),
            "large shared memory maps faster and costs less TLB with huge pages; 'try' still "
            "starts if none are reserved",
            "memory.huge_pages");
    bool has_2m = std::find(in.huge_page_sizes.begin(), in.huge_page_sizes.end(), 2 * kMiB) !=
                  in.huge_page_sizes.end();
    if (c.major >= 14 && in.base_page_size == 64 * kKiB && in.huge_page_size > 2 * kMiB && has_2m) {
      Propose(plan, "huge_page_size", SettingValue::Bytes(2 * kMiB),
              fmt::format("this 64KB-page kernel's default huge page is {}; 2MB (contiguous-PTE) "
                          "pages waste less of the reservation",
                          Mem(in.huge_page_size)),
              "memory.huge_page_size");
    }
  }
}

// The settings that are a choice rather than a size: jit, wal_compression,
// wal_level and, for the benchmark profile, synchronous_commit.
void AddSwitches(const PlanContext& c, const Sizing& s, TunePlan& plan) {
  const TuneInputs& in = c.in;
  const Profile profile = c.profile;
  if (profile == Profile::kOltp || profile == Profile::kWeb || profile == Profile::kMixed ||
      profile == Profile::kBenchmark) {
    Propose(plan, "jit", SettingValue::Word("off"),
            "JIT compilation costs more than it saves on short OLTP queries", "planner.jit");
  }
  {
    std::string wc = "on";
    if (c.major >= 15) {
      const auto& vals = in.wal_compression_values;
      bool lz4 = vals.empty() || std::find(vals.begin(), vals.end(), "lz4") != vals.end();
      wc = lz4 ? "lz4" : "pglz";
    }
    Propose(plan, "wal_compression", SettingValue::Word(wc),
            c.major >= 15 ? "compressing full-page images cuts WAL volume; lz4 is cheap on CPU"
                          : "compressing full-page images cuts WAL volume",
            "wal.compression");
  }
  if (s.k.minimal_wal) {
    Propose(plan, "wal_level", SettingValue::Word("minimal"),
            profile == Profile::kBenchmark
                ? "a throwaway benchmark cluster has no replicas or archive; bulk loads skip WAL"
                : "a desktop database has no replicas; bulk loads skip WAL",
            "wal.minimal");
    Propose(plan, "max_wal_senders", SettingValue::Integer(0),
            "wal_level = minimal requires no WAL senders", "wal.minimal");
  }
  if (profile == Profile::kBenchmark) {
    Propose(plan, "synchronous_commit", SettingValue::Word("off"),
            "commits return before their WAL is flushed: a crash loses the last moments of "
            "transactions (never consistency)",
            "durability.benchmark");
    plan.trades_durability = true;
    plan.warnings.push_back(
        "BENCHMARK PROFILE TRADES DURABILITY: synchronous_commit = off (a crash can lose "
        "the last ~0.6 s of committed transactions) and wal_level = minimal (no replicas, no "
        "point-in-time recovery).  Use it only for throwaway benchmark clusters.  fsync and "
        "full_page_writes stay on, so a crash never corrupts data and storage costs stay real.");
  }
}

// Advice that is real for this platform.
void AddPlatformAdvice(const PlanContext& c, TunePlan& plan) {
  const TuneInputs& in = c.in;
  if (c.arm && in.arm_atomics == ArmAtomics::kLoadStoreExclusive) {
    plan.advice.push_back(
        "This postgres binary was built without Arm LSE atomics (only load/store-exclusive "
        "retry loops).  On many-core Arm servers lock-heavy workloads scale worse; use a build "
        "compiled for armv8.1-a or later or with -moutline-atomics.");
  }
  if (c.arm && c.major < 15) {
    plan.advice.push_back(
        "PostgreSQL 15 added an ISB spin-delay for ARM64 spinlocks, which its source notes is "
        "beneficial on high-core-count ARM64 processors; consider PostgreSQL 15 or later on this "
        "machine.");
  }
  if (in.base_page_size == 64 * kKiB) {
    plan.advice.push_back(
        fmt::format("This kernel uses 64KB base pages; its default huge page is {}, so a huge-page "
                    "reservation is rounded up to whole {} pages.",
                    Mem(in.huge_page_size), Mem(in.huge_page_size)));
  }
}

// Checks what the plan promises (the invariants, on top of the defaults),
// and fills in its budget and huge page estimate.
Status CheckPromises(const PlanContext& c, TunePlan& plan) {
  const TuneInputs& in = c.in;
  SettingMap merged = Overlay(DefaultSettings(c.major), plan.proposals);
  PGRIG_RETURN_IF_ERROR(
      CheckInvariants(merged).WithContext("pgrig tune produced inconsistent settings (a bug)"));
  plan.budget = ComputeBudget(merged, c.mem, c.major);
  plan.huge_pages = EstimateHugePages(plan.budget, in);
  if (auto it = merged.find("huge_page_size"); it != merged.end() && it->second.integer > 0) {
    plan.huge_pages.page_size_bytes = static_cast<uint64_t>(it->second.integer);
    plan.huge_pages.pages = static_cast<int64_t>(
        (plan.budget.shared_memory_bytes + plan.huge_pages.page_size_bytes - 1) /
        plan.huge_pages.page_size_bytes);
    plan.huge_pages.sysctl =
        HugePagesSysctl(plan.huge_pages.pages, plan.huge_pages.page_size_bytes, in.huge_page_size);
  }
  return Status::Ok();
}

}  // namespace

Result<TunePlan> ComputePlan(const TuneInputs& in, Profile profile) {
  PGRIG_RETURN_IF_ERROR(ValidateInputs(in));
  const int tpc = std::max(1, in.threads_per_core);
  const PlanContext c{.in = in,
                      .profile = profile,
                      .row = Row(profile),
                      .mem = in.memory_bytes,
                      .major = in.server_major,
                      .hmm = in.server_major >= 15 ? 2.0 : 1.0,
                      .arm = IsArm(in),
                      .tpc = tpc,
                      .cores = std::max(1, in.cpus / tpc)};
  Sizing sizing = InitialSizing(c);
  PGRIG_RETURN_IF_ERROR(FitBudget(c, sizing));

  TunePlan plan;
  plan.profile = profile;
  AddConnectionsAndMemory(c, sizing, plan);
  AddWal(c, sizing, plan);
  AddPlannerAndIo(c, plan);
  AddWorkers(c, sizing, plan);
  AddLocksAndHugePages(c, sizing, plan);
  AddSwitches(c, sizing, plan);
  AddPlatformAdvice(c, plan);
  PGRIG_RETURN_IF_ERROR(CheckPromises(c, plan));
  return plan;
}

}  // namespace pgrig::tune
