// `pgrig fleet run` in clients mode end to end: two client hosts (real sshd
// in network namespaces made by the test) run the same `pgrig bench` against
// one server, the shared test cluster, which they reach over its Unix socket
// (a socket file crosses network namespaces; no address outside the test's
// namespaces is used).  The merged result must account for every transaction
// the server committed, and report must read it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/fs.h"
#include "common/strings.h"
#include "fleet/netns_hosts.h"
#include "results/histogram_json.h"
#include "results/result_json.h"
#include "support/test_cluster.h"

namespace pgrig::fleet {
namespace {

using nlohmann::json;
using pgrig::testing::NetnsHosts;
using ::testing::HasSubstr;

// A database of its own in the shared cluster, with pgbench's tables.
class ClientModeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PGRIG_SKIP_WITHOUT_NETNS();
    db_ = "fleet_clients_" + std::to_string(::getpid());
    pg::Connection admin = pgrig::testing::ConnectShared("postgres");
    ASSERT_TRUE(admin.valid());
    ASSERT_TRUE(admin.Exec("DROP DATABASE IF EXISTS " + db_).ok());
    ASSERT_TRUE(admin.Exec("CREATE DATABASE " + db_).ok());
    params_ = pgrig::testing::SharedParams(db_);
    ProcessResult init = pgrig::testing::RunServerTool(
        "pgbench",
        {"-i", "-q", "-s", "1", "-h", params_.host, "-p", params_.port, "-U", params_.user, db_});
    ASSERT_EQ(init.exit_code, 0) << init.err;
  }
  void TearDown() override {
    if (db_.empty()) return;
    pg::Connection admin = pgrig::testing::ConnectShared("postgres");
    if (admin.valid()) (void)admin.Exec("DROP DATABASE IF EXISTS " + db_ + " WITH (FORCE)");
  }

  std::string Conninfo() const {
    return "host=" + params_.host + " port=" + params_.port + " user=" + params_.user +
           " dbname=" + db_ + " password=sekrit-pw";  // trust auth ignores it
  }

