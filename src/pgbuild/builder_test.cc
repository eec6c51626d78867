// The build driver (pgbuild/builder.h) on a stand-in source tree: a
// configure script and Makefile that do what PostgreSQL's do in shape
// (write a Makefile, compile, install bin/postgres and bin/pg_config) in a
// second, so that the driver's checks, steps, log, clean-up and
// cancellation are tested here; building PostgreSQL itself is measured in
// docs/pg-build.md.
#include "pgbuild/builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "common/fs.h"
#include "common/process.h"
#include "pgbuild/stand_in_tree_for_test.h"

namespace pgrig::pgbuild {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class BuilderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/pgrig-pgbuild-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    home_ = dir_ + "/home";
    tree_ = dir_ + "/postgresql-15.99";
    WriteStandInTree(tree_, ResolveRecipe({}, BuildMachine{}).value().make_dirs);
  }
  void TearDown() override { fs::remove_all(dir_); }

  BuildSpec Spec(const std::string& name, const std::string& source = "") {
    return {.source = source.empty() ? tree_ : source,
            .name = name,
            .request = {},
            .home = home_,
            .jobs = 2};
  }
  static BuildMachine Machine() { return {.arch = "x86_64"}; }
  // What is under PGRIG_HOME/pg besides the logs.
  std::vector<std::string> Left() {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(BuildsRoot(home_), ec)) {
      if (e.path().filename() != "logs") out.push_back(e.path().filename().string());
    }
    return out;
  }

  std::string dir_, home_, tree_;
};

TEST(BuildName, LettersDigitsAndAFewMarks) {
  for (const char* ok : {"native", "pg15.18-lto", "a", "X_1"}) {
    EXPECT_TRUE(ValidateBuildName(ok).ok()) << ok;
  }
  for (const char* bad : {"", "-x", ".hidden", "a/b", "a b", "../up"}) {
    EXPECT_FALSE(ValidateBuildName(bad).ok()) << bad;
  }
  EXPECT_FALSE(ValidateBuildName(std::string(65, 'a')).ok());
}

TEST(MadeAsRequested, SameProfileFlagsOptionsAndVersion) {
  Manifest m;
  m.name = "lto";
  m.version = "15.18";
  m.profile = "lto";
  m.cflags = "-O2 -flto=auto -g";
  m.configure_args = {"--prefix=/p", "--with-lz4"};
  EXPECT_TRUE(CheckMadeAsRequested(m, {.profile = Profile::kLto}, "15.18").ok());
  EXPECT_TRUE(
      CheckMadeAsRequested(
          m, {.profile = Profile::kLto, .extra_cflags = "-g", .extra_configure = {"--with-lz4"}},
          "")
          .ok());
  Status s = CheckMadeAsRequested(
      m,
      {.profile = Profile::kNative, .extra_cflags = "-fno-plt", .extra_configure = {"--with-llvm"}},
      "16.4");
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("build \"lto\" exists but was made differently"));
  EXPECT_THAT(s.message(), HasSubstr("profile lto, not native"));
  EXPECT_THAT(s.message(), HasSubstr("do not end in \"-fno-plt\""));
  EXPECT_THAT(s.message(), HasSubstr("configured without --with-llvm"));
  EXPECT_THAT(s.message(), HasSubstr("PostgreSQL 15.18, not 16.4"));
  EXPECT_THAT(s.message(), HasSubstr("pgrig pg remove lto"));
}

TEST(FirstErrorLine, TheCompilersOrConfiguresLineBeforeMakes) {
  EXPECT_EQ(FirstErrorLine("checking... yes\nconfigure: error: readline library not found\n"),
            "configure: error: readline library not found");
  EXPECT_EQ(
      FirstErrorLine("gcc -c x.c\nx.c:3:1: error: expected ';'\nmake[2]: *** [x.o] Error 1\n"),
      "x.c:3:1: error: expected ';'");
  EXPECT_EQ(FirstErrorLine("ld: cannot find -lfoo\nmake: *** [all] Error 2\n"),
            "make: *** [all] Error 2");
  // configure's warning banners are not the error (a 2026-12-05 build's
  // log: the real line was make's, 1,800 lines later).
  EXPECT_EQ(
      FirstErrorLine("*** Without Bison you will not be able to build PostgreSQL from Git\n"
                     "make: *** No rule to make target 'x.a', needed by 'postgres'.  Stop.\n"),
      "make: *** No rule to make target 'x.a', needed by 'postgres'.  Stop.");
  EXPECT_EQ(FirstErrorLine("all fine\n"), "");
}

