// Per-cell settings on a real server: a private embedded cluster (these tests
// restart it and change its configuration, so they never touch the shared
// one).  Every test ends with the cluster's original configuration, which
// each test checks itself.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cluster/cluster.h"
#include "common/fs.h"
#include "runner/cell_settings.h"
#include "runner/server_settings.h"
#include "support/test_cluster.h"

namespace pgrig::runner {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class CellSettingsServerTest : public testing::PrivateClusterTest<CellSettingsServerTest> {
 protected:
  static void SetUpTestSuite() {
    StartCluster("pgrig-cellset");
    if (cluster_ == nullptr) return;
    // One entry of postgresql.auto.conf that the tests change, so that the
    // restore of an existing entry (SET back, not RESET) is exercised.
    auto conn = pg::Connect(cluster_->Params());
    ASSERT_TRUE(conn.ok()) << conn.status().ToString();
    ASSERT_TRUE(conn->Exec("ALTER SYSTEM SET checkpoint_completion_target = '0.8'").ok());
    ASSERT_TRUE(conn->Exec("SELECT pg_reload_conf()").ok());
  }
  void SetUp() override {
    PrivateClusterTest::SetUp();
    if (HasFatalFailure()) return;
    state_ = std::filesystem::path(cluster_->home()).parent_path().string() + "/state-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name();
    conn_ = Connect();
    before_ = Snapshot();
    // The reload above reaches every backend eventually; wait for this one.
    for (int i = 0; i < 100 && Show("checkpoint_completion_target") != "0.8"; ++i) {
      ::usleep(50000);
      before_ = Snapshot();
    }
    ASSERT_EQ(before_.at("checkpoint_completion_target"), "0.8");
  }

  void TearDown() override {
    // Whatever a test did, the cluster must be as it was.
    conn_ = Connect();
    EXPECT_EQ(Snapshot(), before_);
    EXPECT_EQ(AutoConf(), (std::vector<std::string>{"checkpoint_completion_target=0.8"}));
  }

  static pg::Connection Connect(const pg::ConnectionParams& p = cluster_->Params()) {
    auto c = pg::Connect(p);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? std::move(c).value() : pg::Connection();
  }

  std::string Show(const std::string& name) { return Show(conn_, name); }
  static std::string Show(pg::Connection& c, const std::string& name) {
    auto v = c.QueryValue("SHOW " + name);
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    return v.ok() ? *v : "";
  }

  // The values the tests change.
  std::map<std::string, std::string> Snapshot() {
    std::map<std::string, std::string> out;
    for (const char* n :
         {"checkpoint_completion_target", "shared_buffers", "max_connections", "checkpoint_timeout",
          "jit", "work_mem", "search_path", "log_connections"}) {
      out[n] = Show(n);
    }
    return out;
  }

  std::vector<std::string> AutoConf() { return PrivateClusterTest::AutoConf(conn_); }

  ServerSettingsOptions Options(bool embedded = true) {
    ServerSettingsOptions o;
    o.state_dir = state_;
    o.embedded = embedded ? cluster_ : nullptr;
    return o;
  }

  bool MarkerExists() { return std::filesystem::exists(MarkerPath(state_)); }

  // A run that applies `settings` in a child process and dies without
  // restoring anything: the child's exit code, 0 when it applied them (and
  // restarted the server, when `restart`).
  static int ApplyAndDie(const ServerSettingsOptions& o,
                         const std::map<std::string, std::string>& settings, bool restart) {
    const pid_t child = ::fork();
    if (child == 0) {
      auto ss = ServerSettings::Open(cluster_->Params(), o);
      if (!ss.ok()) ::_exit(3);
      auto r = (*ss)->Apply(settings);
      ::_exit(r.ok() && (r->restarted || !restart) ? 0 : 4);
    }
    int status = 0;
    if (child < 0 || ::waitpid(child, &status, 0) != child) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -2;
  }

