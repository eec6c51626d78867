// pgrig tpcc init|check as a user runs them, on a fresh database of the
// embedded cluster: refusals that touch nothing, a load, a passing check, a
// broken database's failing check.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/test_cluster.h"

namespace pgrig::cli {
namespace {

using ::testing::HasSubstr;

std::vector<std::string> With(std::vector<std::string> args, const std::vector<std::string>& db) {
  args.insert(args.end(), db.begin(), db.end());
  return args;
}

TEST(TpccCli, RefusalsTouchNothingThenInitAndCheck) {
  const std::vector<std::string> db = testing::FreshDatabase("tpcc_cli_itest");
  pg::Connection c = testing::ConnectShared("tpcc_cli_itest");
  const std::string tables =
      "SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace";
  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
           {"tpcc", "init", "-w", "0"},
           {"tpcc", "init", "-w", "2", "--partitions", "3"},
           {"tpcc", "init", "-j", "-1"},
           {"tpcc", "check", "--warehouses", "1,x"},
           {"tpcc", "check", "--sample", "2", "--warehouses", "1"},
           {"tpcc", "frobnicate"},
       }) {
    auto r = testing::RunPgrig(With(bad, db));
    EXPECT_EQ(r.exit_code, 1) << bad.back() << r.err;
    EXPECT_EQ(*c.QueryValue(tables), "0") << bad.back();
  }

  auto init = testing::RunPgrig(With({"tpcc", "init", "-w", "1", "-j", "2", "--seed", "7"}, db));
  ASSERT_EQ(init.exit_code, 0) << init.err;
  EXPECT_THAT(init.out, HasSubstr("loaded 1 warehouses (seed 7)"));
  EXPECT_THAT(init.err, HasSubstr("created the nine tables"));
  auto check = testing::RunPgrig(With({"tpcc", "check"}, db));
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_THAT(check.out, HasSubstr("11  ok"));

  ASSERT_TRUE(c.Exec("UPDATE warehouse SET w_ytd = w_ytd + 1").ok());
  auto broken = testing::RunPgrig(With({"tpcc", "check", "--json"}, db));
  EXPECT_EQ(broken.exit_code, 2) << broken.out << broken.err;
  EXPECT_THAT(broken.out, HasSubstr("\"violations\": 1"));
  auto sampled = testing::RunPgrig(With({"tpcc", "check", "--sample", "1"}, db));
  EXPECT_EQ(sampled.exit_code, 2);
  EXPECT_THAT(sampled.out, HasSubstr(" 1  FAILED  W_YTD = sum(D_YTD)"));
  EXPECT_THAT(sampled.out, HasSubstr("1 warehouses break it"));
}

}  // namespace
}  // namespace pgrig::cli
