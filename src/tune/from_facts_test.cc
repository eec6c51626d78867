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
  h.effective_cpus = 3.5;               // CPU quota
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

}  // namespace
}  // namespace pgrig::tune
