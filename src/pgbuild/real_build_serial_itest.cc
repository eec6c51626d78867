// PostgreSQL built for real (issue 29, point 5): the installed server's own
// release tarball (scripts/pg-source.sh fetches it; $PGRIG_TEST_PG_SOURCE
// names another) built with two profiles, `default` by `pgrig pg build` and
// `native` by a tiny plan's [[build]] entry before the plan runs over both
// builds (`builds = [...]`), each build on its own embedded cluster; the
// builds' facts read back from their servers, and the builds compared.  Two
// compiles of the server take 11 to 14 minutes of two cores: `make test`
// runs this test alone as its last stage (pg-build), and `make
// test-pg-build` runs only it (Makefile, docs/testing.md).
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cluster/cluster.h"
#include "common/fs.h"
#include "common/process.h"
#include "pgbuild/builder.h"
#include "support/test_cluster.h"

namespace pgrig::pgbuild {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
namespace fs = std::filesystem;

// The tarball scripts/pg-source.sh fetched: the installed server's version,
// else another of its major (when the archive no longer has the installed
// one's source); "" with `why` set when there is none.
std::string SourceTarball(const cluster::ServerBinaries& installed, std::string* why) {
  if (const char* forced = std::getenv("PGRIG_TEST_PG_SOURCE"); forced && *forced) return forced;
  const std::string dir = "/var/cache/pgrig/pg-source";
  const std::string prefix = fmt::format("postgresql-{}_", installed.major_version);
  const std::string exact = dir + "/" + prefix + installed.version + ".orig.tar.bz2";
  if (fs::exists(exact)) return exact;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with(prefix) && name.ends_with(".orig.tar.bz2")) return e.path().string();
  }
  *why = exact + " is missing: scripts/pg-source.sh (which scripts/setup.sh runs) fetches it";
  return "";
}

std::string LogTail(const std::string& home, const std::string& name) {
  auto log = ReadWholeFile(BuildLog(home, name));
  if (!log.ok()) return "(no log)";
  return log->substr(log->size() > 3000 ? log->size() - 3000 : 0);
}

