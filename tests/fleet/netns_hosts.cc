#include "fleet/netns_hosts.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "common/fs.h"
#include "common/strings.h"

namespace pgrig::testing {
namespace {

constexpr const char* kSshd = "/usr/sbin/sshd";
constexpr const char* kNsPrefix = "pgrigt";  // pgrigt<pid>h (hub), pgrigt<pid>n<i> (hosts)

ProcessResult RunCmd(const std::vector<std::string>& argv,
                     std::chrono::seconds timeout = std::chrono::seconds(20)) {
  RealProcessRunner runner;
  ProcessOptions o;
  o.argv = argv;
  o.timeout = timeout;
  auto r = runner.Run(o);
  if (!r.ok()) {
    ProcessResult failed;
    failed.err = r.status().ToString();
    return failed;
  }
  return *r;
}

Status Must(const std::vector<std::string>& argv) {
  ProcessResult r = RunCmd(argv);
  if (!r.success()) {
    return Internal("`" + Join(argv, " ") + "` failed (exit " + std::to_string(r.exit_code) +
                    "): " + std::string(Trim(r.err)));
  }
  return Status::Ok();
}

std::vector<pid_t> PidsIn(const std::string& ns) {
  std::vector<pid_t> pids;
  ProcessResult r = RunCmd({"ip", "netns", "pids", ns});
  for (const std::string& w : SplitWords(r.out)) {
    for (const std::string& line : Split(w, '\n')) {
      if (auto v = ParseInt64(Trim(line)); v && *v > 1 && *v != ::getpid()) {
        pids.push_back(static_cast<pid_t>(*v));
      }
    }
  }
  return pids;
}

// Kills every process in the namespace (TERM, then KILL after up to 2 s) and
// deletes it.
void DestroyNamespace(const std::string& ns) {
  std::vector<pid_t> pids = PidsIn(ns);
  for (pid_t p : pids) ::kill(p, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (!pids.empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    pids = PidsIn(ns);
  }
  for (pid_t p : pids) ::kill(p, SIGKILL);
  RunCmd({"ip", "netns", "del", ns});
}

// Namespaces named by a test process that no longer exists.
void SweepStale() {
  ProcessResult r = RunCmd({"ip", "netns", "list"});
  std::regex re(std::string("^") + kNsPrefix + "([0-9]+)[hn][0-9]*$");
  for (const std::string& line : Split(r.out, '\n')) {
    std::vector<std::string> w = SplitWords(line);
    if (w.empty()) continue;
    std::smatch m;
    if (!std::regex_match(w[0], m, re)) continue;
    pid_t owner = static_cast<pid_t>(std::atoll(m[1].str().c_str()));
    if (owner == ::getpid()) continue;
    if (::kill(owner, 0) == 0 || errno != ESRCH) continue;
    DestroyNamespace(w[0]);
  }
}

bool IsExecutable(const char* path) { return ::access(path, X_OK) == 0; }

}  // namespace

std::string NetnsHosts::SkipReason() {
  if (::geteuid() != 0) return "fleet tests need root (network namespaces, sshd); skipped";
  if (!IsExecutable(kSshd)) {
    return "fleet tests need Debian's openssh-server (/usr/sbin/sshd); run scripts/setup.sh";
  }
  ProcessResult r = RunCmd({"ip", "netns", "list"});
  if (!r.success()) return "fleet tests need `ip netns` (iproute2): " + std::string(Trim(r.err));
  if (!RunCmd({"ssh", "-V"}).success() ||
      RunCmd({"ssh-keygen", "-l", "-f", "/dev/null"}).exit_code < 0) {
    return "fleet tests need openssh-client (ssh, ssh-keygen); run scripts/setup.sh";
  }
  return "";
}

Result<std::unique_ptr<NetnsHosts>> NetnsHosts::Start(int count) {
  if (std::string why = SkipReason(); !why.empty()) return FailedPrecondition(why);
  if (count < 1 || count > 8) return InvalidArgument("NetnsHosts::Start: 1 to 8 hosts");
  SweepStale();
  std::unique_ptr<NetnsHosts> h(new NetnsHosts());
  char tmpl[] = "/tmp/pgrig-fleet-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) return Internal("mkdtemp failed");
  h->dir_ = tmpl;
  // From here on the destructor cleans up whatever was made.
  PGRIG_RETURN_IF_ERROR(Must({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C",
                              "pgrig-fleet-test", "-f", h->identity()}));
  PGRIG_ASSIGN_OR_RETURN(std::string pub, ReadWholeFile(h->identity() + ".pub"));
  PGRIG_RETURN_IF_ERROR(WriteFileAtomically(h->dir_ + "/authorized_keys", pub));
  // sshd's privilege separation directory (Debian's service makes it).
  ::mkdir("/run/sshd", 0755);

  std::string base = kNsPrefix + std::to_string(::getpid());
  h->hub_ = base + "h";
  PGRIG_RETURN_IF_ERROR(Must({"ip", "netns", "add", h->hub_}));
  h->namespaces_.push_back(h->hub_);
  PGRIG_RETURN_IF_ERROR(Must({"ip", "-n", h->hub_, "link", "set", "lo", "up"}));

  std::ostringstream config;
  for (int i = 0; i < count; ++i) {
    TestHost t;
    t.alias = "h" + std::to_string(i);
    t.ns = base + "n" + std::to_string(i);
    t.address = "10.213.0." + std::to_string(4 * i + 2);
    t.dir = h->dir_ + "/" + t.alias;
    std::string hub_addr = "10.213.0." + std::to_string(4 * i + 1);
    std::string veth = "v" + std::to_string(i);
    PGRIG_RETURN_IF_ERROR(MakeDirs(t.dir, 0700));
    PGRIG_RETURN_IF_ERROR(Must({"ip", "netns", "add", t.ns}));
    h->namespaces_.push_back(t.ns);
    PGRIG_RETURN_IF_ERROR(Must({"ip", "-n", t.ns, "link", "set", "lo", "up"}));
    PGRIG_RETURN_IF_ERROR(Must({"ip", "-n", h->hub_, "link", "add", veth, "type", "veth", "peer",
                                "name", "eth0", "netns", t.ns}));
    PGRIG_RETURN_IF_ERROR(
        Must({"ip", "-n", h->hub_, "addr", "add", hub_addr + "/30", "dev", veth}));
    PGRIG_RETURN_IF_ERROR(Must({"ip", "-n", h->hub_, "link", "set", veth, "up"}));
    PGRIG_RETURN_IF_ERROR(
        Must({"ip", "-n", t.ns, "addr", "add", t.address + "/30", "dev", "eth0"}));
    PGRIG_RETURN_IF_ERROR(Must({"ip", "-n", t.ns, "link", "set", "eth0", "up"}));
    PGRIG_RETURN_IF_ERROR(Must({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", t.alias, "-f",
                                t.dir + "/host_ed25519_key"}));
    h->hosts_.push_back(t);
    PGRIG_RETURN_IF_ERROR(h->StartSshd(t));
    config << "Host " << t.alias << "\n"
           << "  HostName " << t.address << "\n"
           << "  User root\n"
           << "  IdentityFile " << h->identity() << "\n"
           << "  IdentitiesOnly yes\n"
           << "  UserKnownHostsFile " << h->known_hosts() << "\n"
           << "  GlobalKnownHostsFile /dev/null\n";
  }
  PGRIG_RETURN_IF_ERROR(WriteFileAtomically(h->ssh_config(), config.str()));
  PGRIG_RETURN_IF_ERROR(h->WriteKnownHosts({}));

  // Move this thread into the hub.
  h->saved_netns_fd_ = ::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
  int hub_fd = ::open(("/run/netns/" + h->hub_).c_str(), O_RDONLY | O_CLOEXEC);
  if (h->saved_netns_fd_ < 0 || hub_fd < 0 || ::setns(hub_fd, CLONE_NEWNET) != 0) {
    int e = errno;
    if (hub_fd >= 0) ::close(hub_fd);
    return Internal(std::string("entering the hub namespace: ") + std::strerror(e));
  }
  ::close(hub_fd);

  // Wait until every sshd answers (bounded: 40 tries, about 10 s).
  for (size_t i = 0; i < h->hosts_.size(); ++i) {
    ProcessResult last;
    bool up = false;
    for (int attempt = 0; attempt < 40 && !up; ++attempt) {
      last = h->Ssh(i, {"true"}, std::chrono::seconds(5));
      up = last.success();
      if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    if (!up) {
      auto log = ReadWholeFile(h->hosts_[i].dir + "/sshd.log");
      return Internal("test host " + h->hosts_[i].alias + " does not answer ssh: " +
                      std::string(Trim(last.err)) + (log.ok() ? "; sshd log: " + *log : ""));
    }
  }
  return h;
}

Status NetnsHosts::StartSshd(const TestHost& t) {
  std::ostringstream c;
  c << "ListenAddress " << t.address << "\n"
    << "Port 22\n"
    << "HostKey " << t.dir << "/host_ed25519_key\n"
    << "PidFile " << t.dir << "/sshd.pid\n"
    << "PermitRootLogin prohibit-password\n"
    << "AuthorizedKeysFile " << dir_ << "/authorized_keys\n"
    << "UsePAM no\n"
    << "StrictModes no\n"
    << "PasswordAuthentication no\n"
    << "KbdInteractiveAuthentication no\n"
    << "PubkeyAuthentication yes\n"
    << "Subsystem sftp internal-sftp\n"
    << "LogLevel ERROR\n"
    // Debian's bash sources ~/.bashrc for every command sshd runs unless
    // SHLVL says it is a nested shell.  A machine's root .bashrc can be slow
    // (pyenv's init takes about a second of CPU on these machines), and the
    // fleet tests run hundreds of remote commands, so the test hosts' shells
    // start bare: what pgrig runs remotely never depends on a login script.
    << "SetEnv SHLVL=1\n";
  PGRIG_RETURN_IF_ERROR(WriteFileAtomically(t.dir + "/sshd_config", c.str()));
  ::unlink((t.dir + "/sshd.pid").c_str());
  // sshd forks into the background once its socket is bound; the parent's
  // exit status says whether the configuration was accepted.
  PGRIG_RETURN_IF_ERROR(Must({"ip", "netns", "exec", t.ns, kSshd, "-f", t.dir + "/sshd_config",
                              "-E", t.dir + "/sshd.log"}));
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (::access((t.dir + "/sshd.pid").c_str(), R_OK) == 0) return Status::Ok();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return Internal("sshd for test host " + t.alias + " wrote no pid file in 5 s");
}

Status NetnsHosts::WriteKnownHosts(const std::vector<size_t>& skip) {
  std::string out;
  for (size_t i = 0; i < hosts_.size(); ++i) {
    if (std::find(skip.begin(), skip.end(), i) != skip.end()) continue;
    PGRIG_ASSIGN_OR_RETURN(std::string key, ReadWholeFile(hosts_[i].dir + "/host_ed25519_key.pub"));
    out += hosts_[i].address + " " + std::string(Trim(key)) + "\n";
  }
  return WriteFileAtomically(known_hosts(), out);
}

ProcessResult NetnsHosts::Ssh(size_t host, const std::vector<std::string>& remote,
                              std::chrono::seconds timeout) const {
  std::vector<std::string> argv = {"ssh",
                                   "-F",
                                   ssh_config(),
                                   "-o",
                                   "BatchMode=yes",
                                   "-o",
                                   "ConnectTimeout=3",
                                   hosts_.at(host).alias,
                                   "--"};
  std::vector<std::string> quoted;
  for (const std::string& w : remote) quoted.push_back(ShellQuote(w));
  argv.push_back(Join(quoted, " "));
  return RunCmd(argv, timeout);
}

Status NetnsHosts::ForgetHostKey(size_t host) { return WriteKnownHosts({host}); }

Status NetnsHosts::ChangeHostKey(size_t host) {
  const TestHost& t = hosts_.at(host);
  for (pid_t p : PidsIn(t.ns)) ::kill(p, SIGKILL);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ::unlink((t.dir + "/host_ed25519_key").c_str());
  ::unlink((t.dir + "/host_ed25519_key.pub").c_str());
  PGRIG_RETURN_IF_ERROR(Must({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", t.alias, "-f",
                              t.dir + "/host_ed25519_key"}));
  return StartSshd(t);
}

void NetnsHosts::KillHost(size_t host) {
  for (pid_t p : PidsIn(hosts_.at(host).ns)) ::kill(p, SIGKILL);
}

NetnsHosts::~NetnsHosts() { TearDown(); }

void NetnsHosts::TearDown() {
  if (saved_netns_fd_ >= 0) {
    ::setns(saved_netns_fd_, CLONE_NEWNET);
    ::close(saved_netns_fd_);
    saved_netns_fd_ = -1;
  }
  // Hosts first, the hub (ssh clients, control masters) last.
  for (auto it = namespaces_.rbegin(); it != namespaces_.rend(); ++it) DestroyNamespace(*it);
  namespaces_.clear();
  if (!dir_.empty()) (void)RemoveTree(dir_);
  dir_.clear();
}

}  // namespace pgrig::testing
