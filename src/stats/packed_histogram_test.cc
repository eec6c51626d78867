#include "stats/packed_histogram.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

namespace pgrig::stats {
namespace {

Histogram LatencyLike(int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(std::log(1e6), 0.8);  // around 1 ms
  Histogram h;
  for (int k = 0; k < n; ++k) h.Record(static_cast<int64_t>(d(rng)));
  return h;
}

TEST(PackedHistogram, RoundTripsExactly) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    const Histogram h = LatencyLike(200000, seed);
    const PackedHistogram p = Pack(h);
    auto back = ImportPacked(p);
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(*back, h);
    auto data = Unpack(p);
    ASSERT_TRUE(data.ok());
    EXPECT_EQ(*data, h.Export());
  }
}

TEST(PackedHistogram, IsAboutATenthOfTheBucketArrays) {
  const Histogram h = LatencyLike(200000, 7);
  const HistogramData d = h.Export();
  const PackedHistogram p = Pack(d);
  // "[lower,upper,count]," is ~20 characters a bucket in JSON; packed, two
  // to three characters.
  EXPECT_GT(d.buckets.size(), 5000u);
  EXPECT_LT(p.buckets.size(), d.buckets.size() * 3);
  EXPECT_GE(p.buckets.size(), d.buckets.size() * 2);
}

TEST(PackedHistogram, EncodesTheDocumentedDigits) {
  Histogram h;
  h.RecordN(0, 1);      // index 0: gap 0 -> "A", count 1 -> "A"
  h.RecordN(2, 33);     // index 2: gap 1 -> "B", count 33 -> 32 -> "gB"
  h.RecordN(4095, 32);  // index 4095: gap 4092, count 32 -> 31
  const PackedHistogram p = Pack(h);
  EXPECT_EQ(p.buckets.substr(0, 5), "AABgB");
  // 4092 = 127 * 32 + 28: groups 28 (+32 = 60, '8'), 31 (+32 = 63, '/'), 3
  // ('D'); then 31 is 'f'.
  EXPECT_EQ(p.buckets.substr(5), "8/Df");
  auto back = ImportPacked(p);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, h);
}

TEST(PackedHistogram, EmptyHistogram) {
  const PackedHistogram p = Pack(Histogram());
  EXPECT_EQ(p.buckets, "");
  auto back = ImportPacked(p);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->count(), 0);
}

TEST(PackedHistogram, RefusesMalformedText) {
  PackedHistogram p = Pack(LatencyLike(1000, 3));
  struct Case {
    std::string buckets;
    const char* says;
  } cases[] = {
      {"A", "ends inside a number"},                          // a gap without its count
      {"Ag", "ends inside a number"},                         // a count cut after a group
      {"A*", "is not a Base64 character"},                    // outside the alphabet
      {"A=", "is not a Base64 character"},                    // padding is not used
      {"A" + std::string(13, '/') + "B", "beyond 63 bits"},   // 70 bits
      {"ggggCA", "beyond the layout"},                        // index 2^21
      {"AA" + std::string(13, '/') + "B", "beyond 63 bits"},  // the second bucket's gap
  };
  for (const Case& c : cases) {
    p.buckets = c.buckets;
    auto d = Unpack(p);
    ASSERT_FALSE(d.ok()) << c.buckets;
    EXPECT_NE(d.status().message().find(c.says), std::string::npos)
        << c.buckets << ": " << d.status().message();
    EXPECT_NE(d.status().message().find("character"), std::string::npos);
  }
}

TEST(PackedHistogram, ImportChecksWhatUnpackDoesNot) {
  PackedHistogram p = Pack(LatencyLike(1000, 4));
  p.count += 1;  // the buckets no longer add up
  auto h = ImportPacked(p);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("differs from the sum of its bucket counts"),
            std::string::npos);
}

}  // namespace
}  // namespace pgrig::stats
