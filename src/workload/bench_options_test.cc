#include "workload/bench_options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace pgrig::workload {
namespace {

using ::testing::HasSubstr;

BenchParse ParseBench(std::vector<std::string> args) {
  args.insert(args.begin(), "bench");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return ParseBenchArgs(static_cast<int>(argv.size()), argv.data());
}

TEST(BenchOptionsTest, DefaultsAreTpcbTenTransactionsOneClient) {
  BenchParse p = ParseBench({});
  ASSERT_EQ(p.action, BenchParse::Action::kRun) << p.err;
  EXPECT_EQ(p.options.clients, 1);
  EXPECT_EQ(p.options.threads, 1);
  EXPECT_EQ(p.options.transactions, 10);
  ASSERT_EQ(p.options.scripts.size(), 1u);
  EXPECT_EQ(p.options.scripts[0].name, "tpcb-like");
  EXPECT_TRUE(p.options.internal_script_used);
}

TEST(BenchOptionsTest, PgbenchCommandLineParses) {
  BenchParse p = ParseBench({"-S", "-c", "8", "-j", "2", "-T", "30", "-M", "prepared", "-P", "5",
                             "-n", "-h", "/tmp/sock", "-p", "5433", "-U", "bob", "mydb"});
  ASSERT_EQ(p.action, BenchParse::Action::kRun) << p.err;
  const BenchOptions& o = p.options;
  EXPECT_EQ(o.clients, 8);
  EXPECT_EQ(o.threads, 2);
  EXPECT_EQ(o.duration_s, 30);
  EXPECT_EQ(o.transactions, 0);
  EXPECT_EQ(o.mode, script::QueryMode::kPrepared);
  EXPECT_EQ(o.progress_s, 5);
  EXPECT_TRUE(o.no_vacuum);
  EXPECT_EQ(o.conn.host, "/tmp/sock");
  EXPECT_EQ(o.conn.port, "5433");
  EXPECT_EQ(o.conn.user, "bob");
  EXPECT_EQ(o.conn.dbname, "mydb");
  ASSERT_EQ(o.scripts.size(), 1u);
  EXPECT_EQ(o.scripts[0].name, "select-only");
}

TEST(BenchOptionsTest, ThreadsCappedAtClients) {
  BenchParse p = ParseBench({"-c", "2", "-j", "8"});
  ASSERT_EQ(p.action, BenchParse::Action::kRun);
  EXPECT_EQ(p.options.threads, 2);
}

TEST(BenchOptionsTest, BuiltinPrefixAndWeight) {
  BenchParse p = ParseBench({"-b", "simple@3", "-b", "sel@2"});
  ASSERT_EQ(p.action, BenchParse::Action::kRun) << p.err;
  ASSERT_EQ(p.options.scripts.size(), 2u);
  EXPECT_EQ(p.options.scripts[0].name, "simple-update");
  EXPECT_EQ(p.options.scripts[0].weight, 3);
  EXPECT_EQ(p.options.scripts[1].name, "select-only");
  EXPECT_EQ(p.options.scripts[1].weight, 2);
}

TEST(BenchOptionsTest, BuiltinListExitsZeroOnStderr) {
  BenchParse p = ParseBench({"-b", "list"});
  EXPECT_EQ(p.action, BenchParse::Action::kExit);
  EXPECT_EQ(p.exit_code, 0);
  EXPECT_THAT(p.err, HasSubstr("Available builtin scripts:"));
  EXPECT_THAT(p.err, HasSubstr("select-only"));
}

struct BadCase {
  std::vector<std::string> args;
  std::string message;
};

// Names the case in test listings (CTest shows it) instead of a byte dump.
void PrintTo(const BadCase& c, std::ostream* os) {
  for (const auto& a : c.args) *os << a << ' ';
}

class BenchOptionsErrorTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(BenchOptionsErrorTest, ExitsOneWithPgbenchText) {
  BenchParse p = ParseBench(GetParam().args);
  EXPECT_EQ(p.action, BenchParse::Action::kExit);
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_THAT(p.err, HasSubstr("pgrig bench: error: " + GetParam().message)) << p.err;
}

INSTANTIATE_TEST_SUITE_P(
    PgbenchMessages, BenchOptionsErrorTest,
    ::testing::Values(
        BadCase{{"-c", "0"}, "-c/--clients must be in range 1..2147483647"},
        BadCase{{"-c", "abc"}, "invalid value \"abc\" for option -c/--clients"},
        BadCase{{"-j", "-1"}, "-j/--jobs must be in range 1..2147483647"},
        BadCase{{"-t", "5", "-T", "5"},
                "specify either a number of transactions (-t) or a duration (-T), not both"},
        BadCase{{"-M", "fast"}, "invalid query mode (-M): \"fast\""},
        BadCase{{"-R", "0"}, "invalid rate limit: \"0\""},
        BadCase{{"-L", "-3"}, "invalid latency limit: \"-3\""},
        BadCase{{"--sampling-rate", "2"}, "invalid sampling rate: \"2\""},
        // Values whose conversion pgbench leaves undefined (args_fuzzer found
        // -L 5.1e21).
        BadCase{{"-R", "inf"}, "invalid rate limit: \"inf\""},
        BadCase{{"-R", "nan"}, "invalid rate limit: \"nan\""},
        BadCase{{"-L", "5.1e21"}, "invalid latency limit: \"5.1e21\""},
        BadCase{{"-L", "1000000000001"}, "invalid latency limit: \"1000000000001\""},
        BadCase{{"-L", "nan"}, "invalid latency limit: \"nan\""},
        BadCase{{"--sampling-rate", "nan"}, "invalid sampling rate: \"nan\""},
        BadCase{{"--sampling-rate", "0.5"},
                "log sampling (--sampling-rate) is allowed only when logging transactions (-l)"},
        BadCase{{"-l", "--sampling-rate", "0.5", "--aggregate-interval", "1"},
                "log sampling (--sampling-rate) and aggregation (--aggregate-interval) cannot be "
                "used at the same time"},
        BadCase{{"--aggregate-interval", "1"},
                "log aggregation is allowed only when actually logging transactions"},
        BadCase{{"--log-prefix", "x"},
                "log file prefix (--log-prefix) is allowed only when logging transactions (-l)"},
        BadCase{{"-l", "--aggregate-interval", "10", "-T", "5"},
                "number of seconds for aggregation (10) must not be higher than test duration (5)"},
        BadCase{{"-l", "--aggregate-interval", "2", "-T", "5"},
                "duration (5) must be a multiple of aggregation interval (2)"},
        BadCase{{"--progress-timestamp"}, "--progress-timestamp is allowed only under --progress"},
        BadCase{{"--max-tries", "0"},
                "an unlimited number of transaction tries can only be used with --latency-limit or "
                "a duration (-T)"},
        BadCase{{"--max-tries", "-2"}, "invalid number of maximum tries: \"-2\""},
        BadCase{{"-D", "novalue"}, "invalid variable definition: \"novalue\""},
        BadCase{{"-D", "=x"}, "invalid variable definition: \"=x\""},
        BadCase{{"-F", "90"}, "some of the specified options cannot be used in benchmarking mode"},
        // Values of initialization options are checked while parsing, before
        // the options themselves are refused (pgbench's order).
        BadCase{{"-F", "1"}, "-F/--fillfactor must be in range 10..100"},
        BadCase{{"-I", "dtx"}, "unrecognized initialization step \"x\""},
        BadCase{{"-I", ""}, "no initialization steps specified"},
        BadCase{{"--partitions", "-1"}, "--partitions must be in range 0..2147483647"},
        BadCase{{"--partition-method", "list"},
                "invalid partition method, expecting \"range\" or \"hash\", got: \"list\""},
        BadCase{{"-I", "dtg"}, "some of the specified options cannot be used in benchmarking mode"},
        BadCase{{"db1", "db2"}, "too many command-line arguments (first is \"db2\")"},
        // getopt moves the operands behind the options; the message must
        // still name the second one.
        BadCase{{"db1", "-c", "2", "db2", "-n"},
                "too many command-line arguments (first is \"db2\")"},
        BadCase{{"-b", "nosuch"}, "no builtin script found for name \"nosuch\""},
        BadCase{{"-b", "tpcb@0"}, "total script weight must not be zero"},
        BadCase{{"-i"}, "pgrig bench does not initialize databases; run \"pgrig init\""}));

TEST(BenchOptionsTest, DatabaseNameBeforeOptions) {
  BenchParse p = ParseBench({"mydb", "-h", "/tmp/sock", "-U", "bob", "-n", "-t", "1"});
  ASSERT_EQ(p.action, BenchParse::Action::kRun) << p.err;
  EXPECT_EQ(p.options.conn.dbname, "mydb");
  EXPECT_EQ(p.options.conn.host, "/tmp/sock");
  EXPECT_EQ(p.options.conn.user, "bob");
  EXPECT_EQ(p.options.transactions, 1);
}

TEST(BenchOptionsTest, InitStepsDetailNamesTheAllowedLetters) {
  BenchParse p = ParseBench({"-I", "dtx"});
  EXPECT_THAT(p.err, HasSubstr("pgrig bench: detail: Allowed step characters are: \"dtgGvpf\".\n"));
}

TEST(BenchOptionsTest, UnlimitedTriesAllowedWithDuration) {
  BenchParse p = ParseBench({"--max-tries", "0", "-T", "1"});
  EXPECT_EQ(p.action, BenchParse::Action::kRun) << p.err;
  EXPECT_EQ(p.options.max_tries, 0u);
}

// pgbench's open-file check, at the largest -c: the count it asks for is
// -c + 3, which does not fit an int (args_fuzzer found the overflow).
TEST(BenchOptionsTest, OpenFileLimitMessageAtTheLargestClientCount) {
  rlimit rl{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
  if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= rlim_t{2147483650}) {
    GTEST_SKIP() << "the hard open-file limit allows 2^31 + 2 files";
  }
  BenchParse p = ParseBenchArgsQuietly({"-c", "2147483647"});
  EXPECT_EQ(p.action, BenchParse::Action::kExit);
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_THAT(p.err, HasSubstr("need at least 2147483650 open files, but system limit is "));
}

TEST(BenchOptionsTest, UnknownOptionGivesHint) {
  BenchParse p = ParseBench({"--no-such-option"});
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_THAT(p.err, HasSubstr("Try \"pgrig bench --help\" for more information."));
}

TEST(BenchOptionsTest, ParsesTwiceInOneProcess) {
  BenchParse a = ParseBench({"-c", "3"});
  BenchParse b = ParseBench({"-c", "5", "-t", "7"});
  EXPECT_EQ(a.options.clients, 3);
  EXPECT_EQ(b.options.clients, 5);
  EXPECT_EQ(b.options.transactions, 7);
}

TEST(BenchOptionsTest, HelpGoesToStdout) {
  BenchParse p = ParseBench({"--help"});
  EXPECT_EQ(p.exit_code, 0);
  EXPECT_THAT(p.out, HasSubstr("--json=FILE"));
  EXPECT_TRUE(p.err.empty());
}

TEST(BenchOptionsTest, JsonAndLatencyLimit) {
  BenchParse p = ParseBench({"--json", "/tmp/x.json", "-L", "2.5", "-R", "100"});
  ASSERT_EQ(p.action, BenchParse::Action::kRun) << p.err;
  EXPECT_EQ(p.options.json_path, "/tmp/x.json");
  EXPECT_EQ(p.options.latency_limit_us, 2500);
  EXPECT_DOUBLE_EQ(p.options.rate_tps, 100.0);
}

}  // namespace
}  // namespace pgrig::workload

