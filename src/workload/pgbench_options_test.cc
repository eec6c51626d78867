#include "workload/pgbench_options.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <stdlib.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace pgrig::workload {
namespace {

std::string IntError(const std::string& text, int min = 1, int max = 2147483647) {
  auto r = ParsePgbenchInt(text, "-c/--clients", min, max);
  EXPECT_FALSE(r.ok()) << text;
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  return r.status().message();
}

int IntValue(const std::string& text, int min = 0, int max = 2147483647) {
  auto r = ParsePgbenchInt(text, "--partitions", min, max);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().message();
  return r.ok() ? *r : -1;
}

TEST(PgbenchIntTest, WholeNumbersWithBlanksAndSign) {
  EXPECT_EQ(IntValue("7"), 7);
  EXPECT_EQ(IntValue("+7"), 7);
  EXPECT_EQ(IntValue("  12"), 12);
  EXPECT_EQ(IntValue("12 \t\n"), 12);
  EXPECT_EQ(IntValue("007"), 7);  // base 10, not octal
  EXPECT_EQ(IntValue("2147483647"), 2147483647);
  EXPECT_EQ(IntValue("-5", -10, 10), -5);
  EXPECT_EQ(IntValue("-2147483648", -2147483647 - 1, 0), -2147483647 - 1);
}

TEST(PgbenchIntTest, TrailingGarbageIsAnInvalidValue) {
  EXPECT_EQ(IntError("three"), "invalid value \"three\" for option -c/--clients");
  EXPECT_EQ(IntError("9x"), "invalid value \"9x\" for option -c/--clients");
  EXPECT_EQ(IntError("1.5"), "invalid value \"1.5\" for option -c/--clients");
  EXPECT_EQ(IntError("0x10"), "invalid value \"0x10\" for option -c/--clients");
  EXPECT_EQ(IntError("1e3"), "invalid value \"1e3\" for option -c/--clients");
  EXPECT_EQ(IntError("5 5"), "invalid value \"5 5\" for option -c/--clients");
  EXPECT_EQ(IntError("- 5"), "invalid value \"- 5\" for option -c/--clients");
  // Garbage wins over range: pgbench checks the end of the number first.
  EXPECT_EQ(IntError("99999999999x"), "invalid value \"99999999999x\" for option -c/--clients");
}

TEST(PgbenchIntTest, OutOfRangeNegativeAndOverflow) {
  const std::string kRange = "-c/--clients must be in range 1..2147483647";
  EXPECT_EQ(IntError("0"), kRange);
  EXPECT_EQ(IntError("-1"), kRange);
  EXPECT_EQ(IntError("2147483648"), kRange);            // just above INT_MAX
  EXPECT_EQ(IntError("-2147483649"), kRange);           // just below INT_MIN
  EXPECT_EQ(IntError("99999999999999999999"), kRange);  // beyond long: ERANGE
  EXPECT_EQ(IntError("11", 10, 10), "-c/--clients must be in range 10..10");
  EXPECT_EQ(IntError("9", 10, 100), "-c/--clients must be in range 10..100");
}

// strtol converts nothing in "" or "  ": pgbench reads 0, a range error when
// 0 is out of range and the value 0 when it is allowed (checked against
// pgbench 15: `pgbench -j ""` says "-j/--jobs must be in range").
TEST(PgbenchIntTest, EmptyOrBlankReadsAsZeroAsInPgbench) {
  EXPECT_EQ(IntError(""), "-c/--clients must be in range 1..2147483647");
  EXPECT_EQ(IntError("   "), "-c/--clients must be in range 1..2147483647");
  EXPECT_EQ(IntValue(""), 0);
  EXPECT_EQ(IntValue(" "), 0);
}

// getopt_long's codes for the options, as the two parsers' tables give them.
ConnectionArgs TakeAll(const std::vector<std::pair<int, std::string>>& options) {
  ConnectionArgs c;
  for (const auto& [opt, arg] : options) EXPECT_TRUE(c.Take(opt, arg.c_str())) << opt;
  return c;
}

TEST(ConnectionArgsTest, TakesOnlyTheConnectionOptionsLastOneWins) {
  ConnectionArgs c =
      TakeAll({{'h', "/a"}, {'p', "5433"}, {'U', "bob"}, {'h', "/b"}, {kDbLongOption, "x"}});
  EXPECT_EQ(c.params.host, "/b");
  EXPECT_EQ(c.params.port, "5433");
  EXPECT_EQ(c.params.user, "bob");
  EXPECT_EQ(c.db_option, "x");
  for (int other : {int{'d'}, int{'c'}, int{'j'}, int{'s'}, int{'P'}, int{'i'}, 1000, 1001}) {
    EXPECT_FALSE(c.Take(other, "zzz")) << other;
  }
  EXPECT_EQ(c.params.host, "/b");
  EXPECT_EQ(c.params.dbname, "");
}

struct Operands {
  std::vector<std::string> words;
  std::vector<char*> argv;
  explicit Operands(std::vector<std::string> w) : words(std::move(w)) {
    for (auto& s : words) argv.push_back(s.data());
    argv.push_back(nullptr);
  }
  int argc() const { return static_cast<int>(words.size()); }
};

TEST(ConnectionArgsTest, FirstOperandIsTheDatabase) {
  Operands ops({"bench", "mydb", "extra"});
  ConnectionArgs c;
  int optind = 1;
  ASSERT_TRUE(c.TakeDatabase(ops.argc(), ops.argv.data(), &optind).ok());
  EXPECT_EQ(c.params.dbname, "mydb");
  EXPECT_EQ(optind, 2);  // "extra" is left for the caller to refuse
  EXPECT_EQ(TooManyArguments(ops.argv[optind]).message(),
            "too many command-line arguments (first is \"extra\")");
}

TEST(ConnectionArgsTest, DbOptionOrOperandNotBoth) {
  {
    Operands ops({"init"});
    ConnectionArgs c = TakeAll({{kDbLongOption, "host=/x dbname=y password=z"}});
    int optind = 1;
    ASSERT_TRUE(c.TakeDatabase(ops.argc(), ops.argv.data(), &optind).ok());
    EXPECT_EQ(c.params.dbname, "host=/x dbname=y password=z");
  }
  {
    Operands ops({"init", "other"});
    ConnectionArgs c = TakeAll({{kDbLongOption, "y"}});
    int optind = 1;
    Status s = c.TakeDatabase(ops.argc(), ops.argv.data(), &optind);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(s.message(), "both --db and a database name (\"other\") were given; use one of them");
  }
  {
    Operands ops({"init"});
    ConnectionArgs c;
    int optind = 1;
    ASSERT_TRUE(c.TakeDatabase(ops.argc(), ops.argv.data(), &optind).ok());
    EXPECT_EQ(c.params.dbname, "");  // libpq's default (PGDATABASE, then the user)
  }
}

// The PG* variables are libpq's defaults beneath the command line, as for
// pgbench 15: what the parsed options leave unset comes from the
// environment; an option or a conninfo keyword beats the variable.  libpq
// resolves the parameters when a connection starts; the host here is a
// socket directory that does not exist, so nothing is reached.
class EnvironmentDefaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : {"PGHOST", "PGPORT", "PGUSER", "PGDATABASE", "PGHOSTADDR", "PGSERVICE"}) {
      if (const char* old = getenv(v)) saved_[v] = old;
      unsetenv(v);
    }
  }
  void TearDown() override {
    for (const char* v : {"PGHOST", "PGPORT", "PGUSER", "PGDATABASE", "PGHOSTADDR", "PGSERVICE"}) {
      unsetenv(v);
    }
    for (const auto& [k, v] : saved_) setenv(k.c_str(), v.c_str(), 1);
  }

  // host, port, user and dbname as libpq resolves them for `c`.
  static std::map<std::string, std::string> Resolved(const ConnectionArgs& c) {
    pg::ConnectionParams::Arrays a = c.params.Keywords();
    std::unique_ptr<PGconn, decltype(&PQfinish)> conn(
        PQconnectStartParams(a.keywords.data(), a.values.data(), 1), &PQfinish);
    std::map<std::string, std::string> out;
    if (!conn) return out;
    std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)> info(PQconninfo(conn.get()),
                                                                      &PQconninfoFree);
    for (PQconninfoOption* o = info.get(); o != nullptr && o->keyword != nullptr; ++o) {
      const std::string k = o->keyword;
      if ((k == "host" || k == "port" || k == "user" || k == "dbname") && o->val != nullptr) {
        out[k] = o->val;
      }
    }
    return out;
  }

  std::map<std::string, std::string> saved_;
};

