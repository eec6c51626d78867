// The fleet tests' own harness (tests/fleet/netns_hosts.h), checked first:
// every other fleet test stands on it.  Real sshd in network namespaces.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "common/strings.h"
#include "fleet/netns_hosts.h"

namespace pgrig::testing {
namespace {

bool Exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

TEST(NetnsHosts, EachHostIsItsOwnNamespaceReachedOverSsh) {
  PGRIG_SKIP_WITHOUT_NETNS();
  // Started by hand, not with PGRIG_START_NETNS_HOSTS: the test ends them.
  auto hosts = NetnsHosts::Start(2);
  ASSERT_TRUE(hosts.ok()) << hosts.status().ToString();
  std::string dir = (*hosts)->dir();
  std::vector<std::string> namespaces;
  for (size_t i = 0; i < 2; ++i) {
    const TestHost& h = (*hosts)->hosts()[i];
    namespaces.push_back(h.ns);
    // The command runs inside the host's namespace: eth0 carries its address.
    ProcessResult r = (*hosts)->Ssh(i, {"ip", "-o", "-4", "addr", "show", "dev", "eth0"});
    ASSERT_TRUE(r.success()) << r.err;
    EXPECT_NE(r.out.find(h.address + "/30"), std::string::npos) << r.out;
    ProcessResult who = (*hosts)->Ssh(i, {"id", "-u"});
    EXPECT_EQ(Trim(who.out), "0");
  }
  hosts->reset();
  // Torn down: namespaces and the temporary directory are gone.
  RealProcessRunner runner;
  auto l = runner.Run(ProcessOptions{.argv = {"ip", "netns", "list"}});
  ASSERT_TRUE(l.ok());
  for (const auto& ns : namespaces) EXPECT_EQ(l->out.find(ns), std::string::npos) << l->out;
  EXPECT_FALSE(Exists(dir));
}

TEST(NetnsHosts, UnknownAndChangedHostKeysAreRefusedBySsh) {
  PGRIG_START_NETNS_HOSTS(hosts, 2);
  ASSERT_TRUE(hosts.ForgetHostKey(0).ok());
  ProcessResult unknown = hosts.Ssh(0, {"true"});
  EXPECT_EQ(unknown.exit_code, 255);
  EXPECT_NE(unknown.err.find("Host key verification failed"), std::string::npos) << unknown.err;
  ASSERT_TRUE(hosts.ChangeHostKey(1).ok());
  ProcessResult changed = hosts.Ssh(1, {"true"});
  EXPECT_EQ(changed.exit_code, 255);
  EXPECT_NE(changed.err.find("REMOTE HOST IDENTIFICATION HAS CHANGED"), std::string::npos)
      << changed.err;
}

TEST(NetnsHosts, KilledHostStopsAnswering) {
  PGRIG_START_NETNS_HOSTS(hosts, 1);
  hosts.KillHost(0);
  ProcessResult r = hosts.Ssh(0, {"true"});
  EXPECT_EQ(r.exit_code, 255);
}

}  // namespace
}  // namespace pgrig::testing
