// `pgrig fleet check` end to end: the pgrig executable of this build drives
// real sshd servers in network namespaces (tests/fleet/netns_hosts.h).
// The hosts share this machine's filesystem, so a binary copied "there" is
// this build's and runs; each host gets its own install_dir under the
// harness's temporary directory.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "common/fs.h"
#include "common/strings.h"
#include "fleet/netns_hosts.h"
#include "support/test_cluster.h"

namespace pgrig::fleet {
namespace {

using pgrig::testing::NetnsHosts;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

std::string FleetFile(const NetnsHosts& hosts, const std::vector<std::string>& pgrig_paths) {
  std::string f = "[fleet]\nplan = \"quick\"\nssh_config = \"" + hosts.ssh_config() +
                  "\"\nconnect_timeout = 3\n";
  for (size_t i = 0; i < pgrig_paths.size(); ++i) {
    const auto& h = hosts.hosts()[i];
    f += "\n[[host]]\nlabel = \"box" + std::to_string(i) + "\"\nssh = \"" + h.alias +
         "\"\nrole = \"sut\"\nusd_per_hour = 0.1\npgrig = \"" + pgrig_paths[i] +
         "\"\ninstall_dir = \"" + h.dir + "/bin\"\n";
  }
  std::string path = hosts.dir() + "/fleet.toml";
  EXPECT_TRUE(WriteFileAtomically(path, f).ok());
  return path;
}

std::string LineFor(const std::string& out, const std::string& label) {
  for (const std::string& line : Split(out, '\n')) {
    if (line.rfind(label + " ", 0) == 0) return line;
  }
  return "";
}

TEST(FleetCheck, ReadyHostAndCopiedBinary) {
  PGRIG_START_NETNS_HOSTS(h, 2);
  // box0 has this build's pgrig; box1 has none at the path its [[host]] names.
  std::string file = FleetFile(h, {pgrig::testing::PgrigExe(), h.dir() + "/missing/pgrig"});
  ProcessResult r = pgrig::testing::RunPgrig({"fleet", "check", file});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(LineFor(r.out, "box0"), HasSubstr("ready")) << r.out;
  std::string box1 = LineFor(r.out, "box1");
  EXPECT_THAT(box1, HasSubstr("copied")) << r.out;
  EXPECT_THAT(box1, HasSubstr("no working pgrig")) << r.out;
  std::string copied = h.hosts()[1].dir + "/bin/pgrig-";
  EXPECT_THAT(box1, HasSubstr(copied)) << r.out;
  // The copy is there, executable, and it is this build.
  auto listing = h.Ssh(1, {"sh", "-c", "ls \"$0\"/bin", h.hosts()[1].dir});
  ASSERT_TRUE(listing.success()) << listing.err;
  std::vector<std::string> files;
  for (const std::string& l : Split(listing.out, '\n')) {
    if (!Trim(l).empty()) files.push_back(std::string(Trim(l)));
  }
  ASSERT_EQ(files.size(), 1u) << listing.out;  // no temporary file left behind
  // Named by version and content: pgrig-<version>-<16 hex digits of its SHA-256>.
  EXPECT_THAT(files[0], MatchesRegex("pgrig-[0-9.]+-[0-9a-f]{16}"));
  const std::string copy = h.hosts()[1].dir + "/bin/" + files[0];
  auto version = h.Ssh(1, {copy, "--version"});
  EXPECT_TRUE(version.success());
  EXPECT_THAT(version.out, MatchesRegex("pgrig [0-9.]+\n"));
  auto sums = h.Ssh(1, {"sha256sum", copy, pgrig::testing::PgrigExe()});
  ASSERT_TRUE(sums.success()) << sums.err;
  std::vector<std::string> lines = Split(std::string(Trim(sums.out)), '\n');
  ASSERT_EQ(lines.size(), 2u) << sums.out;
  const std::string copy_sha = SplitWords(lines[0]).at(0);
  EXPECT_EQ(copy_sha, SplitWords(lines[1]).at(0)) << "the copy is not this build";
  EXPECT_EQ(files[0].substr(files[0].size() - 16), copy_sha.substr(0, 16));
  // Nothing was copied to the ready host.
  struct stat st;
  EXPECT_NE(::stat((h.hosts()[0].dir + "/bin").c_str(), &st), 0);
  struct stat before;
  ASSERT_EQ(::stat(copy.c_str(), &before), 0);

  // A second check finds the copy by its content and copies nothing, with
  // --no-copy too.
  for (const char* extra : {"", "--no-copy"}) {
    std::vector<std::string> args = {"fleet", "check", file};
    if (*extra) args.push_back(extra);
    ProcessResult again = pgrig::testing::RunPgrig(args);
    EXPECT_EQ(again.exit_code, 0) << extra << again.out << again.err;
    std::string line = LineFor(again.out, "box1");
    EXPECT_THAT(line, HasSubstr("ready")) << extra << again.out;
    EXPECT_THAT(line, HasSubstr("using this build's copy at " + copy)) << again.out;
    struct stat after;
    ASSERT_EQ(::stat(copy.c_str(), &after), 0);
    EXPECT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
    EXPECT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
  }

  // --no-copy with nothing at the host's install_dir: it needs an install.
  const std::string empty_dir = h.dir() + "/empty-install";
  std::string f3 = ReadWholeFile(file).value();
  const std::string from = "install_dir = \"" + h.hosts()[1].dir + "/bin\"";
  ASSERT_NE(f3.find(from), std::string::npos);
  f3.replace(f3.find(from), from.size(), "install_dir = \"" + empty_dir + "\"");
  ASSERT_TRUE(WriteFileAtomically(file, f3).ok());
  ProcessResult nc = pgrig::testing::RunPgrig({"fleet", "check", file, "--no-copy"});
  EXPECT_EQ(nc.exit_code, 1) << nc.out << nc.err;
  EXPECT_THAT(LineFor(nc.out, "box1"), HasSubstr("needs install")) << nc.out;
  EXPECT_THAT(LineFor(nc.out, "box1"), HasSubstr("install pgrig")) << nc.out;
  EXPECT_NE(::stat(empty_dir.c_str(), &st), 0) << "--no-copy made a directory";
}

// The same version but other content (a rebuilt binary) on a host of this
// architecture is not this build: the check copies this one (and with
// --no-copy uses the host's, saying that it differs).
TEST(FleetCheck, SameVersionOtherBuildIsReplacedByThisBuild) {
  PGRIG_START_NETNS_HOSTS(h, 1);
  // This build with one byte more at the end: it runs and says the same version.
  const std::string other = h.dir() + "/other-pgrig";
  auto exe = ReadWholeFile(pgrig::testing::PgrigExe());
  ASSERT_TRUE(exe.ok());
  ASSERT_TRUE(WriteFileAtomically(other, *exe + "\n").ok());
  ASSERT_EQ(::chmod(other.c_str(), 0755), 0);
  std::string file = FleetFile(h, {other});

  ProcessResult nc = pgrig::testing::RunPgrig({"fleet", "check", file, "--no-copy"});
  EXPECT_EQ(nc.exit_code, 0) << nc.out << nc.err;
  EXPECT_THAT(LineFor(nc.out, "box0"), HasSubstr("ready")) << nc.out;
  EXPECT_THAT(LineFor(nc.out, "box0"), HasSubstr("is another build")) << nc.out;
  EXPECT_THAT(LineFor(nc.out, "box0"), HasSubstr("--no-copy")) << nc.out;

  ProcessResult r = pgrig::testing::RunPgrig({"fleet", "check", file});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  std::string line = LineFor(r.out, "box0");
  EXPECT_THAT(line, HasSubstr("copied")) << r.out;
  EXPECT_THAT(line, HasSubstr("is another build")) << r.out;
  EXPECT_THAT(line, HasSubstr(h.hosts()[0].dir + "/bin/pgrig-")) << r.out;
}

// What an earlier `fleet run` installed in install_dir is recognised by a
// later `fleet check --no-copy`: this build's copy, and (after pgrig was
// rebuilt here) a copy of this version from another build, which is used
// as --no-copy uses any pgrig of this version, saying so; so is a
// pgrig-<version> put there by hand.
TEST(FleetCheck, NoCopyRecognisesWhatAnEarlierRunInstalled) {
  PGRIG_START_NETNS_HOSTS(h, 1);
  pgrig::testing::TempClusters clusters;
  clusters.homes.push_back(pgrig::testing::MakeTempHome("pgrig-fleet-check"));
  const std::string plan = h.dir() + "/tiny.toml";
  ASSERT_TRUE(WriteFileAtomically(plan,
                                  "[plan]\nname = \"fleet-tiny\"\nscale = 1\nclients = [1]\n"
                                  "threads = [1]\nduration_s = 1\nwarmup_s = 0\niterations = 1\n"
                                  "\n[[workload]]\nname = \"read\"\nbuiltin = \"select-only\"\n")
                  .ok());
  // No pgrig at the host's `pgrig`: the run copies this one to install_dir.
  const std::string install = h.hosts()[0].dir + "/bin";
  const std::string file = h.dir() + "/fleet.toml";
  ASSERT_TRUE(WriteFileAtomically(file, "[fleet]\nplan = \"" + plan + "\"\nssh_config = \"" +
                                            h.ssh_config() + "\"\nresults = \"" + h.dir() +
                                            "/results\"\n\n[[host]]\nlabel = \"box0\"\n" +
                                            "ssh = \"" + h.hosts()[0].alias + "\"\npgrig = \"" +
                                            h.dir() + "/missing/pgrig\"\ninstall_dir = \"" +
                                            install + "\"\nwork_dir = \"" + h.hosts()[0].dir +
                                            "/work\"\nenv = { PGRIG_HOME = \"" + clusters.homes[0] +
                                            "\" }\n")
                  .ok());
  ProcessResult run = pgrig::testing::RunPgrig({"fleet", "run", file});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.out, HasSubstr("[box0] check: copied")) << run.out;

