// What the runner's integration tests share: small plans, files, and a
// private cluster that serves as the embedded cluster (PGRIG_HOME) and as a
// named server, with the two settings its plans change.
#ifndef PGRIG_RUNNER_RUNNER_ITEST_UTIL_H_
#define PGRIG_RUNNER_RUNNER_ITEST_UTIL_H_

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/fs.h"
#include "support/test_cluster.h"

namespace pgrig::run_itest {

// A plan of two workloads, two clients, `duration_s` per run.
inline std::string TinyPlan(int duration_s, int iterations, const std::string& extra_plan_keys = "",
                            const std::string& extra_workloads = "") {
  return "[plan]\nname = \"tiny\"\nscale = 1\nclients = [2]\nthreads = [1]\nduration_s = " +
         std::to_string(duration_s) + "\niterations = " + std::to_string(iterations) + "\n" +
         extra_plan_keys +
         "\n[[workload]]\nname = \"read\"\nbuiltin = \"select-only\"\n"
         "\n[[workload]]\nname = \"write\"\nbuiltin = \"simple-update\"\n" +
         extra_workloads;
}

// The directories TempDir made, removed when the test program exits: after
// every test's own mounts (SmallTmpfs) are gone, and whether or not the test
// that made one got to its end.
struct TempDirsRemovedAtExit {
  std::vector<std::string> dirs;
  ~TempDirsRemovedAtExit() {
    for (const std::string& d : dirs) {
      std::error_code ec;
      std::filesystem::remove_all(d, ec);
    }
  }
};
inline TempDirsRemovedAtExit& TempDirsMade() {
  static TempDirsRemovedAtExit made;
  return made;
}

// A new directory under /tmp (the server account can read the plan's files).
inline std::string TempDir() {
  const std::string dir = testing::MakeTempHome("pgrig-run-itest");
  std::filesystem::create_directories(dir);
  TempDirsMade().dirs.push_back(std::filesystem::path(dir).parent_path().string());
  return dir;
}

inline std::string Text(const std::string& path) {
  auto t = ReadWholeFile(path);
  return t.ok() ? *t : std::string();
}

inline void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// The document at `path`, or null when it is missing or not JSON.
inline nlohmann::json ReadJson(const std::string& path) {
  auto t = ReadWholeFile(path);
  if (!t.ok()) return nullptr;
  try {
    return nlohmann::json::parse(*t);
  } catch (const nlohmann::json::exception&) {
    return nullptr;  // a reader never sees a half-written file; null fails the caller's checks
  }
}

// Waits up to two minutes until the suite.json at `path` holds a run.
inline bool WaitForFirstRun(const std::string& path) {
  const int64_t deadline = MonotonicNanos() + 120'000'000'000;
  while (MonotonicNanos() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const nlohmann::json s = ReadJson(path);
    if (s.is_object() && s["runs"].size() >= 1) return true;
  }
  return false;
}

// A small tmpfs mounted for one test (root only; `mounted` is false where
// mount is not allowed), unmounted whatever the test does.
struct SmallTmpfs {
  std::string dir;
  bool mounted = false;
  explicit SmallTmpfs(const std::string& d) : dir(d) {
    std::filesystem::create_directories(dir);
    mounted = testing::RunProgram("mount", {"-t", "tmpfs", "-o", "size=8m", "tmpfs", dir}, {}, "",
                                  std::chrono::seconds(10))
                  .exit_code == 0;
  }
  ~SmallTmpfs() {
    if (mounted) {
      (void)testing::RunProgram("umount", {dir}, {}, "", std::chrono::seconds(10));
    }
  }
  SmallTmpfs(const SmallTmpfs&) = delete;
  SmallTmpfs& operator=(const SmallTmpfs&) = delete;
  // Writes until the file system is full.
  void Fill() const {
    std::ofstream filler(dir + "/filler", std::ios::binary);
    const std::string block(1 << 16, 'x');
    for (int i = 0; i < 1000 && filler.write(block.data(), block.size()); ++i) {
    }
  }
  void Unfill() const { std::filesystem::remove(dir + "/filler"); }
};

// A private cluster (started once per test program by the derived suite's
// SetUpTestSuite) that is the embedded cluster of every pgrig the test
// runs: PGRIG_HOME points at it during each test.  originals_ holds its
// max_wal_size and shared_buffers as the test began.
template <typename Suite>
class SettingsClusterTest : public testing::PrivateClusterTest<Suite> {
 protected:
  using Base = testing::PrivateClusterTest<Suite>;

  void SetUp() override {
    Base::SetUp();
    if (const char* h = std::getenv("PGRIG_HOME")) saved_home_ = h;
    ::setenv("PGRIG_HOME", Base::cluster_->home().c_str(), 1);
    dir_ = TempDir();
    originals_ = Settings();
    ASSERT_FALSE(originals_.empty());
  }

  void TearDown() override {
    if (saved_home_) {
      ::setenv("PGRIG_HOME", saved_home_->c_str(), 1);
    } else {
      ::unsetenv("PGRIG_HOME");
    }
    (void)RemoveTree(std::filesystem::path(dir_).parent_path());
  }

  // The two settings the plans change, as pg_settings shows them:
  // "max_wal_size=1024 false,shared_buffers=16384 false" (the second word
  // is pending_restart); "" when the server cannot be reached.
  std::string Settings() {
    auto c = pg::Connect(Base::cluster_->Params());
    if (!c.ok()) return "";
    auto r = c->Exec(
        "SELECT string_agg(name || '=' || setting || ' ' || pending_restart, ',' ORDER BY name) "
        "FROM pg_settings WHERE name IN ('max_wal_size', 'shared_buffers')");
    return r.ok() ? std::string(r->Get(0, 0)) : "";
  }

  // The settings line of a plan that sets max_wal_size (and, unless
  // `reload_only`, shared_buffers: a restart) to values other than the
  // originals.
  std::string SettingsKey(bool reload_only) {
    const bool wal_1g = originals_.find("max_wal_size=1024 ") != std::string::npos;
    std::string settings = std::string("max_wal_size = \"") + (wal_1g ? "1536MB" : "1GB") + "\"";
    if (!reload_only) {
      const bool sb_128m = originals_.find("shared_buffers=16384 ") != std::string::npos;
      settings += std::string(", shared_buffers = \"") + (sb_128m ? "144MB" : "128MB") + "\"";
    }
    return "settings = { " + settings + " }\n";
  }

  // The pgrig backends still connected, after waiting up to 5 s for them to
  // go (none may outlive a pgrig process); -1 when the server is down.
  int PgrigBackends() {
    auto c = pg::Connect(Base::cluster_->Params());
    if (!c.ok()) return -1;
    std::string left;
    for (int i = 0; i < 50; ++i) {
      auto v = c->QueryValue(
          "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'pgrig%' AND pid <> "
          "pg_backend_pid()");
      if (v.ok() && *v == "0") return 0;
      if (v.ok()) left = *v;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return left.empty() ? -1 : std::atoi(left.c_str());
  }

  std::optional<std::string> saved_home_;
  std::string dir_;
  std::string originals_;
};

}  // namespace pgrig::run_itest

#endif  // PGRIG_RUNNER_RUNNER_ITEST_UTIL_H_
