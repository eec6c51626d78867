// Host facts against recorded machine trees (tests/data/hosts/*, written
// by make_fixtures.py from the kernel's formats) and against this machine.
#include "host/host_facts.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "host/hypervisor_cpuid.h"

namespace pgrig::host {
namespace {

using ::testing::HasSubstr;

std::string Fixture(const std::string& name) {
  return std::string(PGRIG_SOURCE_DIR) + "/tests/data/hosts/" + name;
}

HostFacts Collect(const std::string& name, const std::string& storage_path = "") {
  SysFs fs(Fixture(name));
  return CollectHostFacts(fs, HostProbeOptions{.storage_path = storage_path});
}

const CacheLevel* FindCache(const HostFacts& h, int level, const std::string& type) {
  for (const auto& c : h.cpu.caches) {
    if (c.level == level && c.type == type) return &c;
  }
  return nullptr;
}

bool AnyNoteContains(const HostFacts& h, const std::string& s) {
  return std::any_of(h.notes.begin(), h.notes.end(),
                     [&](const std::string& n) { return n.find(s) != std::string::npos; });
}

constexpr uint64_t kKiB = 1024, kMiB = 1024 * 1024, kGiB = 1024ull * 1024 * 1024;

TEST(HostFactsTest, Graviton2IsNeoverseN1OnAwsWithInstanceType) {
  HostFacts h = Collect("graviton2", "/var/lib/pgsql/data");
  EXPECT_EQ(h.cpu.architecture, "aarch64");
  EXPECT_EQ(h.cpu.vendor, "Arm");
  EXPECT_EQ(h.cpu.microarchitecture, "Neoverse N1");
  EXPECT_EQ(h.cpu.arm_implementer, 0x41u);
  EXPECT_EQ(h.cpu.arm_part, 0xd0cu);
  EXPECT_EQ(h.cpu.arm_variant, 3u);
  EXPECT_EQ(h.cpu.arm_revision, 1u);
  EXPECT_EQ(h.cpu.midr_source, "sysfs midr_el1");
  ASSERT_FALSE(h.cpu.chips.empty());
  EXPECT_EQ(h.cpu.chips[0].name, "AWS Graviton2");
  EXPECT_EQ(h.cpu.chips[0].confidence, Confidence::kHigh);
  // Altra shares the core but is not what an EC2 instance runs.
  ASSERT_EQ(h.cpu.chips.size(), 2u);
  EXPECT_EQ(h.cpu.chips[1].confidence, Confidence::kLow);

  EXPECT_EQ(h.cpu.vcpus, 4);
  EXPECT_EQ(h.cpu.sockets, 1);
  EXPECT_EQ(h.cpu.cores, 4);
  EXPECT_EQ(h.cpu.threads_per_core, 1);
  EXPECT_EQ(h.cpu.vcpu_is, "core");
  EXPECT_EQ(h.cpu.lse_atomics, true);
  EXPECT_EQ(h.cpu.crc32, true);
  EXPECT_FALSE(h.cpu.avx2.has_value());  // not an x86 question

  const CacheLevel* l2 = FindCache(h, 2, "Unified");
  ASSERT_NE(l2, nullptr);
  EXPECT_EQ(l2->size_bytes, 1 * kMiB);
  EXPECT_EQ(l2->instances, 4);
  const CacheLevel* l3 = FindCache(h, 3, "Unified");
  ASSERT_NE(l3, nullptr);
  EXPECT_EQ(l3->size_bytes, 32 * kMiB);
  EXPECT_EQ(l3->instances, 1);
  EXPECT_EQ(l3->shared_cpu_count, 4);

  ASSERT_TRUE(h.virtualization.cloud.has_value());
  EXPECT_EQ(h.virtualization.cloud->provider, "aws");
  EXPECT_EQ(h.virtualization.cloud->instance_type, "m6g.xlarge");
  EXPECT_EQ(h.virtualization.virtualized, true);
  EXPECT_EQ(h.virtualization.hypervisor, "nitro");

  EXPECT_EQ(h.memory.total_bytes, 16092044ull * kKiB);
  EXPECT_EQ(h.os.page_size_bytes, 4 * kKiB);
  EXPECT_EQ(h.os.kernel_release, "5.10.215-203.850.amzn2.aarch64");
  EXPECT_EQ(h.cgroup.version, "v2");
  EXPECT_TRUE(h.cgroup.memory_unlimited);
  EXPECT_EQ(h.effective_memory_bytes, h.memory.total_bytes);

  ASSERT_TRUE(h.storage.has_value());
  EXPECT_EQ(h.storage->mount_point, "/");
  EXPECT_EQ(h.storage->device, "nvme0n1");
  EXPECT_EQ(h.storage->nvme, true);
  EXPECT_EQ(h.storage->rotational, false);
  EXPECT_EQ(h.storage->filesystem, "xfs");
}

TEST(HostFactsTest, Graviton3FromCpuinfoOnlyWith64KPages) {
  HostFacts h = Collect("graviton3", "/var/lib/postgresql/16/main");
  EXPECT_EQ(h.cpu.microarchitecture, "Neoverse V1");
  EXPECT_EQ(h.cpu.isa, "Armv8.4-A");
  EXPECT_EQ(h.cpu.midr_source, "/proc/cpuinfo");
  EXPECT_EQ(h.cpu.arm_variant, 1u);
  ASSERT_EQ(h.cpu.chips.size(), 1u);
  EXPECT_THAT(h.cpu.chips[0].name, HasSubstr("Graviton3"));
  EXPECT_EQ(h.cpu.chips[0].confidence, Confidence::kHigh);
  EXPECT_EQ(h.cpu.vcpus, 16);
  EXPECT_EQ(h.cpu.cores, 16);
  EXPECT_EQ(h.os.page_size_bytes, 64 * kKiB);
  EXPECT_EQ(h.memory.default_huge_page_size_bytes, 512 * kMiB);
  ASSERT_EQ(h.memory.huge_pages.size(), 2u);
  EXPECT_EQ(h.memory.huge_pages[0].page_size_bytes, 2 * kMiB);
  EXPECT_EQ(h.memory.huge_pages[1].page_size_bytes, 512 * kMiB);
  EXPECT_EQ(h.virtualization.cloud->instance_type, "c7g.4xlarge");
  // The data directory is on its own instance-store NVMe, not the root disk.
  ASSERT_TRUE(h.storage.has_value());
  EXPECT_EQ(h.storage->mount_point, "/var/lib/postgresql");
  EXPECT_EQ(h.storage->device, "nvme1n1");
  EXPECT_EQ(h.storage->model, "Amazon EC2 NVMe Instance Storage");
  EXPECT_EQ(h.storage->filesystem, "ext4");
}

TEST(HostFactsTest, Graviton4InsideACgroupV2Container) {
  HostFacts h = Collect("graviton4", "/var/lib/postgresql/data");
  EXPECT_EQ(h.cpu.microarchitecture, "Neoverse V2");
  ASSERT_EQ(h.cpu.chips.size(), 3u);  // Graviton4, Axion, Grace share the core
  EXPECT_EQ(h.cpu.chips[0].name, "AWS Graviton4");
  EXPECT_EQ(h.cpu.chips[0].confidence, Confidence::kHigh);
  EXPECT_EQ(h.cpu.chips[1].confidence, Confidence::kLow);
  EXPECT_EQ(h.cpu.chips[2].confidence, Confidence::kLow);
  EXPECT_EQ(h.cpu.vcpus, 8);
  const CacheLevel* l2 = FindCache(h, 2, "Unified");
  ASSERT_NE(l2, nullptr);
  EXPECT_EQ(l2->size_bytes, 2 * kMiB);
  const CacheLevel* l3 = FindCache(h, 3, "Unified");
  ASSERT_NE(l3, nullptr);
  EXPECT_EQ(l3->size_bytes, 36 * kMiB);

  EXPECT_EQ(h.cgroup.version, "v2");
  EXPECT_EQ(h.cgroup.path, "/kubepods.slice/pod1234/cri-containerd-abcd.scope");
  // The leaf's 12 GiB is tighter than the parent's 16 GiB.
  EXPECT_EQ(h.cgroup.memory_limit_bytes, 12 * kGiB);
  ASSERT_TRUE(h.cgroup.cpu_quota_cpus.has_value());
  EXPECT_DOUBLE_EQ(*h.cgroup.cpu_quota_cpus, 4.0);
  EXPECT_EQ(h.cgroup.cpuset_cpus, 8);
  EXPECT_EQ(h.effective_cpus, 4.0);
  EXPECT_EQ(h.effective_memory_bytes, 12 * kGiB);
  EXPECT_EQ(h.virtualization.container, true);
  EXPECT_EQ(h.memory.thp_enabled, "never");
  EXPECT_EQ(h.memory.swappiness, 1);
  ASSERT_EQ(h.memory.huge_pages.size(), 1u);
  EXPECT_EQ(h.memory.huge_pages[0].total, 1024);
  // On overlayfs there is no block device to describe, and it says so.
  ASSERT_TRUE(h.storage.has_value());
  EXPECT_EQ(h.storage->filesystem, "overlay");
  EXPECT_FALSE(h.storage->device.has_value());
  EXPECT_TRUE(AnyNoteContains(h, "not a block device"));
}

TEST(HostFactsTest, AmpereAltraBareMetal) {
  HostFacts h = Collect("ampere-altra", "/srv/pg/data");
  EXPECT_EQ(h.cpu.microarchitecture, "Neoverse N1");
  ASSERT_EQ(h.cpu.chips.size(), 2u);
  EXPECT_EQ(h.cpu.chips[0].name, "Ampere Altra / Altra Max");
  EXPECT_EQ(h.cpu.chips[0].confidence, Confidence::kMedium);
  EXPECT_EQ(h.cpu.chips[1].name, "AWS Graviton2");
  EXPECT_EQ(h.cpu.chips[1].confidence, Confidence::kLow);
  EXPECT_EQ(h.cpu.vcpus, 32);
  EXPECT_EQ(h.cpu.cores, 32);
  EXPECT_EQ(h.cpu.sockets, 1);
  const CacheLevel* l1d = FindCache(h, 1, "Data");
  ASSERT_NE(l1d, nullptr);
  EXPECT_EQ(l1d->size_bytes, 64 * kKiB);
  EXPECT_EQ(l1d->instances, 32);
  EXPECT_FALSE(h.virtualization.cloud.has_value());
  EXPECT_EQ(h.virtualization.virtualized, false);
  EXPECT_EQ(h.cgroup.version, "v1");
  EXPECT_TRUE(h.cgroup.memory_unlimited);
  EXPECT_TRUE(h.cgroup.cpu_unlimited);
  // LVM volume on a spinning disk: dm-0 resolved to its slave's disk.
  ASSERT_TRUE(h.storage.has_value());
  EXPECT_EQ(h.storage->source, "/dev/mapper/vg0-pg");
  EXPECT_EQ(h.storage->device, "sda");
  EXPECT_EQ(h.storage->rotational, true);
  EXPECT_EQ(h.storage->nvme, false);
}

TEST(HostFactsTest, AmpereOneVirtualMachine) {
  HostFacts h = Collect("ampereone", "/var/lib/pgsql");
  EXPECT_EQ(h.cpu.architecture, "aarch64");
  EXPECT_EQ(h.cpu.microarchitecture, "AmpereOne");
  ASSERT_EQ(h.cpu.chips.size(), 1u);
  EXPECT_EQ(h.cpu.chips[0].name, "AmpereOne");
  EXPECT_EQ(h.cpu.chips[0].confidence, Confidence::kHigh);
  // No SMT: every vCPU is a core.
  EXPECT_EQ(h.cpu.vcpus, 16);
  EXPECT_EQ(h.cpu.cores, 16);
  // The small instruction cache beside a large L2 is what sets this core
  // apart from Neoverse N1/V1 (64 KB L1I, 1 MB L2).
  const CacheLevel* l1i = FindCache(h, 1, "Instruction");
  ASSERT_NE(l1i, nullptr);
  EXPECT_EQ(l1i->size_bytes, 16 * kKiB);
  const CacheLevel* l2 = FindCache(h, 2, "Unified");
  ASSERT_NE(l2, nullptr);
  EXPECT_EQ(l2->size_bytes, 2 * kMiB);
  EXPECT_EQ(l2->instances, 16);
  EXPECT_EQ(h.virtualization.virtualized, true);
  ASSERT_TRUE(h.virtualization.cloud.has_value());
  EXPECT_EQ(h.virtualization.cloud->provider, "oci");
  EXPECT_EQ(h.cgroup.version, "v2");
}

TEST(HostFactsTest, IntelSapphireRapidsTwoSocketsWithHyperthreads) {
  HostFacts h = Collect("intel-sapphire-rapids", "/var/lib/pgsql");
  EXPECT_EQ(h.cpu.architecture, "x86_64");
  EXPECT_EQ(h.cpu.vendor, "GenuineIntel");
  EXPECT_EQ(h.cpu.model_name, "Intel(R) Xeon(R) Gold 5415+");
  EXPECT_EQ(h.cpu.family, 6);
  EXPECT_EQ(h.cpu.model, 143);
  EXPECT_EQ(h.cpu.stepping, 8);
  EXPECT_EQ(h.cpu.microarchitecture, "Golden Cove");
  EXPECT_EQ(h.cpu.codename, "Sapphire Rapids");
  EXPECT_TRUE(h.cpu.chips.empty());
  EXPECT_EQ(h.cpu.vcpus, 32);
  EXPECT_EQ(h.cpu.sockets, 2);
  EXPECT_EQ(h.cpu.cores, 16);
  EXPECT_EQ(h.cpu.threads_per_core, 2);
  EXPECT_EQ(h.cpu.vcpu_is, "hyperthread");
  EXPECT_EQ(h.cpu.sse4_2, true);
  EXPECT_EQ(h.cpu.avx2, true);
  EXPECT_EQ(h.cpu.avx512f, true);
  EXPECT_EQ(h.cpu.hypervisor_flag, false);
  EXPECT_EQ(h.virtualization.virtualized, false);
  const CacheLevel* l1d = FindCache(h, 1, "Data");
  ASSERT_NE(l1d, nullptr);
  EXPECT_EQ(l1d->size_bytes, 48 * kKiB);
  EXPECT_EQ(l1d->instances, 16);  // one per core, shared by its two threads
  EXPECT_EQ(l1d->shared_cpu_count, 2);
  const CacheLevel* l3 = FindCache(h, 3, "Unified");
  ASSERT_NE(l3, nullptr);
  EXPECT_EQ(l3->size_bytes, 23040 * kKiB);
  EXPECT_EQ(l3->instances, 2);
  EXPECT_EQ(l3->shared_cpu_count, 16);
  ASSERT_EQ(h.os.numa_nodes.size(), 2u);
  EXPECT_EQ(h.os.numa_nodes[1].cpus, 16);
  EXPECT_EQ(h.os.clocksource, "tsc");
  ASSERT_TRUE(h.storage.has_value());
  EXPECT_EQ(h.storage->device, "sda");
  EXPECT_EQ(h.storage->rotational, true);
}

TEST(HostFactsTest, AmdGenoaInACgroupV1ContainerWithQuota) {
  HostFacts h = Collect("amd-genoa", "/var/lib/postgresql/data");
  EXPECT_EQ(h.cpu.vendor, "AuthenticAMD");
  EXPECT_EQ(h.cpu.family, 25);
  EXPECT_EQ(h.cpu.model, 17);
  EXPECT_EQ(h.cpu.microarchitecture, "Zen 4");
  EXPECT_EQ(h.cpu.codename, "Genoa");
  EXPECT_EQ(h.cpu.identification_confidence, Confidence::kHigh);
  EXPECT_EQ(h.cpu.vcpus, 64);
  EXPECT_EQ(h.cpu.cores, 32);
  EXPECT_EQ(h.cpu.threads_per_core, 2);
  const CacheLevel* l3 = FindCache(h, 3, "Unified");
  ASSERT_NE(l3, nullptr);
  EXPECT_EQ(l3->size_bytes, 32 * kMiB);
  EXPECT_EQ(l3->instances, 8);  // one per CCD
  EXPECT_EQ(l3->shared_cpu_count, 8);
  const CacheLevel* l2 = FindCache(h, 2, "Unified");
  ASSERT_NE(l2, nullptr);
  EXPECT_EQ(l2->size_bytes, 1 * kMiB);
  EXPECT_EQ(l2->instances, 32);
  EXPECT_EQ(h.cgroup.version, "v1");
  EXPECT_EQ(h.cgroup.memory_limit_bytes, 32 * kGiB);
  ASSERT_TRUE(h.cgroup.cpu_quota_cpus.has_value());
  EXPECT_DOUBLE_EQ(*h.cgroup.cpu_quota_cpus, 8.0);
  EXPECT_EQ(h.cgroup.cpuset_cpus, 32);
  EXPECT_EQ(h.effective_cpus, 8.0);
  EXPECT_EQ(h.effective_memory_bytes, 32 * kGiB);
  EXPECT_EQ(h.virtualization.container, true);
  ASSERT_TRUE(h.storage.has_value());
  EXPECT_EQ(h.storage->mount_point, "/var/lib/postgresql/data");
  EXPECT_EQ(h.storage->device, "nvme2n1");
  EXPECT_EQ(h.storage->nvme, true);
}

TEST(HostFactsTest, BrokenTreeGivesUnknownsAndNotesNotGuesses) {
  HostFacts h = Collect("broken", "/data");
  // Two processors are listed, so that much is known...
  EXPECT_EQ(h.cpu.vcpus, 2);
  // ...but nothing says what they are.
  EXPECT_FALSE(h.cpu.architecture.has_value());
  EXPECT_FALSE(h.cpu.microarchitecture.has_value());
  EXPECT_FALSE(h.cpu.vendor.has_value());
  EXPECT_TRUE(h.cpu.chips.empty());
  EXPECT_FALSE(h.cpu.sockets.has_value());
  EXPECT_FALSE(h.cpu.cores.has_value());
  EXPECT_TRUE(h.cpu.caches.empty());
  EXPECT_FALSE(h.memory.total_bytes.has_value());
  EXPECT_FALSE(h.memory.thp_enabled.has_value());
  EXPECT_FALSE(h.os.kernel_release.has_value());
  EXPECT_FALSE(h.os.page_size_bytes.has_value());
  EXPECT_FALSE(h.virtualization.virtualized.has_value());
  EXPECT_FALSE(h.virtualization.cloud.has_value());
  EXPECT_FALSE(h.effective_memory_bytes.has_value());
  EXPECT_FALSE(h.cgroup.version.has_value());  // an empty /proc/self/cgroup proves nothing
  ASSERT_TRUE(h.storage.has_value());
  EXPECT_FALSE(h.storage->device.has_value());
  EXPECT_TRUE(AnyNoteContains(h, "MemTotal"));
  EXPECT_TRUE(AnyNoteContains(h, "cache sizes unknown"));
  EXPECT_TRUE(AnyNoteContains(h, "kernel version unknown"));
  EXPECT_TRUE(AnyNoteContains(h, "THP mode unknown"));
}

TEST(HostFactsTest, MissingRootIsAllUnknownWithoutCrashing) {
  SysFs fs("/nonexistent/pgrig-host-facts-test");
  HostFacts h = CollectHostFacts(fs, HostProbeOptions{.storage_path = "/x"});
  EXPECT_FALSE(h.cpu.vcpus.has_value());
  EXPECT_FALSE(h.memory.total_bytes.has_value());
  EXPECT_FALSE(h.cgroup.version.has_value());
  EXPECT_GE(h.notes.size(), 5u);
}

TEST(HostFactsTest, ThisMachineSatisfiesInvariants) {
  SysFs fs("/");
  HostFacts h = CollectHostFacts(fs, HostProbeOptions{.storage_path = "/tmp"});
  ASSERT_TRUE(h.cpu.vcpus.has_value());
  EXPECT_GE(*h.cpu.vcpus, 1);
  ASSERT_TRUE(h.memory.total_bytes.has_value());
  EXPECT_GT(*h.memory.total_bytes, 0u);
  ASSERT_TRUE(h.os.page_size_bytes.has_value());
  EXPECT_GE(*h.os.page_size_bytes, 4096u);
  ASSERT_TRUE(h.cpu.architecture.has_value());
  ASSERT_TRUE(h.effective_cpus.has_value());
  EXPECT_GT(*h.effective_cpus, 0.0);
  EXPECT_LE(*h.effective_cpus, static_cast<double>(*h.cpu.vcpus));
  ASSERT_TRUE(h.effective_memory_bytes.has_value());
  EXPECT_LE(*h.effective_memory_bytes, *h.memory.total_bytes);
}

// One CPU count everywhere (issue 26): the smallest limit, rounded down,
// at least 1; the online CPUs when no limit is known; and for this process
// the same count the full facts give.
TEST(HostFactsTest, UsableCpusIsTheSmallestLimitRoundedDown) {
  CgroupFacts cg;
  EXPECT_FALSE(EffectiveCpus(std::nullopt, cg).has_value());
  EXPECT_EQ(EffectiveCpus(8, cg), 8.0);
  cg.cpuset_cpus = 4;
  EXPECT_EQ(EffectiveCpus(8, cg), 4.0);
  cg.cpu_quota_cpus = 1.5;
  EXPECT_EQ(EffectiveCpus(8, cg), 1.5);
  EXPECT_EQ(EffectiveCpus(std::nullopt, cg), 1.5);

  HostFacts h;
  h.effective_cpus = 1.5;
  EXPECT_EQ(UsableCpus(h), 1);
  h.effective_cpus = 0.25;
  EXPECT_EQ(UsableCpus(h), 1);
  h.effective_cpus = 6.0;
  EXPECT_EQ(UsableCpus(h), 6);
  h.effective_cpus.reset();
  EXPECT_EQ(UsableCpus(h), static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));

