// "server_profile" both ways (results/profile_json.h).
#include "results/profile_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pgrig::results {
namespace {

using profile::Category;
using profile::Frame;
using profile::kCategoryCount;
using profile::Profile;
using profile::ProfileBuilder;
using ::testing::HasSubstr;

profile::Sample MakeProfileSample(int64_t t_ns, std::string_view leaf) {
  profile::Sample s;
  s.comm = "postgres";
  s.pid = 7;
  s.tid = 7;
  s.time_ns = t_ns;
  s.frames = {Frame{leaf, "/usr/lib/postgresql/15/bin/postgres"},
              Frame{"main", "/usr/lib/postgresql/15/bin/postgres"}};
  return s;
}

TEST(ProfileJson, RoundTripsAndRefusesWhatDoesNotAddUp) {
  ProfileBuilder b({.window_start_ns = 0, .window_end_ns = 2'000'000'000, .frequency_hz = 499});
  for (int i = 0; i < 10; ++i) {
    b.Add(MakeProfileSample(i, i % 2 == 0 ? "s_lock" : "ExecScan"));
  }
  Profile built = b.Finish();
  built.unreadable_records = 2;
  const ServerProfileDoc d{
      .profile = built,
      .unavailable = "",
      .folded_stacks_file = "x.folded",
      .measured_server_cpu_s = 0.5,
      .hardware_counters_unavailable = "no PMU",
      .server_binary = host::ServerBinaryFacts{.path = "/usr/lib/postgresql/15/bin/postgres",
                                               .arm_atomics = "not_applicable",
                                               .arm_atomics_detail = std::nullopt,
                                               .frame_pointers = "no",
                                               .frame_pointers_detail = "3 of 5000 functions"}};
  const nlohmann::json j = ServerProfileToJson(d);
  EXPECT_EQ(j["categories"].size(), static_cast<size_t>(kCategoryCount));
  EXPECT_EQ(j["hardware_counters"], nullptr);
  EXPECT_EQ(j["hardware_counters_unavailable"], "no PMU");
  EXPECT_EQ(j["window_s"], 2.0);
  double pct = 0;
  for (const auto& c : j["categories"]) pct += c["pct"].get<double>();
  EXPECT_NEAR(pct, 100.0, 0.01);
  auto back_doc = ServerProfileFromJson(j, "suite.json: runs[0]");
  ASSERT_TRUE(back_doc.ok()) << back_doc.status().message();
  EXPECT_EQ(back_doc->folded_stacks_file, "x.folded");
  EXPECT_EQ(back_doc->measured_server_cpu_s, 0.5);
  EXPECT_EQ(back_doc->hardware_counters_unavailable, "no PMU");
  ASSERT_TRUE(back_doc->profile.has_value());
  const Profile& back = *back_doc->profile;
  EXPECT_EQ(back.samples, 10);
  EXPECT_EQ(back.unreadable_records, 2);
  ASSERT_TRUE(back_doc->server_binary.has_value());
  EXPECT_EQ(back_doc->server_binary->frame_pointers, "no");
  EXPECT_EQ(back_doc->server_binary->frame_pointers_detail, "3 of 5000 functions");
  EXPECT_EQ(back_doc->server_binary->path, "/usr/lib/postgresql/15/bin/postgres");
  EXPECT_FALSE(back_doc->server_binary->arm_atomics_detail.has_value());
  EXPECT_EQ(back.frequency_hz, 499);
  EXPECT_EQ(back.category_samples, d.profile->category_samples);
  ASSERT_EQ(back.top_functions.size(), 2u);
  EXPECT_EQ(back.top_functions[0].function, "ExecScan");
  EXPECT_EQ(back.top_functions[1].category, Category::kLocks);

  nlohmann::json bad = j;
  bad["categories"][0]["samples"] = 1000;
  auto r = ServerProfileFromJson(bad, "suite.json: runs[0]");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(),
              HasSubstr("suite.json: runs[0]: server_profile.categories: its samples sum to"));
  bad = j;
  bad["categories"][1]["category"] = "gravity";
  r = ServerProfileFromJson(bad, "f");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("categories[1]"));
  // Written before unreadable_records existed: read as none.
  nlohmann::json older = j;
  older.erase("unreadable_records");
  older.erase("server_binary");
  auto old_doc = ServerProfileFromJson(older, "f");
  ASSERT_TRUE(old_doc.ok()) << old_doc.status().message();
  EXPECT_EQ(old_doc->profile->unreadable_records, 0);
  EXPECT_FALSE(old_doc->server_binary.has_value());
  bad = j;
  bad["server_binary"]["frame_pointers"] = 3;
  r = ServerProfileFromJson(bad, "f");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("server_binary.frame_pointers must be a string"));
  bad = j;
  bad["unreadable_records"] = -1;
  EXPECT_FALSE(ServerProfileFromJson(bad, "f").ok());

