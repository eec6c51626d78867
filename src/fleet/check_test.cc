// The pure parts of `pgrig fleet check`: reading what a host's pgrig and
// sha256sum print, and the content-addressed name of a copy.  The checks
// themselves run against real sshd hosts in check_itest.cc.
#include "fleet/check.h"

#include <gtest/gtest.h>

namespace pgrig::fleet {
namespace {

const std::string kSha = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

TEST(FleetCheckParse, VersionLine) {
  EXPECT_EQ(ParseVersionLine("pgrig 0.1.0\n"), "0.1.0");
  EXPECT_EQ(ParseVersionLine("  pgrig 1.2.3  "), "1.2.3");
  EXPECT_EQ(ParseVersionLine("pgbench (PostgreSQL) 15.18\n"), std::nullopt);
  EXPECT_EQ(ParseVersionLine("pgrig\n"), std::nullopt);
  EXPECT_EQ(ParseVersionLine(""), std::nullopt);
}

TEST(FleetCheckParse, Sha256Line) {
  EXPECT_EQ(ParseSha256Line(kSha + "  /home/u/.pgrig/bin/pgrig-0.1.0\n"), kSha);
  EXPECT_EQ(ParseSha256Line(kSha + "\n"), kSha);
  // Not a hash: wrong length, upper case (sha256sum prints lower), junk, nothing.
  EXPECT_EQ(ParseSha256Line(kSha.substr(1) + "  f\n"), std::nullopt);
  std::string upper = kSha;
  upper[10] = 'A';
  EXPECT_EQ(ParseSha256Line(upper + "  f\n"), std::nullopt);
  EXPECT_EQ(ParseSha256Line("sha256sum: /x: No such file or directory\n"), std::nullopt);
  EXPECT_EQ(ParseSha256Line(""), std::nullopt);
}

TEST(FleetCheckParse, CopyIsNamedByVersionAndContent) {
  LocalPgrig local{.version = "0.1.0", .arch = "x86_64", .exe = "/usr/bin/pgrig", .sha256 = kSha};
  EXPECT_EQ(InstalledCopyPath("/home/u/.pgrig/bin", local),
            "/home/u/.pgrig/bin/pgrig-0.1.0-0123456789abcdef");
}

}  // namespace
}  // namespace pgrig::fleet
