#include "results/histogram_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace pgrig::results {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

stats::Histogram Sample() {
  stats::Histogram h;
  for (int64_t v : {900, 1'000'000, 1'200'000, 5'000'000, 75'000'000}) h.Record(v);
  return h;
}

TEST(HistogramJsonTest, WrittenAndReadBackUnchanged) {
  const stats::Histogram h = Sample();
  const json j = HistogramJson(h);
  EXPECT_EQ(j["count"], 5);
  EXPECT_EQ(j["bucket_fields"], json::array({"lower_ns", "upper_ns", "count"}));
  auto d = HistogramDataFromJson(j, "f.json: runs[0]");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(*d, h.Export());
  // Through text, as a reader sees a file.
  auto back = HistogramFromJson(json::parse(j.dump()), "f.json");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->Export(), h.Export());
}

TEST(HistogramJsonTest, PackedFormReadsBackTheSameHistogram) {
  const stats::Histogram h = Sample();
  const json j = json::parse(HistogramJson(h, BucketForm::kPacked).dump());
  EXPECT_EQ(j["packing"], "base64-vlq/1");
  EXPECT_TRUE(j["packed_buckets"].is_string());
  EXPECT_FALSE(j.contains("buckets"));
  auto d = HistogramDataFromJson(j, "f.json");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(*d, h.Export());
  auto packed = PackedHistogramFromJson(j, "f.json");
  ASSERT_TRUE(packed.ok()) << packed.status().ToString();
  EXPECT_EQ(*stats::ImportPacked(*packed), h);
  // The array form read into the packed model is the same value.
  auto from_arrays = PackedHistogramFromJson(HistogramJson(h), "f.json");
  ASSERT_TRUE(from_arrays.ok());
  EXPECT_EQ(*from_arrays, *packed);
}

TEST(HistogramJsonTest, MalformedPackedFormIsAnErrorNamingThePlace) {
  const json good = HistogramJson(Sample(), BucketForm::kPacked);
  struct Case {
    const char* key;
    json value;
    const char* says;
  } cases[] = {
      {"packing", "base64-vlq/2", "this pgrig reads \"base64-vlq/1\""},
      {"packing", nullptr, "histogram.packing is null"},
      {"packed_buckets", 12, "packed_buckets must be a string"},
      {"packed_buckets", "AA*", "character 2 is not a Base64 character"},
      {"packed_buckets", "AAB", "ends inside a number"},
      {"packed_buckets", "AAAA", "differs from the sum of its bucket counts"},
      {"buckets", json::array(), "both \"buckets\" and \"packed_buckets\""},
      {"count", 1.5, "histogram.count is 1.5, not a whole number"},
  };
  for (const Case& c : cases) {
    json bad = good;
    bad[c.key] = c.value;
    for (bool packed_model : {false, true}) {
      const Status s = packed_model ? PackedHistogramFromJson(bad, "f.json: runs[3]").status()
                                    : HistogramDataFromJson(bad, "f.json: runs[3]").status();
      ASSERT_FALSE(s.ok()) << c.key << " = " << c.value.dump();
      EXPECT_THAT(s.message(), HasSubstr("f.json: runs[3]")) << s.message();
      EXPECT_THAT(s.message(), HasSubstr(c.says)) << s.message();
    }
  }
  json no_packing = good;
  no_packing.erase("packing");
  EXPECT_THAT(HistogramDataFromJson(no_packing, "f.json").status().message(),
              HasSubstr("histogram.packing is missing"));
}

TEST(HistogramJsonTest, LatencySummaryInMilliseconds) {
  EXPECT_TRUE(LatencyMsJson(stats::Histogram()).is_null());
  const json l = LatencyMsJson(Sample());
  EXPECT_NEAR(l["max"].get<double>(), 75.0, 0.1);
  EXPECT_NEAR(l["min"].get<double>(), 0.0009, 1e-9);
  EXPECT_NEAR(l["p50"].get<double>(), 1.2, 0.01);
  for (const char* k : {"avg", "stddev", "p90", "p95", "p99", "p99_9"}) EXPECT_TRUE(l.contains(k));
}

// Every malformed histogram is an error naming the place; none throws.
TEST(HistogramJsonTest, MalformedInputIsAnErrorNamingThePlace) {
  const json good = HistogramJson(Sample());
  struct Case {
    const char* what;
    json value;
    const char* expect;
  };
  auto with = [&good](const char* key, json v) {
    json j = good;
    j[key] = std::move(v);
    return j;
  };
  json extra_bucket = good;
  extra_bucket["buckets"].push_back(json::array({1, 2}));
  json float_bucket = good;
  float_bucket["buckets"][0][2] = 1.5;
  json huge = good;
  huge["buckets"][0][2] = json(uint64_t{18'000'000'000'000'000'000u});
  const Case cases[] = {
      {"not an object", json::array(), "histogram must be an object, not array"},
      {"null", json(nullptr), "histogram must be an object, not null"},
      {"count a string", with("count", "5"), "histogram.count is \"5\", not a whole number"},
      {"count a float", with("count", 5.5), "histogram.count is 5.5"},
      {"sum a number", with("sum_ns", 12), "histogram.sum_ns must be a decimal string"},
      {"no buckets", with("buckets", nullptr), "histogram.buckets must be an array"},
      {"short bucket", extra_bucket, "histogram bucket [1,2] is not"},
      {"float count in a bucket", float_bucket, "is not [lower_ns, upper_ns, count]"},
      {"count beyond int64", huge, "is not [lower_ns, upper_ns, count]"},
      {"counts do not add up", with("count", 6), "f.json: runs[2]: "},
  };
  for (const Case& c : cases) {
    Result<stats::HistogramData> d = HistogramDataFromJson(c.value, "f.json: runs[2]");
    ASSERT_FALSE(d.ok()) << c.what;
    EXPECT_EQ(d.status().code(), StatusCode::kInvalidArgument) << c.what;
    EXPECT_THAT(d.status().message(), HasSubstr("f.json: runs[2]: ")) << c.what;
    EXPECT_THAT(d.status().message(), HasSubstr(c.expect))
        << c.what << ": " << d.status().message();
  }
}

TEST(HistogramJsonTest, MissingCountsReadAsZeroAndAreCheckedAgainstTheBuckets) {
  json minimal = {{"buckets", json::array()}};
  auto empty = HistogramFromJson(minimal, "f");
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->count(), 0);
  json only_buckets = {{"buckets", HistogramJson(Sample())["buckets"]}};
  EXPECT_FALSE(HistogramFromJson(only_buckets, "f").ok());  // count 0 against 5 in buckets
}

}  // namespace
}  // namespace pgrig::results
