// Host facts: what the machine is, read from /proc and /sys.
//
// CollectHostFacts() reads everything through a SysFs, so the same code runs
// on this machine (root "/"), on a fixture tree in tests, and on a tree the
// user copied from another machine (--sysroot).  It never fails as a whole:
// a file that is missing or unreadable leaves its field empty (std::nullopt,
// shown as "unknown") and adds a note saying which file and why, so a
// reader never mistakes a gap for a fact.
//
// The structs are plain values: copy them, compare them, hand them to other
// threads.  Collection itself is single-threaded and has no side effects
// beyond reading files (and sysconf/stat when the root is "/").
#ifndef PGRIG_HOST_HOST_FACTS_H_
#define PGRIG_HOST_HOST_FACTS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/fs.h"
#include "host/cpu_ids.h"

namespace pgrig::host {

// One cache level and type, deduplicated across CPUs as lscpu does.
struct CacheLevel {
  int level = 0;
  std::string type;          // "Data", "Instruction", "Unified"
  uint64_t size_bytes = 0;   // one instance
  int instances = 0;         // distinct caches of this kind among online CPUs
  int shared_cpu_count = 0;  // CPUs sharing one instance
  std::optional<int> ways;
  std::optional<int> line_size_bytes;
};

struct ArmCoreCount {
  uint32_t implementer = 0;
  uint32_t part = 0;
  int cpus = 0;
};

struct CpuFacts {
  std::optional<std::string> architecture;  // "aarch64", "x86_64"
  std::optional<std::string> vendor;        // "Arm", "Ampere", "GenuineIntel", "AuthenticAMD"
  std::optional<std::string> model_name;
  // The core design or microarchitecture ("Neoverse V1", "Golden Cove", "Zen 4").
  std::optional<std::string> microarchitecture;
  std::optional<std::string> codename;  // x86: "Sapphire Rapids", "Genoa"
  std::optional<std::string> isa;       // Arm: "Armv8.4-A"
  std::optional<Confidence> identification_confidence;

  // Arm: MIDR fields of the most common core (see core_types for the rest).
  std::optional<uint32_t> arm_implementer;
  std::optional<uint32_t> arm_part;
  std::optional<uint32_t> arm_variant;
  std::optional<uint32_t> arm_revision;
  std::optional<std::string> midr_source;  // "sysfs midr_el1" or "/proc/cpuinfo"
  std::vector<ArmCoreCount> core_types;    // more than one on big.LITTLE parts
  std::vector<ChipCandidate> chips;        // Arm: chips that use this core

  // x86
  std::optional<int> family;
  std::optional<int> model;
  std::optional<int> stepping;

  // Topology of the online CPUs.
  std::optional<int> sockets;
  std::optional<int> cores;  // physical cores
  std::optional<int> threads_per_core;
  std::optional<int> vcpus;            // online logical CPUs
  std::optional<std::string> vcpu_is;  // "core" or "hyperthread"

  std::vector<CacheLevel> caches;  // sorted by level, then type

