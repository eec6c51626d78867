// `tpcc init`'s loader and `tpcc check`'s conditions on the embedded
// cluster: one warehouse loaded over two connections passes all twelve
// conditions, loads the same rows over one, and seven deliberate
// inconsistencies are each caught by the conditions they break.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "support/test_cluster.h"
#include "tpcc/check.h"
#include "tpcc/loader.h"

namespace pgrig::tpcc {
namespace {

constexpr char kDb[] = "tpcc_loader_itest";

std::map<int, int64_t> Violations(pg::Connection& c, const CheckOptions& o) {
  auto results = RunChecks(c, o);
  EXPECT_TRUE(results.ok()) << results.status().message();
  std::map<int, int64_t> v;
  if (!results.ok()) return v;
  for (const ConditionResult& r : *results) {
    v[r.condition.number] = r.applicable ? r.violations : -1;
  }
  return v;
}

std::string Digest(pg::Connection& c, const std::string& table, const std::string& order) {
  return *c.QueryValue("SELECT md5(string_agg(t::text, '|' ORDER BY " + order + ")) FROM " + table +
                       " t");
}

TEST(TpccLoaderITest, OneWarehouseIsConsistentDeterministicAndItsBreakagesAreCaught) {
  testing::FreshDatabase(kDb);
  const pg::ConnectionParams params = testing::SharedParams(kDb);
  LoadOptions o{.warehouses = 1, .jobs = 2, .seed = 42, .now = "2026-12-05 12:00:00"};
  std::vector<std::string> said;
  auto loaded = Loader(params, o, [&](const std::string& s) { said.push_back(s); }).Run();
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(said.size(), 4u);
  pg::Connection c = testing::ConnectShared(kDb);
  EXPECT_EQ(*c.QueryValue("SELECT count(*) FROM item"), "100000");
  EXPECT_EQ(*c.QueryValue("SELECT count(*) FROM stock"), "100000");
  EXPECT_EQ(*c.QueryValue("SELECT count(*) FROM customer"), "30000");
  EXPECT_EQ(*c.QueryValue("SELECT count(*) FROM new_order"), "9000");
  EXPECT_EQ(
      *c.QueryValue("SELECT c_last || ' ' || c_id FROM tpcc_load"),
      std::to_string(loaded->constants.c_last) + " " + std::to_string(loaded->constants.c_id));
  for (const auto& [n, v] : Violations(c, {.after_load = true}))
    EXPECT_EQ(v, 0) << "condition " << n;

  // The same seed over one connection: the same rows.
  const std::string customers = Digest(c, "customer", "c_w_id, c_d_id, c_id");
  const std::string lines = Digest(c, "order_line", "ol_w_id, ol_d_id, ol_o_id, ol_number");
  o.jobs = 1;
  ASSERT_TRUE(Loader(params, o).Run().ok());
  EXPECT_EQ(Digest(c, "customer", "c_w_id, c_d_id, c_id"), customers);
  EXPECT_EQ(Digest(c, "order_line", "ol_w_id, ol_d_id, ol_o_id, ol_number"), lines);

  // Seven breakages, each in its own district.
  for (const char* sql : {
           "UPDATE district SET d_ytd = d_ytd + 1 WHERE d_w_id = 1 AND d_id = 1",
           "DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 2 AND no_o_id = 2500",
           "UPDATE orders SET o_ol_cnt = o_ol_cnt + 1 WHERE o_w_id = 1 AND o_d_id = 3 AND o_id = "
           "10",
           "UPDATE customer SET c_balance = c_balance + 1 WHERE c_w_id = 1 AND c_d_id = 4 AND "
           "c_id = 5",
           "UPDATE order_line SET ol_delivery_d = NULL WHERE ol_w_id = 1 AND ol_d_id = 5 AND "
           "ol_o_id = 100 AND ol_number = 1",
           "UPDATE district SET d_next_o_id = 3005 WHERE d_w_id = 1 AND d_id = 6",
           "INSERT INTO history VALUES (1, 7, 1, 7, 1, now(), 5.00, 'extra')",
       }) {
    ASSERT_TRUE(c.Exec(sql).ok()) << sql;
  }
  const std::map<int, int64_t> want = {{1, 1}, {2, 1}, {3, 1}, {4, 1},  {5, 1},  {6, 1},
                                       {7, 1}, {8, 1}, {9, 2}, {10, 2}, {11, 1}, {12, 1}};
  EXPECT_EQ(Violations(c, {.after_load = true}), want);
  // Sampled: warehouse 1 is all there is; warehouse 2 has no rows at all.
  EXPECT_EQ(Violations(c, {.warehouses = {1}, .after_load = true}), want);
  for (const auto& [n, v] : Violations(c, {.warehouses = {2}, .after_load = true})) {
    EXPECT_EQ(v, 0) << "condition " << n;
  }
  // After a run condition 11 does not apply.
  EXPECT_EQ(Violations(c, {}).at(11), -1);
}

TEST(TpccLoaderITest, AFailedLoadLeavesNoTables) {
  testing::FreshDatabase("tpcc_loader_fail");
  pg::Connection c = testing::ConnectShared("tpcc_loader_fail");
  // A trigger that refuses the 50,000th stock row makes one COPY fail.
  ASSERT_TRUE(c.Exec("CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                     "IF NEW.s_i_id = 50000 THEN RAISE EXCEPTION 'refused by the test'; END IF; "
                     "RETURN NEW; END $$")
                  .ok());
  // The loader creates the tables itself: add the trigger from another
  // connection as soon as stock exists, before its rows arrive.  Simpler and
  // race-free: an event trigger on CREATE TABLE.
  ASSERT_TRUE(
      c.Exec("CREATE FUNCTION add_refusal() RETURNS event_trigger LANGUAGE plpgsql AS $$ "
             "BEGIN IF to_regclass('stock') IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "
             "pg_trigger WHERE tgname = 'refuse_stock') THEN CREATE TRIGGER refuse_stock "
             "BEFORE INSERT ON stock FOR EACH ROW EXECUTE FUNCTION refuse(); END IF; END $$; "
             "CREATE EVENT TRIGGER stock_refusal ON ddl_command_end WHEN TAG IN "
             "('CREATE TABLE') EXECUTE FUNCTION add_refusal()")
          .ok());
  auto r =
      Loader(testing::SharedParams("tpcc_loader_fail"), {.warehouses = 1, .jobs = 2, .seed = 1})
          .Run();
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), ::testing::HasSubstr("refused by the test"));
  EXPECT_EQ(*c.QueryValue("SELECT count(*) FROM pg_class WHERE relkind IN ('r', 'p') AND "
                          "relnamespace = 'public'::regnamespace"),
            "0");
  ASSERT_TRUE(c.Exec("DROP EVENT TRIGGER stock_refusal").ok());
}

}  // namespace
}  // namespace pgrig::tpcc
