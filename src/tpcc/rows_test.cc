#include "tpcc/rows.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "tpcc/schema.h"

namespace pgrig::tpcc {
namespace {

using ::testing::AllOf;
using ::testing::Ge;
using ::testing::Le;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = text.find('\n', at);
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

std::vector<std::string> Fields(const std::string& line) {
  std::vector<std::string> fields;
  size_t at = 0;
  while (true) {
    const size_t end = line.find('\t', at);
    fields.push_back(line.substr(at, end == std::string::npos ? end : end - at));
    if (end == std::string::npos) return fields;
    at = end + 1;
  }
}

// The number of columns schema.h gives `table`.
size_t Columns(std::string_view table) {
  std::string_view cols = FindTable(table)->columns;
  size_t n = 1;
  for (size_t at = cols.find(", "); at != std::string_view::npos; at = cols.find(", ", at + 2)) ++n;
  return n;
}

constexpr std::string_view kNow = "2026-12-05 12:00:00";

TEST(TpccRows, MoneyIsCentsWithTwoDecimals) {
  std::string s;
  AppendMoney(-1000, &s);
  s += ' ';
  AppendMoney(5, &s);
  s += ' ';
  AppendMoney(30000000, &s);
  s += ' ';
  AppendMoney(-7, &s);
  EXPECT_EQ(s, "-10.00 0.05 300000.00 -0.07");
}

TEST(TpccRows, EachUnitDrawsFromItsOwnStream) {
  Prng a = UnitRng(1, LoadTable::kCustomer, 3, 4);
  Prng b = UnitRng(1, LoadTable::kCustomer, 3, 4);
  EXPECT_EQ(a.Next64(), b.Next64());
  std::set<uint64_t> firsts;
  for (LoadTable t : {LoadTable::kCustomer, LoadTable::kHistory}) {
    for (int w = 1; w <= 3; ++w) {
      for (int d = 1; d <= 3; ++d) firsts.insert(UnitRng(1, t, w, d).Next64());
    }
  }
  firsts.insert(UnitRng(2, LoadTable::kCustomer, 1, 1).Next64());
  EXPECT_EQ(firsts.size(), 19u);
}

TEST(TpccRows, ItemsAndStockFollowClause4331) {
  Prng rng(5);
  std::string items;
  AppendItemRows(rng, 1, 1000, &items);
  std::vector<std::string> lines = Lines(items);
  ASSERT_EQ(lines.size(), 1000u);
  int original = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::vector<std::string> f = Fields(lines[i]);
    ASSERT_EQ(f.size(), Columns("item")) << lines[i];
    EXPECT_EQ(f[0], std::to_string(i + 1));
    EXPECT_THAT(std::stoi(f[1]), AllOf(Ge(1), Le(10000)));
    EXPECT_THAT(f[2].size(), AllOf(Ge(14u), Le(24u)));
    EXPECT_THAT(std::stod(f[3]), AllOf(Ge(1.0), Le(100.0)));
    original += f[4].find("ORIGINAL") != std::string::npos ? 1 : 0;
  }
  EXPECT_THAT(original, AllOf(Ge(60), Le(140)));
  std::string stock;
  AppendStockRows(rng, 7, 1, 100, &stock);
  for (const std::string& line : Lines(stock)) {
    std::vector<std::string> f = Fields(line);
    ASSERT_EQ(f.size(), Columns("stock")) << line;
    EXPECT_EQ(f[1], "7");
    EXPECT_THAT(std::stoi(f[2]), AllOf(Ge(10), Le(100)));
    for (int d = 3; d < 13; ++d) EXPECT_EQ(f[static_cast<size_t>(d)].size(), 24u);
    EXPECT_EQ(f[13] + f[14] + f[15], "000");
  }
}

TEST(TpccRows, WarehouseAndDistrictsStartTheirYearToDate) {
  Prng rng(9);
  std::string w;
  AppendWarehouseRow(rng, 2, &w);
  std::vector<std::string> f = Fields(Lines(w).at(0));
  ASSERT_EQ(f.size(), Columns("warehouse"));
  EXPECT_EQ(f[0], "2");
  EXPECT_EQ(f[6].substr(4), "11111");
  EXPECT_THAT(std::stod(f[7]), AllOf(Ge(0.0), Le(0.2)));
  EXPECT_EQ(f[8], "300000.00");
  std::string d;
  AppendDistrictRows(rng, 2, &d);
  std::vector<std::string> lines = Lines(d);
  ASSERT_EQ(lines.size(), 10u);
  for (size_t i = 0; i < lines.size(); ++i) {
    f = Fields(lines[i]);
    ASSERT_EQ(f.size(), Columns("district"));
    EXPECT_EQ(f[0], std::to_string(i + 1));
    EXPECT_EQ(f[9], "30000.00");
    EXPECT_EQ(f[10], "3001");
  }
}

TEST(TpccRows, CustomersHaveEveryLastNameAndOneInTenBadCredit) {
  Prng rng(13);
  const NURandConstants load{.c_last = 100};
  std::string text;
  AppendCustomerRows(rng, load, 1, 3, kNow, &text);
  std::vector<std::string> lines = Lines(text);
  ASSERT_EQ(lines.size(), 3000u);
  int bad = 0;
  std::set<std::string> names;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::vector<std::string> f = Fields(lines[i]);
    ASSERT_EQ(f.size(), Columns("customer")) << lines[i];
    EXPECT_EQ(f[0], std::to_string(i + 1));
    EXPECT_EQ(f[1] + "/" + f[2], "3/1");
    EXPECT_EQ(f[4], "OE");
    if (i < 1000) {
      EXPECT_EQ(f[5], LastName(static_cast<int64_t>(i)));
    }
    names.insert(f[5]);
    EXPECT_EQ(f[11].size(), 16u);
    EXPECT_EQ(f[12], kNow);
    bad += f[13] == "BC" ? 1 : 0;
    EXPECT_EQ(f[14], "50000.00");
    EXPECT_EQ(f[16] + " " + f[17] + " " + f[18] + " " + f[19], "-10.00 10.00 1 0");
    EXPECT_THAT(f[20].size(), AllOf(Ge(300u), Le(500u)));
  }
  EXPECT_EQ(names.size(), 1000u);
  EXPECT_THAT(bad, AllOf(Ge(240), Le(360)));
  std::string history;
  AppendHistoryRows(rng, 1, 3, kNow, &history);
  lines = Lines(history);
  ASSERT_EQ(lines.size(), 3000u);
  std::vector<std::string> f = Fields(lines[41]);
  ASSERT_EQ(f.size(), Columns("history"));
  EXPECT_EQ(f[0] + " " + f[1] + " " + f[2] + " " + f[3] + " " + f[4], "42 3 1 3 1");
  EXPECT_EQ(f[6], "10.00");
}

