#include "pg/connection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

namespace pgrig::pg {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(ServerVersionText, AsPostgresqlPrintsIt) {
  EXPECT_EQ(ServerVersionText(150018), "15.18");
  EXPECT_EQ(ServerVersionText(170000), "17.0");
  EXPECT_EQ(ServerVersionText(90624), "9.6.24");
}

TEST(RedactConninfo, MasksKeyValuePasswords) {
  EXPECT_EQ(RedactConninfo("host=db password=s3cret user=bob"),
            "host=db password=******** user=bob");
  EXPECT_EQ(RedactConninfo("password = 'a b\\' c' dbname=x"), "password = ******** dbname=x");
  EXPECT_EQ(RedactConninfo("host=h dbname=passwordless"), "host=h dbname=passwordless");
}

TEST(RedactConninfo, MasksUriPasswords) {
  EXPECT_EQ(RedactConninfo("postgresql://bob:s3cret@db:5432/app"),
            "postgresql://bob:********@db:5432/app");
  EXPECT_EQ(RedactConninfo("postgres://bob@db/app?password=s3cret&sslmode=require"),
            "postgres://bob@db/app?password=********&sslmode=require");
  EXPECT_EQ(RedactConninfo("postgresql://db/app"), "postgresql://db/app");
}

TEST(ConnectionParams, DescribeNeverShowsAPassword) {
  ConnectionParams p;
  p.dbname = "postgresql://u:topsecret@h/db";
  p.port = "6543";
  EXPECT_THAT(p.Describe(), Not(HasSubstr("topsecret")));
  EXPECT_THAT(p.Describe(), HasSubstr("port=6543"));
}

TEST(ConnectionParams, KeywordsPutDbnameAfterHostAndSkipEmpties) {
  ConnectionParams p;
  p.dbname = "host=a";
  p.host = "b";
  auto a = p.Keywords();
  ASSERT_EQ(a.keywords.size(), 4u);  // host, dbname, fallback_application_name, null
  EXPECT_STREQ(a.keywords[0], "host");
  EXPECT_STREQ(a.keywords[1], "dbname");
  EXPECT_STREQ(a.values[1], "host=a");
  EXPECT_EQ(a.keywords[3], nullptr);
}

TEST(Connect, AConninfoStringOverridesHostAndPortOptionsAsInPgbench) {
  // pgbench -h /nonexist1 -p 1 "host=/nonexist2 port=2" tries /nonexist2's port 2.
  ConnectionParams p;
  p.host = "/nonexistent-option-dir";
  p.port = "1";
  p.dbname = "host=/nonexistent-conninfo-dir port=2 dbname=x";
  auto c = Connect(p);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("/nonexistent-conninfo-dir/.s.PGSQL.2\""));
  EXPECT_THAT(c.status().message(), Not(HasSubstr("/nonexistent-option-dir/.s.PGSQL")));
}

TEST(ConnectionParams, NamesAServerFromOptionsOrEnvironment) {
  ::unsetenv("PGHOST");
  ::unsetenv("PGPORT");
  ::unsetenv("PGDATABASE");
  ::unsetenv("PGUSER");
  ::unsetenv("PGSERVICE");
  ::unsetenv("PGHOSTADDR");
  ConnectionParams p;
  EXPECT_FALSE(p.NamesAServer());
  ::setenv("PGHOST", "/tmp", 1);
  EXPECT_TRUE(p.NamesAServer());
  ::unsetenv("PGHOST");
  p.user = "x";
  EXPECT_TRUE(p.NamesAServer());
}

TEST(Connect, ReportsLibpqsMessageWithoutThePassword) {
  ConnectionParams p;
  p.dbname = "postgresql://u:hunter2@/nodb?host=/nonexistent-socket-dir";
  auto c = Connect(p);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(c.status().message(), HasSubstr("connection to database failed"));
  EXPECT_THAT(c.status().message(), HasSubstr("/nonexistent-socket-dir"));
  EXPECT_THAT(c.status().message(), Not(HasSubstr("hunter2")));
}

TEST(Connect, OrInvalidLeavesNoSessionWhenTheServerIsUnreachable) {
  ConnectionParams p;
  p.host = "/nonexistent-socket-dir";
  Connection c = ConnectOrInvalid(p);
  EXPECT_FALSE(c.valid());
  EXPECT_EQ(c.raw(), nullptr);
}

TEST(Quote, EscapesIdentifiersAndLiterals) {
  EXPECT_EQ(QuoteIdent("a\"b"), "\"a\"\"b\"");
  EXPECT_EQ(QuoteLiteral("it's"), "'it''s'");
  EXPECT_EQ(QuoteLiteral("a\\b"), "E'a\\\\b'");
}

TEST(SqlState, ClassifiesRetryableAndFatalErrors) {
  EXPECT_TRUE(IsRetryable("40001"));
  EXPECT_TRUE(IsRetryable("40P01"));
  EXPECT_FALSE(IsRetryable("23505"));
  EXPECT_TRUE(IsConnectionFailure("08006"));
  EXPECT_TRUE(IsConnectionFailure("57P01"));
  EXPECT_TRUE(IsDiskFull("53100"));
}

}  // namespace
}  // namespace pgrig::pg
