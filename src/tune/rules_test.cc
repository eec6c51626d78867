// The rules over a grid of machines (invariants and the memory budget must
// hold everywhere), and pinned cases computed by hand.
#include "tune/rules.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

namespace pgrig::tune {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TuneInputs Machine(uint64_t mem, int cpus, StorageClass st, int major) {
  TuneInputs in;
  in.memory_bytes = mem;
  in.cpus = cpus;
  in.storage = st;
  in.server_major = major;
  return in;
}

const Proposal* Find(const TunePlan& p, const std::string& name) {
  for (const auto& x : p.proposals) {
    if (x.name == name) return &x;
  }
  return nullptr;
}

int64_t Int(const TunePlan& p, const std::string& name) {
  const Proposal* x = Find(p, name);
  EXPECT_NE(x, nullptr) << name;
  return x ? static_cast<int64_t>(x->value.Number()) : -1;
}

std::string Text(const TunePlan& p, const std::string& name) {
  const Proposal* x = Find(p, name);
  return x ? x->value.ToConf() : "<none>";
}

TEST(RulesGrid, InvariantsAndBudgetHoldEverywhere) {
  const uint64_t mems[] = {256 * kMiB, 512 * kMiB, 1 * kGiB,  2 * kGiB,   4 * kGiB,   8 * kGiB,
                           16 * kGiB,  32 * kGiB,  64 * kGiB, 128 * kGiB, 256 * kGiB, 512 * kGiB};
  const int cpus[] = {1, 2, 3, 4, 8, 16, 32, 64, 96, 128, 192};
  int cases = 0;
  for (uint64_t mem : mems) {
    for (int cpu : cpus) {
      for (StorageClass st : AllStorageClasses()) {
        for (Profile prof : AllProfiles()) {
          for (int major = kMinServerMajor; major <= kMaxServerMajor; ++major) {
            for (int tpc : {1, 2}) {
              if (tpc == 2 && cpu % 2 != 0) continue;
              TuneInputs in = Machine(mem, cpu, st, major);
              in.threads_per_core = tpc;
              SCOPED_TRACE(::testing::Message()
                           << "mem=" << mem / kMiB << "MB cpus=" << cpu << " tpc=" << tpc
                           << " storage=" << StorageClassName(st)
                           << " profile=" << ProfileName(prof) << " pg=" << major);
              auto plan = ComputePlan(in, prof);
              ASSERT_TRUE(plan.ok()) << plan.status().ToString();
              ++cases;
              // Budget: within 90% of memory, and the lines add up.
              EXPECT_TRUE(plan->budget.fits());
              EXPECT_LE(plan->budget.total_bytes, mem * 9 / 10);
              uint64_t sum = 0;
              for (const auto& l : plan->budget.lines) sum += l.bytes;
              EXPECT_EQ(sum, plan->budget.total_bytes);
              // Invariants over PostgreSQL's defaults.
              SettingMap merged = Overlay(DefaultSettings(major), plan->proposals);
              EXPECT_TRUE(CheckInvariants(merged).ok()) << CheckInvariants(merged).ToString();
              // No setting proposed twice; each has a reason and a rule.
              std::set<std::string> names;
              for (const auto& p : plan->proposals) {
                EXPECT_TRUE(names.insert(p.name).second) << p.name;
                EXPECT_FALSE(p.reason.empty()) << p.name;
                EXPECT_FALSE(p.rule.empty()) << p.name;
              }
              // Sanity of the main sizes.
              int64_t sb = Int(*plan, "shared_buffers");
              EXPECT_LE(static_cast<uint64_t>(sb), mem / 4);
              EXPECT_GE(Int(*plan, "effective_cache_size"), sb);
              EXPECT_GE(Int(*plan, "work_mem"), static_cast<int64_t>(1 * kMiB));
              EXPECT_GE(Int(*plan, "max_connections"), kMinConnections);
              EXPECT_LE(Int(*plan, "maintenance_work_mem"), static_cast<int64_t>(8 * kGiB));
              // Durability: only the benchmark profile trades it; fsync and
              // full_page_writes are never touched.
              EXPECT_EQ(plan->trades_durability, prof == Profile::kBenchmark);
              EXPECT_EQ(Find(*plan, "synchronous_commit") != nullptr, prof == Profile::kBenchmark);
              EXPECT_EQ(Find(*plan, "fsync"), nullptr);
              EXPECT_EQ(Find(*plan, "full_page_writes"), nullptr);
              bool minimal = Text(*plan, "wal_level") == "minimal";
              EXPECT_EQ(minimal, prof == Profile::kBenchmark || prof == Profile::kDesktop);
              // Version gating.
              if (major < 15) {
                EXPECT_NE(Text(*plan, "wal_compression"), "lz4");
              }
              if (major < 14) {
                EXPECT_EQ(Find(*plan, "huge_page_size"), nullptr);
              }
              // Storage (PGTune: without a data size, hdd and dw keep 4).
              EXPECT_EQ(Text(*plan, "random_page_cost"),
                        st == StorageClass::kHdd || prof == Profile::kDw ? "4" : "1.1");
              // Every proposal is a value PostgreSQL accepts.
              for (const auto& p : plan->proposals) {
                EXPECT_TRUE(CheckOfflineValue(p.name, p.value, major).ok())
                    << CheckOfflineValue(p.name, p.value, major).ToString();
              }
              // Huge pages are proposed exactly when shared_buffers is large.
              EXPECT_EQ(Find(*plan, "huge_pages") != nullptr,
                        static_cast<uint64_t>(sb) >= 2 * kGiB);
              EXPECT_GT(plan->huge_pages.pages, 0);
              EXPECT_GE(
                  static_cast<uint64_t>(plan->huge_pages.pages) * plan->huge_pages.page_size_bytes,
                  plan->budget.shared_memory_bytes);
            }
          }
        }
      }
    }
  }
  EXPECT_GT(cases, 10000);
}

TEST(RulesGrid, ExplicitConnectionsAreKeptOrRefused) {
  for (int conns : {20, 100, 500, 2000, 10000}) {
    for (uint64_t mem : {1 * kGiB, 8 * kGiB, 64 * kGiB}) {
      TuneInputs in = Machine(mem, 8, StorageClass::kSsd, 16);
      in.connections = conns;
      auto plan = ComputePlan(in, Profile::kOltp);
      if (plan.ok()) {
        EXPECT_EQ(Int(*plan, "max_connections"), conns);
        EXPECT_TRUE(plan->budget.fits());
      } else {
        EXPECT_EQ(plan.status().code(), StatusCode::kResourceExhausted);
        EXPECT_THAT(plan.status().message(), HasSubstr("lower --connections"));
      }
    }
  }
  TuneInputs small = Machine(1 * kGiB, 2, StorageClass::kSsd, 16);
  small.connections = 10000;
  EXPECT_FALSE(ComputePlan(small, Profile::kOltp).ok());
}

// 16 GB, 4 CPUs, SSD, PostgreSQL 16, web: PGTune's own example machine.
TEST(RulesPinned, WebSixteenGigabytes) {
  auto plan = ComputePlan(Machine(16 * kGiB, 4, StorageClass::kSsd, 16), Profile::kWeb);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(Text(*plan, "max_connections"), "200");
  EXPECT_EQ(Text(*plan, "shared_buffers"), "4GB");         // 16GB / 4
  EXPECT_EQ(Text(*plan, "effective_cache_size"), "12GB");  // 16GB * 3/4
  EXPECT_EQ(Text(*plan, "maintenance_work_mem"), "1GB");   // 16GB / 16
  EXPECT_EQ(Text(*plan, "wal_buffers"), "16MB");           // 3% of 4GB capped
  EXPECT_EQ(Text(*plan, "min_wal_size"), "1GB");
  EXPECT_EQ(Text(*plan, "max_wal_size"), "4GB");
  EXPECT_EQ(Text(*plan, "effective_io_concurrency"), "200");
  EXPECT_EQ(Text(*plan, "max_worker_processes"), "8");  // max(8, 4)
  EXPECT_EQ(Text(*plan, "max_parallel_workers"), "4");
  EXPECT_EQ(Text(*plan, "max_parallel_workers_per_gather"), "2");  // ceil(4/2)
  EXPECT_EQ(Text(*plan, "jit"), "off");
  EXPECT_EQ(Text(*plan, "wal_compression"), "lz4");
  EXPECT_EQ(Text(*plan, "huge_pages"), "try");
  EXPECT_EQ(Text(*plan, "checkpoint_timeout"), "15min");
  // PGTune's formula, (16GB - 4GB) / ((200 + 8) * 3) = 19.7MB, is over the
  // 90% budget here (200 x (2MB + 3 x work_mem) plus 3 autovacuum workers at
  // 1GB): the budget cut brings work_mem to the largest 64kB step that fits.
  int64_t wm = Int(*plan, "work_mem");
  EXPECT_LT(wm, 19 * static_cast<int64_t>(kMiB));
  EXPECT_TRUE(plan->budget.fits());
  TuneInputs in = Machine(16 * kGiB, 4, StorageClass::kSsd, 16);
  SettingMap bigger = Overlay(DefaultSettings(16), plan->proposals);
  bigger["work_mem"] = SettingValue::Bytes(static_cast<uint64_t>(wm) + 64 * kKiB);
  EXPECT_FALSE(ComputeBudget(bigger, in.memory_bytes, 16).fits());
}

// 8 GB desktop, 2 CPUs, HDD, PostgreSQL 13.
TEST(RulesPinned, DesktopEightGigabytesHdd) {
  auto plan = ComputePlan(Machine(8 * kGiB, 2, StorageClass::kHdd, 13), Profile::kDesktop);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(Text(*plan, "max_connections"), "20");
  EXPECT_EQ(Text(*plan, "shared_buffers"), "512MB");        // 8GB / 16
  EXPECT_EQ(Text(*plan, "effective_cache_size"), "2GB");    // 8GB / 4
  EXPECT_EQ(Text(*plan, "maintenance_work_mem"), "512MB");  // 8GB / 16
  // (8192MB - 512MB) / ((20 + 8) * 3) / 6 = 15978983 bytes -> 243 x 64kB.
  EXPECT_EQ(Text(*plan, "work_mem"), "15552kB");
  EXPECT_EQ(Text(*plan, "wal_buffers"), "16MB");  // 3% of 512MB = 15.4MB -> 16MB
  EXPECT_EQ(Text(*plan, "random_page_cost"), "4");
  EXPECT_EQ(Text(*plan, "effective_io_concurrency"), "2");
  EXPECT_EQ(Text(*plan, "wal_level"), "minimal");
  EXPECT_EQ(Text(*plan, "max_wal_senders"), "0");
  EXPECT_EQ(Text(*plan, "wal_compression"), "on");  // PG 13: boolean
  EXPECT_EQ(Find(*plan, "jit"), nullptr);
  EXPECT_EQ(Find(*plan, "checkpoint_timeout"), nullptr);
  EXPECT_EQ(Text(*plan, "max_parallel_workers"), "2");
  EXPECT_EQ(Text(*plan, "max_parallel_workers_per_gather"), "1");
}

TEST(RulesPinned, BenchmarkSaysItTradesDurability) {
  auto plan = ComputePlan(Machine(4 * kGiB, 2, StorageClass::kNvme, 15), Profile::kBenchmark);
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->trades_durability);
  EXPECT_EQ(Text(*plan, "synchronous_commit"), "off");
  EXPECT_EQ(Text(*plan, "wal_level"), "minimal");
  EXPECT_EQ(Text(*plan, "max_wal_senders"), "0");
  EXPECT_EQ(Text(*plan, "effective_io_concurrency"), "1000");
  EXPECT_EQ(Text(*plan, "checkpoint_timeout"), "30min");
  ASSERT_FALSE(plan->warnings.empty());
  EXPECT_THAT(plan->warnings[0], HasSubstr("TRADES DURABILITY"));
  EXPECT_THAT(plan->warnings[0], HasSubstr("fsync"));
  // 1,100 connections do not fit 4GB: lowered, with the reason saying so.
  EXPECT_LT(Int(*plan, "max_connections"), 1100);
  EXPECT_THAT(Find(*plan, "max_connections")->reason, HasSubstr("lowered"));
  // With 64GB they do.
  auto big = ComputePlan(Machine(64 * kGiB, 16, StorageClass::kNvme, 15), Profile::kBenchmark);
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(Int(*big, "max_connections"), 1100);
}

