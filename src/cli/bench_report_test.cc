#include "cli/bench_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli/bench_json.h"

namespace pgrig::cli {

using workload::BenchOptions;
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A run of 1000 successful transactions of 1 ms each over 2 s, 4 clients.
engine::RunResult MakeRun() {
  engine::RunResult r;
  r.bench_duration_ns = 2'000'000'000;
  r.conn_elapsed_ns = 12'345'000;
  for (int i = 0; i < 1000; ++i) {
    r.totals.RecordSuccess(1'000'000, 0, 1);
    r.latency.Record(1'000'000);
  }
  r.scripts.resize(1);
  r.scripts[0].totals = r.totals;
  r.scripts[0].commands.resize(2);
  r.scripts[0].commands[1] = {.count = 1000, .sum_ns = 900'000'000, .failures = 0, .retries = 0};
  r.client_user_cpu_s = 0.004;
  r.client_sys_cpu_s = 0.006;
  return r;
}

RunInfo MakeInfo() {
  RunInfo info;
  info.scale = 10;
  info.threads = 2;
  info.cpus = 2;
  info.scripts.push_back(
      {.desc = "<builtin: select only>",
       .weight = 1,
       .command_lines = {"\\set aid random(1, 100000 * :scale)",
                         "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;"}});
  return info;
}

BenchOptions MakeOptions() {
  BenchOptions o;
  o.clients = 4;
  o.threads = 2;
  o.duration_s = 2;
  return o;
}

TEST(BenchReportTest, PgbenchSummaryLinesInOrder) {
  const std::string s = FormatPgbenchSummary(MakeOptions(), MakeInfo(), MakeRun());
  EXPECT_EQ(s,
            "transaction type: <builtin: select only>\n"
            "scaling factor: 10\n"
            "query mode: simple\n"
            "number of clients: 4\n"
            "number of threads: 2\n"
            "maximum number of tries: 1\n"
            "duration: 2 s\n"
            "number of transactions actually processed: 1000\n"
            "number of failed transactions: 0 (0.000%)\n"
            // pgbench without -P/-R/-L: duration * clients / count
            "latency average = 8.000 ms\n"
            "initial connection time = 12.345 ms\n"
            "tps = 500.000000 (without initial connection time)\n");
}

// pgbench prints with PostgreSQL's snprintf: 0/0 is "NaN", not "-nan".
TEST(BenchReportTest, NothingProcessedGivesNaNPercentAsPgbench) {
  BenchOptions o = MakeOptions();
  o.duration_s = 0;
  o.transactions = 1;
  engine::RunResult r;
  r.scripts.resize(1);
  const std::string s = FormatPgbenchSummary(o, MakeInfo(), r);
  EXPECT_THAT(s, HasSubstr("number of transactions actually processed: 0/4\n"
                           "number of failed transactions: 0 (NaN%)\n"));
  EXPECT_THAT(s, Not(HasSubstr("nan")));
}

TEST(BenchReportTest, MeasuredLatencyWithProgressAndPerCommand) {
  BenchOptions o = MakeOptions();
  o.progress_s = 1;
  o.report_per_command = true;
  o.duration_s = 0;
  o.transactions = 250;
  const std::string s = FormatPgbenchSummary(o, MakeInfo(), MakeRun());
  EXPECT_THAT(s, HasSubstr("number of transactions per client: 250\n"
                           "number of transactions actually processed: 1000/1000\n"));
  EXPECT_THAT(s, HasSubstr("latency average = 1.000 ms\nlatency stddev = 0.000 ms\n"));
  EXPECT_THAT(s, HasSubstr("statement latencies in milliseconds and failures:\n"
                           "         0.000           0  \\set aid random(1, 100000 * :scale)\n"
                           "         0.900           0  SELECT abalance"));
}

TEST(BenchReportTest, RetriesAndRateLines) {
  BenchOptions o = MakeOptions();
  o.max_tries = 3;
  o.rate_tps = 500;
  o.latency_limit_us = 5000;
  engine::RunResult r = MakeRun();
  r.totals.RecordFailure(stats::FailureKind::kSerialization, 3);
  r.totals.RecordSkipped();
  const std::string s = FormatPgbenchSummary(o, MakeInfo(), r);
  EXPECT_THAT(s, HasSubstr("maximum number of tries: 3\n"));
  EXPECT_THAT(s, HasSubstr("number of failed transactions: 1 (0.100%)\n"));
  EXPECT_THAT(
      s, HasSubstr("number of transactions retried: 1 (0.100%)\ntotal number of retries: 2\n"));
  EXPECT_THAT(s, HasSubstr("number of transactions skipped: 1 (0.100%)\n"));
  EXPECT_THAT(
      s, HasSubstr("number of transactions above the 5.0 ms latency limit: 0/1000 (0.000%)\n"));
  EXPECT_THAT(s, HasSubstr("rate limit schedule lag: avg 0.000 (max 0.000) ms\n"));
}

TEST(BenchReportTest, ConnectPerTransactionTpsLine) {
  BenchOptions o = MakeOptions();
  o.connect_per_transaction = true;
  engine::RunResult r = MakeRun();
  r.conn_total_ns = 2'000'000'000;
  const std::string s = FormatPgbenchSummary(o, MakeInfo(), r);
  EXPECT_THAT(s, HasSubstr("average connection time = 2.000 ms\n"
                           "tps = 500.000000 (including reconnection times)\n"));
  EXPECT_THAT(s, Not(HasSubstr("without initial connection time")));
}

TEST(BenchReportTest, ExtrasShowPercentilesAndCpu) {
  const std::string s = FormatPgrigExtras(MakeOptions(), MakeInfo(), MakeRun());
  EXPECT_THAT(s, HasSubstr("p50 = 1.000 ms"));
  EXPECT_THAT(s, HasSubstr("p99.9 = 1.000 ms"));
  EXPECT_THAT(s, HasSubstr("client CPU per transaction = 10.00 us (user 4.00 us, system 6.00 us)"));
  EXPECT_THAT(s, Not(HasSubstr("bottleneck")));
}

TEST(BenchReportTest, ExtrasShowServerCpuOrWhyNot) {
  host::ServerCpuMeasure m{.usage = host::ServerCpuUsage{.user_s = 0.03, .sys_s = 0.02},
                           .unavailable = ""};
  const std::string s = FormatPgrigExtras(MakeOptions(), MakeInfo(), MakeRun(), m);
  EXPECT_THAT(
      s, HasSubstr("server CPU per transaction = 50.00 us (user 30.00 us, system 20.00 us)\n"));
  // With -C most of it is starting backends, and the line says so.
  BenchOptions reconnect = MakeOptions();
  reconnect.connect_per_transaction = true;
  EXPECT_THAT(FormatPgrigExtras(reconnect, MakeInfo(), MakeRun(), m),
              HasSubstr("system 20.00 us); with -C that includes starting a backend for each\n"));
  const std::string none = FormatPgrigExtras(MakeOptions(), MakeInfo(), MakeRun(),
                                             {.usage = std::nullopt, .unavailable = "remote"});
  EXPECT_THAT(none, HasSubstr("server CPU per transaction: not measured (remote)\n"));
  EXPECT_THAT(FormatPgrigExtras(MakeOptions(), MakeInfo(), MakeRun()),
              Not(HasSubstr("server CPU")));
}

TEST(BenchReportTest, WarnsWhenClientIsTheBottleneck) {
  engine::RunResult r = MakeRun();
  r.client_user_cpu_s = 2.0;
  r.client_sys_cpu_s = 1.8;  // 3.8 s of CPU in 2 s on 2 threads: 95% busy
  const std::string s = FormatPgrigExtras(MakeOptions(), MakeInfo(), r);
  EXPECT_THAT(s, HasSubstr("warning: the client, not the server, was the bottleneck"));
}

TEST(BenchReportTest, ProgressLineInPgbenchForm) {
  stats::IntervalStats st;
  for (int i = 0; i < 100; ++i) st.RecordSuccess(2'000'000, 0, 1);
  const std::string line = FormatProgress(MakeOptions(), st, 1.0, 3.0, 0);
  EXPECT_EQ(line, "progress: 3.0 s, 100.0 tps, lat 2.000 ms stddev 0.000, 0 failed\n");
}

TEST(BenchJsonTest, CarriesSummaryAndRedactsPasswords) {
  BenchOptions o = MakeOptions();
  o.argv = {"bench", "-c", "4", "host=x password=secret"};
  ServerInfo server{.version = "15.18", .version_num = 150018, .target = "x", .embedded = true};
  const nlohmann::json j = BenchResultToJson(o, MakeInfo(), server, MakeRun(), nullptr, {});
  EXPECT_EQ(j["schema"], "pgrig.result/1");
  EXPECT_DOUBLE_EQ(j["summary"]["tps"].get<double>(), 500.0);
  EXPECT_DOUBLE_EQ(j["summary"]["latency_ms_avg"].get<double>(), 1.0);
  EXPECT_EQ(j["summary"]["transactions"], 1000);
  EXPECT_EQ(j["complete"], true);
  EXPECT_EQ(j["histogram"]["count"], 1000);
  EXPECT_THAT(j.dump(), Not(HasSubstr("secret")));
  EXPECT_EQ(j["command_line"][0], "pgrig bench");
  EXPECT_TRUE(j["summary"]["server_cpu_us_per_transaction"].is_null());
  EXPECT_TRUE(j["server_cpu"].is_null());
  EXPECT_EQ(j["server_cpu_unavailable"], "");
}

TEST(BenchJsonTest, ServerCpuBesideTheClients) {
  ServerInfo server{.version = "15.18", .version_num = 150018, .target = "x", .embedded = true};
  host::ServerCpuMeasure m{
      .usage = host::ServerCpuUsage{.user_s = 0.03, .sys_s = 0.02, .settled = false},
      .unavailable = ""};
  const nlohmann::json j =
      BenchResultToJson(MakeOptions(), MakeInfo(), server, MakeRun(), nullptr, m);
  EXPECT_DOUBLE_EQ(j["summary"]["server_cpu_us_per_transaction"].get<double>(), 50.0);
  EXPECT_DOUBLE_EQ(j["server_cpu"]["cpu_s"].get<double>(), 0.05);
  EXPECT_DOUBLE_EQ(j["server_cpu"]["cpu_user_s"].get<double>(), 0.03);
  EXPECT_EQ(j["server_cpu"]["settled"], false);
  EXPECT_TRUE(j["server_cpu_unavailable"].is_null());
  const nlohmann::json none =
      BenchResultToJson(MakeOptions(), MakeInfo(), server, MakeRun(), nullptr,
                        {.usage = std::nullopt, .unavailable = "remote"});
  EXPECT_TRUE(none["summary"]["server_cpu_us_per_transaction"].is_null());
  EXPECT_EQ(none["server_cpu_unavailable"], "remote");
}

}  // namespace
}  // namespace pgrig::cli
