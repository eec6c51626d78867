// Test hosts for the fleet tests: real OpenSSH servers, each in its own
// network namespace on this machine, never a mock.
//
// NetnsHosts::Start(n) makes, as root:
//   - a "hub" namespace and n host namespaces, each host joined to the hub by
//     a veth pair on a private /30 (hub side 10.213.0.(4i+1), host side
//     10.213.0.(4i+2)).  Every address lives inside a namespace made here;
//     the root namespace's interfaces, addresses and routes are not touched,
//     and no packet can leave the machine (the hub has no route out);
//   - per host, its own ed25519 host key (ssh-keygen into a temporary
//     directory), its own sshd_config (ListenAddress the host's address,
//     PermitRootLogin prohibit-password, AuthorizedKeysFile in the temporary
//     directory, no PAM, StrictModes no, a pid file) and a Debian
//     openssh-server sshd started with `ip netns exec`;
//   - a client key pair, a known_hosts holding every host's key, and an
//     ssh_config with one `Host hN` entry per host (HostName, User root,
//     IdentityFile, UserKnownHostsFile).
// It then moves the calling thread into the hub namespace, so that ssh and
// every program the test starts from this thread reach the hosts (and
// nothing else).  The destructor moves the thread back, kills every process
// in the namespaces made here (by pid, from `ip netns pids`), deletes the
// namespaces and removes the temporary directory, also when the test failed.
// Namespaces left by a test process that was killed are swept at the next
// Start() (their names carry the creating pid).
//
// Not thread-safe: one NetnsHosts per test, used from the test's thread.
#ifndef PGRIG_TESTS_FLEET_NETNS_HOSTS_H_
#define PGRIG_TESTS_FLEET_NETNS_HOSTS_H_

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/process.h"
#include "common/status.h"
#include "support/test_cluster.h"

namespace pgrig::testing {

struct TestHost {
  std::string alias;    // the ssh destination: "h0", "h1", ... (a Host entry in ssh_config)
  std::string ns;       // the network namespace
  std::string address;  // the host's address inside the namespaces
  std::string dir;      // its keys, config, pid file and log
};

class NetnsHosts {
 public:
  // Empty when this process can make namespaces and run sshd; otherwise why
  // not (not root, `ip netns` unavailable, sshd or ssh-keygen missing).
  static std::string SkipReason();

  static Result<std::unique_ptr<NetnsHosts>> Start(int count);

  NetnsHosts(const NetnsHosts&) = delete;
  NetnsHosts& operator=(const NetnsHosts&) = delete;
  ~NetnsHosts();

  const std::vector<TestHost>& hosts() const { return hosts_; }
  const std::string& dir() const { return dir_; }
  std::string ssh_config() const { return dir_ + "/ssh_config"; }
  std::string known_hosts() const { return dir_ + "/known_hosts"; }
  std::string identity() const { return dir_ + "/client_key"; }

  // Runs `ssh -F ssh_config -o BatchMode=yes hN ARGS...` with a timeout;
  // each word is quoted for the remote shell.
  ProcessResult Ssh(size_t host, const std::vector<std::string>& remote,
                    std::chrono::seconds timeout = std::chrono::seconds(20)) const;

  // Rewrites known_hosts without host i's key (an "unknown host" for ssh).
  Status ForgetHostKey(size_t host);
  // Replaces host i's key with a new one and restarts its sshd (a "changed
  // host key": known_hosts still holds the old one).
  Status ChangeHostKey(size_t host);
  // Kills every process in host i's namespace (sshd and whatever it runs).
  void KillHost(size_t host);

 private:
  NetnsHosts() = default;
  Status StartSshd(const TestHost& h);
  Status WriteKnownHosts(const std::vector<size_t>& skip);
  void TearDown();

  std::string dir_;
  std::string hub_;
  std::vector<TestHost> hosts_;
  std::vector<std::string> namespaces_;  // every namespace made, hub first
  int saved_netns_fd_ = -1;              // the calling thread's namespace before Start
};

// A fleet file's [[host]] table for h's host i: label "box<i>", this build's
// pgrig, a work directory beside the host's keys, its own embedded cluster
// at `home` (a MakeTempHome() home), then the `extra` lines.
inline std::string FleetHostTable(const NetnsHosts& h, size_t i, const std::string& home,
                                  const std::string& extra = "") {
  return "\n[[host]]\nlabel = \"box" + std::to_string(i) + "\"\nssh = \"" + h.hosts()[i].alias +
         "\"\npgrig = \"" + PgrigExe() + "\"\nwork_dir = \"" + h.hosts()[i].dir +
         "/work\"\nenv = { PGRIG_HOME = \"" + home + "\" }\n" + extra;
}

}  // namespace pgrig::testing

// In a TEST: skips with the reason when namespaces or sshd are unavailable.
#define PGRIG_SKIP_WITHOUT_NETNS()                                        \
  do {                                                                    \
    std::string pgrig_skip_ = ::pgrig::testing::NetnsHosts::SkipReason(); \
    if (!pgrig_skip_.empty()) GTEST_SKIP() << pgrig_skip_;                \
  } while (0)

// In a TEST: skips as PGRIG_SKIP_WITHOUT_NETNS does, else starts `count`
// hosts and declares `NetnsHosts& name` for them (they stop at the end of
// the test), or fails the test when they cannot be started.
#define PGRIG_START_NETNS_HOSTS(name, count)                                \
  PGRIG_SKIP_WITHOUT_NETNS();                                               \
  auto name##_started_ = ::pgrig::testing::NetnsHosts::Start(count);        \
  ASSERT_TRUE(name##_started_.ok()) << name##_started_.status().ToString(); \
  ::pgrig::testing::NetnsHosts& name = **name##_started_

#endif  // PGRIG_TESTS_FLEET_NETNS_HOSTS_H_