  ProcessResult nc = pgrig::testing::RunPgrig({"fleet", "check", file, "--no-copy"});
  EXPECT_EQ(nc.exit_code, 0) << nc.out << nc.err;
  EXPECT_THAT(LineFor(nc.out, "box0"), HasSubstr("ready")) << nc.out;
  EXPECT_THAT(LineFor(nc.out, "box0"),
              HasSubstr("using this build's copy at " + install + "/pgrig-"))
      << nc.out;

  // pgrig rebuilt here: the copy the run left is another build of this
  // version (one byte more, same version), under its own hash's name.
  auto listing = h.Ssh(0, {"sh", "-c", "ls \"$0\"", install});
  ASSERT_TRUE(listing.success()) << listing.err;
  const std::string copy = install + "/" + std::string(Trim(listing.out));
  auto exe = ReadWholeFile(copy);
  ASSERT_TRUE(exe.ok()) << copy;
  const std::string version_prefix = copy.substr(0, copy.size() - 16);  // ".../pgrig-<version>-"
  const std::string rebuilt = h.dir() + "/rebuilt";
  ASSERT_TRUE(WriteFileAtomically(rebuilt, *exe + "\n").ok());
  ASSERT_EQ(::chmod(rebuilt.c_str(), 0755), 0);
  auto sum = h.Ssh(0, {"sha256sum", rebuilt});
  ASSERT_TRUE(sum.success()) << sum.err;
  const std::string other = version_prefix + SplitWords(sum.out).at(0).substr(0, 16);
  ASSERT_EQ(::rename(rebuilt.c_str(), other.c_str()), 0);
  ASSERT_EQ(::unlink(copy.c_str()), 0);
  nc = pgrig::testing::RunPgrig({"fleet", "check", file, "--no-copy"});
  EXPECT_EQ(nc.exit_code, 0) << nc.out << nc.err;
  std::string line = LineFor(nc.out, "box0");
  EXPECT_THAT(line, HasSubstr("ready")) << nc.out;
  EXPECT_THAT(line, HasSubstr(other)) << nc.out;
  EXPECT_THAT(line, HasSubstr("another build")) << nc.out;
  EXPECT_THAT(line, HasSubstr("--no-copy")) << nc.out;