TEST_F(BuilderTest, InspectsTreesAndTarballsAndRefusesOthers) {
  auto t = InspectSource(tree_);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_FALSE(t->tarball);
  EXPECT_EQ(t->version, "15.99");

  const std::string tgz = dir_ + "/postgresql-15.99.tar.gz";
  ASSERT_EQ(RealProcessRunner()
                .Run({.argv = {"tar", "-czf", tgz, "-C", dir_, "postgresql-15.99"}})
                ->exit_code,
            0);
  auto z = InspectSource(tgz);
  ASSERT_TRUE(z.ok()) << z.status().message();
  EXPECT_TRUE(z->tarball);
  EXPECT_EQ(z->version, "15.99");
  EXPECT_EQ(z->top_dir, "postgresql-15.99");

  fs::create_directories(dir_ + "/other");
  std::ofstream(dir_ + "/other/README") << "not postgres\n";
  EXPECT_THAT(InspectSource(dir_ + "/other").status().message(),
              HasSubstr("is not a PostgreSQL source tree"));
  const std::string junk = dir_ + "/other.tar.gz";
  ASSERT_EQ(
      RealProcessRunner().Run({.argv = {"tar", "-czf", junk, "-C", dir_, "other"}})->exit_code, 0);
  EXPECT_THAT(InspectSource(junk).status().message(),
              HasSubstr("is not a PostgreSQL release tarball"));
  std::ofstream(dir_ + "/bad.tar.xz") << "not a tarball";
  EXPECT_THAT(InspectSource(dir_ + "/bad.tar.xz").status().message(),
              HasSubstr("is not a readable tarball"));
  EXPECT_THAT(InspectSource(dir_ + "/other/README").status().message(),
              HasSubstr("neither a PostgreSQL source tree nor a release tarball"));
  EXPECT_EQ(InspectSource(dir_ + "/missing").status().code(), StatusCode::kNotFound);
}

TEST_F(BuilderTest, FlagsThatDoNotCompileAreRefusedWithTheCompilersWords) {
  BuildRecipe good;
  good.vars["CFLAGS"] = "-O2";
  EXPECT_TRUE(CheckFlagsCompile("gcc", good).ok());
  BuildRecipe bad;
  bad.vars["CFLAGS"] = "-O2 -mno-such-flag-pgrig";
  const Status s = CheckFlagsCompile("gcc", bad);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("the flags do not compile a test program"));
  EXPECT_THAT(s.message(), HasSubstr("-mno-such-flag-pgrig"));
}

TEST_F(BuilderTest, BuildsListsRefusesTheSameNameAndRemoves) {
  std::vector<std::string> lines;
  BuildSpec spec = Spec("first");
  spec.request.extra_cflags = "-fno-plt";
  auto m =
      BuildPostgres(spec, Machine(), {.line = [&](const std::string& l) { lines.push_back(l); }});
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->version, "15.99");
  EXPECT_EQ(m->profile, "default");
  EXPECT_EQ(m->cflags, "-O2 -fno-plt");
  EXPECT_EQ(m->pg_config_cflags, "-O2 stand-in");
  EXPECT_THAT(m->compiler, HasSubstr("gcc"));
  EXPECT_GT(m->size_bytes, 0u);
  ASSERT_EQ(lines.size(), 3u);  // configure, compile, install (a tree is not unpacked)
  EXPECT_THAT(lines[0], HasSubstr("configure: PostgreSQL 15.99, profile default"));
  EXPECT_THAT(lines[1], HasSubstr("compile: make -j2"));
  // The log has every step's output; the work directory is gone.
  auto log = ReadWholeFile(BuildLog(home_, "first"));
  ASSERT_TRUE(log.ok());
  EXPECT_THAT(*log, HasSubstr("configure args: --prefix=" + BuildDir(home_, "first")));
  EXPECT_THAT(*log, HasSubstr("CFLAGS=-O2 -fno-plt"));
  EXPECT_THAT(*log, HasSubstr("compiling"));
  // Only the server's directories were made: each one, nothing else.
  const std::vector<std::string> dirs = ResolveRecipe({}, Machine())->make_dirs;
  for (const std::string& d : dirs) {
    if (d != "src/backend" && d != "src/bin/pg_config") {
      EXPECT_THAT(*log, HasSubstr("made " + home_ + "/pg/.work-first/build/" + d)) << d;
    }
  }
  EXPECT_THAT(*log, ::testing::Not(HasSubstr("made psql")));
  EXPECT_TRUE(fs::exists(BuildDir(home_, "first") + "/bin/pg_config"));
  EXPECT_EQ(Left(), std::vector<std::string>{"first"});

  // The same name again: refused before anything is touched.
  auto again = BuildPostgres(Spec("first"), Machine(), {});
  ASSERT_FALSE(again.ok());
  EXPECT_THAT(again.status().message(), HasSubstr("a build named \"first\" exists"));
  EXPECT_THAT(ReadWholeFile(BuildLog(home_, "first")).value(), HasSubstr("compiling"));

  std::vector<ListedBuild> listed = ListBuilds(home_);
  ASSERT_EQ(listed.size(), 1u);
  ASSERT_TRUE(listed[0].manifest.has_value()) << listed[0].error;
  EXPECT_EQ(listed[0].manifest->cflags, "-O2 -fno-plt");
  EXPECT_EQ(listed[0].manifest->binary.path, BuildDir(home_, "first") + "/bin/postgres");

  // A damaged manifest is listed with its error, not a crash.
  std::ofstream(BuildDir(home_, "first") + "/" + kManifestFile) << "{\"schema\": 3";
  listed = ListBuilds(home_);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_FALSE(listed[0].manifest.has_value());
  EXPECT_THAT(listed[0].error, HasSubstr("not JSON"));

  EXPECT_TRUE(RemoveBuild(home_, "first").ok());
  EXPECT_TRUE(Left().empty());
  EXPECT_FALSE(fs::exists(BuildLog(home_, "first")));
  EXPECT_EQ(RemoveBuild(home_, "first").code(), StatusCode::kNotFound);
}

