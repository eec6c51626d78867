#include "tpcc/rows.h"

#include <fmt/format.h>

#include <vector>

namespace pgrig::tpcc {

namespace {

uint64_t Mix(uint64_t x) {
  // splitmix64's finaliser: every input bit moves every output bit.
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

void Int(int64_t v, std::string* out) { fmt::format_to(std::back_inserter(*out), "{}", v); }

void Tab(std::string* out) { out->push_back('\t'); }
void End(std::string* out) { out->push_back('\n'); }

// A fraction with four decimals from ten-thousandths: 0.2000 from 2000.
void AppendFraction4(int64_t ten_thousandths, std::string* out) {
  fmt::format_to(std::back_inserter(*out), "0.{:04d}", ten_thousandths);
}

// W_STREET_1, W_STREET_2, W_CITY, W_STATE, W_ZIP (and the district's and
// customer's), each followed by a tab.
void AppendAddress(Prng& rng, std::string* out) {
  AppendAString(rng, 10, 20, out);
  Tab(out);
  AppendAString(rng, 10, 20, out);
  Tab(out);
  AppendAString(rng, 10, 20, out);
  Tab(out);
  AppendAString(rng, 2, 2, out);
  Tab(out);
  AppendZip(rng, out);
  Tab(out);
}

}  // namespace

Prng UnitRng(uint64_t seed, LoadTable table, int warehouse, int district) {
  uint64_t h = Mix(seed);
  h = Mix(h ^ static_cast<uint64_t>(table));
  h = Mix(h ^ static_cast<uint64_t>(warehouse));
  h = Mix(h ^ static_cast<uint64_t>(district));
  return Prng(h);
}

void AppendMoney(int64_t cents, std::string* out) {
  if (cents < 0) out->push_back('-');
  const int64_t abs = cents < 0 ? -cents : cents;
  fmt::format_to(std::back_inserter(*out), "{}.{:02d}", abs / 100, abs % 100);
}

void AppendItemRows(Prng& rng, int first_id, int last_id, std::string* out) {
  for (int i = first_id; i <= last_id; ++i) {
    Int(i, out);
    Tab(out);
    Int(Uniform(rng, 1, 10000), out);  // I_IM_ID
    Tab(out);
    AppendAString(rng, 14, 24, out);  // I_NAME
    Tab(out);
    AppendMoney(Uniform(rng, 100, 10000), out);  // I_PRICE 1.00..100.00
    Tab(out);
    AppendItemData(rng, out);
    End(out);
  }
}

void AppendWarehouseRow(Prng& rng, int w, std::string* out) {
  Int(w, out);
  Tab(out);
  AppendAString(rng, 6, 10, out);  // W_NAME
  Tab(out);
  AppendAddress(rng, out);
  AppendFraction4(Uniform(rng, 0, 2000), out);  // W_TAX
  Tab(out);
  AppendMoney(30000000, out);  // W_YTD 300,000.00
  End(out);
}

void AppendStockRows(Prng& rng, int w, int first_id, int last_id, std::string* out) {
  for (int i = first_id; i <= last_id; ++i) {
    Int(i, out);
    Tab(out);
    Int(w, out);
    Tab(out);
    Int(Uniform(rng, 10, 100), out);  // S_QUANTITY
    Tab(out);
    for (int d = 0; d < kDistrictsPerWarehouse; ++d) {  // S_DIST_01..10
      AppendAString(rng, 24, 24, out);
      Tab(out);
    }
    out->append("0\t0\t0\t");  // S_YTD, S_ORDER_CNT, S_REMOTE_CNT
    AppendItemData(rng, out);
    End(out);
  }
}

void AppendDistrictRows(Prng& rng, int w, std::string* out) {
  for (int d = 1; d <= kDistrictsPerWarehouse; ++d) {
    Int(d, out);
    Tab(out);
    Int(w, out);
    Tab(out);
    AppendAString(rng, 6, 10, out);  // D_NAME
    Tab(out);
    AppendAddress(rng, out);
    AppendFraction4(Uniform(rng, 0, 2000), out);  // D_TAX
    Tab(out);
    AppendMoney(3000000, out);  // D_YTD 30,000.00
    Tab(out);
    Int(kOrdersPerDistrict + 1, out);  // D_NEXT_O_ID
    End(out);
  }
}

void AppendCustomerRows(Prng& rng, const NURandConstants& load, int w, int d, std::string_view now,
                        std::string* out) {
  for (int c = 1; c <= kCustomersPerDistrict; ++c) {
    Int(c, out);
    Tab(out);
    Int(d, out);
    Tab(out);
    Int(w, out);
    Tab(out);
    AppendAString(rng, 8, 16, out);  // C_FIRST
    out->append("\tOE\t");           // C_MIDDLE
    AppendLastName(c <= 1000 ? c - 1 : LastNameNumber(rng, load), out);
    Tab(out);
    AppendAddress(rng, out);
    AppendNString(rng, 16, 16, out);  // C_PHONE
    Tab(out);
    out->append(now);  // C_SINCE
    out->append(Uniform(rng, 1, 10) == 1 ? "\tBC\t" : "\tGC\t");
    AppendMoney(5000000, out);  // C_CREDIT_LIM 50,000.00
    Tab(out);
    AppendFraction4(Uniform(rng, 0, 5000), out);  // C_DISCOUNT
    out->append(
        "\t-10.00\t10.00\t1\t0\t");     // C_BALANCE, C_YTD_PAYMENT, C_PAYMENT_CNT, C_DELIVERY_CNT
    AppendAString(rng, 300, 500, out);  // C_DATA
    End(out);
  }
}

void AppendHistoryRows(Prng& rng, int w, int d, std::string_view now, std::string* out) {
  for (int c = 1; c <= kCustomersPerDistrict; ++c) {
    fmt::format_to(std::back_inserter(*out), "{}\t{}\t{}\t{}\t{}\t", c, d, w, d, w);
    out->append(now);
    out->append("\t10.00\t");
    AppendAString(rng, 12, 24, out);  // H_DATA
    End(out);
  }
}

int64_t AppendOrderRows(Prng& rng, int w, int d, std::string_view now, std::string* orders,
                        std::string* order_lines, std::string* new_orders) {
  const std::vector<int32_t> customers = Permutation(rng, kCustomersPerDistrict);
  int64_t lines = 0;
  for (int o = 1; o <= kOrdersPerDistrict; ++o) {
    const bool delivered = o < kFirstNewOrder;
    const int64_t line_count = Uniform(rng, 5, 15);
    fmt::format_to(std::back_inserter(*orders), "{}\t{}\t{}\t{}\t", o, d, w,
                   customers[static_cast<size_t>(o - 1)]);
    orders->append(now);
    Tab(orders);
    if (delivered) {
      Int(Uniform(rng, 1, 10), orders);  // O_CARRIER_ID
    } else {
      orders->append("\\N");
    }
    fmt::format_to(std::back_inserter(*orders), "\t{}\t1\n", line_count);  // O_OL_CNT, O_ALL_LOCAL
    for (int64_t n = 1; n <= line_count; ++n) {
      fmt::format_to(std::back_inserter(*order_lines), "{}\t{}\t{}\t{}\t{}\t{}\t", o, d, w, n,
                     Uniform(rng, 1, kItems), w);
      if (delivered) {
        order_lines->append(now);
      } else {
        order_lines->append("\\N");
      }
      order_lines->append("\t5\t");  // OL_QUANTITY
      AppendMoney(delivered ? 0 : Uniform(rng, 1, 999999), order_lines);
      Tab(order_lines);
      AppendAString(rng, 24, 24, order_lines);  // OL_DIST_INFO
      End(order_lines);
    }
    lines += line_count;
    if (!delivered) fmt::format_to(std::back_inserter(*new_orders), "{}\t{}\t{}\n", o, d, w);
  }
  return lines;
}

}  // namespace pgrig::tpcc