namespace pgrig::workload {
namespace {

// pgbench's MAX_SCRIPTS: the 129th -f/-b is refused while parsing, before
// any file is read or any connection made.
TEST(BenchOptionsDropIn, AtMost128Scripts) {
  std::vector<std::string> args;
  for (int i = 0; i < 128; ++i) args.insert(args.end(), {"-f", "s" + std::to_string(i) + ".sql"});
  BenchParse ok = ParseBench(args);
  EXPECT_EQ(ok.action, BenchParse::Action::kRun) << ok.err;
  EXPECT_EQ(ok.options.scripts.size(), 128u);
  args.insert(args.end(), {"-b", "select-only"});
  BenchParse too_many = ParseBench(args);
  EXPECT_EQ(too_many.action, BenchParse::Action::kExit);
  EXPECT_EQ(too_many.exit_code, 1);
  EXPECT_EQ(too_many.err, "pgrig bench: error: at most 128 SQL scripts are allowed\n");
  args.back() = "no-such.sql";
  args[args.size() - 2] = "-f";
  EXPECT_EQ(ParseBench(args).exit_code, 1);
}

// --db: the database operand as an option (conninfo or URI), as the other
// commands take it; not together with the operand.
TEST(BenchOptionsDropIn, DbOptionNamesTheDatabase) {
  BenchParse p = ParseBench({"-n", "--db", "host=/tmp/s port=5433 dbname=x", "-t", "1"});
  ASSERT_EQ(p.action, BenchParse::Action::kRun) << p.err;
  EXPECT_EQ(p.options.conn.dbname, "host=/tmp/s port=5433 dbname=x");
  BenchParse uri = ParseBench({"--db=postgresql:///y"});
  ASSERT_EQ(uri.action, BenchParse::Action::kRun) << uri.err;
  EXPECT_EQ(uri.options.conn.dbname, "postgresql:///y");
  BenchParse both = ParseBench({"--db", "x", "y"});
  EXPECT_EQ(both.exit_code, 1);
  EXPECT_THAT(both.err, HasSubstr("both --db and a database name (\"y\")"));
}

// pgbench's --help headings, in pgbench's order.
TEST(BenchOptionsDropIn, HelpUsesPgbenchHeadings) {
  const std::string h = BenchUsage();
  size_t at = 0;
  for (const char* heading : {"\nInitialization options:\n", "\nOptions to select what to run:\n",
                              "\nBenchmarking options:\n", "\nCommon options:\n"}) {
    const size_t found = h.find(heading, at);
    ASSERT_NE(found, std::string::npos) << heading;
    at = found;
  }
  EXPECT_THAT(h, HasSubstr("--db=CONNINFO"));
}

std::vector<char*> Argv(std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return argv;
}

TEST(BenchOptionsDropIn, PgbenchInitModeAsGetoptReadsIt) {
  auto init = [](std::vector<std::string> args) {
    args.insert(args.begin(), "pgbench");
    std::vector<char*> argv = Argv(args);
    return IsPgbenchInitMode(static_cast<int>(argv.size()), argv.data());
  };
  EXPECT_TRUE(init({"-i"}));
  EXPECT_TRUE(init({"-i", "-s", "10", "db"}));
  EXPECT_TRUE(init({"db", "-s", "10", "-i"}));
  EXPECT_TRUE(init({"-ni"}));
  EXPECT_TRUE(init({"--initialize"}));
  EXPECT_TRUE(init({"--bogus", "-i"}));
  EXPECT_FALSE(init({}));
  EXPECT_FALSE(init({"-c", "4", "-T", "5", "db"}));
  EXPECT_FALSE(init({"-f", "-i"}));  // "-i" is -f's file name
  EXPECT_FALSE(init({"-D", "x=-i"}));
  EXPECT_FALSE(init({"--", "-i"}));   // an operand after "--"
  EXPECT_FALSE(init({"-I", "dtg"}));  // -I alone is not -i
  // The parser still works afterwards (getopt's state was reset).
  BenchParse p = ParseBench({"-c", "3"});
  EXPECT_EQ(p.options.clients, 3);
}

// The one path from pgbench's options to the engine (issue 26): what
// `pgrig bench` parses and what `pgrig run` writes for a cell both go
// through EngineConfigFor.
TEST(EngineConfigForTest, OptionsBecomeTheEnginesConfiguration) {
  BenchParse p = ParseBench({"-c", "8", "-j", "16", "-T", "30", "-M", "prepared", "-R", "1500",
                             "-L", "50", "--max-tries", "3", "-P", "5", "-r"});
  ASSERT_EQ(p.action, BenchParse::Action::kRun) << p.err;
  const engine::EngineConfig cfg = EngineConfigFor(p.options, {.scale = 10, .random_seed = 42});
  EXPECT_EQ(cfg.clients, 8);
  EXPECT_EQ(cfg.threads, 8);  // -j clamped to -c, in one place
  EXPECT_EQ(cfg.duration_s, 30);
  EXPECT_EQ(cfg.transactions_per_client, 0);
  EXPECT_EQ(cfg.mode, script::QueryMode::kPrepared);
  EXPECT_DOUBLE_EQ(cfg.rate_tps, 1500);
  EXPECT_EQ(cfg.latency_limit_us, 50'000);
  EXPECT_EQ(cfg.max_tries, 3u);
  EXPECT_EQ(cfg.progress_s, 5);
  EXPECT_EQ(cfg.series_interval_s, 5);
  EXPECT_TRUE(cfg.report_per_command);
  EXPECT_EQ(cfg.scale, 10);
  EXPECT_EQ(cfg.random_seed, 42u);

  // -t and the defaults.
  BenchParse t = ParseBench({"-t", "7"});
  ASSERT_EQ(t.action, BenchParse::Action::kRun) << t.err;
  const engine::EngineConfig ct = EngineConfigFor(t.options, {});
  EXPECT_EQ(ct.transactions_per_client, 7);
  EXPECT_EQ(ct.duration_s, 0);
  EXPECT_EQ(ct.series_interval_s, 1);
  EXPECT_EQ(ct.threads, 1);
  // Options built by hand (a plan's cell) are clamped the same way.
  BenchOptions cell;
  cell.clients = 2;
  cell.threads = 4;
  cell.duration_s = 5;
  EXPECT_EQ(EngineConfigFor(cell, {}).threads, 2);
}

TEST(EngineConfigForTest, EnvironmentKnobsApplyToEveryCaller) {
  BenchOptions o;
  o.duration_s = 1;
  ASSERT_EQ(::setenv("PGRIG_ENGINE_LIBPQ", "1", 1), 0);
  ASSERT_EQ(::setenv("PGRIG_ENGINE_URING", "0", 1), 0);
  ASSERT_EQ(::setenv("PGRIG_ENGINE_YIELD", "3", 1), 0);
  const engine::EngineConfig knobs = EngineConfigFor(o, {});
  ::unsetenv("PGRIG_ENGINE_LIBPQ");
  ::unsetenv("PGRIG_ENGINE_URING");
  ::unsetenv("PGRIG_ENGINE_YIELD");
  EXPECT_FALSE(knobs.lean_wire);
  EXPECT_FALSE(knobs.io_uring);
  EXPECT_FALSE(knobs.io_uring_paced);
  EXPECT_EQ(knobs.yield_rounds, 3);
  const engine::EngineConfig plain = EngineConfigFor(o, {});
  EXPECT_TRUE(plain.lean_wire);
  EXPECT_TRUE(plain.io_uring);
  EXPECT_FALSE(plain.io_uring_paced);
  EXPECT_EQ(plain.yield_rounds, 0);
  ASSERT_EQ(::setenv("PGRIG_ENGINE_URING", "paced", 1), 0);
  const engine::EngineConfig paced = EngineConfigFor(o, {});
  ::unsetenv("PGRIG_ENGINE_URING");
  EXPECT_TRUE(paced.io_uring);
  EXPECT_TRUE(paced.io_uring_paced);
}

// The scripts of `pgrig bench` and of a plan's workloads are prepared by
// the same function (issue 26).
TEST(PrepareScriptsTest, BuiltinsAndFilesWithWeightsAndDefines) {
  const std::string file = ::testing::TempDir() + "/pgrig_prepare_scripts.sql";
  { std::ofstream(file) << "\\set n :k + 1\nSELECT :n;\n"; }
  auto p = PrepareScripts(
      {ScriptSpec{.kind = ScriptSpec::Kind::kBuiltin, .name = "select-only", .weight = 3},
       ScriptSpec{.kind = ScriptSpec::Kind::kFile, .name = file, .weight = 1}},
      {{"k", "41"}});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_EQ(p->scripts->size(), 2u);
  EXPECT_EQ((*p->scripts)[0].weight, 3);
  EXPECT_EQ((*p->scripts)[1].weight, 1);
  EXPECT_EQ((*p->scripts)[1].desc, file);
  // Slots for the automatic variables and the defines, the defines set.
  for (const char* n : {"client_id", "scale", "default_seed", "random_seed", "k", "n"}) {
    EXPECT_TRUE(p->names->Find(n).has_value()) << n;
  }
  EXPECT_TRUE(p->base_variables->IsDefinedByName("k"));
  EXPECT_FALSE(p->base_variables->IsDefinedByName("n"));
  std::remove(file.c_str());

  auto unknown = PrepareScripts({ScriptSpec{.name = "no-such-builtin"}}, {});
  ASSERT_FALSE(unknown.ok());
  auto missing = PrepareScripts({ScriptSpec{.kind = ScriptSpec::Kind::kFile, .name = file}}, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("could not open file \"" + file + "\""));
}

}  // namespace
}  // namespace pgrig::workload
