#include "results/metrics.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace pgrig::results {
namespace {

TEST(Metrics, UnitsAsTablesShowThem) {
  EXPECT_STREQ(MetricUnit(kMetricTps), "tps");
  EXPECT_STREQ(MetricUnit(kMetricLio), "lio/s");
  EXPECT_STREQ(MetricUnit(kMetricNopm), "NOPM");
  EXPECT_STREQ(MetricUnit(""), "tps");  // a cell written before cells had a metric
  EXPECT_STREQ(MetricUnit("furlongs"), "tps");
}

TEST(Metrics, EachKindHasItsMetric) {
  EXPECT_STREQ(MetricOfKind("lio"), kMetricLio);
  EXPECT_STREQ(MetricOfKind("tpcc"), kMetricNopm);
  EXPECT_STREQ(MetricOfKind("pgbench"), kMetricTps);
  EXPECT_STREQ(MetricOfKind(""), kMetricTps);
}

TEST(Metrics, TheListIsEveryMetricOnceTpsFirst) {
  std::set<std::string> names, units;
  for (const char* m : kMetrics) {
    names.insert(m);
    units.insert(MetricUnit(m));
  }
  EXPECT_EQ(names.size(), kMetrics.size());
  EXPECT_EQ(units.size(), kMetrics.size());  // no two metrics read alike
  EXPECT_STREQ(kMetrics[0], kMetricTps);
}

}  // namespace
}  // namespace pgrig::results