TEST(RulesPinned, OneGigabyteOltpLowersConnections) {
  auto plan = ComputePlan(Machine(1 * kGiB, 1, StorageClass::kSsd, 17), Profile::kOltp);
  ASSERT_TRUE(plan.ok());
  EXPECT_LT(Int(*plan, "max_connections"), 300);
  EXPECT_EQ(Text(*plan, "work_mem"), "1MB");
  EXPECT_EQ(Text(*plan, "max_parallel_workers_per_gather"), "0");
  EXPECT_TRUE(plan->budget.fits());
}

TEST(RulesPinned, SmtCountsPhysicalCores) {
  TuneInputs x86 = Machine(64 * kGiB, 32, StorageClass::kNvme, 16);
  x86.threads_per_core = 2;
  auto dw_smt = ComputePlan(x86, Profile::kDw);
  ASSERT_TRUE(dw_smt.ok());
  EXPECT_EQ(Int(*dw_smt, "max_parallel_workers_per_gather"), 8);  // 16 cores / 2
  EXPECT_EQ(Int(*dw_smt, "max_parallel_workers"), 32);
  TuneInputs graviton = x86;
  graviton.arch = "aarch64";
  graviton.threads_per_core = 1;
  graviton.cpu_description = "Neoverse V1";
  auto dw_arm = ComputePlan(graviton, Profile::kDw);
  ASSERT_TRUE(dw_arm.ok());
  EXPECT_EQ(Int(*dw_arm, "max_parallel_workers_per_gather"), 16);  // 32 cores / 2
  EXPECT_THAT(Find(*dw_arm, "max_parallel_workers_per_gather")->reason, HasSubstr("no SMT"));
  EXPECT_EQ(Int(*dw_arm, "autovacuum_max_workers"), 5);
}

