// Applying, verifying and rolling back on a real server: a private embedded
// cluster (these tests change its configuration and restart it, so they
// never touch the shared one).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "cluster/cluster.h"
#include "common/fs.h"
#include "common/process.h"
#include "common/strings.h"
#include "support/test_cluster.h"
#include "tune/apply.h"
#include "tune/apply_restart.h"
#include "tune/huge_pages.h"
#include "tune/recommend.h"

namespace pgrig::tune {
namespace {

using ::testing::HasSubstr;

class TuneApplyTest : public testing::PrivateClusterTest<TuneApplyTest> {
 protected:
  static void SetUpTestSuite() { StartCluster("pgrig-tune"); }
  void SetUp() override {
    PrivateClusterTest::SetUp();
    if (HasFatalFailure()) return;
    backups_ = cluster_->home() + ".tune-backups";
    conn_ = Connect();
  }

  static pg::Connection Connect(const std::string& user = "") {
    pg::ConnectionParams p = cluster_->Params();
    if (!user.empty()) p.user = user;
    auto c = pg::Connect(p);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? std::move(c).value() : pg::Connection();
  }

  std::string Show(pg::Connection& c, const std::string& name) {
    auto v = c.QueryValue("SHOW " + name);
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    return v.ok() ? *v : "";
  }

  size_t BackupCount() {
    size_t n = 0;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(backups_, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      n += it->path().extension() == ".json";
    }
    return n;
  }

  // Recommendations for a machine unlike the cluster's own settings, so
  // there are reload-context and restart-context changes.
  TuneReport Report(const Overrides& overrides = {}) {
    auto cur = ReadCurrentSettings(conn_);
    EXPECT_TRUE(cur.ok());
    TuneInputs in;
    in.memory_bytes = 3 * kGiB;
    in.cpus = 4;
    in.storage = StorageClass::kNvme;
    in.server_major = conn_.server_version() / 10000;
    auto r = Recommend(in, Profile::kWeb, *cur, overrides);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return std::move(r).value();
  }

