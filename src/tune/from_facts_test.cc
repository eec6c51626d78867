#include "tune/from_facts.h"

// GCC 12 at -O2 reports a false -Wmaybe-uninitialized when a
// std::optional<std::string> member of a large aggregate is assigned
// (a known optimizer false positive); the members here are all initialized.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pgrig::tune {
namespace {

using ::testing::HasSubstr;

TEST(InputsFromFacts, UsesContainerLimitsTopologyStorageAndBuild) {
  host::HostFacts h;
  h.memory.total_bytes = 64 * kGiB;
  h.effective_memory_bytes = 8 * kGiB;  // cgroup limit
  h.cpu.vcpus = 32;
  h.effective_cpus = 3.5;  // CPU quota
  h.cpu.threads_per_core = 2;
  h.cpu.architecture.emplace("aarch64");
  h.cpu.microarchitecture.emplace("Neoverse V1");
  h.os.page_size_bytes = 65536;
  h.memory.default_huge_page_size_bytes = 512 * kMiB;
  h.memory.huge_pages = {{.page_size_bytes = 2 * kMiB}, {.page_size_bytes = 512 * kMiB}};
  h.storage = host::StorageFacts{};
  h.storage->nvme = true;
  h.storage->rotational = false;
  host::ServerFacts s;
  s.version_num = 160004;
  s.build.arm_atomics = "ll_sc_only";
  std::vector<std::string> notes;
  TuneInputs in = InputsFromFacts(h, &s, &notes);
  EXPECT_EQ(in.memory_bytes, 8 * kGiB);
  EXPECT_EQ(in.cpus, 3);
  EXPECT_EQ(in.threads_per_core, 2);
  EXPECT_EQ(in.arch, "aarch64");
  EXPECT_EQ(in.cpu_description, "Neoverse V1");
  EXPECT_EQ(in.base_page_size, 65536u);
  EXPECT_EQ(in.huge_page_size, 512 * kMiB);
  EXPECT_EQ(in.huge_page_sizes.size(), 2u);
  EXPECT_EQ(in.storage, StorageClass::kNvme);
  EXPECT_EQ(in.server_major, 16);
  EXPECT_EQ(in.arm_atomics, ArmAtomics::kLoadStoreExclusive);
  EXPECT_TRUE(notes.empty());
}

TEST(InputsFromFacts, UnknownFactsBecomeNotesNamingTheOption) {
  host::HostFacts h;
  h.memory.total_bytes = 4 * kGiB;
  h.storage = host::StorageFacts{};
  h.storage->rotational = true;
  std::vector<std::string> notes;
  TuneInputs in = InputsFromFacts(h, nullptr, &notes);
  EXPECT_EQ(in.memory_bytes, 4 * kGiB);
  EXPECT_EQ(in.storage, StorageClass::kHdd);
  EXPECT_EQ(in.cpus, 1);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_THAT(notes[0], HasSubstr("--cpus"));
  host::HostFacts none;
  notes.clear();
  TuneInputs empty = InputsFromFacts(none, nullptr, &notes);
  EXPECT_EQ(empty.memory_bytes, 0u);
  EXPECT_EQ(empty.storage, StorageClass::kSsd);
  EXPECT_EQ(notes.size(), 3u);  // memory, CPUs, storage
}

// Issue 14, item 13: a virtio-blk disk is a virtual disk, not a hard disk.
TEST(InputsFromFacts, VirtualDiskIsSsdWithANoteAndStorageOverrides) {
  host::HostFacts h;
  h.memory.total_bytes = 8 * kGiB;
  h.cpu.vcpus = 2;
  h.storage = host::StorageFacts{};
  h.storage->device = "vda";
  h.storage->virtual_disk = true;
  h.storage->nvme = false;
  std::vector<std::string> notes;
  TuneInputs in = InputsFromFacts(h, nullptr, &notes);
  EXPECT_EQ(in.storage, StorageClass::kSsd);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_THAT(notes[0], HasSubstr("vda is a virtual disk"));
  // --storage answers the note, and no "give --storage" remains.
  InputOverrides o;
  o.storage = StorageClass::kHdd;
  ApplyOverrides(o, &in, &notes);
  EXPECT_EQ(in.storage, StorageClass::kHdd);
  EXPECT_TRUE(notes.empty());
  auto plan = ComputePlan(
      [&] {
        TuneInputs x = in;
        x.server_major = 15;
        return x;
      }(),
      Profile::kOltp);
  ASSERT_TRUE(plan.ok());
}

// Issue 14, item 12: another machine is described only by the options.
TEST(InputsFromFacts, AsGivenReadsNothingFromThisMachine) {
  InputOverrides o;
  o.memory = 128 * kGiB;
  o.cpus = 64;
  std::vector<std::string> notes;
  TuneInputs in = InputsAsGiven(o, &notes);
  EXPECT_EQ(in.cpus, 64);
  EXPECT_EQ(in.threads_per_core, 1);
  EXPECT_FALSE(in.threads_per_core_known);
  EXPECT_EQ(in.arch, "");
  EXPECT_EQ(in.base_page_size, 4 * kKiB);
  EXPECT_EQ(in.storage, StorageClass::kSsd);
  EXPECT_EQ(notes.size(), 2u);  // storage and SMT assumed

  // A 64-vCPU Graviton with 64kB pages, as given.
  o.threads_per_core = 1;
  o.arch = *ParseArch("arm64");
  o.page_size = 64 * kKiB;
  o.storage = StorageClass::kNvme;
  notes.clear();
  TuneInputs g = InputsAsGiven(o, &notes);
  EXPECT_TRUE(notes.empty());
  EXPECT_EQ(g.arch, "aarch64");
  EXPECT_EQ(g.huge_page_size, 512 * kMiB);
  g.server_major = 16;
  auto plan = ComputePlan(g, Profile::kDw);
  ASSERT_TRUE(plan.ok());
  const Proposal* pg = nullptr;
  for (const auto& p : plan->proposals) {
    if (p.name == "max_parallel_workers_per_gather") pg = &p;
  }
  ASSERT_NE(pg, nullptr);
  EXPECT_EQ(pg->value.integer, 32);  // all 64 are cores, not 32 SMT pairs
  EXPECT_THAT(pg->reason, HasSubstr("full core"));

  // The same machine with --smt 2 halves it.
  o.threads_per_core = 2;
  o.arch = "x86_64";
  o.page_size.reset();
  TuneInputs x = InputsAsGiven(o, &notes);
  x.server_major = 16;
  auto xp = ComputePlan(x, Profile::kDw);
  for (const auto& p : xp->proposals) {
    if (p.name == "max_parallel_workers_per_gather") {
      EXPECT_EQ(p.value.integer, 16);
    }
  }

  // Options are checked against each other.
  InputOverrides bad;
  bad.arch = "x86_64";
  bad.page_size = 64 * kKiB;
  EXPECT_FALSE(ValidateOverrides(bad).ok());
  bad.page_size = 12 * kKiB;
  bad.arch.reset();
  EXPECT_FALSE(ValidateOverrides(bad).ok());
  InputOverrides odd;
  odd.cpus = 7;
  odd.threads_per_core = 2;
  EXPECT_FALSE(ValidateOverrides(odd).ok());
  EXPECT_FALSE(ParseArch("sparc").ok());

  // Each option's range, before anything is read or connected to.
  EXPECT_TRUE(ValidateOverrides(InputOverrides{}).ok());
  InputOverrides small;
  small.memory = 128 * kMiB;
  EXPECT_THAT(ValidateOverrides(small).message(), HasSubstr("--memory 128MB is below the 256MB"));
  small.memory = kMinMemoryBytes;
  EXPECT_TRUE(ValidateOverrides(small).ok());
  InputOverrides huge;
  huge.memory = kMaxMemoryBytes + kGiB;
  EXPECT_THAT(ValidateOverrides(huge).message(), HasSubstr("at most 64TB"));
  InputOverrides cpus;
  cpus.cpus = 0;
  EXPECT_THAT(ValidateOverrides(cpus).message(), HasSubstr("--cpus 0 is out of range"));
  cpus.cpus = 4096;
  EXPECT_TRUE(ValidateOverrides(cpus).ok());
  InputOverrides conns;
  conns.connections = kMinConnections - 1;
  EXPECT_THAT(ValidateOverrides(conns).message(), HasSubstr("--connections 19 is out of range"));
  conns.connections = kMaxConnections;
  EXPECT_TRUE(ValidateOverrides(conns).ok());
}

}  // namespace
}  // namespace pgrig::tune