TEST(RulesPinned, DataSizeCapsSharedBuffers) {
  TuneInputs in = Machine(64 * kGiB, 8, StorageClass::kSsd, 16);
  in.data_size_bytes = 2 * kGiB;
  auto plan = ComputePlan(in, Profile::kOltp);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(Text(*plan, "shared_buffers"), "2624MB");  // 2GB + 25% + 64MB
  EXPECT_THAT(Find(*plan, "shared_buffers")->reason, HasSubstr("fits"));
}

TEST(RulesPinned, ArmAdviceOnlyWhereReal) {
  TuneInputs arm = Machine(64 * kGiB, 64, StorageClass::kNvme, 14);
  arm.arch = "aarch64";
  arm.arm_atomics = ArmAtomics::kLoadStoreExclusive;
  auto p = ComputePlan(arm, Profile::kOltp);
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->advice.size(), 2u);
  EXPECT_THAT(p->advice[0], HasSubstr("LSE"));
  EXPECT_THAT(p->advice[1], HasSubstr("PostgreSQL 15"));

  arm.server_major = 16;
  arm.arm_atomics = ArmAtomics::kLse;
  auto q = ComputePlan(arm, Profile::kOltp);
  ASSERT_TRUE(q.ok());
  EXPECT_TRUE(q->advice.empty());

  TuneInputs x86 = Machine(64 * kGiB, 64, StorageClass::kNvme, 13);
  auto r = ComputePlan(x86, Profile::kOltp);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->advice.empty());
}