TEST_F(BuilderTest, BuildsFromATarball) {
  const std::string tbz = dir_ + "/postgresql-15.99.tar.gz";
  ASSERT_EQ(RealProcessRunner()
                .Run({.argv = {"tar", "-czf", tbz, "-C", dir_, "postgresql-15.99"}})
                ->exit_code,
            0);
  std::vector<std::string> lines;
  auto m = BuildPostgres(Spec("fromtar", tbz), Machine(),
                         {.line = [&](const std::string& l) { lines.push_back(l); }});
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->source, tbz);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_THAT(lines[0], HasSubstr("unpacking " + tbz));
  EXPECT_TRUE(fs::exists(BuildDir(home_, "fromtar") + "/bin/postgres"));
  EXPECT_EQ(Left(), std::vector<std::string>{"fromtar"});
}

TEST_F(BuilderTest, ChecksFailBeforeAnythingIsCreated) {
  BuildSpec lse = Spec("x");
  lse.request.profile = Profile::kLse;
  EXPECT_THAT(BuildPostgres(lse, Machine(), {}).status().message(), HasSubstr("arm64"));
  BuildSpec flags = Spec("x");
  flags.request.extra_cflags = "-mno-such-flag-pgrig";
  EXPECT_THAT(BuildPostgres(flags, Machine(), {}).status().message(), HasSubstr("do not compile"));
  EXPECT_THAT(BuildPostgres(Spec("x", dir_ + "/missing"), Machine(), {}).status().message(),
              HasSubstr("missing"));
  EXPECT_THAT(BuildPostgres(Spec("../x"), Machine(), {}).status().message(),
              HasSubstr("build name"));
  BuildSpec cc = Spec("x");
  cc.cc = "no-such-cc-pgrig";
  EXPECT_THAT(BuildPostgres(cc, Machine(), {}).status().message(), HasSubstr("no C compiler"));
  EXPECT_FALSE(fs::exists(home_));  // not even PGRIG_HOME/pg
}

TEST_F(BuilderTest, AFailedStepSaysWhyAndLeavesOnlyTheLog) {
  std::ofstream(tree_ + "/fail-configure") << "";
  auto c = BuildPostgres(Spec("broken"), Machine(), {});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("configure failed (exit 1; log "));
  EXPECT_THAT(c.status().message(), HasSubstr("configure: error: readline library not found"));
  EXPECT_TRUE(Left().empty());
  EXPECT_TRUE(fs::exists(BuildLog(home_, "broken")));

  fs::remove(tree_ + "/fail-configure");
  std::ofstream(tree_ + "/fail-make") << "";
  auto m = BuildPostgres(Spec("broken"), Machine(), {});
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("compile failed"));
  EXPECT_THAT(m.status().message(), HasSubstr("x.c:1:1: error: expected \";\""));
  EXPECT_TRUE(Left().empty());
}

TEST_F(BuilderTest, ACancelStopsMakeAndLeavesOnlyTheLog) {
  std::ofstream(tree_ + "/slow-make") << "";
  std::atomic<bool> cancel{false};
  std::thread t([&cancel] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    cancel = true;
  });
  const auto start = std::chrono::steady_clock::now();
  auto m = BuildPostgres(Spec("stopped"), Machine(), {}, &cancel);
  t.join();
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kAborted);
  EXPECT_THAT(m.status().message(), HasSubstr("was interrupted; the build was stopped"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15));
  EXPECT_TRUE(Left().empty());
}

}  // namespace
}  // namespace pgrig::pgbuild