  // Flags that matter to PostgreSQL; nullopt when the flag list is unreadable.
  std::optional<bool> lse_atomics;  // Arm "atomics"
  std::optional<bool> crc32;        // Arm "crc32"; x86: sse4_2 (CRC32C)
  std::optional<bool> sse4_2;
  std::optional<bool> avx2;
  std::optional<bool> avx512f;
  std::optional<bool> hypervisor_flag;  // x86 "hypervisor"
  std::vector<std::string> flags;       // the raw flag list of CPU 0
};

struct HugePagePool {
  uint64_t page_size_bytes = 0;
  std::optional<int64_t> total;
  std::optional<int64_t> free;
  std::optional<int64_t> reserved;
  std::optional<int64_t> surplus;
};

struct MemoryFacts {
  std::optional<uint64_t> total_bytes;
  std::optional<uint64_t> available_bytes;
  std::optional<uint64_t> swap_total_bytes;
  std::optional<uint64_t> default_huge_page_size_bytes;
  std::vector<HugePagePool> huge_pages;
  std::optional<std::string> thp_enabled;  // "always", "madvise", "never"
  std::optional<std::string> thp_defrag;
  std::optional<std::string> thp_shmem_enabled;  // PostgreSQL's shared memory is shmem
  std::optional<int> swappiness;
  std::optional<int> overcommit_memory;
  std::optional<int> overcommit_ratio;
  std::optional<int> dirty_ratio;
  std::optional<int> dirty_background_ratio;
  std::optional<int> zone_reclaim_mode;
};

struct CgroupFacts {
  std::optional<std::string> version;          // "v1" or "v2"; nullopt: cannot tell
  std::optional<std::string> path;             // the process's cgroup
  std::optional<uint64_t> memory_limit_bytes;  // nullopt with memory_unlimited: no limit
  bool memory_unlimited = false;
  std::optional<double> cpu_quota_cpus;  // quota / period
  bool cpu_unlimited = false;
  std::optional<std::string> cpuset;  // "0-3"
  std::optional<int> cpuset_cpus;
};

struct NumaNode {
  int id = 0;
  int cpus = 0;
  std::optional<uint64_t> memory_bytes;
};

struct VirtualizationFacts {
  std::optional<bool> virtualized;             // nullopt: cannot tell
  std::optional<std::string> hypervisor;       // "kvm", "xen", "hyper-v", "vmware", "nitro", ...
  std::optional<std::string> hypervisor_type;  // /sys/hypervisor/type
  // x86 CPUID leaf 0x40000000 vendor signature ("KVMKVMKVM", "Microsoft Hv").
  std::optional<std::string> cpuid_signature;
  std::optional<bool> container;
  DmiStrings dmi;
  std::optional<CloudIdentity> cloud;
};

struct StorageFacts {
  std::string path;  // the directory asked about
  std::optional<std::string> mount_point;
  std::optional<std::string> filesystem;  // "ext4", "xfs"
  std::optional<std::string> source;      // "/dev/nvme0n1p1"
  std::optional<std::string> device;      // the whole disk: "nvme0n1"
  // The kernel's queue/rotational flag; nullopt for a virtual disk, whose
  // flag is the driver's default rather than a fact about the storage.
  std::optional<bool> rotational;
  std::optional<bool> nvme;
  // virtio-blk (vd*) or Xen (xvd*): a disk the hypervisor emulates.
  std::optional<bool> virtual_disk;
  std::optional<std::string> model;
  std::optional<std::string> scheduler;
};

struct OsFacts {
  std::optional<std::string> kernel_release;
  std::optional<std::string> os_name;  // /etc/os-release PRETTY_NAME
  std::optional<uint64_t> page_size_bytes;
  std::optional<std::string> clocksource;
  std::optional<std::string> cpufreq_governor;
  std::vector<NumaNode> numa_nodes;
};

struct HostFacts {
  std::string sysroot = "/";
  CpuFacts cpu;
  MemoryFacts memory;
  CgroupFacts cgroup;
  OsFacts os;
  VirtualizationFacts virtualization;
  std::optional<StorageFacts> storage;
  // What the limits add up to: min(vCPUs, cpuset, quota) and min(RAM, limit).
  std::optional<double> effective_cpus;
  std::optional<uint64_t> effective_memory_bytes;
  // One line per fact that could not be read or is uncertain.
  std::vector<std::string> notes;
};

struct HostProbeOptions {
  // The directory whose block device to describe (the data directory); empty:
  // none.  A path on the target machine, resolved through /proc/self/mountinfo.
  std::string storage_path;
  // The hypervisor's CPUID signature.  nullopt: read it with CPUID when the
  // root is this machine ("/"), not at all for a fixture or copied tree.
  // Tests set it to feed a signature.
  std::optional<std::string> cpuid_signature;
};

HostFacts CollectHostFacts(const SysFs& fs, const HostProbeOptions& options = {});

// What the CPU limits add up to: min(vCPUs, cpuset, quota), as in
// HostFacts::effective_cpus; nullopt when none of them is known.
std::optional<double> EffectiveCpus(std::optional<int> vcpus, const CgroupFacts& cgroup);

// pgrig's one CPU count (a plan's `cpus`, bench's client-thread report,
// tune): effective_cpus rounded down (a quota of 1.5 CPUs gives 1), else
// the online CPUs; at least 1.
int UsableCpus(const HostFacts& h);
// The same for this process now, reading only the online CPUs and the
// cgroup's limits (cheaper than CollectHostFacts).
int UsableCpus();

// Pieces of CollectHostFacts, exposed for tests and reuse.  Each appends to
// `notes` what it could not read.
CpuFacts CollectCpuFacts(const SysFs& fs, const DmiStrings& dmi, std::vector<std::string>* notes);
MemoryFacts CollectMemoryFacts(const SysFs& fs, std::vector<std::string>* notes);
CgroupFacts CollectCgroupFacts(const SysFs& fs, std::vector<std::string>* notes);
OsFacts CollectOsFacts(const SysFs& fs, std::vector<std::string>* notes);
DmiStrings ReadDmi(const SysFs& fs);
// `cpuid_signature`: the hypervisor's CPUID signature, when known; it names
// the hypervisor when DMI does not.
VirtualizationFacts CollectVirtualizationFacts(
    const SysFs& fs, const CpuFacts& cpu, std::vector<std::string>* notes,
    const std::optional<std::string>& cpuid_signature = {});
StorageFacts CollectStorageFacts(const SysFs& fs, const std::string& path,
                                 std::vector<std::string>* notes);

// Parsers shared by the collectors (pure functions).
// "0-3,8,10-11" -> {0,1,2,3,8,10,11}; nullopt on junk.
std::optional<std::vector<int>> ParseCpuList(std::string_view list);
// "48K", "1024K", "32M", "2048 kB" -> bytes; nullopt on junk.
std::optional<uint64_t> ParseSizeWithSuffix(std::string_view text);
// "always [madvise] never" -> "madvise".
std::optional<std::string> BracketedChoice(std::string_view text);

}  // namespace pgrig::host

#endif  // PGRIG_HOST_HOST_FACTS_H_
