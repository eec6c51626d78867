// Integration test of lio and fsync workloads in `pgrig run` plans, against
// the shared embedded cluster in a database of its own: a tiny lio plan
// (small tables, 1 s windows) with an fsync test of a directory on the
// build's (disk) file system; suite.json, runs.csv and summary.md carry
// lio_per_s, the report reader reads the suite, the lio tables are reused by
// a second suite, and a plan whose fsync directory is on tmpfs is refused
// before anything is made.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/fs.h"
#include "micro/wal_flush.h"
#include "report/analysis.h"
#include "results/reader.h"
#include "support/test_cluster.h"

namespace pgrig {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

// Each test (a process of its own under ctest) has its own database.
constexpr const char* kDb = "run_lio_itest";
constexpr const char* kTmpfsDb = "run_lio_itest_tmpfs";

// A directory on the build tree's file system (not /tmp, which may be tmpfs).
class DiskDir {
 public:
  DiskDir()
      : path_(std::string(PGRIG_BINARY_DIR) + "/runner_lio_itest." + std::to_string(getpid())) {
    fs::create_directories(path_);
  }
  ~DiskDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

bool OnMemoryFs(const std::string& p) {
  struct statfs sf {};
  return statfs(p.c_str(), &sf) == 0 && micro::IsMemoryFileSystem(static_cast<int64_t>(sf.f_type));
}

std::string LioPlan(const std::string& fsync_dir) {
  std::string text =
      "[plan]\nname = \"tiny-lio\"\nwarmup_s = 0.5\nduration_s = 1\niterations = 2\n\n"
      "[[workload]]\nname = \"lio\"\nkind = \"lio\"\ntables = 2\nscale = 128\nwork_unit = 8\n"
      "sessions = [1, 2]\n";
  if (!fsync_dir.empty()) {
    text += "\n[[workload]]\nkind = \"fsync\"\ndir = \"" + fsync_dir +
            "\"\nseconds_per_test = 0.05\nwrite_sizes = [8192]\nwriters = [1]\n";
  }
  return text;
}

std::vector<std::string> RunArgs(std::vector<std::string> conn,
                                 const std::vector<std::string>& more) {
  conn.insert(conn.begin(), "run");
  conn.insert(conn.end(), more.begin(), more.end());
  return conn;
}

json ReadJsonOrNull(const std::string& path) {
  auto t = ReadWholeFile(path);
  if (!t.ok()) return nullptr;
  try {
    return json::parse(*t);
  } catch (const json::exception&) {
    return nullptr;
  }
}

TEST(RunLioSuiteTest, LioCellsAndTheFsyncTestGoIntoTheSuiteAndTheReport) {
  DiskDir disk;
  if (OnMemoryFs(disk.path())) GTEST_SKIP() << "the build directory is on tmpfs";
  const std::string dir = testing::MakeTempHome("pgrig-run-lio-itest");
  fs::create_directories(dir);
  const std::string plan = dir + "/tiny-lio.toml";
  std::ofstream(plan) << LioPlan(disk.path());
  const std::vector<std::string> conn = testing::FreshDatabase(kDb);

  // --dry-run names the lio cells and starts nothing.
  ProcessResult dry = testing::RunPgrig(RunArgs(conn, {plan, "--dry-run"}));
  ASSERT_EQ(dry.exit_code, 0) << dry.out << dry.err;
  EXPECT_THAT(dry.out, HasSubstr("lio/prepared/default/c1/j1"));
  EXPECT_THAT(dry.out, HasSubstr("lio/prepared/default/c2/j2"));

  const std::string out = dir + "/out";
  ProcessResult r = testing::RunPgrig(RunArgs(conn, {plan, "--out", out}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("lio data: making 2 tables of 128 blocks"));
  EXPECT_THAT(r.err, HasSubstr("pgbench's tables are not needed"));
  EXPECT_THAT(r.err, HasSubstr("logical reads/s"));
  // The fsync test file is gone.
  EXPECT_TRUE(fs::is_empty(disk.path()));

  const json s = ReadJsonOrNull(out + "/suite.json");
  ASSERT_TRUE(s.is_object());
  EXPECT_EQ(s["complete"], true);
  EXPECT_TRUE(s["scale"].is_null());
  EXPECT_EQ(s["lio"]["tables"], 2);
  EXPECT_EQ(s["lio"]["blocks_per_table"], 128);
  EXPECT_EQ(s["lio"]["loaded"], true);
  ASSERT_EQ(s["cells"].size(), 2u);
  ASSERT_EQ(s["runs"].size(), 4u);
  for (const json& run : s["runs"]) {
    ASSERT_EQ(run["status"], "ok") << run.dump().substr(0, 2000);
    const json& res = run["result"];
    EXPECT_EQ(res["schema"], "pgrig.lio/1");
    EXPECT_GT(res["summary"]["lio_per_s"].get<double>(), 0);
    EXPECT_EQ(res["options"]["work_unit"], 8);
    const int sessions = run["cell"] == "lio/prepared/default/c1/j1" ? 1 : 2;
    EXPECT_EQ(res["summary"]["sessions"], sessions) << run["cell"];
    EXPECT_EQ(res["per_session"].size(), static_cast<size_t>(sessions));
    // Every range reads 8 heap blocks: the sessions' rows say so.
    EXPECT_EQ(res["work"]["rows"].get<int64_t>(), 8 * res["work"]["ranges"].get<int64_t>());
    EXPECT_TRUE(run["observation"].is_object());
    EXPECT_TRUE(run["bottleneck"]["kind"].is_string());
    EXPECT_THAT(run["before_run"].dump(), HasSubstr("CHECKPOINT"));
  }
  for (const json& c : s["cells"]) {
    EXPECT_EQ(c["kind"], "lio");
    EXPECT_EQ(c["metric"], "lio_per_s");
    const json& sum = c["summary"];
    EXPECT_EQ(sum["runs"], 2);
    EXPECT_TRUE(sum["tps"].is_null());
    EXPECT_GT(sum["lio_per_s"]["median"].get<double>(), 0);
    EXPECT_EQ(sum["lio_per_s"]["samples"].size(), 2u);
    EXPECT_TRUE(sum["per_dollar"].is_null());
  }
  const json& f = s["fsync"];
  ASSERT_TRUE(f.is_object());
  EXPECT_EQ(f["schema"], "pgrig.fsync/1");
  EXPECT_EQ(f["options"]["dir"], disk.path());
  // A best method only when it is significantly best; a leader always.
  EXPECT_TRUE(f["summary"]["leading_method"].is_string());
  if (f["summary"]["best_method"].is_string()) {
    EXPECT_EQ(f["summary"]["best_method"], f["summary"]["leading_method"]);
    EXPECT_GT(f["summary"]["best_ops_per_s"].get<double>(), 0);
  }

  auto csv = ReadWholeFile(out + "/runs.csv");
  ASSERT_TRUE(csv.ok());
  EXPECT_THAT(*csv,
              HasSubstr(",lio_per_s,server_cpu_us_per_transaction,disturbed_other_cpu_pct,nopm\n"));
  auto md = ReadWholeFile(out + "/summary.md");
  ASSERT_TRUE(md.ok());
  EXPECT_THAT(*md, HasSubstr("| lio/s median [95% interval] |"));
  EXPECT_THAT(*md, HasSubstr("## WAL flushes"));

  // The report module reads the suite as written.
  auto suite = results::LoadSuite(out);
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  ASSERT_EQ(suite->cells.size(), 2u);
  EXPECT_EQ(suite->cells[0].metric, "lio_per_s");
  ASSERT_TRUE(suite->fsync.has_value());
  EXPECT_EQ(suite->fsync->best_method, f["summary"]["best_method"].is_string()
                                           ? f["summary"]["best_method"].get<std::string>()
                                           : std::string());
  auto stats = report::Analyze(*suite);
  ASSERT_TRUE(stats.ok());
  for (const report::CellStats& c : stats->cells) {
    EXPECT_EQ(c.runs_ok, 2) << c.id;
    EXPECT_GT(c.tps_summary.median, 0) << c.id;
  }
  ProcessResult rep = testing::RunPgrig({"report", out});
  EXPECT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_THAT(rep.out, HasSubstr("lio/s"));
  EXPECT_THAT(rep.out, HasSubstr("WAL flushes of " + disk.path()));

  // A second suite reuses the tables (no fsync workload this time).
  std::ofstream(plan) << LioPlan("");
  ProcessResult again = testing::RunPgrig(RunArgs(conn, {plan, "--out", dir + "/out2"}));
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_THAT(again.err, HasSubstr("already in database " + std::string(kDb) + "; reusing them"));
  const json s2 = ReadJsonOrNull(dir + "/out2/suite.json");
  EXPECT_EQ(s2["lio"]["loaded"], false);
  EXPECT_TRUE(s2["fsync"].is_null());
  EXPECT_TRUE(RemoveTree(fs::path(dir).parent_path()).ok());
}

TEST(RunLioSuiteTest, FsyncOnTmpfsIsRefusedBeforeAnythingStarts) {
  if (!OnMemoryFs("/dev/shm")) GTEST_SKIP() << "/dev/shm is not tmpfs here";
  const std::string dir = testing::MakeTempHome("pgrig-run-lio-itest");
  fs::create_directories(dir);
  const std::string plan = dir + "/tmpfs.toml";
  std::ofstream(plan) << LioPlan("/dev/shm");
  const std::string out = dir + "/out";
  ProcessResult r =
      testing::RunPgrig(RunArgs(testing::FreshDatabase(kTmpfsDb), {plan, "--out", out}));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("workload 'fsync', 'dir'"));
  EXPECT_THAT(r.err, HasSubstr("memory file system"));
  EXPECT_FALSE(fs::exists(out));
  // Nothing was made in the database either.
  auto c = pg::Connect(testing::SharedParams(kTmpfsDb));
  ASSERT_TRUE(c.ok());
  auto t = c->Exec("select count(*) from pg_namespace where nspname = 'pgrig_lio'");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(std::string(t->Get(0, 0)), "0");
  EXPECT_TRUE(RemoveTree(fs::path(dir).parent_path()).ok());
}

}  // namespace
}  // namespace pgrig
