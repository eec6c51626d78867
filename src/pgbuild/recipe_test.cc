// The build profiles' rules (pgbuild/recipe.h).
#include "pgbuild/recipe.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace pgrig::pgbuild {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

// Debian 12's postgresql-15 (15.18-0+deb12u1): `pg_config --configure`.
constexpr char kDebianConfigure[] =
    "'--build=x86_64-linux-gnu' '--prefix=/usr' '--includedir=${prefix}/include' "
    "'--mandir=${prefix}/share/man' '--sysconfdir=/etc' '--disable-option-checking' "
    "'--disable-silent-rules' '--libdir=${prefix}/lib/x86_64-linux-gnu' '--with-tcl' "
    "'--with-perl' '--with-python' '--with-pam' '--with-openssl' '--with-libxml' "
    "'--with-libxslt' '--bindir=/usr/lib/postgresql/15/bin' "
    "'--with-extra-version= (Debian 15.18-0+deb12u1)' '--enable-nls' '--enable-thread-safety' "
    "'--enable-debug' '--enable-dtrace' '--disable-rpath' '--with-uuid=e2fs' '--with-gnu-ld' "
    "'--with-gssapi' '--with-ldap' '--with-pgport=5432' "
    "'--with-system-tzdata=/usr/share/zoneinfo' 'AWK=mawk' 'MKDIR_P=/bin/mkdir -p' "
    "'PROVE=/usr/bin/prove' 'CFLAGS=-g -O2 -fstack-protector-strong -Wformat "
    "-Werror=format-security -fno-omit-frame-pointer' 'LDFLAGS=-Wl,-z,relro -Wl,-z,now' "
    "'--enable-tap-tests' '--with-icu' '--with-llvm' 'LLVM_CONFIG=/usr/bin/llvm-config-14' "
    "'CLANG=/usr/bin/clang-14' '--with-lz4' '--with-zstd' '--with-systemd' '--with-selinux' "
    "'build_alias=x86_64-linux-gnu' 'CPPFLAGS=-Wdate-time -D_FORTIFY_SOURCE=2'";

BuildMachine X86(bool llvm = true) {
  return {.arch = "x86_64",
          .llvm_config = llvm ? "/usr/bin/llvm-config" : "",
          .clang = llvm ? "/usr/bin/clang" : "",
          .dtrace = false,
          .distro_configure = kDebianConfigure,
          .distro_cflags = "-Wall -g -O2"};
}

BuildMachine Arm() {
  BuildMachine m = X86();
  m.arch = "aarch64";
  return m;
}

TEST(Recipe, ProfilesByNameAndAnUnknownOneListsThem) {
  for (Profile p : {Profile::kDefault, Profile::kDistro, Profile::kNative, Profile::kLse,
                    Profile::kLto, Profile::kLlvm}) {
    auto back = ParseProfile(ProfileName(p));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, p);
  }
  auto bad = ParseProfile("fast");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(),
              HasSubstr("\"fast\" (one of: default, distro, native, lse, lto, llvm)"));
}

TEST(Recipe, DefaultIsConfiguresOwnAndExtraCflagsKeepItsO2) {
  auto r = ResolveRecipe({}, X86());
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->configure_args.empty());
  EXPECT_TRUE(r->vars.empty());
  r = ResolveRecipe({.profile = Profile::kDefault, .extra_cflags = "-fno-plt"}, X86());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->vars["CFLAGS"], "-O2 -fno-plt");
}

TEST(Recipe, NativeTunesForTheCpuOnEachArchitecture) {
  EXPECT_EQ(ResolveRecipe({.profile = Profile::kNative}, X86())->vars["CFLAGS"],
            "-O3 -march=native");
  EXPECT_EQ(ResolveRecipe({.profile = Profile::kNative}, Arm())->vars["CFLAGS"],
            "-O3 -mcpu=native");
  auto r = ResolveRecipe({.profile = Profile::kNative, .extra_cflags = "-g"}, Arm());
  EXPECT_EQ(r->vars["CFLAGS"], "-O3 -mcpu=native -g");
}

TEST(Recipe, LseOnlyOnArm64) {
  auto r = ResolveRecipe({.profile = Profile::kLse}, Arm());
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(r->vars["CFLAGS"], HasSubstr("+lse"));
  auto x = ResolveRecipe({.profile = Profile::kLse}, X86());
  ASSERT_FALSE(x.ok());
  EXPECT_THAT(x.status().message(), HasSubstr("lse profile is for arm64"));
  EXPECT_THAT(x.status().message(), HasSubstr("this one is x86_64"));
}

TEST(Recipe, LtoUsesGccsArchiverWrappers) {
  auto r = ResolveRecipe({.profile = Profile::kLto}, X86());
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(r->vars["CFLAGS"], HasSubstr("-flto"));
  EXPECT_THAT(r->vars["LDFLAGS"], HasSubstr("-flto"));
  EXPECT_EQ(r->vars["AR"], "gcc-ar");
  EXPECT_EQ(r->vars["RANLIB"], "gcc-ranlib");
}

