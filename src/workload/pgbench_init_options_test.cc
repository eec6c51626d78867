#include "workload/pgbench_init_options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pgrig::workload {
namespace {

using ::testing::HasSubstr;

Result<InitCommandLine> Parse(std::vector<std::string> args) {
  args.insert(args.begin(), "init");
  return ParseInitCommandLine(args);
}

std::string ErrorOf(std::vector<std::string> args) {
  auto r = Parse(std::move(args));
  EXPECT_FALSE(r.ok());
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  return r.status().message();
}

TEST(InitOptionsTest, DefaultsAreOnesPgbenchUses) {
  auto r = Parse({});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->options.scale, 1);
  EXPECT_EQ(r->options.fillfactor, 100);
  EXPECT_EQ(r->options.steps, "dtgvp");
  EXPECT_EQ(r->options.partitions, 0);
  EXPECT_EQ(r->options.partition_method, PartitionMethod::kNone);
  EXPECT_EQ(r->options.jobs, 0);
  EXPECT_FALSE(r->options.tablespace.has_value());
  EXPECT_TRUE(r->connection.dbname.empty());
}

TEST(InitOptionsTest, PgbenchCommandLineWorksUnchanged) {
  auto r = Parse({"-i",
                  "-s",
                  "50",
                  "-F",
                  "90",
                  "-q",
                  "--foreign-keys",
                  "--partitions=4",
                  "--partition-method",
                  "hash",
                  "--unlogged-tables",
                  "-h",
                  "/tmp/sock",
                  "-p",
                  "5433",
                  "-U",
                  "bob",
                  "mydb",
                  "--index-tablespace=fast",
                  "--tablespace",
                  "big"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const InitOptions& o = r->options;
  EXPECT_EQ(o.scale, 50);
  EXPECT_EQ(o.fillfactor, 90);
  EXPECT_TRUE(o.quiet);
  EXPECT_EQ(o.steps, "dtgvpf");
  EXPECT_EQ(o.partitions, 4);
  EXPECT_EQ(o.partition_method, PartitionMethod::kHash);
  EXPECT_TRUE(o.unlogged_tables);
  EXPECT_EQ(o.index_tablespace, "fast");
  EXPECT_EQ(o.tablespace, "big");
  EXPECT_EQ(r->connection.host, "/tmp/sock");
  EXPECT_EQ(r->connection.port, "5433");
  EXPECT_EQ(r->connection.user, "bob");
  EXPECT_EQ(r->connection.dbname, "mydb");
}

TEST(InitOptionsTest, LongFormsAndInitialize) {
  auto r = Parse({"--initialize", "--scale=7", "--fillfactor=10", "--init-steps=dtG", "--no-vacuum",
                  "--quiet", "--jobs=3", "--host=h", "--port=1", "--username=u"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->options.scale, 7);
  EXPECT_EQ(r->options.fillfactor, 10);
  EXPECT_EQ(r->options.steps, "dtG");
  EXPECT_EQ(r->options.jobs, 3);
  EXPECT_EQ(r->connection.host, "h");
}

TEST(InitOptionsTest, NoVacuumBlanksEveryVacuumStep) {
  auto r = Parse({"-n", "-I", "dtvgvp"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->options.steps, "dt g p");
}

TEST(InitOptionsTest, ForeignKeysAddedOnlyOnce) {
  auto r = Parse({"--foreign-keys", "-I", "dtfgp"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->options.steps, "dtfgp");
}

TEST(InitOptionsTest, PartitionsDefaultToRange) {
  auto r = Parse({"--partitions", "3"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->options.partition_method, PartitionMethod::kRange);
}

TEST(InitOptionsTest, DbOptionTakesConninfo) {
  auto r = Parse({"--db", "host=/x dbname=y password=z"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->connection.dbname, "host=/x dbname=y password=z");
}

TEST(InitOptionsTest, RangeErrorsUsePgbenchWording) {
  EXPECT_EQ(ErrorOf({"-s", "0"}), "-s/--scale must be in range 1..2147483647");
  EXPECT_EQ(ErrorOf({"-s", "-3"}), "-s/--scale must be in range 1..2147483647");
  EXPECT_EQ(ErrorOf({"-s", "99999999999"}), "-s/--scale must be in range 1..2147483647");
  EXPECT_EQ(ErrorOf({"-F", "5"}), "-F/--fillfactor must be in range 10..100");
  EXPECT_EQ(ErrorOf({"-F", "101"}), "-F/--fillfactor must be in range 10..100");
  EXPECT_EQ(ErrorOf({"--partitions", "-1"}), "--partitions must be in range 0..2147483647");
  EXPECT_EQ(ErrorOf({"-j", "0"}), "-j/--jobs must be in range 1..1024");
}

TEST(InitOptionsTest, NonNumbersAreInvalidValues) {
  EXPECT_EQ(ErrorOf({"-s", "abc"}), "invalid value \"abc\" for option -s/--scale");
  EXPECT_EQ(ErrorOf({"-F", "9x"}), "invalid value \"9x\" for option -F/--fillfactor");
  // pgbench reads an empty value as 0 (strtol), so it is out of range, not invalid.
  EXPECT_EQ(ErrorOf({"-j", ""}), "-j/--jobs must be in range 1..1024");
  auto r = Parse({"-s", " 12 "});  // pgbench tolerates blanks around numbers
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->options.scale, 12);
}

TEST(InitOptionsTest, StepErrors) {
  EXPECT_EQ(ErrorOf({"-I", ""}), "no initialization steps specified");
  EXPECT_THAT(ErrorOf({"-I", "dtx"}), HasSubstr("unrecognized initialization step \"x\""));
  EXPECT_THAT(ErrorOf({"-I", "dtx"}), HasSubstr("\"dtgGvpf\""));
  EXPECT_TRUE(Parse({"-I", "d t g"}).ok());
}

TEST(InitOptionsTest, PartitionMethodErrors) {
  EXPECT_EQ(ErrorOf({"--partition-method", "list", "--partitions", "2"}),
            "invalid partition method, expecting \"range\" or \"hash\", got: \"list\"");
  EXPECT_EQ(ErrorOf({"--partition-method", "hash"}),
            "--partition-method requires greater than zero --partitions");
}

TEST(InitOptionsTest, UnknownAndIncompleteOptions) {
  EXPECT_THAT(ErrorOf({"--bogus"}), HasSubstr("unrecognized option --bogus"));
  EXPECT_THAT(ErrorOf({"-Z"}), HasSubstr("invalid option -Z"));
  EXPECT_THAT(ErrorOf({"-s"}), HasSubstr("option -s requires an argument"));
  EXPECT_THAT(ErrorOf({"--partitions"}), HasSubstr("--partitions requires an argument"));
}

// pgbench -i refuses its benchmarking options with one message, after the
// operands are checked; a bad -I string is reported first, while parsing.
TEST(InitOptionsTest, BenchmarkingOptionsAreRefusedAsPgbenchDoes) {
  const std::string kRefused =
      "some of the specified options cannot be used in initialization (-i) mode";
  for (std::vector<std::string> args : {std::vector<std::string>{"-S"},
                                        {"-N"},
                                        {"-c", "10"},
                                        {"-t", "5"},
                                        {"-T", "5"},
                                        {"-C"},
                                        {"-r"},
                                        {"-l"},
                                        {"-v"},
                                        {"-f", "x.sql"},
                                        {"-b", "tpcb"},
                                        {"-D", "a=1"},
                                        {"-M", "prepared"},
                                        {"-P", "1"},
                                        {"-R", "10"},
                                        {"-L", "5"},
                                        {"--client=2"},
                                        {"--select-only"},
                                        {"--sampling-rate=0.5"},
                                        {"--aggregate-interval", "1"},
                                        {"--progress-timestamp"},
                                        {"--log-prefix=x"},
                                        {"--random-seed=1"},
                                        {"--failures-detailed"},
                                        {"--max-tries=2"},
                                        {"--verbose-errors"}}) {
    std::vector<std::string> with_i = args;
    with_i.insert(with_i.begin(), "-i");
    EXPECT_EQ(ErrorOf(with_i), kRefused) << args[0];
  }
  EXPECT_EQ(ErrorOf({"-i", "-I", "dta", "-S"}),
            "unrecognized initialization step \"a\"\nAllowed step characters are: \"dtgGvpf\".");
  EXPECT_EQ(ErrorOf({"-S", "a", "b"}), "too many command-line arguments (first is \"b\")");
  // -j is pgrig's loading connections, not pgbench's benchmark threads.
  EXPECT_TRUE(Parse({"-i", "-j", "4"}).ok());
}

TEST(InitOptionsTest, ExtraArguments) {
  EXPECT_EQ(ErrorOf({"a", "b"}), "too many command-line arguments (first is \"b\")");
  EXPECT_THAT(ErrorOf({"--db", "x", "y"}), HasSubstr("both --db and a database name"));
}

TEST(InitOptionsTest, HelpAndVersion) {
  auto h = Parse({"--help"});
  ASSERT_TRUE(h.ok());
  EXPECT_TRUE(h->help);
  auto q = Parse({"-?"});
  ASSERT_TRUE(q.ok());
  EXPECT_TRUE(q->help);
  auto v = Parse({"-V"});
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->version);
}

TEST(InitOptionsTest, RepeatedParsesAreIndependent) {
  // getopt keeps global state; a second parse must not see the first one.
  ASSERT_FALSE(Parse({"-Z"}).ok());
  auto r = Parse({"-s", "3", "db"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->options.scale, 3);
  EXPECT_EQ(r->connection.dbname, "db");
}

TEST(InitOptionsTest, BigintFromScale20000) {
  InitOptions o;
  o.scale = 19999;
  EXPECT_FALSE(o.BigintAids());
  o.scale = 20000;
  EXPECT_TRUE(o.BigintAids());
  EXPECT_EQ(o.AccountRows(), 2000000000);
}

}  // namespace
}  // namespace pgrig::workload