  // Installed by hand as pgrig-<version> (no hash in the name).
  const std::string plain = version_prefix.substr(0, version_prefix.size() - 1);
  ASSERT_EQ(::rename(other.c_str(), plain.c_str()), 0);
  nc = pgrig::testing::RunPgrig({"fleet", "check", file, "--no-copy"});
  EXPECT_EQ(nc.exit_code, 0) << nc.out << nc.err;
  line = LineFor(nc.out, "box0");
  EXPECT_THAT(line, HasSubstr("ready")) << nc.out;
  EXPECT_THAT(line, HasSubstr(plain + "'")) << nc.out;

  // Without --no-copy, this build is copied beside it, as before.
  ProcessResult c = pgrig::testing::RunPgrig({"fleet", "check", file});
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
  EXPECT_THAT(LineFor(c.out, "box0"), HasSubstr("copied")) << c.out;
}

TEST(FleetCheck, UnknownHostKeyAndDeadHostAreReportedOthersGoOn) {
  PGRIG_START_NETNS_HOSTS(h, 3);
  ASSERT_TRUE(h.ForgetHostKey(0).ok());
  h.KillHost(2);
  std::string exe = pgrig::testing::PgrigExe();
  std::string file = FleetFile(h, {exe, exe, exe});
  auto start = std::chrono::steady_clock::now();
  ProcessResult r = pgrig::testing::RunPgrig({"fleet", "check", file});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  std::string box0 = LineFor(r.out, "box0");
  EXPECT_THAT(box0, HasSubstr("unreachable"));
  EXPECT_THAT(box0, HasSubstr("not in known_hosts"));
  EXPECT_THAT(box0, HasSubstr("ssh-keyscan"));
  EXPECT_THAT(LineFor(r.out, "box1"), HasSubstr("ready")) << r.out;
  EXPECT_THAT(LineFor(r.out, "box2"), HasSubstr("unreachable")) << r.out;
  EXPECT_THAT(r.err, HasSubstr("2 of 3 hosts not ready"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  // The known_hosts file was not changed by the check.
  EXPECT_THAT(ReadWholeFile(h.known_hosts()).value(),
              ::testing::Not(HasSubstr(h.hosts()[0].address + " ")));
}

// A check compares a host's facts with its declared instance, as a run does,
// and runs no hook: provisioning would make (and bill) machines.
TEST(FleetCheck, InstancesAreCheckedAndHooksAreNotRun) {
  PGRIG_START_NETNS_HOSTS(h, 2);
  const std::string exe = pgrig::testing::PgrigExe();
  std::string f = ReadWholeFile(FleetFile(h, {exe, exe})).value();
  const std::string marks = h.dir() + "/hook-ran";
  const std::string hook = "{ command = [\"touch\", \"" + marks + "\"] }";
  // The fleet's hooks go in [fleet]; box0 declares a Graviton (this machine
  // is not one) and has hooks of its own.
  const std::string fleet_hooks = "provision = " + hook + "\nteardown = " + hook + "\n";
  f.insert(f.find("\n[[host]]"), "\n" + fleet_hooks);
  const std::string box0 = "label = \"box0\"\n";
  f.insert(f.find(box0) + box0.size(),
           "instance = \"r8g.large\"\nprovision = " + hook + "\nteardown = " + hook + "\n");
  f.erase(f.find("usd_per_hour = 0.1\n"), 19);  // box0's: the instance gives the price
  const std::string file = h.dir() + "/fleet-instances.toml";
  ASSERT_TRUE(WriteFileAtomically(file, f).ok());

  ProcessResult r = pgrig::testing::RunPgrig({"fleet", "check", file});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(LineFor(r.out, "box0"), HasSubstr("ready")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("[box0] warning: declares instance r8g.large")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("architecture x86_64, not arm64")) << r.out;
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("[box1] warning"))) << r.out;
  EXPECT_THAT(r.out, HasSubstr("hooks of the fleet, box0 not run")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("all 2 hosts ready (pgrig ")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("; 1 instance warning\n")) << r.out;
  struct stat st;
  EXPECT_NE(::stat(marks.c_str(), &st), 0) << "a hook ran";
}

TEST(FleetCheck, AnInstanceNotInTheCatalogIsRefusedBeforeAnyConnection) {
  char tmpl[] = "/tmp/pgrig-fleet-bad-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  std::string path = std::string(tmpl) + "/f.toml";
  // The host's address is never contacted: the refusal comes first.
  ASSERT_TRUE(WriteFileAtomically(path,
                                  "[fleet]\nplan = \"quick\"\n[[host]]\nlabel = \"box\"\n"
                                  "ssh = \"nowhere.invalid\"\nrole = \"sut\"\n"
                                  "instance = \"x9.nosuch\"\n")
                  .ok());
  ProcessResult r = pgrig::testing::RunPgrig({"fleet", "check", path});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr(path + ":3: host 'box': instance x9.nosuch")) << r.err;
  // What a fleet file can do about it, not a command line's options.
  EXPECT_THAT(r.err, HasSubstr("give the host usd_per_hour = PRICE instead of instance")) << r.err;
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("--catalog"))) << r.err;
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("box "))) << r.out;
  (void)RemoveTree(tmpl);
}

TEST(FleetCheck, BadFleetFileIsRefusedBeforeAnyConnection) {
  char tmpl[] = "/tmp/pgrig-fleet-bad-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  std::string path = std::string(tmpl) + "/f.toml";
  ASSERT_TRUE(WriteFileAtomically(path,
                                  "[fleet]\nplan = \"quick\"\n[[host]]\nssh = \"x\"\n"
                                  "rol = \"sut\"\n")
                  .ok());
  ProcessResult r = pgrig::testing::RunPgrig({"fleet", "check", path});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr(path + ":5: unknown key 'rol'"));
  EXPECT_THAT(r.err, HasSubstr("did you mean 'role'?"));
  (void)RemoveTree(tmpl);
}

}  // namespace
}  // namespace pgrig::fleet