TEST(Recipe, LlvmNeedsLlvmsDevelopmentFilesAndNamesThePackage) {
  auto r = ResolveRecipe({.profile = Profile::kLlvm}, X86());
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(r->configure_args, Contains("--with-llvm"));
  EXPECT_EQ(r->vars["LLVM_CONFIG"], "/usr/bin/llvm-config");
  EXPECT_EQ(r->vars["CLANG"], "/usr/bin/clang");
  auto none = ResolveRecipe({.profile = Profile::kLlvm}, X86(/*llvm=*/false));
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("apt-get install llvm-dev clang"));
}

// Only what pgrig runs is made: the server first, then what initdb and
// pg_ctl need; the JIT provider only when LLVM is configured.
TEST(Recipe, MakesTheServerAndItsProgramsOnly) {
  const std::vector<std::string> dirs = ResolveRecipe({}, X86())->make_dirs;
  ASSERT_GE(dirs.size(), 3u);
  // The libraries postgres links before the server, or a parallel make of
  // the server races making them.
  EXPECT_EQ(dirs[0], "src/port");
  EXPECT_EQ(dirs[1], "src/common");
  EXPECT_EQ(dirs[2], "src/backend");
  for (const char* d : {"src/pl/plpgsql", "src/backend/snowball", "src/interfaces/libpq",
                        "src/bin/initdb", "src/bin/pg_ctl", "src/bin/pg_config", "src/timezone"}) {
    EXPECT_THAT(dirs, Contains(d));
  }
  EXPECT_THAT(dirs, Not(Contains("src/bin/psql")));
  EXPECT_THAT(dirs, Not(Contains("src/backend/jit/llvm")));
  EXPECT_THAT(ResolveRecipe({.profile = Profile::kLlvm}, X86())->make_dirs,
              Contains("src/backend/jit/llvm"));
  EXPECT_THAT(ResolveRecipe({.profile = Profile::kDistro}, X86())->make_dirs,
              Contains("src/backend/jit/llvm"));  // Debian's configure has --with-llvm
}

TEST(Recipe, DistroKeepsWhatShapesTheCodeAndSaysWhatItDrops) {
  auto r = ResolveRecipe({.profile = Profile::kDistro}, X86());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->vars["CFLAGS"],
            "-g -O2 -fstack-protector-strong -Wformat -Werror=format-security "
            "-fno-omit-frame-pointer");
  EXPECT_EQ(r->vars["CPPFLAGS"], "-Wdate-time -D_FORTIFY_SOURCE=2");
  EXPECT_EQ(r->vars["LDFLAGS"], "-Wl,-z,relro -Wl,-z,now");
  // This machine's LLVM, not the package builder's paths.
  EXPECT_EQ(r->vars["LLVM_CONFIG"], "/usr/bin/llvm-config");
  EXPECT_EQ(r->configure_args,
            (std::vector<std::string>{"--enable-thread-safety", "--enable-debug", "--with-gnu-ld",
                                      "--with-system-tzdata=/usr/share/zoneinfo", "--with-llvm"}));
  auto dropped = [&r](const std::string& prefix) {
    return std::any_of(r->dropped.begin(), r->dropped.end(),
                       [&prefix](const std::string& d) { return d.starts_with(prefix); });
  };
  EXPECT_TRUE(dropped("--prefix=/usr: where the package installs"));
  EXPECT_TRUE(dropped("--with-python: a feature a benchmark server does not use"));
  EXPECT_TRUE(dropped("--enable-dtrace: no dtrace program here"));
  EXPECT_TRUE(dropped("--with-extra-version= (Debian 15.18-0+deb12u1): the package's version"));
  EXPECT_TRUE(dropped("AWK=mawk: a build tool's path"));
  // Without LLVM here the option goes too, and says why.
  auto bare = ResolveRecipe({.profile = Profile::kDistro}, X86(/*llvm=*/false));
  ASSERT_TRUE(bare.ok());
  EXPECT_THAT(bare->configure_args, Not(Contains("--with-llvm")));
  EXPECT_FALSE(bare->vars.contains("LLVM_CONFIG"));
  // No installed server: nothing to copy.
  BuildMachine none = X86();
  none.distro_configure.clear();
  EXPECT_THAT(ResolveRecipe({.profile = Profile::kDistro}, none).status().message(),
              HasSubstr("no pg_config answered here"));
}

TEST(Recipe, ConfigureOptionsAreCheckedAndAppended) {
  auto r = ResolveRecipe({.extra_configure = {"--with-blocksize=16"}}, X86());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->configure_args.back(), "--with-blocksize=16");
  EXPECT_THAT(ResolveRecipe({.extra_configure = {"with-llvm"}}, X86()).status().message(),
              HasSubstr("starts with \"--\""));
  EXPECT_THAT(ResolveRecipe({.extra_configure = {"--prefix=/usr"}}, X86()).status().message(),
              HasSubstr("under PGRIG_HOME/pg/NAME itself"));
}

TEST(Recipe, QuotedWordsSplitAsTheShellWould) {
  auto w = SplitQuotedWords("'--a' 'B=x y'  c'd e'f\n'g'");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(*w, (std::vector<std::string>{"--a", "B=x y", "cd ef", "g"}));
  EXPECT_TRUE(SplitQuotedWords("")->empty());
  auto bad = SplitQuotedWords("'--a' 'CFLAGS=-O2");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("an unclosed quote at character 7"));
}

}  // namespace
}  // namespace pgrig::pgbuild