  const HostFacts here = CollectHostFacts(SysFs("/"));
  EXPECT_EQ(UsableCpus(), UsableCpus(here));
}

TEST(ParsersTest, CpuList) {
  EXPECT_EQ(ParseCpuList("0-3,8,10-11"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(ParseCpuList("5"), (std::vector<int>{5}));
  EXPECT_EQ(ParseCpuList(""), (std::vector<int>{}));
  EXPECT_FALSE(ParseCpuList("garbage").has_value());
  EXPECT_FALSE(ParseCpuList("3-1").has_value());
}

TEST(ParsersTest, SizesAndChoices) {
  EXPECT_EQ(ParseSizeWithSuffix("48K"), 48u * 1024);
  EXPECT_EQ(ParseSizeWithSuffix("32768K"), 32u * 1024 * 1024);
  EXPECT_EQ(ParseSizeWithSuffix("2M"), 2u * 1024 * 1024);
  EXPECT_EQ(ParseSizeWithSuffix("64 kB"), 64u * 1024);
  EXPECT_EQ(ParseSizeWithSuffix("2048kB"), 2048u * 1024);
  EXPECT_FALSE(ParseSizeWithSuffix("K").has_value());
  EXPECT_FALSE(ParseSizeWithSuffix("12 parsecs").has_value());
  EXPECT_EQ(BracketedChoice("always [madvise] never"), "madvise");
  EXPECT_FALSE(BracketedChoice("always madvise never").has_value());
}

// A machine tree written by the test: `files` maps paths to contents.
class TempTree {
 public:
  explicit TempTree(const std::map<std::string, std::string>& files) {
    root_ = std::filesystem::temp_directory_path() /
            ("pgrig-host-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    std::filesystem::remove_all(root_);
    for (const auto& [path, text] : files) {
      std::filesystem::path p = root_ / path.substr(1);
      std::filesystem::create_directories(p.parent_path());
      std::ofstream(p) << text;
    }
  }
  ~TempTree() { std::filesystem::remove_all(root_); }
  std::string root() const { return root_.string(); }
  void MakeDir(const std::string& path) {
    std::filesystem::create_directories(root_ / path.substr(1));
  }

 private:
  static inline int counter_ = 0;
  std::filesystem::path root_;
};

std::map<std::string, std::string> VirtioDisk(const std::string& disk) {
  return {{"/proc/self/mountinfo",
           "29 1 252:1 / / rw,relatime shared:1 - ext4 /dev/" + disk + "1 rw\n"},
          {"/sys/block/" + disk + "/queue/rotational", "1\n"},
          {"/sys/block/" + disk + "/queue/scheduler", "[none] mq-deadline\n"},
          {"/sys/block/" + disk + "/" + disk + "1/partition", "1\n"}};
}

TEST(HostFactsTest, VirtioBlkRotationalFlagIsNotEvidence) {
  TempTree t(VirtioDisk("vda"));
  SysFs fs(t.root());
  std::vector<std::string> notes;
  StorageFacts s = CollectStorageFacts(fs, "/var/lib/postgresql", &notes);
  EXPECT_EQ(s.device, "vda");
  EXPECT_FALSE(s.rotational.has_value());  // the kernel says 1; that is the driver's default
  EXPECT_EQ(s.virtual_disk, true);
  EXPECT_EQ(s.nvme, false);
  ASSERT_FALSE(notes.empty());
  EXPECT_THAT(notes.back(), HasSubstr("virtio-blk"));

  TempTree xen(VirtioDisk("xvda"));
  SysFs xfs(xen.root());
  notes.clear();
  StorageFacts x = CollectStorageFacts(xfs, "/", &notes);
  EXPECT_EQ(x.device, "xvda");
  EXPECT_FALSE(x.rotational.has_value());
  EXPECT_EQ(x.virtual_disk, true);

  TempTree sd(VirtioDisk("sda"));  // a real SCSI/SATA disk keeps its flag
  SysFs sfs(sd.root());
  StorageFacts d = CollectStorageFacts(sfs, "/", &notes);
  EXPECT_EQ(d.rotational, true);
  EXPECT_EQ(d.virtual_disk, false);
}

TEST(HostFactsTest, CpuidSignaturesNameTheHypervisor) {
  EXPECT_EQ(HypervisorFromCpuidSignature("KVMKVMKVM"), "kvm");
  EXPECT_EQ(HypervisorFromCpuidSignature(std::string("KVMKVMKVM\0\0\0", 12)), "kvm");
  EXPECT_EQ(HypervisorFromCpuidSignature("Microsoft Hv"), "hyper-v");
  EXPECT_EQ(HypervisorFromCpuidSignature("VMwareVMware"), "vmware");
  EXPECT_EQ(HypervisorFromCpuidSignature("XenVMMXenVMM"), "xen");
  EXPECT_EQ(HypervisorFromCpuidSignature("TCGTCGTCGTCG"), "qemu-tcg");
  EXPECT_EQ(HypervisorFromCpuidSignature("ACRNACRNACRN"), "acrn");
  EXPECT_EQ(HypervisorFromCpuidSignature(" lrpepyh  vr"), "parallels");
  EXPECT_EQ(HypervisorFromCpuidSignature("bhyve bhyve "), "bhyve");
  EXPECT_FALSE(HypervisorFromCpuidSignature("GenuineIntel").has_value());
  EXPECT_FALSE(HypervisorFromCpuidSignature("").has_value());
}

TEST(HostFactsTest, KvmGuestWithoutDmiIsNamedFromCpuid) {
  TempTree t(std::map<std::string, std::string>{{"/proc/self/cgroup", "0::/\n"}});  // no DMI
  SysFs fs(t.root());
  CpuFacts cpu;
  cpu.hypervisor_flag = true;
  std::vector<std::string> notes;
  VirtualizationFacts v = CollectVirtualizationFacts(fs, cpu, &notes, std::string("KVMKVMKVM"));
  EXPECT_EQ(v.virtualized, true);
  EXPECT_EQ(v.hypervisor, "kvm");
  EXPECT_EQ(v.cpuid_signature, "KVMKVMKVM");
  // Without a signature the flag still says "virtualized", but names nothing.
  VirtualizationFacts bare = CollectVirtualizationFacts(fs, cpu, &notes);
  EXPECT_EQ(bare.virtualized, true);
  EXPECT_FALSE(bare.hypervisor.has_value());
  // Through CollectHostFacts: the seam feeds the signature for a tree.
  HostFacts h = CollectHostFacts(fs, HostProbeOptions{.cpuid_signature = "Microsoft Hv"});
  EXPECT_EQ(h.virtualization.hypervisor, "hyper-v");
  // A fixture tree is never described with this machine's CPUID.
  HostFacts fixture = Collect("ampere-altra");
  EXPECT_FALSE(fixture.virtualization.cpuid_signature.has_value());
}

TEST(HostFactsTest, ThisMachineCpuidAgreesWithTheHypervisorFlag) {
  // On x86 the hypervisor bit and the signature come together; elsewhere
  // there is no signature.
  auto sig = ReadHypervisorCpuidSignature();
#if defined(__x86_64__) || defined(__i386__)
  HostFacts h = CollectHostFacts(SysFs("/"));
  if (h.cpu.hypervisor_flag == true) {
    ASSERT_TRUE(sig.has_value());
    EXPECT_EQ(h.virtualization.cpuid_signature, sig);
    if (!h.virtualization.dmi.readable) {
      EXPECT_EQ(h.virtualization.hypervisor, HypervisorFromCpuidSignature(*sig));
    }
  } else if (h.cpu.hypervisor_flag == false) {
    EXPECT_FALSE(sig.has_value());
  }
#else
  EXPECT_FALSE(sig.has_value());
#endif
}

}  // namespace
}  // namespace pgrig::host