  std::string state_;
  pg::Connection conn_;
  std::map<std::string, std::string> before_;
};

TEST_F(CellSettingsServerTest, PerConnectionSettingsTravelInTheConnectionOnly) {
  auto split = SplitAndValidate(conn_, {{"jit", "off"},
                                        {"work_mem", "7MB"},
                                        {"search_path", "a, b\\c"},
                                        {"checkpoint_timeout", "10min"}});
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  EXPECT_EQ(split->server, (std::map<std::string, std::string>{{"checkpoint_timeout", "10min"}}));
  ASSERT_EQ(split->per_connection.size(), 3u);

  pg::Connection cell = Connect(WithConnectionSettings(cluster_->Params(), split->per_connection));
  ASSERT_TRUE(cell.valid());
  EXPECT_EQ(Show(cell, "jit"), "off");
  EXPECT_EQ(Show(cell, "work_mem"), "7MB");
  EXPECT_EQ(Show(cell, "search_path"), "a, b\\c");
  auto src = cell.QueryValue("SELECT source FROM pg_settings WHERE name = 'work_mem'");
  ASSERT_TRUE(src.ok());
  EXPECT_EQ(*src, "client");
  // Nothing reached the server's configuration: a plain connection has the
  // old values (TearDown checks postgresql.auto.conf).
  pg::Connection plain = Connect();
  EXPECT_EQ(Show(plain, "work_mem"), before_.at("work_mem"));
  EXPECT_EQ(Show(plain, "search_path"), before_.at("search_path"));
}

TEST_F(CellSettingsServerTest, BadSettingsFromTheRealServer) {
  auto unknown = SplitAndValidate(conn_, {{"shared_bufers", "1GB"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("did you mean 'shared_buffers'?"));
  auto range = SplitAndValidate(conn_, {{"checkpoint_completion_target", "2"}});
  ASSERT_FALSE(range.ok());
  EXPECT_THAT(range.status().message(),
              AllOf(HasSubstr("checkpoint_completion_target"), HasSubstr("0 to 1")));
}

TEST_F(CellSettingsServerTest, ReloadAndRestartSettingsPerCellThenRestored) {
  auto ss = ServerSettings::Open(cluster_->Params(), Options());
  ASSERT_TRUE(ss.ok()) << ss.status().ToString();
  EXPECT_TRUE(MarkerExists());  // before any change
  EXPECT_TRUE(std::filesystem::exists((*ss)->backup_path()));

  // Cell 1: a reload setting and a restart one.
  auto r1 = (*ss)->Apply({{"checkpoint_completion_target", "0.6"}, {"shared_buffers", "24MB"}});
  ASSERT_TRUE(r1.ok()) << r1.status().ToString();
  EXPECT_TRUE(r1->restarted);
  EXPECT_TRUE(r1->reloaded);
  conn_ = Connect();
  EXPECT_EQ(Show("checkpoint_completion_target"), "0.6");
  EXPECT_EQ(Show("shared_buffers"), "24MB");
  // The marker names the originals of both.
  auto marker = ReadWholeFile(MarkerPath(state_));
  ASSERT_TRUE(marker.ok());
  auto j = nlohmann::json::parse(*marker);
  EXPECT_EQ(j["originals"]["checkpoint_completion_target"]["in_auto_conf"], true);
  EXPECT_EQ(j["originals"]["checkpoint_completion_target"]["auto_conf_value"], "0.8");
  EXPECT_EQ(j["originals"]["shared_buffers"]["in_auto_conf"], false);
  EXPECT_FALSE(j["backup_path"].get<std::string>().empty());

  // Cell 2: shared_buffers goes back (another restart), checkpoint_timeout joins.
  auto r2 = (*ss)->Apply({{"checkpoint_completion_target", "0.7"}, {"checkpoint_timeout", "7min"}});
  ASSERT_TRUE(r2.ok()) << r2.status().ToString();
  EXPECT_TRUE(r2->restarted);
  conn_ = Connect();
  EXPECT_EQ(Show("checkpoint_completion_target"), "0.7");
  EXPECT_EQ(Show("checkpoint_timeout"), "7min");
  EXPECT_EQ(Show("shared_buffers"), before_.at("shared_buffers"));

  // Cell 3: reload only, no restart.
  auto r3 = (*ss)->Apply({{"checkpoint_timeout", "8min"}});
  ASSERT_TRUE(r3.ok()) << r3.status().ToString();
  EXPECT_FALSE(r3->restarted);
  EXPECT_TRUE(r3->reloaded);
  EXPECT_EQ((*ss)->applied(), (std::map<std::string, std::string>{{"checkpoint_timeout", "8min"}}));
  // The same again changes nothing.
  auto r4 = (*ss)->Apply({{"checkpoint_timeout", "8min"}});
  ASSERT_TRUE(r4.ok());
  EXPECT_TRUE(r4->changed.empty());

  ASSERT_TRUE((*ss)->RestoreAll().ok());
  EXPECT_FALSE(MarkerExists());
  EXPECT_TRUE((*ss)->RestoreAll().ok());  // idempotent
  EXPECT_FALSE((*ss)->Apply({{"checkpoint_timeout", "9min"}}).ok());
}

TEST_F(CellSettingsServerTest, BackendContextSettingReachesNewSessions) {
  auto split = SplitAndValidate(conn_, {{"log_connections", "on"}});
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  ASSERT_EQ(split->server.size(), 1u);  // superuser-backend: a server setting
  auto ss = ServerSettings::Open(cluster_->Params(), Options());
  ASSERT_TRUE(ss.ok()) << ss.status().ToString();
  auto r = (*ss)->Apply(split->server);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->restarted);
  pg::Connection fresh = Connect();
  EXPECT_EQ(Show(fresh, "log_connections"), "on");
  ASSERT_TRUE((*ss)->RestoreAll().ok());
}

TEST_F(CellSettingsServerTest, RestartSettingRestoredByTheDestructor) {
  {
    auto ss = ServerSettings::Open(cluster_->Params(), Options());
    ASSERT_TRUE(ss.ok()) << ss.status().ToString();
    auto r = (*ss)->Apply({{"max_connections", "37"}});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    conn_ = Connect();
    EXPECT_EQ(Show("max_connections"), "37");
  }
  EXPECT_FALSE(MarkerExists());
}

TEST_F(CellSettingsServerTest, InjectedFailuresRestoreTheOriginals) {
  for (std::string step : {"marker", "alter:shared_buffers", "checked", "reloaded", "restarted"}) {
    SCOPED_TRACE(step);
    ServerSettingsOptions o = Options();
    auto fired = std::make_shared<bool>(false);
    o.fault = [step, fired](std::string_view s) {
      if (s != step || *fired) return Status::Ok();
      *fired = true;
      return Internal("injected failure at " + std::string(s));
    };
    auto ss = ServerSettings::Open(cluster_->Params(), o);
    ASSERT_TRUE(ss.ok()) << ss.status().ToString();
    auto r = (*ss)->Apply({{"checkpoint_completion_target", "0.55"}, {"shared_buffers", "20MB"}});
    ASSERT_FALSE(r.ok());
    EXPECT_THAT(r.status().message(), AllOf(HasSubstr("injected failure at " + step),
                                            HasSubstr("original settings were restored")));
    conn_ = Connect();
    EXPECT_EQ(Snapshot(), before_);
    // Still usable after the failure; then restored for good.
    auto again = (*ss)->Apply({{"checkpoint_timeout", "6min"}});
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_EQ(Show("checkpoint_timeout"), "6min");
    ASSERT_TRUE((*ss)->RestoreAll().ok());
    EXPECT_FALSE(MarkerExists());
    conn_ = Connect();
    EXPECT_EQ(Snapshot(), before_);
  }
}

TEST_F(CellSettingsServerTest, ClusterThatWillNotStartIsRestored) {
  auto meminfo = ReadWholeFile("/proc/meminfo");
  ASSERT_TRUE(meminfo.ok());
  if (meminfo->find("HugePages_Total:       0") == std::string::npos) {
    GTEST_SKIP() << "huge pages are reserved here, so huge_pages=on would start";
  }
  auto ss = ServerSettings::Open(cluster_->Params(), Options());
  ASSERT_TRUE(ss.ok()) << ss.status().ToString();
  // huge_pages = on passes every check a running server makes; then the
  // server cannot start without reserved huge pages.
  auto r = (*ss)->Apply({{"huge_pages", "on"}, {"checkpoint_completion_target", "0.66"}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), AllOf(HasSubstr("did not start"), HasSubstr("put back"),
                                          HasSubstr("original settings were restored")));
  ASSERT_TRUE(cluster_->RunningPid().has_value());
  ASSERT_TRUE((*ss)->RestoreAll().ok());
}

TEST_F(CellSettingsServerTest, KilledRunIsRecoveredFromTheMarker) {
  ServerSettingsOptions o = Options();
  ASSERT_EQ(ApplyAndDie(o, {{"checkpoint_completion_target", "0.45"}, {"max_connections", "33"}},
                        /*restart=*/true),
            0);
  conn_ = Connect();
  EXPECT_EQ(Show("checkpoint_completion_target"), "0.45");
  EXPECT_EQ(Show("max_connections"), "33");
  ASSERT_TRUE(MarkerExists());

  Status s = RecoverInterrupted(cluster_->Params(), o);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_FALSE(MarkerExists());
  EXPECT_TRUE(RecoverInterrupted(cluster_->Params(), o).ok());  // nothing left: no-op
}

TEST_F(CellSettingsServerTest, OpenRecoversAMarkerLeftBehind) {
  ServerSettingsOptions o = Options();
  ASSERT_EQ(ApplyAndDie(o, {{"checkpoint_timeout", "11min"}}, /*restart=*/false), 0);
  EXPECT_EQ(Show("checkpoint_timeout"), "11min");

  auto ss = ServerSettings::Open(cluster_->Params(), o);
  ASSERT_TRUE(ss.ok()) << ss.status().ToString();
  EXPECT_EQ(Show("checkpoint_timeout"), before_.at("checkpoint_timeout"));
  ASSERT_TRUE((*ss)->RestoreAll().ok());
}

TEST_F(CellSettingsServerTest, MarkerOfAnotherServerIsLeftAlone) {
  ASSERT_TRUE(MakeDirs(state_, 0700).ok());
  std::string text = R"({"schema":"pgrig.settings-marker/1","server_id":"42","data_directory":"/x",
    "backup_path":"","originals":{"work_mem":{"in_auto_conf":false,"auto_conf_value":null,
    "setting":"1024","context":"user"}}})";
  ASSERT_TRUE(WriteFileAtomically(MarkerPath(state_), text, 0600).ok());
  Status s = RecoverInterrupted(cluster_->Params(), Options());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), AllOf(HasSubstr("server 42"), HasSubstr(MarkerPath(state_))));
  EXPECT_TRUE(MarkerExists());
  ASSERT_EQ(::unlink(MarkerPath(state_).c_str()), 0);
}