TEST_F(EnvironmentDefaultsTest, VariablesFillWhatTheCommandLineLeavesUnset) {
  setenv("PGHOST", "/nonexistent-pgrig-env", 1);
  setenv("PGPORT", "5999", 1);
  setenv("PGUSER", "envuser", 1);
  setenv("PGDATABASE", "envdb", 1);
  auto r = Resolved(TakeAll({}));
  EXPECT_EQ(r["host"], "/nonexistent-pgrig-env");
  EXPECT_EQ(r["port"], "5999");
  EXPECT_EQ(r["user"], "envuser");
  EXPECT_EQ(r["dbname"], "envdb");
}

TEST_F(EnvironmentDefaultsTest, OptionsBeatVariables) {
  setenv("PGHOST", "/nonexistent-pgrig-env", 1);
  setenv("PGPORT", "5999", 1);
  setenv("PGUSER", "envuser", 1);
  setenv("PGDATABASE", "envdb", 1);
  Operands ops({"bench", "argdb"});
  ConnectionArgs c = TakeAll({{'h', "/nonexistent-pgrig-flag"}, {'U', "flaguser"}});
  int optind = 1;
  ASSERT_TRUE(c.TakeDatabase(ops.argc(), ops.argv.data(), &optind).ok());
  auto r = Resolved(c);
  EXPECT_EQ(r["host"], "/nonexistent-pgrig-flag");
  EXPECT_EQ(r["port"], "5999");  // not given: the variable's
  EXPECT_EQ(r["user"], "flaguser");
  EXPECT_EQ(r["dbname"], "argdb");
}

TEST_F(EnvironmentDefaultsTest, ConninfoKeywordsBeatVariables) {
  setenv("PGHOST", "/nonexistent-pgrig-env", 1);
  setenv("PGDATABASE", "envdb", 1);
  ConnectionArgs c = TakeAll({{kDbLongOption, "host=/nonexistent-pgrig-conninfo dbname=cdb"}});
  Operands ops({"bench"});
  int optind = 1;
  ASSERT_TRUE(c.TakeDatabase(ops.argc(), ops.argv.data(), &optind).ok());
  auto r = Resolved(c);
  EXPECT_EQ(r["host"], "/nonexistent-pgrig-conninfo");
  EXPECT_EQ(r["dbname"], "cdb");
}

}  // namespace
}  // namespace pgrig::workload