TEST(RealPostgresBuild, TwoProfilesBuiltStartedAndMeasured) {
  RealProcessRunner runner;
  auto installed = cluster::FindServerBinaries(runner, cluster::ClusterEnv{});
  ASSERT_TRUE(installed.ok()) << installed.status().message();
  std::string why;
  const std::string source = SourceTarball(*installed, &why);
  ASSERT_FALSE(source.empty()) << why;
  auto inspected = InspectSource(source);
  ASSERT_TRUE(inspected.ok()) << inspected.status().message();
  const std::string version = inspected->version;

  const std::string home = testing::MakeTempHome("pgrig-real-build");
  const std::map<std::string, std::string> env = {{"PGRIG_HOME", home}};
  struct Cleanup {
    std::string home;
    ~Cleanup() {
      for (const char* name : {"default", "native"}) {
        (void)testing::RunPgrig({"cluster", "stop", "--pg", name}, {{"PGRIG_HOME", home}});
      }
      fs::remove_all(fs::path(home).parent_path());
    }
  } cleanup{home};

  // `default` by `pgrig pg build`; `native` by the plan below, which makes
  // it before its suite ([[build]]).  One after the other: built side by
  // side (make -j2 each on two cores) they took longer, not shorter.  Both
  // add -O0 to their profile's flags (the last -O wins): this test checks
  // how builds are made, run and compared, not how fast they are, and -O0
  // compiles in about half the time (docs/testing.md, footnote 7).
  const std::vector<std::string> profiles = {"default", "native"};
  auto b = testing::RunPgrig({"pg", "build", source, "--name", "default", "--cflags=-O0"}, env, "",
                             std::chrono::minutes(20));
  ASSERT_EQ(b.exit_code, 0) << b.out << b.err << LogTail(home, "default");
  EXPECT_THAT(b.out, HasSubstr("built default: PostgreSQL " + version));

  // A tiny plan over both builds: native made first, then each build's
  // cluster loaded and measured in turn, the builds recorded and compared.
  const std::string plan = fs::path(home).parent_path().string() + "/builds.toml";
  ASSERT_TRUE(WriteFileAtomically(plan,
                                  "[plan]\nname = \"real-builds\"\nscale = 1\nclients = [2]\n"
                                  "protocols = [\"prepared\"]\nduration_s = 3\niterations = 2\n"
                                  "builds = [\"default\", \"native\"]\n"
                                  "[[workload]]\nname = \"read\"\nbuiltin = \"select-only\"\n"
                                  "[[build]]\nname = \"native\"\nsource = \"" +
                                      source + "\"\nprofile = \"native\"\ncflags = \"-O0\"\n")
                  .ok());
  const std::string out = fs::path(home).parent_path().string() + "/out";
  auto run = testing::RunPgrig({"run", plan, "--out", out}, env, "", std::chrono::minutes(25));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err << LogTail(home, "native");
  EXPECT_THAT(run.out, HasSubstr("build native is made first: PostgreSQL " + version));
  EXPECT_THAT(run.out,
              HasSubstr("pgrig run: built native (PostgreSQL " + version + ", profile native)"));

  for (const std::string& p : profiles) {
    // Only the server and its programs: no psql, no pgbench.
    EXPECT_TRUE(fs::exists(BuildDir(home, p) + "/bin/postgres"));
    EXPECT_TRUE(fs::exists(BuildDir(home, p) + "/bin/pg_config"));
    // (PostgreSQL puts its modules in lib/postgresql/ when the prefix does
    // not say "postgres" or "pgsql", as PGRIG_HOME/pg/NAME does not.)
    EXPECT_TRUE(fs::exists(BuildDir(home, p) + "/lib/postgresql/plpgsql.so"));
    EXPECT_FALSE(fs::exists(BuildDir(home, p) + "/bin/psql"));
  }
  auto list = testing::RunPgrig({"pg", "list", "--json"}, env);
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const nlohmann::json builds = nlohmann::json::parse(list.out);
  ASSERT_EQ(builds.size(), 2u) << list.out;
  for (const nlohmann::json& built : builds) {
    EXPECT_EQ(built["version"], version);
    EXPECT_THAT(built["compiler"].get<std::string>(), StartsWith("gcc ("));
  }

  auto suite_text = ReadWholeFile(out + "/suite.json");
  ASSERT_TRUE(suite_text.ok());
  const nlohmann::json suite = nlohmann::json::parse(*suite_text);
  EXPECT_EQ(suite["complete"], true);
  ASSERT_EQ(suite["runs"].size(), 4u);
  for (const nlohmann::json& r : suite["runs"]) {
    EXPECT_EQ(r["status"], "ok") << r.dump();
    EXPECT_GT(r["result"]["summary"]["tps"].get<double>(), 0) << r["cell"];
  }
  ASSERT_EQ(suite["builds"].size(), 2u);
  for (size_t i = 0; i < profiles.size(); ++i) {
    const std::string& p = profiles[i];
    SCOPED_TRACE("build " + p);
    const nlohmann::json& server = suite["builds"][i]["server"];
    EXPECT_EQ(suite["builds"][i]["name"], p);
    ASSERT_TRUE(server.is_object()) << suite["builds"].dump();
    EXPECT_EQ(server["build"]["bindir"], BuildDir(home, p) + "/bin");
    // The server's own statement of its compiler is the one the build used.
    EXPECT_THAT(server["build"]["compiler"].get<std::string>(), StartsWith("gcc ("));
    const std::string cflags = server["build"]["cflags"].get<std::string>();
    EXPECT_THAT(cflags, HasSubstr("-O0"));
    if (p == "native") {
      EXPECT_THAT(cflags, HasSubstr("-O3"));
      EXPECT_THAT(cflags, ::testing::AnyOf(HasSubstr("-march=native"), HasSubstr("-mcpu=native")));
    } else {
      EXPECT_THAT(cflags, HasSubstr("-O2"));
    }
  }
  auto compare = testing::RunPgrig({"compare", out}, env);
  EXPECT_EQ(compare.exit_code, 0) << compare.out << compare.err;
  EXPECT_THAT(compare.out, HasSubstr("native against default"));
  EXPECT_THAT(compare.out, HasSubstr("read/prepared/default/c2/j2"));
  // The builds' compile flags differ, and compare says so.
  EXPECT_THAT(compare.out, HasSubstr("-O3"));

  // facts reaches a build's server through --pg as well (the suite left
  // native's cluster stopped, as it found it).
  auto started = testing::RunPgrig({"cluster", "start", "--pg", "native"}, env);
  ASSERT_EQ(started.exit_code, 0) << started.err;
  auto facts = testing::RunPgrig({"facts", "--json", "--pg", "native"}, env);
  ASSERT_EQ(facts.exit_code, 0) << facts.err;
  EXPECT_EQ(nlohmann::json::parse(facts.out)["server"]["build"]["bindir"],
            BuildDir(home, "native") + "/bin");
  for (const std::string& p : profiles) {
    auto stop = testing::RunPgrig({"cluster", "stop", "--pg", p}, env);
    ASSERT_EQ(stop.exit_code, 0) << stop.err;
  }

  for (const std::string& p : profiles) {
    auto removed = testing::RunPgrig({"pg", "remove", p}, env);
    ASSERT_EQ(removed.exit_code, 0) << removed.err;
    EXPECT_FALSE(fs::exists(BuildDir(home, p)));
    EXPECT_FALSE(fs::exists(cluster::BuildClusterHome(home, p)));
  }
}

}  // namespace
}  // namespace pgrig::pgbuild
