#include "pg/connection_options.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pgrig::pg {
namespace {

// Parses `args` (without the program name) into a fresh app; the error
// text of CLI11's refusal, or "" when it parsed.
std::string Parse(CLI::App& app, std::vector<std::string> args) {
  std::vector<char*> argv = {const_cast<char*>("prog")};
  for (std::string& a : args) argv.push_back(a.data());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "";
}

TEST(ConnectionOptions, ShortSpellingsAsPsqlTakesThem) {
  CLI::App app;
  ConnectionParams p;
  AddConnectionOptions(&app, &p);
  ASSERT_EQ(Parse(app, {"-h", "/tmp/sock", "-p", "5433", "-U", "bob", "-d", "app"}), "");
  EXPECT_EQ(p.host, "/tmp/sock");
  EXPECT_EQ(p.port, "5433");
  EXPECT_EQ(p.user, "bob");
  EXPECT_EQ(p.dbname, "app");
}

TEST(ConnectionOptions, LongSpellings) {
  for (const char* db : {"--db", "--dbname"}) {
    CLI::App app;
    ConnectionParams p;
    AddConnectionOptions(&app, &p);
    ASSERT_EQ(Parse(app, {"--host", "db1", "--port", "6000", "--username", "ann", db,
                          "host=db2 dbname=x"}),
              "")
        << db;
    EXPECT_EQ(p.host, "db1");
    EXPECT_EQ(p.port, "6000");
    EXPECT_EQ(p.user, "ann");
    EXPECT_EQ(p.dbname, "host=db2 dbname=x") << db;  // a conninfo string is kept whole
  }
}

TEST(ConnectionOptions, NothingGivenLeavesTheParamsAlone) {
  CLI::App app;
  ConnectionParams p;
  AddConnectionOptions(&app, &p);
  ASSERT_EQ(Parse(app, {}), "");
  EXPECT_EQ(p.host, "");
  EXPECT_EQ(p.dbname, "");
  EXPECT_EQ(p.application_name, "pgrig");
}

TEST(ConnectionOptions, WithoutTheOperandAnExtraWordIsRefused) {
  CLI::App app;
  ConnectionParams p;
  AddConnectionOptions(&app, &p);
  EXPECT_NE(Parse(app, {"mydb"}), "");
}

TEST(ConnectionOptions, TheOperandNamesTheDatabase) {
  CLI::App app;
  ConnectionParams p;
  std::string operand;
  AddConnectionOptions(&app, &p, &operand);
  ASSERT_EQ(Parse(app, {"-h", "h", "mydb"}), "");
  EXPECT_EQ(p.dbname, "");  // until the operand is used
  ASSERT_TRUE(UseDatabaseOperand(&p, operand).ok());
  EXPECT_EQ(p.dbname, "mydb");
  EXPECT_EQ(p.host, "h");
}

TEST(ConnectionOptions, DashDAndAnOperandAreRefused) {
  // Either order on the command line, any spelling of the option.
  for (const char* opt : {"-d", "--db", "--dbname"}) {
    for (bool operand_first : {true, false}) {
      CLI::App app;
      ConnectionParams p;
      std::string operand;
      AddConnectionOptions(&app, &p, &operand);
      std::vector<std::string> args = {opt, "fromflag"};
      args.insert(operand_first ? args.begin() : args.end(), "fromoperand");
      ASSERT_EQ(Parse(app, args), "");
      Status s = UseDatabaseOperand(&p, operand);
      EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << opt << operand_first;
      EXPECT_EQ(s.message(),
                "both --db and a database name (\"fromoperand\") were given; use one of them");
    }
  }
}

TEST(ConnectionOptions, HelpIsTheLongFlagOnly) {
  CLI::App app;  // CLI11's default help flag is -h,--help
  ConnectionParams p;
  AddConnectionOptions(&app, &p);
  ASSERT_EQ(Parse(app, {"-h", "somehost"}), "");
  EXPECT_EQ(p.host, "somehost");
  EXPECT_THROW(app.parse(std::vector<std::string>{"--help"}), CLI::CallForHelp);
}

TEST(ConnectionOptions, DashDAloneNamesTheDatabase) {
  CLI::App app;
  ConnectionParams p;
  std::string operand;
  AddConnectionOptions(&app, &p, &operand);
  ASSERT_EQ(Parse(app, {"-U", "bob", "-d", "x"}), "");
  ASSERT_TRUE(UseDatabaseOperand(&p, operand).ok());
  EXPECT_EQ(p.dbname, "x");
}

TEST(ConnectionOptions, NeitherLeavesDbnameEmpty) {
  CLI::App app;
  ConnectionParams p;
  std::string operand;
  AddConnectionOptions(&app, &p, &operand);
  ASSERT_EQ(Parse(app, {"-U", "bob"}), "");
  ASSERT_TRUE(UseDatabaseOperand(&p, operand).ok());
  EXPECT_EQ(p.dbname, "");
}

}  // namespace
}  // namespace pgrig::pg
