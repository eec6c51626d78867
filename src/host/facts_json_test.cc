// The facts document and the comparison of two of them.
#include "host/facts_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pgrig::host {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

HostFacts FixtureFacts(const std::string& name) {
  SysFs fs(std::string(PGRIG_SOURCE_DIR) + "/tests/data/hosts/" + name);
  return CollectHostFacts(fs, {});
}

TEST(FactsJsonTest, KeysCarryUnitsAndUnknownsAreNull) {
  json j = FactsToJson(FixtureFacts("graviton3"), std::nullopt);
  EXPECT_EQ(j["schema"], kFactsSchema);
  EXPECT_TRUE(j["server"].is_null());
  const json& cpu = j["host"]["cpu"];
  EXPECT_EQ(cpu["microarchitecture"], "Neoverse V1");
  EXPECT_EQ(cpu["arm"]["implementer"], "0x41");
  EXPECT_EQ(cpu["arm"]["part"], "0xd40");
  EXPECT_EQ(cpu["l2_size_bytes"], 1u << 20);
  EXPECT_EQ(cpu["l3_total_bytes"], 32u << 20);
  EXPECT_EQ(cpu["flags"]["lse_atomics"], true);
  EXPECT_FALSE(cpu.contains("x86"));
  EXPECT_EQ(j["host"]["cloud"]["provider"], "aws");
  EXPECT_EQ(j["host"]["cloud"]["instance_type"], "c7g.4xlarge");
  EXPECT_EQ(j["host"]["os"]["page_size_bytes"], 65536);

  json broken = ToJson(FixtureFacts("broken"));
  EXPECT_TRUE(broken["cpu"]["microarchitecture"].is_null());
  EXPECT_TRUE(broken["memory"]["total_bytes"].is_null());
  EXPECT_TRUE(broken["cloud"].is_null());
  EXPECT_FALSE(broken["notes"].empty());
}

TEST(FactsJsonTest, ServerPartUsesSettingNamesAsKeys) {
  ServerFacts s;
  s.version_num = 170002;
  s.settings = {{"shared_buffers", "16384", "8kB", "default"}};
  s.shared_buffers_bytes = 134217728;
  json j = ToJson(s);
  EXPECT_EQ(j["settings"]["shared_buffers"]["setting"], "16384");
  EXPECT_EQ(j["settings"]["shared_buffers"]["unit"], "8kB");
  EXPECT_EQ(j["shared_buffers_bytes"], 134217728);
  EXPECT_EQ(j["build"]["arm_atomics"], "not_applicable");
}

TEST(FactsDiffTest, MostRelevantFirst) {
  json a = FactsToJson(FixtureFacts("graviton2"), std::nullopt);
  json b = FactsToJson(FixtureFacts("amd-genoa"), std::nullopt);
  auto d = DiffFacts(a, b);
  ASSERT_GE(d.size(), 5u);
  EXPECT_EQ(d[0].key, "host.cpu.microarchitecture");
  EXPECT_EQ(d[0].a, "Neoverse N1");
  EXPECT_EQ(d[0].b, "Zen 4");
  // CPU identity before counts, counts before memory, memory before caches.
  auto pos = [&](const std::string& k) {
    for (size_t i = 0; i < d.size(); ++i) {
      if (d[i].key == k) return static_cast<int>(i);
    }
    return -1;
  };
  ASSERT_NE(pos("host.cpu.vcpus"), -1);
  ASSERT_NE(pos("host.memory.total_bytes"), -1);
  ASSERT_NE(pos("host.cpu.l1d_size_bytes"), -1);
  EXPECT_LT(pos("host.cpu.codename"), pos("host.cpu.vcpus"));
  EXPECT_LT(pos("host.cpu.vcpus"), pos("host.memory.total_bytes"));
  EXPECT_LT(pos("host.memory.total_bytes"), pos("host.cpu.l1d_size_bytes"));
  EXPECT_THAT(d[pos("host.memory.total_bytes")].a, HasSubstr("GB"));
}

TEST(FactsDiffTest, IdenticalDocumentsHaveNoDifferences) {
  json a = FactsToJson(FixtureFacts("intel-sapphire-rapids"), std::nullopt);
  EXPECT_TRUE(DiffFacts(a, a).empty());
}

TEST(FactsDiffTest, ServerSettingsAndVolatileValues) {
  json a = FactsToJson(FixtureFacts("graviton4"), std::nullopt);
  json b = a;
  b["host"]["memory"]["available_bytes"] = 1;    // volatile: ignored
  b["host"]["notes"].push_back("another note");  // ignored
  a["server"] = {{"version_num", 150008},
                 {"settings", {{"shared_buffers", {{"setting", "16384"}}}}}};
  b["server"] = {{"version_num", 170002},
                 {"settings", {{"shared_buffers", {{"setting", "262144"}}}}}};
  auto d = DiffFacts(a, b);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].key, "server.version_num");
  EXPECT_EQ(d[1].key, "server.settings.shared_buffers.setting");
}

TEST(FactsDiffTest, ExtractsFactsFromResultsFiles) {
  json facts = FactsToJson(FixtureFacts("graviton2"), std::nullopt);
  json results = {{"schema", "pgrig.suite/1"}, {"facts", facts}};
  auto r = ExtractFacts(results);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, facts);
  EXPECT_TRUE(ExtractFacts(facts).ok());
  EXPECT_FALSE(ExtractFacts(json{{"runs", json::array()}}).ok());
}

TEST(FactsTextTest, SummaryNamesCoreChipAndUnknowns) {
  std::string t = FormatFacts(FixtureFacts("graviton2"), std::nullopt);
  EXPECT_THAT(t, HasSubstr("Neoverse N1"));
  EXPECT_THAT(t, HasSubstr("AWS Graviton2 [high]"));
  EXPECT_THAT(t, HasSubstr("not connected"));
  std::string b = FormatFacts(FixtureFacts("broken"), std::nullopt);
  EXPECT_THAT(b, HasSubstr("unknown"));
  EXPECT_THAT(b, HasSubstr("Notes"));
}

}  // namespace
}  // namespace pgrig::host