TEST_F(CellSettingsServerTest, NamedServerRestartSettingRefusedWithNothingChanged) {
  // No embedded cluster given: the server counts as one the user named.
  auto ss = ServerSettings::Open(cluster_->Params(), Options(/*embedded=*/false));
  ASSERT_TRUE(ss.ok()) << ss.status().ToString();
  auto r = (*ss)->Apply({{"checkpoint_completion_target", "0.65"}, {"shared_buffers", "20MB"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(r.status().message(), AllOf(HasSubstr("shared_buffers"), HasSubstr("restart"),
                                          HasSubstr("nothing was changed")));
  EXPECT_EQ(Snapshot(), before_);
  EXPECT_EQ(AutoConf(), (std::vector<std::string>{"checkpoint_completion_target=0.8"}));

  // A reload-context setting on a named server is applied when asked, and restored.
  auto ok = (*ss)->Apply({{"checkpoint_completion_target", "0.65"}});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_FALSE(ok->restarted);
  EXPECT_EQ(Show("checkpoint_completion_target"), "0.65");
  ASSERT_TRUE((*ss)->RestoreAll().ok());
}

TEST_F(CellSettingsServerTest, ValueOverriddenPerDatabaseIsAnErrorAndRestored) {
  ASSERT_TRUE(conn_.Exec("ALTER DATABASE pgrig SET work_mem = '5MB'").ok());
  auto ss = ServerSettings::Open(cluster_->Params(), Options());
  ASSERT_TRUE(ss.ok()) << ss.status().ToString();
  auto r = (*ss)->Apply({{"work_mem", "9MB"}});
  ASSERT_TRUE(conn_.Exec("ALTER DATABASE pgrig RESET work_mem").ok());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(r.status().message(), AllOf(HasSubstr("work_mem"), HasSubstr("'database' level"),
                                          HasSubstr("original settings were restored")));
  Status restored = (*ss)->RestoreAll();
  ASSERT_TRUE(restored.ok()) << restored.ToString();
}

TEST_F(CellSettingsServerTest, BadValueRefusedBeforeAnyChange) {
  auto ss = ServerSettings::Open(cluster_->Params(), Options());
  ASSERT_TRUE(ss.ok()) << ss.status().ToString();
  auto r = (*ss)->Apply({{"checkpoint_completion_target", "0.5"}, {"max_connections", "0"}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("max_connections"));
  EXPECT_EQ(Snapshot(), before_);
  ASSERT_TRUE((*ss)->RestoreAll().ok());
}

}  // namespace
}  // namespace pgrig::runner
