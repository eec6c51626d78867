// tpcc/run.h's figures from an engine result: NOPM from committed
// New-Orders over the window, tpmC-like with the rollbacks, TPM of all, the
// database's count agreeing only when it is ahead by at most a client each.
#include "tpcc/run.h"

#include <gtest/gtest.h>

namespace pgrig::tpcc {
namespace {

engine::RunResult ResultOf(const std::vector<int64_t>& counts, double seconds) {
  engine::RunResult r;
  r.bench_duration_ns = static_cast<int64_t>(seconds * 1e9);
  for (int64_t n : counts) {
    engine::ScriptStats s;
    s.latency.emplace();
    for (int64_t i = 0; i < n; ++i) {
      s.totals.RecordSuccess(1'000'000 * (i + 1), 0, i % 2 == 0 ? 1 : 2);
      s.latency->Record(1'000'000 * (i + 1));
    }
    r.scripts.push_back(s);
  }
  return r;
}

TEST(TpccRunFigures, PerMinuteFiguresFromTheClientsCounts) {
  // 30 s: 900 New-Orders, 10 rolled back, 860 Payments, 80 of each other.
  const engine::RunResult r = ResultOf({900, 10, 860, 80, 80, 80}, 30);
  const TpccFigures f = Figures(r, 900, 4);
  EXPECT_DOUBLE_EQ(f.window_s, 30);
  EXPECT_EQ(f.new_orders, 900);
  EXPECT_EQ(f.new_orders_rolled_back, 10);
  EXPECT_DOUBLE_EQ(f.nopm, 1800);
  EXPECT_DOUBLE_EQ(f.tpmc_like, 1820);
  EXPECT_DOUBLE_EQ(f.tpm, 2 * (900 + 10 + 860 + 240));
  EXPECT_TRUE(f.counts_agree);
  ASSERT_EQ(f.types.size(), 6u);
  EXPECT_EQ(f.types[3].type, TxnType::kOrderStatus);
  EXPECT_EQ(f.types[3].retries, 40);
  EXPECT_NEAR(f.types[3].latency_ms.p50, 40, 1);
  EXPECT_NEAR(f.types[3].latency_ms.max, 80, 0.5);
}

TEST(TpccRunFigures, TheDatabaseMayBeAheadByAClientEachNeverBehind) {
  const engine::RunResult r = ResultOf({100, 1, 90, 8, 8, 8}, 60);
  EXPECT_TRUE(Figures(r, 100, 4).counts_agree);
  EXPECT_TRUE(Figures(r, 104, 4).counts_agree);
  EXPECT_FALSE(Figures(r, 105, 4).counts_agree);
  EXPECT_FALSE(Figures(r, 99, 4).counts_agree);
}

TEST(TpccRunFigures, AnEmptyWindowGivesNoRate) {
  const TpccFigures f = Figures(ResultOf({0, 0, 0, 0, 0, 0}, 0), 0, 1);
  EXPECT_EQ(f.nopm, 0);
  EXPECT_EQ(f.types[0].latency_ms.p99, 0);
  EXPECT_TRUE(f.counts_agree);
}

TEST(TpccRunFigures, SkippedDeliveriesComeFromTheNewOrderRowsThatWentAway) {
  // 30 Deliveries asked for 300 districts; 1000 undelivered orders before,
  // 120 New-Orders committed, 830 after: 290 delivered, 10 skipped.
  const DeliverySkips d = SkippedDeliveries(30, 1000, 830, 120);
  EXPECT_EQ(d.districts, 300);
  EXPECT_EQ(d.delivered, 290);
  EXPECT_EQ(d.skipped, 10);
  EXPECT_DOUBLE_EQ(d.skipped_share, 10.0 / 300.0);
  // Deliveries that committed as the window closed: never a negative skip.
  EXPECT_EQ(SkippedDeliveries(30, 1000, 800, 120).skipped, 0);
  EXPECT_EQ(SkippedDeliveries(0, 10, 10, 0).skipped_share, 0);
}

}  // namespace
}  // namespace pgrig::tpcc