TEST(TpccRows, OrdersAreDeliveredUpTo2100AndNewFrom2101) {
  Prng rng(17);
  std::string orders, lines_text, new_orders;
  const int64_t line_count = AppendOrderRows(rng, 4, 2, kNow, &orders, &lines_text, &new_orders);
  std::vector<std::string> os = Lines(orders);
  std::vector<std::string> ls = Lines(lines_text);
  std::vector<std::string> ns = Lines(new_orders);
  ASSERT_EQ(os.size(), 3000u);
  ASSERT_EQ(static_cast<int64_t>(ls.size()), line_count);
  ASSERT_EQ(ns.size(), 900u);
  EXPECT_EQ(ns.front(), "2101\t2\t4");
  EXPECT_EQ(ns.back(), "3000\t2\t4");
  std::set<std::string> customers;
  int64_t counted = 0;
  size_t next_line = 0;
  for (size_t i = 0; i < os.size(); ++i) {
    std::vector<std::string> f = Fields(os[i]);
    ASSERT_EQ(f.size(), Columns("orders"));
    const bool delivered = i + 1 < 2101;
    customers.insert(f[3]);
    if (delivered) {
      EXPECT_THAT(std::stoi(f[5]), AllOf(Ge(1), Le(10)));
    } else {
      EXPECT_EQ(f[5], "\\N");
    }
    const int n = std::stoi(f[6]);
    EXPECT_THAT(n, AllOf(Ge(5), Le(15)));
    EXPECT_EQ(f[7], "1");
    counted += n;
    for (int k = 1; k <= n; ++k, ++next_line) {
      std::vector<std::string> l = Fields(ls.at(next_line));
      ASSERT_EQ(l.size(), Columns("order_line"));
      EXPECT_EQ(l[0], f[0]);
      EXPECT_EQ(l[3], std::to_string(k));
      EXPECT_EQ(l[5], "4");
      EXPECT_EQ(l[6], delivered ? std::string(kNow) : "\\N");
      EXPECT_EQ(l[7], "5");
      if (delivered) {
        EXPECT_EQ(l[8], "0.00");
      } else {
        EXPECT_THAT(std::stod(l[8]), AllOf(Ge(0.01), Le(9999.99)));
      }
    }
  }
  EXPECT_EQ(counted, line_count);
  EXPECT_EQ(customers.size(), 3000u);  // each customer one order
  // About ten lines an order.
  EXPECT_THAT(line_count, AllOf(Ge(28500), Le(31500)));
}

}  // namespace
}  // namespace pgrig::tpcc
