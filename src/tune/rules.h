// The tuning rules: pure functions from a description of the machine and a
// workload profile to proposed PostgreSQL settings, each with its reason and
// the rule it came from, plus a worst-case memory budget and advice.
//
// Nothing here reads the machine or talks to a server: TuneInputs is filled
// by the caller (from host facts, from command-line overrides, or by a test
// sweeping a grid of machines), so every rule is testable in isolation.
// docs/tune.md lists every rule with its source.  Thread-safe (no state).
//
// Guarantees of ComputePlan(), checked by the grid tests:
//   * the worst-case memory budget is at most kBudgetFraction of memory;
//   * CheckInvariants() holds for the proposals over PostgreSQL's defaults;
//   * proposals exist for the server's major version (13–18) only;
//   * no value lies outside PostgreSQL's accepted range (RangeOf).
#ifndef PGRIG_TUNE_RULES_H_
#define PGRIG_TUNE_RULES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "tune/settings.h"

namespace pgrig::tune {

enum class Profile { kOltp, kWeb, kMixed, kDw, kDesktop, kBenchmark };
enum class StorageClass { kHdd, kSsd, kNvme, kSan };
// What the server binary uses for atomics on Arm (see host/arm_atomics.h).
enum class ArmAtomics { kNotApplicable, kUnknown, kLse, kOutlineAtomics, kLoadStoreExclusive };

const char* ProfileName(Profile p);
Result<Profile> ParseProfile(std::string_view name);
const std::vector<Profile>& AllProfiles();
const char* StorageClassName(StorageClass s);
Result<StorageClass> ParseStorageClass(std::string_view name);
const std::vector<StorageClass>& AllStorageClasses();

inline constexpr uint64_t kMinMemoryBytes = 256 * kMiB;
inline constexpr double kBudgetFraction = 0.90;
inline constexpr int kMinServerMajor = 13;
inline constexpr int kMaxServerMajor = 18;
inline constexpr uint64_t kMaxMemoryBytes = 64 * 1024 * kGiB;
inline constexpr int kMinConnections = 20;
inline constexpr int kMaxConnections = 10000;

struct TuneInputs {
  uint64_t memory_bytes = 0;  // after container limits
  int cpus = 0;               // vCPUs the server may use (after cpuset and quota)
  int threads_per_core = 1;   // 2 on x86 with SMT; 1 on Graviton and most Arm servers
  // False when nobody said (offline tuning of another machine without
  // --smt): vCPUs are then counted as cores and the reasons say so.
  bool threads_per_core_known = true;
  StorageClass storage = StorageClass::kSsd;
  std::optional<int> connections;           // wanted max_connections; nullopt: profile's
  std::optional<uint64_t> data_size_bytes;  // database size, when known
  int server_major = 0;
  std::string arch = "x86_64";            // uname -m; empty: unknown (offline, no --arch)
  uint64_t base_page_size = 4096;         // 65536 on 64 KB-page Arm kernels
  uint64_t huge_page_size = 2 * kMiB;     // the kernel's default huge page size
  std::vector<uint64_t> huge_page_sizes;  // every pool the kernel offers
  ArmAtomics arm_atomics = ArmAtomics::kNotApplicable;
  std::string cpu_description;  // for messages ("Neoverse V1", "Zen 4")
  // Values the server accepts for wal_compression (pg_settings.enumvals);
  // empty: assume a standard build (lz4 on 15+).
  std::vector<std::string> wal_compression_values;
};

// Rejects inputs the rules cannot serve, with a message naming the option.
Status ValidateInputs(const TuneInputs& in);

struct Proposal {
  std::string name;
  SettingValue value;
  std::string reason;  // one sentence
  std::string rule;    // stable id, e.g. "memory.shared_buffers"
};

struct BudgetLine {
  std::string what;
  uint64_t bytes = 0;
  std::string formula;
};

struct MemoryBudget {
  std::vector<BudgetLine> lines;
  uint64_t total_bytes = 0;
  uint64_t memory_bytes = 0;
  uint64_t limit_bytes = 0;          // kBudgetFraction of memory
  uint64_t shared_memory_bytes = 0;  // the part in the server's shared segment
  bool fits() const { return total_bytes <= limit_bytes; }
};

struct HugePagesPlan {
  uint64_t page_size_bytes = 0;
  int64_t pages = 0;
  bool exact = false;  // from `postgres -C shared_memory_size_in_huge_pages`
  std::string method;  // how `pages` was obtained
  std::string sysctl;  // the line that reserves them
  std::vector<std::string> notes;
};

struct TunePlan {
  Profile profile = Profile::kOltp;
  std::vector<Proposal> proposals;
  MemoryBudget budget;
  HugePagesPlan huge_pages;
  std::vector<std::string> advice;    // architecture and platform advice
  std::vector<std::string> warnings;  // durability trade-offs and the like
  bool trades_durability = false;
};

Result<TunePlan> ComputePlan(const TuneInputs& in, Profile profile);

// The worst case the settings in `config` allow (unset names take
// PostgreSQL's defaults for `server_major`).  The model is in docs/tune.md.
MemoryBudget ComputeBudget(const SettingMap& config, uint64_t memory_bytes, int server_major);

// Cross-setting rules PostgreSQL enforces at start or that keep settings
// meaningful; the message names both settings.
Status CheckInvariants(const SettingMap& config);

// `base` with `proposals` laid over it.
SettingMap Overlay(SettingMap base, const std::vector<Proposal>& proposals);

// Huge pages from the budget's shared-memory estimate, for when the server
// binary cannot be asked (PostgreSQL 13/14, or no local binaries).
HugePagesPlan EstimateHugePages(const MemoryBudget& budget, const TuneInputs& in);

// The sysctl (or sysfs) line that reserves `pages` of `page_size` when the
// kernel's default huge page size is `default_size`.
std::string HugePagesSysctl(int64_t pages, uint64_t page_size, uint64_t default_size);

}  // namespace pgrig::tune

#endif  // PGRIG_TUNE_RULES_H_
