// Instance check (pure parts) and the plan's script files a fleet copies.
#include "fleet/instance_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include "common/fs.h"
#include "fleet/run.h"
#include "plan/plan.h"

namespace pgrig::fleet {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr const char* kX86Facts = R"({"schema":"pgrig.facts/1","host":{
  "cpu":{"architecture":"x86_64","vcpus":2,"model_name":"AMD EPYC"},
  "memory":{"total_bytes":25276059648}}})";

cost::InstancePrice Entry(cost::Arch arch, int vcpus, double gib) {
  cost::InstancePrice p;
  p.provider = "aws";
  p.instance_type = "test.large";
  p.arch = arch;
  p.vcpus = vcpus;
  p.memory_gib = gib;
  return p;
}

TEST(InstanceCheck, ParsesFacts) {
  auto s = ParseHostShape(kX86Facts);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->arch, cost::Arch::kX86_64);
  EXPECT_EQ(s->vcpus, 2);
  EXPECT_EQ(s->cpu_model, "AMD EPYC");
  EXPECT_NEAR(*s->memory_gib, 23.54, 0.01);
  EXPECT_FALSE(ParseHostShape("not json").ok());
  EXPECT_FALSE(ParseHostShape("{}").ok());
  auto empty = ParseHostShape(R"({"host":{}})");
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->arch.has_value());
}

// A count or size no machine has is a broken facts document, not a shape to
// compare with the catalog (the count was read as an int: 4294967298 became
// 2 vCPUs).
TEST(InstanceCheck, ImpossibleCountsAndSizesAreRefusedNamingTheKey) {
  for (const char* vcpus : {"0", "-2", "4294967298", "18446744073709551615"}) {
    auto s = ParseHostShape(std::string(R"({"host":{"cpu":{"vcpus":)") + vcpus + "}}}");
    ASSERT_FALSE(s.ok()) << vcpus;
    EXPECT_EQ(s.status().message(),
              std::string("host.cpu.vcpus is ") + vcpus + ", not a CPU count");
  }
  for (const char* bytes : {"0", "-1", "-0.5"}) {
    auto s = ParseHostShape(std::string(R"({"host":{"memory":{"total_bytes":)") + bytes + "}}}");
    ASSERT_FALSE(s.ok()) << bytes;
    EXPECT_THAT(s.status().message(), HasSubstr("host.memory.total_bytes is "));
  }
  auto big = ParseHostShape(R"({"host":{"cpu":{"vcpus":1048576}}})");
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->vcpus, 1048576);
}

TEST(InstanceCheck, ArmInstanceOnX86HostDisagrees) {
  HostShape s = ParseHostShape(kX86Facts).value();
  EXPECT_THAT(Disagreements(Entry(cost::Arch::kArm64, 2, 16), s),
              ElementsAre("architecture x86_64, not arm64", "23.5 GiB of memory, not 16"));
  EXPECT_THAT(Disagreements(Entry(cost::Arch::kX86_64, 8, 24), s), ElementsAre("2 vCPUs, not 8"));
}

TEST(InstanceCheck, MatchingHostAndMemoryTolerance) {
  HostShape s = ParseHostShape(kX86Facts).value();
  EXPECT_TRUE(Disagreements(Entry(cost::Arch::kX86_64, 2, 24), s).empty());
  EXPECT_TRUE(Disagreements(Entry(cost::Arch::kX86_64, 2, 27), s).empty());   // 87%
  EXPECT_FALSE(Disagreements(Entry(cost::Arch::kX86_64, 2, 32), s).empty());  // 74%
  HostShape unknown;
  EXPECT_TRUE(Disagreements(Entry(cost::Arch::kArm64, 64, 512), unknown).empty());
}

TEST(InstanceCheck, ShippedCatalogKnowsGraviton) {
  auto catalog = cost::LoadCatalog(cost::CatalogSearch{.exe_dir = PGRIG_SOURCE_DIR "/build"});
  ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
  auto e = catalog->catalog.FindInstance("r8g.large");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->arch, cost::Arch::kArm64);
}

TEST(PlanScriptFiles, ShippedJitPlanNeedsItsAggregate) {
  auto plan = plan::ReadPlanFile(PGRIG_SOURCE_DIR "/plans/jit.toml");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  auto files = PlanScriptFiles(*plan);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  ASSERT_EQ(files->size(), 1u);
  EXPECT_EQ((*files)[0].relative, "jit_aggregate.sql");
  EXPECT_EQ((*files)[0].local, std::string(PGRIG_SOURCE_DIR) + "/plans/jit_aggregate.sql");
}

TEST(PlanScriptFiles, SubdirectoryKeptAndOutsideRefused) {
  char tmpl[] = "/tmp/pgrig-planfiles-test-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  std::string dir = tmpl;
  ASSERT_TRUE(MakeDirs(dir + "/plans/sql").ok());
  ASSERT_TRUE(WriteFileAtomically(dir + "/plans/sql/a.sql", "SELECT 1;\n").ok());
  ASSERT_TRUE(WriteFileAtomically(dir + "/b.sql", "SELECT 2;\n").ok());
  std::string head = "[plan]\nscale = 1\nclients = [1]\n";
  auto inside = plan::ParsePlan(head + "[[workload]]\nname = \"a\"\nfile = \"sql/a.sql\"\n",
                                dir + "/plans/p.toml");
  ASSERT_TRUE(inside.ok()) << inside.status().ToString();
  auto files = PlanScriptFiles(*inside);
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 1u);
  EXPECT_EQ((*files)[0].relative, "sql/a.sql");
  auto outside = plan::ParsePlan(head + "[[workload]]\nname = \"b\"\nfile = \"../b.sql\"\n",
                                 dir + "/plans/p.toml");
  (void)RemoveTree(dir);
  ASSERT_TRUE(outside.ok()) << outside.status().ToString();
  auto refused = PlanScriptFiles(*outside);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("not in the plan's directory"));
  EXPECT_THAT(refused.status().message(), HasSubstr("workload 'b'"));
}

}  // namespace
}  // namespace pgrig::fleet