  // With counters (a machine with a PMU): the events, the ratios, and back.
  ServerProfileDoc counted = d;
  counted.hardware_counters = profile::CounterValues{.readings = {{"cycles", 4e9, 100},
                                                                  {"instructions", 6e9, 100},
                                                                  {"cache-references", 2e7, 66.7},
                                                                  {"cache-misses", 1e6, 66.7},
                                                                  {"branches", std::nullopt, 0},
                                                                  {"branch-misses", 3e6, 100}},
                                                     .kernel = false,
                                                     .processes = 7};
  const nlohmann::json cj = ServerProfileToJson(counted);
  EXPECT_EQ(cj["hardware_counters_unavailable"], nullptr);
  EXPECT_EQ(cj["hardware_counters"]["ipc"], 1.5);
  EXPECT_EQ(cj["hardware_counters"]["cache_miss_pct"], 5.0);
  EXPECT_EQ(cj["hardware_counters"]["branch_miss_pct"], nullptr);
  EXPECT_EQ(cj["hardware_counters"]["kernel"], false);
  EXPECT_EQ(cj["hardware_counters"]["events"][0]["count"], 4000000000LL);
  EXPECT_EQ(cj["hardware_counters"]["events"][4]["count"], nullptr);
  auto cback = ServerProfileFromJson(cj, "f");
  ASSERT_TRUE(cback.ok()) << cback.status().message();
  ASSERT_TRUE(cback->hardware_counters.has_value());
  EXPECT_DOUBLE_EQ(*cback->hardware_counters->Ipc(), 1.5);
  EXPECT_EQ(cback->hardware_counters->processes, 7);
  EXPECT_FALSE(cback->hardware_counters->kernel);
  EXPECT_NEAR(cback->hardware_counters->readings[2].running_pct, 66.7, 1e-9);
  bad = cj;
  bad["hardware_counters"]["events"][1]["count"] = "many";
  r = ServerProfileFromJson(bad, "suite.json: runs[3]");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(),
              HasSubstr("suite.json: runs[3]: server_profile.hardware_counters.events[1].count"));
  bad = cj;
  bad["hardware_counters"] = 5;
  EXPECT_FALSE(ServerProfileFromJson(bad, "f").ok());
  bad = j;
  bad.erase("samples");
  EXPECT_FALSE(ServerProfileFromJson(bad, "f").ok());
  EXPECT_FALSE(ServerProfileFromJson(nlohmann::json::array(), "f").ok());

  ServerProfileDoc none;
  none.unavailable = "no perf";
  const nlohmann::json nj = ServerProfileToJson(none);
  EXPECT_EQ(nj, nlohmann::json({{"unavailable", "no perf"}}));
  r = ServerProfileFromJson(nj, "f");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->profile.has_value());
  EXPECT_EQ(r->unavailable, "no perf");
}

}  // namespace
}  // namespace pgrig::results