  // Commits the server counted in this database, once every other session
  // of it has ended (a backend flushes its statistics when it exits).
  int64_t CommittedSoFar() {
    pg::Connection c = pgrig::testing::ConnectShared(db_);
    for (int i = 0; i < 100; ++i) {
      auto n = c.Exec(
          "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
          "AND pid <> pg_backend_pid()");
      if (n.ok() && std::string(n->Get(0, 0)) == "0") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    auto r = c.Exec("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()");
    if (!r.ok()) {
      ADD_FAILURE() << r.status().message();
      return -1;
    }
    return std::atoll(std::string(r->Get(0, 0)).c_str());
  }

  // Two client hosts load0 and load1 running `bench` (or what `key` says:
  // "tpcc"); `load1_extra` is added to load1's [[host]] table.
  std::string FleetFile(const NetnsHosts& h, const std::string& bench,
                        const std::string& load1_extra, const std::string& key = "bench") {
    std::string f = "[fleet]\nssh_config = \"" + h.ssh_config() + "\"\nresults = \"" + h.dir() +
                    "/results\"\nserver = \"" + Conninfo() + "\"\n" + key + " = " + bench + "\n";
    for (size_t i = 0; i < 2; ++i) {
      f += "\n[[host]]\nlabel = \"load" + std::to_string(i) + "\"\nssh = \"" + h.hosts()[i].alias +
           "\"\nrole = \"client\"\npgrig = \"" + pgrig::testing::PgrigExe() + "\"\nwork_dir = \"" +
           h.hosts()[i].dir + "/work\"\n";
      if (i == 1) f += load1_extra;
    }
    std::string file = h.dir() + "/fleet.toml";
    EXPECT_TRUE(WriteFileAtomically(file, f).ok());
    return file;
  }

  std::string db_;
  pg::ConnectionParams params_;
};

json ReadJson(const std::string& path) {
  auto text = ReadWholeFile(path);
  return text.ok() ? json::parse(*text, nullptr, false) : json(nullptr);
}

TEST_F(ClientModeTest, TwoClientsMergeToWhatTheServerCommitted) {
  PGRIG_START_NETNS_HOSTS(h, 2);
  const std::string file =
      FleetFile(h, "[\"-S\", \"-c\", \"2\", \"-j\", \"1\", \"-T\", \"3\", \"-n\"]", "");
  const int64_t before = CommittedSoFar();

  ProcessResult r = pgrig::testing::RunPgrig({"fleet", "run", file});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const int64_t committed = CommittedSoFar() - before;
  EXPECT_THAT(r.out, HasSubstr("[load0] check: ready"));
  EXPECT_THAT(r.out, HasSubstr("[fleet] all 2 clients ready: go (3 s window)"));
  // Both clients waited at the gate: their load started after the go line.
  EXPECT_LT(r.out.find("all 2 clients ready"), r.out.find("[load1] transaction type:"));
  // The password never shows: not in the output, not in any result.
  EXPECT_THAT(r.out + r.err, ::testing::Not(HasSubstr("sekrit-pw")));

  std::string merged_file;
  for (const std::string& line : Split(r.out, '\n')) {
    if (line.rfind("merged result: ", 0) == 0) merged_file = line.substr(15);
  }
  ASSERT_FALSE(merged_file.empty()) << r.out;
  const json m = ReadJson(merged_file);
  ASSERT_TRUE(m.is_object()) << merged_file;
  const std::string dir = merged_file.substr(0, merged_file.rfind('/'));
  const json a = ReadJson(dir + "/host-load0.json");
  const json b = ReadJson(dir + "/host-load1.json");
  ASSERT_TRUE(a.is_object() && b.is_object()) << dir;
  for (const json* d : {&m, &a, &b}) EXPECT_THAT(d->dump(), ::testing::Not(HasSubstr("sekrit-pw")));

  const int64_t ta = a["transactions"]["processed"].get<int64_t>();
  const int64_t tb = b["transactions"]["processed"].get<int64_t>();
  const int64_t total = m["transactions"]["processed"].get<int64_t>();
  EXPECT_GT(ta, 0);
  EXPECT_GT(tb, 0);
  EXPECT_EQ(total, ta + tb);
  EXPECT_EQ(m["summary"]["transactions"].get<int64_t>(), ta + tb);
  EXPECT_DOUBLE_EQ(m["summary"]["tps"].get<double>(),
                   a["summary"]["tps"].get<double>() + b["summary"]["tps"].get<double>());
  EXPECT_EQ(m["complete"], true);
  EXPECT_EQ(m["fleet"]["partial"], false);
  EXPECT_EQ(m["options"]["clients"], 4);
  EXPECT_EQ(m["client"]["hosts"].size(), 2u);
  EXPECT_TRUE(m["observation"].is_object()) << m["observation"].dump();
  EXPECT_TRUE(m["facts"]["server"].is_object());
  // Every transaction a client counted was committed by the server (-S: one
  // autocommit SELECT per transaction).  The server also committed what was
  // not load: per client its setup queries (count of pgbench_branches) and
  // its facts probe, the controller's facts probe, and the observer's polls
  // (about 5 per second over a window of about 4 s): a few hundred at most.
  // A transaction still in flight when -T ended may commit uncounted: at
  // most one per client connection (4).
  EXPECT_GE(committed, total);
  EXPECT_LE(committed - total, 300) << "committed " << committed << ", merged " << total;
  std::printf("fleet clients: merged %lld transactions, server committed %lld (+%lld)\n",
              static_cast<long long>(total), static_cast<long long>(committed),
              static_cast<long long>(committed - total));

  // The merged histogram holds every transaction, and the percentiles are
  // read from it.
  auto hist = results::HistogramFromJson(m["histogram"], "test");
  ASSERT_TRUE(hist.ok()) << hist.status().ToString();
  EXPECT_EQ(hist->count(), total);
  auto ha = results::HistogramFromJson(a["histogram"], "test");
  auto hb = results::HistogramFromJson(b["histogram"], "test");
  ASSERT_TRUE(ha.ok() && hb.ok());
  stats::Histogram sum = *ha;
  sum.Add(*hb);
  EXPECT_TRUE(sum == *hist);
  EXPECT_DOUBLE_EQ(m["latency_ms"]["p99"].get<double>(),
                   static_cast<double>(hist->ValueAtPercentile(99)) / 1e6);
  EXPECT_DOUBLE_EQ(m["latency_ms"]["p50"].get<double>(),
                   static_cast<double>(hist->ValueAtPercentile(50)) / 1e6);

  // The server is on this machine: the window's bottleneck is named.
  ASSERT_TRUE(m["bottleneck"].is_object()) << m["bottleneck"].dump();
  const std::string kind = m["bottleneck"]["kind"].get<std::string>();
  EXPECT_FALSE(m["bottleneck"]["evidence"].get<std::string>().empty());

  // report reads the merged file, with the observation's bottleneck.
  ProcessResult rep = pgrig::testing::RunPgrig({"report", merged_file});
  EXPECT_EQ(rep.exit_code, 0) << rep.out << rep.err;
  EXPECT_THAT(rep.out, HasSubstr("select-only")) << rep.out;
  ProcessResult rj = pgrig::testing::RunPgrig({"report", merged_file, "--format", "json"});
  ASSERT_EQ(rj.exit_code, 0) << rj.out << rj.err;
  const json rep_cell = json::parse(rj.out)["suite"]["cells"][0];
  EXPECT_EQ(rep_cell["bottleneck"], kind) << rep_cell.dump();
  EXPECT_EQ(rep_cell["bottleneck_evidence"], m["bottleneck"]["evidence"]);
  // And compare reads it next to one host's own result.
  ProcessResult cmp = pgrig::testing::RunPgrig({"compare", merged_file, dir + "/host-load0.json"});
  EXPECT_NE(cmp.exit_code, 1) << cmp.out << cmp.err;
  EXPECT_THAT(cmp.out, HasSubstr("merged")) << cmp.out;
}

// The merged run's path (the "merged result: " line), or empty.
std::string MergedFile(const std::string& out) {
  for (const std::string& line : Split(out, '\n')) {
    if (line.rfind("merged result: ", 0) == 0) return line.substr(15);
  }
  return "";
}

// Clients mode over `pgrig tpcc run`: each client warms up, connects, waits
// for go and counts its own commits; the controller reads the database's
// New-Order count at go and after every client ended, checks conditions 1-4
// and merges.  A database without a TPC-C load is refused before any client
// starts.
TEST_F(ClientModeTest, TpccClientsMergeToWhatTheDatabaseCounted) {
  PGRIG_START_NETNS_HOSTS(h, 2);
  const std::string file = FleetFile(
      h, "[\"-c\", \"2\", \"-j\", \"1\", \"-T\", \"3\", \"--warmup\", \"1\"]", "", "tpcc");

  // No load yet: refused before any client ran anything.
  ProcessResult refused = pgrig::testing::RunPgrig({"fleet", "run", file});
  EXPECT_EQ(refused.exit_code, 1) << refused.out << refused.err;
  EXPECT_THAT(refused.out + refused.err, HasSubstr("not started"));
  EXPECT_THAT(refused.out + refused.err, HasSubstr("tpcc init"));
  EXPECT_THAT(refused.out, ::testing::Not(HasSubstr("running ")));

  ProcessResult init =
      pgrig::testing::RunPgrig({"tpcc", "init", "-w", "1", "-j", "1", "-h", params_.host, "-p",
                                params_.port, "-U", params_.user, "-d", db_});
  ASSERT_EQ(init.exit_code, 0) << init.out << init.err;
  pg::Connection c = pgrig::testing::ConnectShared(db_);
  auto next_o_ids = [&c] {
    auto v = c.QueryValue("SELECT sum(d_next_o_id) FROM district");
    return v.ok() ? ParseInt64(*v).value_or(-1) : -1;
  };
  const int64_t before = next_o_ids();

  ProcessResult r = pgrig::testing::RunPgrig({"fleet", "run", file});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const int64_t grown = next_o_ids() - before;
  EXPECT_THAT(r.out, HasSubstr("[fleet] all 2 clients ready: go (3 s window)"));
  EXPECT_THAT(r.out, HasSubstr("tpcc run"));
  EXPECT_THAT(r.out + r.err, ::testing::Not(HasSubstr("sekrit-pw")));
  const std::string merged_file = MergedFile(r.out);
  ASSERT_FALSE(merged_file.empty()) << r.out;
  const std::string dir = merged_file.substr(0, merged_file.rfind('/'));
  const json m = ReadJson(merged_file)["tpcc"];
  const json a = ReadJson(dir + "/host-load0.json")["tpcc"];
  const json b = ReadJson(dir + "/host-load1.json")["tpcc"];
  ASSERT_TRUE(m.is_object() && a.is_object() && b.is_object()) << dir;

  // Each client counted only its own commits and checked nothing.
  for (const json* x : {&a, &b}) {
    EXPECT_EQ((*x)["fleet_client"], true);
    EXPECT_TRUE((*x)["new_orders"]["database"].is_null());
    EXPECT_TRUE((*x)["checks"]["conditions"].empty());
    EXPECT_GT((*x)["new_orders"]["committed"].get<int64_t>(), 0);
  }
  // The merge: counts summed, the database's growth from go to the end
  // within one New-Order per client of them, conditions held.
  const int64_t committed =
      a["new_orders"]["committed"].get<int64_t>() + b["new_orders"]["committed"].get<int64_t>();
  EXPECT_EQ(m["new_orders"]["committed"], committed);
  const int64_t database = m["new_orders"]["database"].get<int64_t>();
  EXPECT_GE(database, committed);
  EXPECT_LE(database, committed + 4);
  // The warm-ups' New-Orders came before go: the database grew by more.
  EXPECT_GT(grown, database);
  std::printf("fleet tpcc: NOPM %s, committed %lld, database %lld (+%lld warm-up)\n",
              m["nopm"].dump().c_str(), static_cast<long long>(committed),
              static_cast<long long>(database), static_cast<long long>(grown - database));
  EXPECT_EQ(m["new_orders"]["agree"], true);
  EXPECT_EQ(m["consistent"], true);
  EXPECT_EQ(m["checks"]["conditions"].size(), 4u);
  EXPECT_TRUE(m["refused"].empty()) << m["refused"].dump();
  EXPECT_EQ(m["fleet_clients"], 2);
  EXPECT_DOUBLE_EQ(m["nopm"].get<double>(), a["nopm"].get<double>() + b["nopm"].get<double>());
  EXPECT_TRUE(m["delivery"].is_object());
  for (const auto& [name, t] : m["types"].items()) {
    const int64_t n = t["transactions"].get<int64_t>();
    EXPECT_EQ(n, a["types"][name]["transactions"].get<int64_t>() +
                     b["types"][name]["transactions"].get<int64_t>())
        << name;
    auto hist = results::HistogramFromJson(t["histogram"], name);
    ASSERT_TRUE(hist.ok()) << hist.status().ToString();
    EXPECT_EQ(hist->count(), n) << name;
    if (n > 0) {
      EXPECT_DOUBLE_EQ(t["latency_ms"]["p90"].get<double>(),
                       static_cast<double>(hist->ValueAtPercentile(90)) / 1e6)
          << name;
    }
  }

  // report reads the merged file as a NOPM run.
  ProcessResult rep = pgrig::testing::RunPgrig({"report", merged_file, "--format", "json"});
  ASSERT_EQ(rep.exit_code, 0) << rep.out << rep.err;
  EXPECT_EQ(json::parse(rep.out)["suite"]["cells"][0]["metric"], "nopm") << rep.out;
}

// Every client measures exactly -T from "go": its connections are opened
// before it says ready, and the time they took is not taken out of its
// window (pgbench's -T would count from before connecting).
TEST_F(ClientModeTest, EveryClientMeasuresTheWholeWindowFromGo) {
  PGRIG_START_NETNS_HOSTS(h, 2);
  // 8 connections each: opening them takes a measurable time.
  const std::string file =
      FleetFile(h, "[\"-S\", \"-c\", \"8\", \"-j\", \"2\", \"-T\", \"2\", \"-n\"]", "");
  ProcessResult r = pgrig::testing::RunPgrig({"fleet", "run", file});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::string merged_file;
  for (const std::string& line : Split(r.out, '\n')) {
    if (line.rfind("merged result: ", 0) == 0) merged_file = line.substr(15);
  }
  ASSERT_FALSE(merged_file.empty()) << r.out;
  const std::string dir = merged_file.substr(0, merged_file.rfind('/'));
  std::vector<double> starts;
  for (const char* label : {"load0", "load1"}) {
    const json d = ReadJson(dir + "/host-" + label + ".json");
    ASSERT_TRUE(d.is_object()) << label;
    const double window = d["summary"]["duration_s"].get<double>();
    const double connecting_ms = d["durations"]["initial_connection_ms"].get<double>();
    // The window starts at go and ends 2 s later (then the transactions in
    // flight finish): never less than -T, whatever connecting took.
    EXPECT_GE(window, 2.0) << label << ": connecting took " << connecting_ms << " ms";
    EXPECT_LT(window, 2.25) << label;
    EXPECT_DOUBLE_EQ(d["durations"]["benchmark_s"].get<double>(), window) << label;
    EXPECT_GT(connecting_ms, 0.0) << label;  // recorded, outside the window
    starts.push_back(d["start_unix_s"].get<double>());
  }
  // Both windows start at the one go (the skew is one line's ssh delivery).
  EXPECT_LT(std::abs(starts[0] - starts[1]), 0.5);
  const json m = ReadJson(merged_file);
  EXPECT_GE(m["summary"]["duration_s"].get<double>(), 2.0);
  EXPECT_LT(m["summary"]["duration_s"].get<double>(), 2.25);
}

TEST_F(ClientModeTest, AClientThatCannotStartMeansNoLoadAnywhere) {
  PGRIG_START_NETNS_HOSTS(h, 2);
  // load1's server connection is refused (an invalid setting in PGOPTIONS):
  // its bench fails during setup, before it is ready; load0 gets ready and
  // must not start.
  const std::string file = FleetFile(h, "[\"-S\", \"-c\", \"2\", \"-T\", \"3\", \"-n\"]",
                                     "env = { PGOPTIONS = \"-c statement_timeout=bogus\" }\n");
  const int64_t before = CommittedSoFar();
  ProcessResult r = pgrig::testing::RunPgrig({"fleet", "run", file});
  const int64_t committed = CommittedSoFar() - before;
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("not started: load1 ended before the start")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("no client started its load"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("all 2 clients ready")));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("transaction type:")));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("merged result")));
  // Setup and facts queries only: a 3 s load of 2 clients would be thousands.
  EXPECT_LT(committed, 300) << r.out;
}

