// The scripts of tpcc/transactions.h: they parse as pgbench scripts, carry
// the standard mix's weights and the run's NURand constants, and draw remote
// warehouses only when there are others.
#include "tpcc/transactions.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "script/script.h"

namespace pgrig::tpcc {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(TpccTransactions, TheStandardMixParsesAndCarriesTheRunsConstants) {
  const TxnInputs in{.warehouses = 3, .run = {.c_last = 201, .c_id = 777, .ol_i_id = 4321}};
  const std::vector<TxnScript> s = TransactionScripts(in);
  ASSERT_EQ(s.size(), static_cast<size_t>(kTxnTypes));
  int total = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(s[i].type), i);
    total += s[i].weight;
    script::NameTable names;
    auto parsed = script::ParseScript(s[i].text, TxnName(s[i].type), names);
    EXPECT_TRUE(parsed.ok()) << TxnName(s[i].type) << ": " << parsed.status().message();
    EXPECT_THAT(s[i].text, HasSubstr("% 3 + 1")) << "home warehouse of client_id";
  }
  EXPECT_EQ(total, 10000);
  // New-Order 45% (1% of it rolled back), Payment 43%, the others 4%.
  EXPECT_EQ(s[0].weight + s[1].weight, 4500);
  EXPECT_EQ(s[1].weight, 45);
  EXPECT_EQ(s[2].weight, 4300);
  EXPECT_EQ(s[3].weight + s[4].weight + s[5].weight, 1200);
  // NURand with the run's constants: C_ID, OL_I_ID, C_LAST.
  EXPECT_THAT(s[0].text, HasSubstr("(((random(0, 1023) | random(1, 3000)) + 777) % 3000) + 1"));
  EXPECT_THAT(s[0].text,
              HasSubstr("(((random(0, 8191) | random(1, 100000)) + 4321) % 100000) + 1"));
  EXPECT_THAT(s[2].text, HasSubstr("(((random(0, 255) | random(0, 999)) + 201) % 1000) + 0"));
  EXPECT_THAT(s[0].text, HasSubstr("END;"));
  EXPECT_THAT(s[1].text, HasSubstr("100001"));
  EXPECT_THAT(s[1].text, HasSubstr("ROLLBACK;"));
  EXPECT_THAT(s[0].text, Not(HasSubstr("100001")));
  // 1% of lines and 15% of payments from another warehouse.
  EXPECT_THAT(s[0].text,
              HasSubstr("CASE WHEN random(1, 100) = 1 THEN (:w_id + random(0, 1)) % 3 + 1"));
  EXPECT_THAT(s[2].text, HasSubstr(":remote <= 15"));
  EXPECT_THAT(s[2].text, HasSubstr(":by_name <= 60"));
}

TEST(TpccTransactions, OneWarehouseHasNoRemoteDraws) {
  for (const TxnScript& s : TransactionScripts({.warehouses = 1, .run = {}})) {
    EXPECT_THAT(s.text, Not(HasSubstr("random(0, -1)"))) << TxnName(s.type);
    EXPECT_THAT(s.text, Not(HasSubstr(":remote <= 15"))) << TxnName(s.type);
  }
}

TEST(TpccTransactions, ProceduresCallOneFunctionWithTheSameDraws) {
  const TxnInputs in{
      .warehouses = 2, .run = {.c_last = 201, .c_id = 777, .ol_i_id = 4321}, .procedures = true};
  const std::vector<TxnScript> s = TransactionScripts(in);
  const char* calls[] = {"tpcc_new_order(",    "tpcc_new_order(", "tpcc_payment(",
                         "tpcc_order_status(", "tpcc_delivery(",  "tpcc_stock_level("};
  for (size_t i = 0; i < s.size(); ++i) {
    script::NameTable names;
    auto parsed = script::ParseScript(s[i].text, TxnName(s[i].type), names);
    ASSERT_TRUE(parsed.ok()) << TxnName(s[i].type) << ": " << parsed.status().message();
    EXPECT_THAT(s[i].text, HasSubstr(calls[i]));
    EXPECT_THAT(s[i].text, Not(HasSubstr("BEGIN")));  // the call is the transaction
    EXPECT_THAT(s[i].text, Not(HasSubstr("\\gset")));
  }
  EXPECT_THAT(s[0].text, HasSubstr("+ 4321) % 100000) + 1"));
  EXPECT_THAT(s[1].text, HasSubstr("CASE WHEN n = :ol_cnt THEN 100001"));
  EXPECT_THAT(s[2].text, HasSubstr(":by_name <= 60"));
  EXPECT_THAT(s[2].text, HasSubstr("+ 201) % 1000) + 0"));
}

TEST(TpccTransactions, SpecTimingThinksAndKeysBeforeEachTransaction) {
  const std::vector<TxnScript> s =
      TransactionScripts({.warehouses = 1, .run = {}, .spec_timing = true});
  const std::vector<TxnScript> plain = TransactionScripts({.warehouses = 1, .run = {}});
  for (size_t i = 0; i < s.size(); ++i) {
    const TxnScript& t = s[i];
    script::NameTable names;
    auto parsed = script::ParseScript(t.text, TxnName(t.type), names);
    ASSERT_TRUE(parsed.ok()) << TxnName(t.type) << ": " << parsed.status().message();
    const int mean_ms = ThinkMeanSeconds(t.type) * 1000;
    const std::string prefix = fmt::format(
        "\\set think_ms least(int(-ln(random(1, 1000000) / 1000000.0) * {}), {})\n"
        "\\sleep :think_ms ms\n\\sleep {} s\n",
        mean_ms, 10 * mean_ms, KeyingSeconds(t.type));
    EXPECT_EQ(t.text, prefix + plain[i].text) << TxnName(t.type);
  }
  EXPECT_EQ(KeyingSeconds(TxnType::kNewOrder), 18);
  EXPECT_EQ(KeyingSeconds(TxnType::kPayment), 3);
  EXPECT_EQ(ThinkMeanSeconds(TxnType::kOrderStatus), 10);
  EXPECT_EQ(ThinkMeanSeconds(TxnType::kStockLevel), 5);
  EXPECT_THAT(plain[0].text, Not(HasSubstr("\\sleep")));
}

TEST(TpccTransactions, LastNamesAreBuiltFromTheDigits) {
  EXPECT_THAT(LastNameSql("n"), HasSubstr("CAST(:n AS integer) / 100 + 1"));
  EXPECT_THAT(LastNameSql("n"),
              HasSubstr("'BAR','OUGHT','ABLE','PRI','PRES','ESE','ANTI','CALLY','ATION','EING'"));
  EXPECT_EQ(TxnName(TxnType::kStockLevel), "stock-level");
}

}  // namespace
}  // namespace pgrig::tpcc