  std::string backups_;
  pg::Connection conn_;
};

TEST_F(TuneApplyTest, AppliesVerifiesAndRollsBack) {
  std::vector<std::string> before = AutoConf(conn_);
  std::string work_mem_before = Show(conn_, "work_mem");
  std::string sb_before = Show(conn_, "shared_buffers");
  TuneReport report = Report();
  ASSERT_FALSE(report.Changes().empty());

  auto out = ApplyRecommendations(conn_, report, {.backup_dir = backups_});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(std::filesystem::exists(out->backup_path));
  // Every change either took effect or waits for a restart.
  for (const auto* c : report.Changes()) {
    bool live = std::count(out->took_effect.begin(), out->took_effect.end(), c->name);
    bool waiting = std::count(out->pending_restart.begin(), out->pending_restart.end(), c->name);
    EXPECT_TRUE(live || waiting) << c->name;
    EXPECT_EQ(c->apply == Apply::kRestart, waiting) << c->name;
  }
  const Recommendation* wm = nullptr;
  for (const auto* c : report.Changes()) {
    if (c->name == "random_page_cost") wm = c;
  }
  ASSERT_NE(wm, nullptr);
  EXPECT_EQ(Show(conn_, "random_page_cost"), "1.1");
  EXPECT_EQ(Show(conn_, "shared_buffers"), sb_before);  // restart-only: not yet
  EXPECT_NE(AutoConf(conn_), before);

  // Restart: the restart-only values are live and the server runs.
  ASSERT_TRUE(cluster_->Stop().ok());
  ASSERT_TRUE(cluster_->Start().ok());
  conn_ = Connect();
  for (const auto* c : report.Changes()) {
    auto cur = ReadCurrentSettings(conn_);
    ASSERT_TRUE(cur.ok());
    const CurrentSetting& s = cur->at(c->name);
    auto v = FromPgSettings(s.name, s.setting, s.unit, s.vartype);
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(v->ToConf(), c->proposed) << c->name;
  }

  auto rb = Rollback(conn_, {.backup_dir = backups_});
  ASSERT_TRUE(rb.ok()) << rb.status().ToString();
  EXPECT_EQ(AutoConf(conn_), before);
  EXPECT_EQ(Show(conn_, "random_page_cost"), "4");
  EXPECT_EQ(Show(conn_, "work_mem"), work_mem_before);
  EXPECT_THAT(rb->pending_restart, ::testing::Contains("shared_buffers"));
  ASSERT_TRUE(cluster_->Stop().ok());
  ASSERT_TRUE(cluster_->Start().ok());
  conn_ = Connect();
  EXPECT_EQ(Show(conn_, "shared_buffers"), sb_before);
  // The backup was used; another rollback finds none left for this server.
  auto again = Rollback(conn_, {.backup_dir = backups_});
  EXPECT_EQ(again.status().code(), StatusCode::kNotFound);
}

TEST_F(TuneApplyTest, FailureMidwayRestoresTheConfigurationAndTheServerStarts) {
  std::vector<std::string> before = AutoConf(conn_);
  std::string rpc_before = Show(conn_, "random_page_cost");
  TuneReport report = Report();
  auto changes = report.Changes();
  ASSERT_GE(changes.size(), 3u);
  for (std::string step :
       {"alter:" + changes[2]->name, std::string("checked"), std::string("reloaded")}) {
    SCOPED_TRACE(step);
    auto out = ApplyRecommendations(
        conn_, report, {.backup_dir = backups_, .fault = [&](std::string_view s) {
                          return s == step ? Aborted("injected failure at " + step) : Status::Ok();
                        }});
    ASSERT_FALSE(out.ok());
    EXPECT_THAT(out.status().message(), HasSubstr("injected failure"));
    EXPECT_THAT(out.status().message(), HasSubstr("restored"));
    EXPECT_EQ(AutoConf(conn_), before);
    // After a reload the old value is back (poll: the reload is asynchronous).
    std::string rpc;
    for (int i = 0; i < 50 && (rpc = Show(conn_, "random_page_cost")) != rpc_before; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_EQ(rpc, rpc_before);
  }
  // The proof that matters: the server still starts.
  conn_ = pg::Connection();
  ASSERT_TRUE(cluster_->Stop().ok());
  auto started = cluster_->Start();
  ASSERT_TRUE(started.ok()) << started.status().ToString();
  conn_ = Connect();
  EXPECT_EQ(Show(conn_, "random_page_cost"), rpc_before);
}

TEST_F(TuneApplyTest, OutOfRangeValueIsRefusedBeforeAnythingChanges) {
  std::vector<std::string> before = AutoConf(conn_);
  size_t backups = BackupCount();
  Overrides o;
  o.values["effective_io_concurrency"] = SettingValue::Integer(5000);  // max 1000
  auto out = ApplyRecommendations(conn_, Report(o), {.backup_dir = backups_});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("effective_io_concurrency"));
  EXPECT_THAT(out.status().message(), HasSubstr("1000"));
  EXPECT_EQ(AutoConf(conn_), before);
  EXPECT_EQ(BackupCount(), backups);
}

TEST_F(TuneApplyTest, RoleWithoutPrivilegeIsRefused) {
  ASSERT_TRUE(
      conn_.Exec("DROP ROLE IF EXISTS pgrig_tune_plain; CREATE ROLE pgrig_tune_plain LOGIN").ok());
  std::vector<std::string> before = AutoConf(conn_);
  size_t backups = BackupCount();
  TuneReport report = Report();
  pg::Connection plain = Connect("pgrig_tune_plain");
  auto out = ApplyRecommendations(plain, report, {.backup_dir = backups_});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kPermissionDenied);
  EXPECT_THAT(out.status().message(), HasSubstr("pgrig_tune_plain"));
  EXPECT_THAT(out.status().message(), HasSubstr("superuser"));
  EXPECT_EQ(AutoConf(conn_), before);
  EXPECT_EQ(BackupCount(), backups);
}

TEST_F(TuneApplyTest, RestoreAutoConfFileWhileDown) {
  auto backup = TakeBackup(conn_, backups_);
  ASSERT_TRUE(backup.ok()) << backup.status().ToString();
  ASSERT_TRUE(conn_.Exec("ALTER SYSTEM SET wal_level = 'minimal'").ok());  // would not start
  conn_ = pg::Connection();
  ASSERT_TRUE(cluster_->Stop().ok());
  EXPECT_FALSE(cluster_->Start().ok());
  ASSERT_TRUE(RestoreAutoConfFile(*backup, cluster_->data_dir()).ok());
  auto started = cluster_->Start();
  ASSERT_TRUE(started.ok()) << started.status().ToString();
  conn_ = Connect();
  EXPECT_EQ(Show(conn_, "wal_level"), "replica");
  (void)::unlink(backup->path.c_str());
}

TEST_F(TuneApplyTest, HugePageProbeMatchesTheEstimate) {
  if (conn_.server_version() < 150000) GTEST_SKIP() << "needs PostgreSQL 15+";
  auto bins = cluster::FindServerBinaries(RealProcessRunner());
  ASSERT_TRUE(bins.ok());
  if (bins->major_version != conn_.server_version() / 10000) GTEST_SKIP();
  TuneReport report = Report();
  auto cur = ReadCurrentSettings(conn_);
  ASSERT_TRUE(cur.ok());
  RealProcessRunner runner;
  HugePagesProbeOptions o{.runner = &runner, .bindir = bins->bindir};
  if (!cluster_->account().is_self) {
    const auto& a = cluster_->account();
    o.run_as = RunAs{a.uid, a.gid, a.home, a.name};
  }
  auto h = ProbeHugePages(CandidateConfig(report, *cur), report.inputs.server_major, 2 * kMiB, o);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_TRUE(h->exact);
  // The estimate is meant to be a little high, never far off.
  EXPECT_GE(report.huge_pages.pages, h->pages);
  EXPECT_LE(report.huge_pages.pages, h->pages * 115 / 100 + 2);
}

// The flow `pgrig tune --apply --restart` and `--rollback --restart` run:
// apply, restart the cluster, reconnect, verify; then roll back the same way.
TEST_F(TuneApplyTest, ApplyAndRestartVerifiesThenRollbackAndRestartUndoes) {
  std::vector<std::string> before = AutoConf(conn_);
  std::string sb_before = Show(conn_, "shared_buffers");
  TuneReport report = Report();
  ASSERT_TRUE(report.NeedsRestart());
  const auto pid_before = cluster_->RunningPid();

  ClusterServer server(*cluster_);
  auto out =
      ApplyAndRestart(conn_, report, {.apply = {.backup_dir = backups_}, .restart = &server});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->restarted);
  EXPECT_THAT(out->applied.pending_restart, ::testing::Contains("shared_buffers"));
  EXPECT_NE(cluster_->RunningPid(), pid_before);
  // conn_ was replaced by a connection to the restarted server: every
  // change, restart-only ones included, is live there.
  auto now = ReadCurrentSettings(conn_);
  ASSERT_TRUE(now.ok()) << now.status().ToString();
  EXPECT_THAT(NotLive(report.Changes(), *now), ::testing::IsEmpty());
  EXPECT_NE(Show(conn_, "shared_buffers"), sb_before);