TEST_F(ClientModeTest, AClientKilledMidRunMakesThePartialResultExplicit) {
  PGRIG_START_NETNS_HOSTS(h, 2);
  const std::string file =
      FleetFile(h, "[\"-S\", \"-c\", \"2\", \"-j\", \"1\", \"-T\", \"5\", \"-n\"]", "");
  ProcessResult r;
  std::thread runner([&] { r = pgrig::testing::RunPgrig({"fleet", "run", file}); });
  // Once the load runs (both clients' 4 connections are in the database),
  // kill everything in load1's namespace: its sshd and its pgrig bench.
  pg::Connection c = pgrig::testing::ConnectShared(db_);
  bool loaded = false;
  for (int i = 0; i < 600 && !loaded; ++i) {
    auto n = c.Exec(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        "AND application_name = 'pgrig'");
    loaded = n.ok() && std::atoi(std::string(n->Get(0, 0)).c_str()) >= 4;
    if (!loaded) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::this_thread::sleep_for(std::chrono::seconds(1));
  h.KillHost(1);
  runner.join();
  ASSERT_TRUE(loaded) << r.out << r.err;

  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("[load1] failed: "));
  std::string merged_file;
  for (const std::string& line : Split(r.out, '\n')) {
    const std::string tag = "merged result (PARTIAL: a client failed): ";
    if (line.rfind(tag, 0) == 0) merged_file = line.substr(tag.size());
  }
  ASSERT_FALSE(merged_file.empty()) << r.out;
  const json m = ReadJson(merged_file);
  ASSERT_TRUE(m.is_object());
  EXPECT_EQ(m["complete"], false);
  EXPECT_EQ(m["stop_reason"], "partial");
  EXPECT_EQ(m["fleet"]["partial"], true);
  EXPECT_EQ(m["fleet"]["hosts"][1]["status"], "failed");
  EXPECT_EQ(m["fleet"]["hosts"][0]["status"], "ok");
  // Only load0's transactions, never a silent sum with a guess for load1.
  const std::string dir = merged_file.substr(0, merged_file.rfind('/'));
  const json a = ReadJson(dir + "/host-load0.json");
  ASSERT_TRUE(a.is_object());
  EXPECT_EQ(m["transactions"]["processed"], a["transactions"]["processed"]);
  EXPECT_GT(m["transactions"]["processed"].get<int64_t>(), 0);
  // report reads it and says it is incomplete.
  ProcessResult rep = pgrig::testing::RunPgrig({"report", merged_file});
  EXPECT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_THAT(rep.out + rep.err, HasSubstr("incomplete")) << rep.out << rep.err;
}

}  // namespace
}  // namespace pgrig::fleet