TEST(RulesPinned, SixtyFourKilobytePageKernel) {
  TuneInputs in = Machine(64 * kGiB, 16, StorageClass::kNvme, 16);
  in.arch = "aarch64";
  in.base_page_size = 64 * kKiB;
  in.huge_page_size = 512 * kMiB;
  in.huge_page_sizes = {2 * kMiB, 512 * kMiB, 16 * kGiB};
  auto p = ComputePlan(in, Profile::kOltp);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(Text(*p, "huge_page_size"), "2MB");
  EXPECT_EQ(p->huge_pages.page_size_bytes, 2 * kMiB);
  EXPECT_THAT(p->huge_pages.sysctl, HasSubstr("hugepages-2048kB"));
  EXPECT_THAT(p->advice.back(), HasSubstr("64KB base pages"));
  // PostgreSQL 13 has no huge_page_size: it uses the 512MB default.
  in.server_major = 13;
  auto q = ComputePlan(in, Profile::kOltp);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(Find(*q, "huge_page_size"), nullptr);
  EXPECT_EQ(q->huge_pages.page_size_bytes, 512 * kMiB);
  EXPECT_THAT(q->huge_pages.sysctl, HasSubstr("vm.nr_hugepages"));
}

TEST(RulesInput, BadInputIsRefusedWithTheOptionNamed) {
  auto small = ComputePlan(Machine(128 * kMiB, 2, StorageClass::kSsd, 16), Profile::kOltp);
  ASSERT_FALSE(small.ok());
  EXPECT_EQ(small.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(small.status().message(), HasSubstr("256MB"));
  EXPECT_FALSE(ComputePlan(Machine(8 * kGiB, 0, StorageClass::kSsd, 16), Profile::kOltp).ok());
  auto old = ComputePlan(Machine(8 * kGiB, 2, StorageClass::kSsd, 12), Profile::kOltp);
  ASSERT_FALSE(old.ok());
  EXPECT_THAT(old.status().message(), HasSubstr("13"));
  TuneInputs few = Machine(8 * kGiB, 2, StorageClass::kSsd, 16);
  few.connections = 5;
  EXPECT_THAT(ComputePlan(few, Profile::kOltp).status().message(), HasSubstr("--connections"));
  EXPECT_FALSE(ParseProfile("olap").ok());
  EXPECT_THAT(ParseProfile("olap").status().message(), HasSubstr("benchmark"));
  EXPECT_EQ(*ParseProfile("DW"), Profile::kDw);
  EXPECT_FALSE(ParseStorageClass("tape").ok());
  EXPECT_EQ(*ParseStorageClass("nvme"), StorageClass::kNvme);
}

TEST(RulesInvariants, EachViolationIsNamed) {
  SettingMap m = DefaultSettings(16);
  EXPECT_TRUE(CheckInvariants(m).ok());
  auto broken = [&](const char* name, SettingValue v) {
    SettingMap x = m;
    x[name] = v;
    return CheckInvariants(x);
  };
  EXPECT_THAT(broken("max_parallel_workers", SettingValue::Integer(9)).message(),
              HasSubstr("max_worker_processes"));
  EXPECT_THAT(broken("max_parallel_workers_per_gather", SettingValue::Integer(9)).message(),
              HasSubstr("max_parallel_workers"));
  EXPECT_THAT(broken("max_wal_senders", SettingValue::Integer(100)).message(),
              HasSubstr("max_connections"));
  EXPECT_THAT(broken("min_wal_size", SettingValue::Bytes(2 * kGiB)).message(),
              HasSubstr("max_wal_size"));
  EXPECT_THAT(broken("wal_level", SettingValue::Word("minimal")).message(),
              HasSubstr("max_wal_senders = 0"));
  EXPECT_FALSE(broken("checkpoint_completion_target", SettingValue::Real(1.5)).ok());
}

TEST(RulesBudget, GrowsWithEachTerm) {
  SettingMap m = DefaultSettings(15);
  MemoryBudget base = ComputeBudget(m, 8 * kGiB, 15);
  m["max_connections"] = SettingValue::Integer(200);
  MemoryBudget more = ComputeBudget(m, 8 * kGiB, 15);
  // 100 more backends x (2MB + 4MB x (1 + 2.0)) plus their shared slots.
  EXPECT_GE(more.total_bytes - base.total_bytes, 100 * (2 + 12) * kMiB);
  // hash_mem_multiplier is part of the model (1.0 before PostgreSQL 15).
  MemoryBudget pg14 = ComputeBudget(DefaultSettings(14), 8 * kGiB, 14);
  EXPECT_LT(pg14.total_bytes, base.total_bytes);
  // Vacuum's 1GB dead-tuple cap before 17.
  SettingMap big = DefaultSettings(16);
  big["maintenance_work_mem"] = SettingValue::Bytes(4 * kGiB);
  SettingMap big17 = DefaultSettings(17);
  big17["maintenance_work_mem"] = SettingValue::Bytes(4 * kGiB);
  EXPECT_LT(ComputeBudget(big, 64 * kGiB, 16).total_bytes,
            ComputeBudget(big17, 64 * kGiB, 17).total_bytes);
}

// Issue 14, item 11: from ~21.4TB effective_cache_size, and from 32TB
// shared_buffers, PGTune's fractions exceed what PostgreSQL accepts.
TEST(RulesLimits, HugeMemoryIsClampedToPostgresLimitsAndSaysSo) {
  for (uint64_t tb : {22, 32, 48, 64}) {
    SCOPED_TRACE(tb);
    for (Profile prof : AllProfiles()) {
      auto plan = ComputePlan(Machine(tb * 1024 * kGiB, 64, StorageClass::kNvme, 15), prof);
      ASSERT_TRUE(plan.ok()) << plan.status().ToString();
      const uint64_t sb_max = 1073741823ull * 8192;   // INT_MAX / 2 pages
      const uint64_t ecs_max = 2147483647ull * 8192;  // INT_MAX pages
      EXPECT_LE(static_cast<uint64_t>(Int(*plan, "shared_buffers")), sb_max);
      EXPECT_LE(static_cast<uint64_t>(Int(*plan, "effective_cache_size")), ecs_max);
      EXPECT_LE(static_cast<uint64_t>(Int(*plan, "work_mem")), 2147483647ull * 1024);
      for (const auto& p : plan->proposals) {
        EXPECT_TRUE(CheckOfflineValue(p.name, p.value, 15).ok())
            << p.name << " " << p.value.ToConf();
      }
    }
  }
  auto plan = ComputePlan(Machine(64 * 1024 * kGiB, 64, StorageClass::kNvme, 15), Profile::kOltp);
  ASSERT_TRUE(plan.ok());
  EXPECT_THAT(Find(*plan, "effective_cache_size")->reason,
              HasSubstr("largest value PostgreSQL accepts"));
  EXPECT_THAT(Find(*plan, "shared_buffers")->reason, HasSubstr("largest value PostgreSQL accepts"));
  // Below the limits nothing says "clamped".
  auto small = ComputePlan(Machine(16 * 1024 * kGiB, 64, StorageClass::kNvme, 15), Profile::kOltp);
  ASSERT_TRUE(small.ok());
  EXPECT_THAT(Find(*small, "shared_buffers")->reason, Not(HasSubstr("clamped")));
  // Beyond 64TB: a clear "too large".
  auto huge = ComputePlan(Machine(65 * 1024 * kGiB, 64, StorageClass::kNvme, 15), Profile::kOltp);
  ASSERT_FALSE(huge.ok());
  EXPECT_THAT(huge.status().message(), HasSubstr("too large"));
}

// Issue 14, item 12: with SMT unknown the reason must not claim a topology.
TEST(RulesPinned, UnknownSmtCountsVcpusAsCoresAndSaysSo) {
  TuneInputs in = Machine(128 * kGiB, 64, StorageClass::kNvme, 16);
  in.arch.clear();
  in.threads_per_core = 1;
  in.threads_per_core_known = false;
  auto plan = ComputePlan(in, Profile::kDw);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(Int(*plan, "max_parallel_workers_per_gather"), 32);
  EXPECT_THAT(Find(*plan, "max_parallel_workers_per_gather")->reason,
              HasSubstr("counted as cores (threads per core not given"));
  in.threads_per_core = 1;
  in.threads_per_core_known = true;
  in.arch = "aarch64";
  auto graviton = ComputePlan(in, Profile::kDw);
  EXPECT_THAT(Find(*graviton, "max_parallel_workers_per_gather")->reason, HasSubstr("full core"));
  in.arch = "x86_64";
  in.threads_per_core = 2;
  auto smt = ComputePlan(in, Profile::kDw);
  EXPECT_EQ(Int(*smt, "max_parallel_workers_per_gather"), 16);
  EXPECT_THAT(Find(*smt, "max_parallel_workers_per_gather")->reason,
              HasSubstr("32 physical cores"));
}

// Issue 14, item 14: the give-up order is docs/tune.md's (autovacuum workers
// before connections), and every lowered value says so.
TEST(RulesBudget, GiveUpOrderAndReasonsFollowTheDoc) {
  // 64 vCPUs ask for 5 autovacuum workers; 2GB cannot hold them all.
  TuneInputs in = Machine(2 * kGiB, 64, StorageClass::kSsd, 15);
  auto plan = ComputePlan(in, Profile::kOltp);
  ASSERT_TRUE(plan.ok());
  // Back to the default 3 first, and the reason says why.
  ASSERT_NE(Find(*plan, "autovacuum_max_workers"), nullptr);
  EXPECT_EQ(Int(*plan, "autovacuum_max_workers"), 3);
  EXPECT_THAT(Find(*plan, "autovacuum_max_workers")->reason, HasSubstr("90% of memory"));
  in.connections = 300;
  auto fixed = ComputePlan(in, Profile::kOltp);
  ASSERT_TRUE(fixed.ok()) << fixed.status().ToString();
  EXPECT_EQ(Int(*fixed, "max_connections"), 300);
  for (const char* name : {"max_parallel_workers", "max_parallel_workers_per_gather",
                           "max_parallel_maintenance_workers"}) {
    const Proposal* p = Find(*fixed, name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_THAT(p->reason, HasSubstr("90% of memory")) << name << ": " << p->reason;
  }
  EXPECT_LT(Int(*fixed, "max_parallel_workers"), 64);
  EXPECT_LE(Int(*fixed, "max_parallel_workers_per_gather"), Int(*fixed, "max_parallel_workers"));
}

// Issue 14, item 16: PGTune's current random_page_cost.
TEST(RulesPinned, RandomPageCostFollowsPgtuneWithDataSize) {
  TuneInputs in = Machine(64 * kGiB, 16, StorageClass::kSsd, 16);
  EXPECT_EQ(Text(*ComputePlan(in, Profile::kDw), "random_page_cost"), "4");
  EXPECT_EQ(Text(*ComputePlan(in, Profile::kOltp), "random_page_cost"), "1.1");
  in.data_size_bytes = 20 * kGiB;  // fits in the page cache
  EXPECT_EQ(Text(*ComputePlan(in, Profile::kDw), "random_page_cost"), "1.1");
  in.storage = StorageClass::kHdd;
  EXPECT_EQ(Text(*ComputePlan(in, Profile::kOltp), "random_page_cost"), "1.1");
  in.data_size_bytes = 500 * kGiB;  // does not
  EXPECT_EQ(Text(*ComputePlan(in, Profile::kOltp), "random_page_cost"), "4");
}

// Issue 14, item 15: PostgreSQL 18's rules.
TEST(RulesVersions, PostgreSql18KnowsAsynchronousIo) {
  TuneInputs in = Machine(64 * kGiB, 32, StorageClass::kNvme, 18);
  auto plan = ComputePlan(in, Profile::kOltp);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(Int(*plan, "io_workers"), 8);  // 32 vCPUs / 4
  bool advised = false;
  for (const auto& a : plan->advice) advised |= a.find("io_uring") != std::string::npos;
  EXPECT_TRUE(advised);
  // Few CPUs: the default 3 stays.
  EXPECT_EQ(Find(*ComputePlan(Machine(8 * kGiB, 8, StorageClass::kSsd, 18), Profile::kOltp),
                 "io_workers"),
            nullptr);
  // Before 18 there is no io_workers.
  EXPECT_EQ(Find(*ComputePlan(Machine(64 * kGiB, 32, StorageClass::kNvme, 17), Profile::kOltp),
                 "io_workers"),
            nullptr);
  // 18's defaults: effective/maintenance_io_concurrency 16, worker slots 16.
  SettingMap d18 = DefaultSettings(18);
  EXPECT_EQ(GetInt(d18, "effective_io_concurrency", 0), 16);
  EXPECT_EQ(GetInt(d18, "maintenance_io_concurrency", 0), 16);
  EXPECT_EQ(GetInt(d18, "autovacuum_worker_slots", 0), 16);
  EXPECT_EQ(GetWord(d18, "io_method", ""), "worker");
  EXPECT_EQ(GetInt(DefaultSettings(17), "effective_io_concurrency", 0), 1);
  EXPECT_EQ(GetInt(DefaultSettings(17), "vacuum_buffer_usage_limit", 0),
            static_cast<int64_t>(2 * kMiB));
  EXPECT_EQ(GetInt(DefaultSettings(16), "vacuum_buffer_usage_limit", 0),
            static_cast<int64_t>(256 * kKiB));
  EXPECT_EQ(DefaultSettings(16).count("io_combine_limit"), 0u);
  // maintenance_io_concurrency never goes below 18's default.
  auto hdd = ComputePlan(Machine(8 * kGiB, 4, StorageClass::kHdd, 18), Profile::kOltp);
  EXPECT_EQ(Int(*hdd, "maintenance_io_concurrency"), 16);
  // autovacuum_max_workers beyond the slots is refused on 18.
  SettingMap m = DefaultSettings(18);
  m["autovacuum_max_workers"] = SettingValue::Integer(20);
  EXPECT_THAT(CheckInvariants(m).message(), HasSubstr("autovacuum_worker_slots"));
  // The budget counts the reserved slots and the I/O workers on 18.
  MemoryBudget b17 = ComputeBudget(DefaultSettings(17), 8 * kGiB, 17);
  MemoryBudget b18 = ComputeBudget(DefaultSettings(18), 8 * kGiB, 18);
  EXPECT_GT(b18.shared_memory_bytes, b17.shared_memory_bytes);
}

}  // namespace
}  // namespace pgrig::tune