  auto rb = RollbackAndRestart(conn_, {.apply = {.backup_dir = backups_}, .restart = &server});
  ASSERT_TRUE(rb.ok()) << rb.status().ToString();
  EXPECT_TRUE(rb->restarted);
  EXPECT_EQ(rb->rolled_back.restored.path, out->applied.backup_path);
  EXPECT_EQ(AutoConf(conn_), before);
  EXPECT_EQ(Show(conn_, "shared_buffers"), sb_before);
}

// Without a cluster to restart nothing is restarted: the restart-only
// settings wait, and the server keeps running with its old values.
TEST_F(TuneApplyTest, ApplyAndRestartWithoutAClusterLeavesTheRestartToTheCaller) {
  std::vector<std::string> before = AutoConf(conn_);
  std::string sb_before = Show(conn_, "shared_buffers");
  const auto pid_before = cluster_->RunningPid();
  TuneReport report = Report();
  auto out = ApplyAndRestart(conn_, report, {.apply = {.backup_dir = backups_}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_FALSE(out->restarted);
  EXPECT_THAT(out->applied.pending_restart, ::testing::Contains("shared_buffers"));
  EXPECT_EQ(cluster_->RunningPid(), pid_before);
  EXPECT_EQ(Show(conn_, "shared_buffers"), sb_before);

  auto rb = RollbackAndRestart(conn_, {.apply = {.backup_dir = backups_}});
  ASSERT_TRUE(rb.ok()) << rb.status().ToString();
  EXPECT_FALSE(rb->restarted);
  EXPECT_EQ(AutoConf(conn_), before);
}

// A value every check of a running server accepts but with which the server
// cannot start: the flow restores the backup and starts the cluster again.
TEST_F(TuneApplyTest, ApplyAndRestartRestoresWhenTheServerWillNotStart) {
  auto meminfo = ReadWholeFile("/proc/meminfo");
  ASSERT_TRUE(meminfo.ok());
  if (meminfo->find("HugePages_Total:       0") == std::string::npos) {
    GTEST_SKIP() << "huge pages are reserved here, so huge_pages=on would start";
  }
  std::vector<std::string> before = AutoConf(conn_);
  Overrides o;
  o.values["huge_pages"] = SettingValue::Word("on");
  TuneReport report = Report(o);
  ClusterServer server(*cluster_);
  auto out =
      ApplyAndRestart(conn_, report, {.apply = {.backup_dir = backups_}, .restart = &server});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(out.status().message(), HasSubstr("did not start"));
  EXPECT_THAT(out.status().message(), HasSubstr("restored"));
  ASSERT_TRUE(cluster_->RunningPid().has_value());
  conn_ = Connect();
  EXPECT_EQ(Show(conn_, "huge_pages"), "try");
  EXPECT_EQ(AutoConf(conn_), before);
}

// The command line, end to end, against the private cluster (PGRIG_HOME).
class TuneCliTest : public TuneApplyTest {
 protected:
  ProcessResult Pgrig(std::vector<std::string> args) {
    args.insert(args.begin(), "tune");
    return testing::RunPgrig(args, {{"PGRIG_HOME", cluster_->home()}});
  }
};

TEST_F(TuneCliTest, BadInputChangesNothing) {
  std::vector<std::string> before = AutoConf(conn_);
  struct Case {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
      {{"--profile", "olap", "--apply"}, "unknown profile"},
      {{"--memory", "128MB", "--apply"}, "256MB"},
      {{"--memory", "16", "--apply"}, "no unit"},
      {{"--connections", "5", "--apply"}, "--connections"},
      {{"--storage", "tape", "--apply"}, "storage class"},
      {{"--set", "effective_io_concurrency=5000", "--apply", "--no-probe"}, "outside"},
      {{"--set", "no_such_thing=1", "--apply", "--no-probe"}, "no such setting"},
      {{"--set", "work_mem=64GB", "--apply", "--no-probe"}, "90%"},
      {{"--format", "yaml"}, "unknown format"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(Join(c.args, " "));
    ProcessResult r = Pgrig(c.args);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr(c.says));
    EXPECT_EQ(AutoConf(conn_), before);
  }
  ASSERT_TRUE(
      conn_.Exec("DROP ROLE IF EXISTS pgrig_tune_cli; CREATE ROLE pgrig_tune_cli LOGIN").ok());
  ProcessResult plain =
      testing::RunPgrig({"tune", "--apply", "--no-probe", "-h", cluster_->socket_dir(), "-p",
                         "5432", "-U", "pgrig_tune_cli", "-d", "pgrig"});
  EXPECT_EQ(plain.exit_code, 1) << plain.out << plain.err;
  EXPECT_THAT(plain.err, HasSubstr("cannot change server settings"));
  EXPECT_EQ(AutoConf(conn_), before);
}

TEST_F(TuneCliTest, DryRunApplyAndRollback) {
  std::vector<std::string> before = AutoConf(conn_);
  ProcessResult dry =
      Pgrig({"--dry-run", "--profile", "web", "--memory", "3GB", "--cpus", "4", "--no-probe"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_THAT(dry.err, HasSubstr("nothing was changed"));
  EXPECT_THAT(dry.out, HasSubstr("Worst-case memory"));
  EXPECT_EQ(AutoConf(conn_), before);

  ProcessResult json =
      Pgrig({"--format", "json", "--profile", "web", "--memory", "3GB", "--cpus", "4"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["profile"], "web");
  if (conn_.server_version() >= 150000) {
    EXPECT_TRUE(j["huge_pages"]["exact"].get<bool>());
  }

  ProcessResult apply = Pgrig({"--apply", "--restart", "--profile", "web", "--memory", "3GB",
                               "--cpus", "4", "--storage", "nvme", "--no-probe"});
  ASSERT_EQ(apply.exit_code, 0) << apply.out << apply.err;
  EXPECT_THAT(apply.err, HasSubstr("every setting is in effect"));
  conn_ = Connect();
  EXPECT_EQ(Show(conn_, "random_page_cost"), "1.1");
  EXPECT_NE(AutoConf(conn_), before);

  ProcessResult rb = Pgrig({"--rollback", "--restart"});
  ASSERT_EQ(rb.exit_code, 0) << rb.out << rb.err;
  conn_ = Connect();
  EXPECT_EQ(AutoConf(conn_), before);
  EXPECT_EQ(Show(conn_, "random_page_cost"), "4");
}

TEST_F(TuneCliTest, ServerThatWillNotStartIsRestored) {
  auto meminfo = ReadWholeFile("/proc/meminfo");
  ASSERT_TRUE(meminfo.ok());
  if (meminfo->find("HugePages_Total:       0") == std::string::npos) {
    GTEST_SKIP() << "huge pages are reserved here, so huge_pages=on would start";
  }
  std::vector<std::string> before = AutoConf(conn_);
  // huge_pages = on passes every check a running server can make, and then
  // the server cannot start without reserved huge pages.
  ProcessResult r = Pgrig({"--apply", "--restart", "--set", "huge_pages=on", "--no-probe"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("did not start"));
  EXPECT_THAT(r.err, HasSubstr("restored"));
  ASSERT_TRUE(cluster_->RunningPid().has_value());
  conn_ = Connect();
  EXPECT_EQ(Show(conn_, "huge_pages"), "try");
  EXPECT_EQ(AutoConf(conn_), before);
}

}  // namespace
}  // namespace pgrig::tune
