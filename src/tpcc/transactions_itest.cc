// Each of TPC-C's transactions as `tpcc run` sends it, executed once on the
// engine over two loaded warehouses, and its effects checked against the
// database: New-Order's order, new order, lines and stock; the rollback that
// changes nothing; Payment's money and history; Order-Status and
// Stock-Level that change nothing; Delivery's oldest new orders, carriers,
// dates and balances; and conditions 1 to 12 holding after all of them.
// Every transaction runs with prepared statements, with the simple protocol
// (strings never pass through the client, so both work) and as a call of its
// stored function (tpcc init --procedures): the same effects each way.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

#include "common/strings.h"
#include "engine/engine.h"
#include "script/script.h"
#include "script/variables.h"
#include "support/test_cluster.h"
#include "tpcc/check.h"
#include "tpcc/loader.h"
#include "tpcc/run.h"
#include "tpcc/transactions.h"

namespace pgrig::tpcc {
namespace {

// How the transactions are sent: client-side SQL in a protocol, or one
// stored function call each (prepared).
struct Way {
  script::QueryMode mode;
  bool procedures;
  std::string Name() const {
    return procedures ? "procedures" : std::string(script::QueryModeName(mode));
  }
};

// One database per way: CTest may run them at once.
std::string TxnDb(const Way& way) { return "tpcc_txn_itest_" + way.Name(); }

// Runs script `type` once on one client (home warehouse 1) and returns the
// engine's result.
engine::RunResult RunOnce(TxnInputs in, TxnType type, const Way& way, uint64_t seed) {
  in.procedures = way.procedures;
  const std::vector<TxnScript> all = TransactionScripts(in);
  auto names = std::make_shared<script::NameTable>();
  auto scripts = std::make_shared<std::vector<script::Script>>();
  auto s = script::ParseScript(all[static_cast<size_t>(type)].text, "t", *names);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (s.ok()) scripts->push_back(std::move(*s));
  for (const char* n : {"client_id", "scale", "default_seed", "random_seed"}) names->Intern(n);
  std::shared_ptr<const script::NameTable> frozen = names;
  engine::EngineConfig cfg;
  cfg.target = testing::SharedParams(TxnDb(way));
  cfg.scripts = scripts;
  cfg.names = frozen;
  cfg.base_variables = std::make_shared<script::Variables>(frozen);
  cfg.clients = 1;
  cfg.threads = 1;
  cfg.transactions_per_client = 1;
  cfg.mode = way.mode;
  cfg.random_seed = seed;
  cfg.per_script_latency = true;
  std::string messages;
  cfg.on_message = [&messages](const std::string& line) { messages += line + "\n"; };
  auto r = engine::RunBenchmark(cfg);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return {};
  EXPECT_EQ(r->stop_reason, engine::StopReason::kCompleted) << messages;
  EXPECT_EQ(r->totals.transactions, 1) << TxnName(type) << "\n" << messages;
  EXPECT_EQ(r->scripts[0].latency->count(), 1);
  return *r;
}

int64_t Value(pg::Connection& c, const std::string& sql) {
  auto v = c.QueryValue(sql);
  EXPECT_TRUE(v.ok()) << sql << ": " << v.status().message();
  return v.ok() ? ParseInt64(*v).value_or(-999999) : -999999;
}

std::string Text(pg::Connection& c, const std::string& sql) {
  auto v = c.QueryValue(sql);
  EXPECT_TRUE(v.ok()) << sql << ": " << v.status().message();
  return v.ok() ? std::string(*v) : "?";
}

// Money as cents, so that sums compare exactly.
int64_t Cents(pg::Connection& c, const std::string& sum) {
  return Value(c, "SELECT ((" + sum + ") * 100)::bigint");
}

class TpccTransactionsITest : public ::testing::TestWithParam<Way> {
 protected:
  void SetUp() override {
    testing::FreshDatabase(TxnDb(GetParam()));
    Loader loader(testing::SharedParams(TxnDb(GetParam())),
                  {.warehouses = 2, .jobs = 2, .seed = 3, .procedures = GetParam().procedures});
    auto report = loader.Run();
    ASSERT_TRUE(report.ok()) << report.status().message();
  }
  TxnInputs Inputs(pg::Connection& c) {
    auto load = ReadLoad(c);
    EXPECT_TRUE(load.ok()) << load.status().message();
    script::Prng rng(11);
    return {.warehouses = 2, .run = NURandConstants::ForRun(load->constants, rng)};
  }
};

TEST_P(TpccTransactionsITest, EachTransactionDoesWhatTheSpecificationSays) {
  pg::Connection c = testing::ConnectShared(TxnDb(GetParam()));
  const TxnInputs in = Inputs(c);
  const Way& way = GetParam();

  // New-Order: one order of O_OL_CNT lines at D_NEXT_O_ID, its new order,
  // each line's amount its quantity times the item's price, and the stock's
  // YTD and order count up by the lines' quantities and number.
  for (uint64_t seed : {1, 2, 3}) {
    const int64_t next = Value(c, "SELECT sum(d_next_o_id) FROM district WHERE d_w_id = 1");
    const int64_t stock_ytd = Value(c, "SELECT sum(s_ytd) FROM stock");
    const int64_t stock_orders = Value(c, "SELECT sum(s_order_cnt) FROM stock");
    RunOnce(in, TxnType::kNewOrder, way, seed);
    EXPECT_EQ(Value(c, "SELECT sum(d_next_o_id) FROM district WHERE d_w_id = 1"), next + 1);
    const std::string newest =
        "(SELECT o_w_id, o_d_id, o_id, o_ol_cnt, o_carrier_id FROM orders o WHERE o_w_id = 1 AND "
        "o_id = (SELECT d_next_o_id - 1 FROM district WHERE d_w_id = 1 AND d_id = o.o_d_id) "
        "ORDER BY o_entry_d DESC LIMIT 1) n";
    const int64_t lines = Value(c, "SELECT o_ol_cnt FROM " + newest);
    EXPECT_GE(lines, 5);
    EXPECT_LE(lines, 15);
    EXPECT_EQ(Value(c, "SELECT count(*) FROM " + newest +
                           " JOIN order_line ON ol_w_id = n.o_w_id AND ol_d_id = n.o_d_id AND "
                           "ol_o_id = n.o_id AND ol_delivery_d IS NULL"),
              lines);
    EXPECT_EQ(Value(c, "SELECT count(*) FROM " + newest +
                           " JOIN new_order ON no_w_id = n.o_w_id AND no_d_id = n.o_d_id AND "
                           "no_o_id = n.o_id WHERE n.o_carrier_id IS NULL"),
              1);
    EXPECT_EQ(Value(c, "SELECT count(*) FROM " + newest +
                           " JOIN order_line ON ol_w_id = n.o_w_id AND ol_d_id = n.o_d_id AND "
                           "ol_o_id = n.o_id JOIN item ON i_id = ol_i_id "
                           "WHERE ol_amount <> ol_quantity * i_price"),
              0);
    const int64_t quantities = Value(c, "SELECT sum(ol_quantity) FROM " + newest +
                                            " JOIN order_line ON ol_w_id = n.o_w_id AND "
                                            "ol_d_id = n.o_d_id AND ol_o_id = n.o_id");
    EXPECT_EQ(Value(c, "SELECT sum(s_ytd) FROM stock"), stock_ytd + quantities);
    EXPECT_EQ(Value(c, "SELECT sum(s_order_cnt) FROM stock"), stock_orders + lines);
  }

  // The 1% rollback: nothing of it stays.
  {
    const int64_t next = Value(c, "SELECT sum(d_next_o_id) FROM district");
    const int64_t orders = Value(c, "SELECT count(*) FROM orders");
    const int64_t lines = Value(c, "SELECT count(*) FROM order_line");
    const int64_t stock_ytd = Value(c, "SELECT sum(s_ytd) FROM stock");
    RunOnce(in, TxnType::kNewOrderRollback, way, 4);
    EXPECT_EQ(Value(c, "SELECT sum(d_next_o_id) FROM district"), next);
    EXPECT_EQ(Value(c, "SELECT count(*) FROM orders"), orders);
    EXPECT_EQ(Value(c, "SELECT count(*) FROM order_line"), lines);
    EXPECT_EQ(Value(c, "SELECT sum(s_ytd) FROM stock"), stock_ytd);
  }

  // Payment: the warehouse's and a district's YTD up by H_AMOUNT, one
  // customer's balance down by it and its payment count up, one history row;
  // a bad-credit customer's C_DATA starts with the payment's keys and
  // H_AMOUNT as the history row has it (clause 2.5.2.2).  Every customer is
  // made 'BC' here so that each payment shows it.
  ASSERT_TRUE(c.Exec("UPDATE customer SET c_credit = 'BC'").ok());
  for (uint64_t seed : {5, 6, 7, 8}) {
    const int64_t w_ytd = Cents(c, "SELECT sum(w_ytd) FROM warehouse WHERE w_id = 1");
    const int64_t d_ytd = Cents(c, "SELECT sum(d_ytd) FROM district WHERE d_w_id = 1");
    const int64_t balance = Cents(c, "SELECT sum(c_balance) FROM customer");
    const int64_t payments = Value(c, "SELECT sum(c_payment_cnt) FROM customer");
    const int64_t history = Value(c, "SELECT count(*) FROM history");
    RunOnce(in, TxnType::kPayment, way, seed);
    EXPECT_EQ(Value(c, "SELECT count(*) FROM history"), history + 1);
    const int64_t amount =
        Cents(c, "SELECT h_amount FROM history ORDER BY h_date DESC, ctid DESC LIMIT 1");
    EXPECT_GE(amount, 100);
    EXPECT_LE(amount, 500000);
    EXPECT_EQ(Cents(c, "SELECT sum(w_ytd) FROM warehouse WHERE w_id = 1"), w_ytd + amount);
    EXPECT_EQ(Cents(c, "SELECT sum(d_ytd) FROM district WHERE d_w_id = 1"), d_ytd + amount);
    EXPECT_EQ(Cents(c, "SELECT sum(c_balance) FROM customer"), balance - amount);
    EXPECT_EQ(Value(c, "SELECT sum(c_payment_cnt) FROM customer"), payments + 1);
    const std::string c_data = Text(
        c,
        "SELECT left(c_data, 60) FROM customer, (SELECT * FROM history ORDER BY h_date DESC, "
        "ctid DESC LIMIT 1) h WHERE c_w_id = h_c_w_id AND c_d_id = h_c_d_id AND c_id = h_c_id");
    const std::string expected =
        Text(c,
             "SELECT concat_ws(' ', h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_amount) || ' | ' "
             "FROM history ORDER BY h_date DESC, ctid DESC LIMIT 1");
    EXPECT_TRUE(c_data.starts_with(expected)) << c_data << " / " << expected;
  }

  // Order-Status and Stock-Level read only.
  for (TxnType t : {TxnType::kOrderStatus, TxnType::kStockLevel}) {
    const int64_t balance = Cents(c, "SELECT sum(c_balance) FROM customer");
    const int64_t stock = Value(c, "SELECT sum(s_quantity) FROM stock");
    RunOnce(in, t, way, 9);
    EXPECT_EQ(Cents(c, "SELECT sum(c_balance) FROM customer"), balance) << TxnName(t);
    EXPECT_EQ(Value(c, "SELECT sum(s_quantity) FROM stock"), stock) << TxnName(t);
  }

  // Stock-Level's count: the distinct items of the district's last 20
  // orders whose stock is below the threshold, as a plain join counts them.
  {
    const std::string sql = TransactionScripts(in)[static_cast<size_t>(TxnType::kStockLevel)].text;
    // The statement follows the script's last meta-command.
    const size_t set = sql.find("\\set threshold");
    ASSERT_NE(set, std::string::npos) << sql;
    const size_t from = sql.find('\n', set) + 1;
    int64_t seen = 0;
    for (int w : {1, 2}) {
      for (int d : {1, 4, 10}) {
        for (int threshold : {10, 15, 20}) {
          std::string q = way.procedures ? "SELECT tpcc_stock_level(:w_id, :d_id, :threshold)"
                                         : sql.substr(from);
          for (auto [name, value] :
               {std::pair<std::string, int>{":w_id", w}, {":d_id", d}, {":threshold", threshold}}) {
            for (size_t at; (at = q.find(name)) != std::string::npos;) {
              q.replace(at, name.size(), std::to_string(value));
            }
          }
          if (!q.empty() && q.back() == '\n') q.pop_back();
          if (!q.empty() && q.back() == ';') q.pop_back();
          const int64_t want = Value(
              c,
              "SELECT count(DISTINCT s_i_id) FROM district JOIN order_line ON ol_w_id = d_w_id "
              "AND ol_d_id = d_id AND ol_o_id < d_next_o_id AND ol_o_id >= d_next_o_id - 20 "
              "JOIN stock ON s_w_id = ol_w_id AND s_i_id = ol_i_id WHERE d_w_id = " +
                  std::to_string(w) + " AND d_id = " + std::to_string(d) + " AND s_quantity < " +
                  std::to_string(threshold));
          EXPECT_EQ(Value(c, q), want) << q;
          seen += want;
        }
      }
    }
    EXPECT_GT(seen, 0) << "no low stock anywhere: the comparison proves nothing";
  }

  // Delivery: in each of warehouse 1's ten districts the oldest new order
  // goes, its order gets a carrier, its lines a date, its customer the
  // lines' amount on the balance and one more delivery.
  {
    const int64_t new_orders = Value(c, "SELECT count(*) FROM new_order WHERE no_w_id = 1");
    const int64_t other = Value(c, "SELECT count(*) FROM new_order WHERE no_w_id = 2");
    const int64_t deliveries = Value(c, "SELECT sum(c_delivery_cnt) FROM customer");
    const int64_t balance = Cents(c, "SELECT sum(c_balance) FROM customer");
    const int64_t delivered = Value(c,
                                    "SELECT count(*) FROM order_line WHERE ol_w_id = 1 AND "
                                    "ol_delivery_d IS NOT NULL");
    (void)c.Exec("DROP TABLE IF EXISTS oldest");
    ASSERT_TRUE(c.Exec("CREATE TABLE oldest AS SELECT no_d_id AS d, min(no_o_id) AS o FROM "
                       "new_order WHERE no_w_id = 1 GROUP BY no_d_id")
                    .ok());
    const int64_t amount = Cents(c,
                                 "SELECT sum(ol_amount) FROM order_line JOIN oldest ON ol_w_id = "
                                 "1 AND ol_d_id = d AND ol_o_id = o");
    const int64_t lines = Value(c,
                                "SELECT count(*) FROM order_line JOIN oldest ON ol_w_id = 1 AND "
                                "ol_d_id = d AND ol_o_id = o");
    RunOnce(in, TxnType::kDelivery, way, 10);
    EXPECT_EQ(Value(c, "SELECT count(*) FROM new_order WHERE no_w_id = 1"), new_orders - 10);
    EXPECT_EQ(Value(c, "SELECT count(*) FROM new_order WHERE no_w_id = 2"), other);
    EXPECT_EQ(Value(c,
                    "SELECT count(*) FROM new_order JOIN oldest ON no_w_id = 1 AND "
                    "no_d_id = d AND no_o_id = o"),
              0);
    EXPECT_EQ(Value(c,
                    "SELECT count(*) FROM orders JOIN oldest ON o_w_id = 1 AND o_d_id = d AND "
                    "o_id = o WHERE o_carrier_id BETWEEN 1 AND 10"),
              10);
    EXPECT_EQ(Value(c,
                    "SELECT count(*) FROM order_line WHERE ol_w_id = 1 AND ol_delivery_d IS "
                    "NOT NULL"),
              delivered + lines);
    EXPECT_EQ(Value(c, "SELECT sum(c_delivery_cnt) FROM customer"), deliveries + 10);
    EXPECT_EQ(Cents(c, "SELECT sum(c_balance) FROM customer"), balance + amount);
    ASSERT_TRUE(c.Exec("DROP TABLE oldest").ok());
  }

  // The twelve conditions hold (11 no longer applies after a delivery).
  auto results = RunChecks(c, {});
  ASSERT_TRUE(results.ok()) << results.status().message();
  for (const ConditionResult& r : *results) {
    EXPECT_EQ(r.violations, 0) << r.condition.number << " " << r.condition.what;
  }
}

INSTANTIATE_TEST_SUITE_P(Ways, TpccTransactionsITest,
                         ::testing::Values(Way{script::QueryMode::kPrepared, false},
                                           Way{script::QueryMode::kSimple, false},
                                           Way{script::QueryMode::kPrepared, true}),
                         [](const auto& p) { return p.param.Name(); });

}  // namespace
}  // namespace pgrig::tpcc
