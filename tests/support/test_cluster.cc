#include "support/test_cluster.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <thread>

#include "common/clock.h"
#include "common/fs.h"
#include "common/strings.h"

namespace pgrig::testing {

namespace {

std::string Hex(size_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%08zx", v & 0xffffffffu);
  return buf;
}

}  // namespace

std::string SharedHome() {
#ifdef PGRIG_TEST_CLUSTER_KEY
  std::string key = PGRIG_TEST_CLUSTER_KEY;
#else
  std::string key = PGRIG_EXE;
#endif
  return "/tmp/pgrig-test-" + std::to_string(::getuid()) + "-" + Hex(std::hash<std::string>{}(key));
}

cluster::Cluster& SharedCluster() {
  static cluster::Cluster* c = [] {
    auto opened = cluster::Cluster::Open({.home = SharedHome()});
    if (!opened.ok()) {
      std::fprintf(stderr, "test cluster: %s\n", opened.status().message().c_str());
      std::abort();
    }
    auto* made = new cluster::Cluster(std::move(opened).value());
    auto started = made->Start();
    if (!started.ok()) {
      std::fprintf(stderr, "test cluster did not start: %s\n", started.status().message().c_str());
      std::abort();
    }
    return made;
  }();
  return *c;
}

pg::ConnectionParams SharedParams(const std::string& dbname) {
  return SharedCluster().Params(dbname);
}

std::vector<std::string> ConnArgs(const pg::ConnectionParams& p) {
  std::vector<std::string> a;
  if (!p.host.empty()) a.insert(a.end(), {"-h", p.host});
  if (!p.port.empty()) a.insert(a.end(), {"-p", p.port});
  if (!p.user.empty()) a.insert(a.end(), {"-U", p.user});
  a.push_back(p.dbname);
  return a;
}

pg::Connection ConnectShared(const std::string& dbname) {
  auto c = pg::Connect(SharedParams(dbname));
  if (!c.ok()) {
    ADD_FAILURE() << c.status().message();
    return {};
  }
  return std::move(c).value();
}

std::string MakeTempHome(const std::string& prefix) {
  std::string tmpl = "/tmp/" + prefix + "-XXXXXX";
  char* d = ::mkdtemp(tmpl.data());
  if (!d) return "";
  ::chmod(d, 0755);
  return std::string(d) + "/home";
}

void MakeLinkedBuild(const std::string& home, const std::string& name) {
  namespace fs = std::filesystem;
  RealProcessRunner runner;
  auto bins = cluster::FindServerBinaries(runner, cluster::ClusterEnv{});
  ASSERT_TRUE(bins.ok()) << bins.status().message();
  const fs::path bin = fs::path(home) / "pg" / name / "bin";
  fs::create_directories(bin);
  for (const char* p : {"postgres", "initdb", "pg_ctl"}) {
    fs::create_symlink(fs::path(bins->bindir) / p, bin / p);
  }
}

std::vector<std::string> FreshDatabase(const std::string& name) {
  pg::Connection c = ConnectShared();
  EXPECT_TRUE(c.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)").ok());
  EXPECT_TRUE(c.Exec("CREATE DATABASE " + name).ok());
  const pg::ConnectionParams p = SharedParams(name);
  std::vector<std::string> a;
  if (!p.host.empty()) a.insert(a.end(), {"-h", p.host});
  if (!p.port.empty()) a.insert(a.end(), {"-p", p.port});
  if (!p.user.empty()) a.insert(a.end(), {"-U", p.user});
  a.insert(a.end(), {"-d", name});
  return a;
}

TempClusters::~TempClusters() {
  for (const std::string& h : homes) {
    RunPgrig({"cluster", "destroy"}, {{"PGRIG_HOME", h}});
    (void)RemoveTree(h.substr(0, h.rfind('/')));  // MakeTempHome's directory
  }
}

cluster::Cluster* StartPrivateCluster(const std::string& prefix) {
  auto c = cluster::Cluster::Open({.home = MakeTempHome(prefix)});
  if (!c.ok()) {
    ADD_FAILURE() << c.status().ToString();
    return nullptr;
  }
  auto* cluster = new cluster::Cluster(std::move(c).value());
  if (auto s = cluster->Start(); !s.ok()) {
    ADD_FAILURE() << s.status().ToString();
    DestroyPrivateCluster(cluster);
    return nullptr;
  }
  return cluster;
}

void DestroyPrivateCluster(cluster::Cluster* c) {
  if (c == nullptr) return;
  (void)c->Destroy();
  const std::string& home = c->home();
  (void)RemoveTree(home.substr(0, home.rfind('/')));  // MakeTempHome's directory
  delete c;
}

std::string PgrigExe() { return PGRIG_EXE; }

pid_t SpawnPgrig(const std::vector<std::string>& args, const std::string& out_file,
                 const std::string& err_file) {
  std::vector<std::string> argv = {PgrigExe()};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (std::string& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    const int out = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err =
        err_file.empty() ? out : ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::execv(cargv[0], cargv.data());
    ::_exit(127);
  }
  return pid;
}

bool WaitForText(const std::string& file, const std::string& text, double timeout_s) {
  const int64_t deadline = MonotonicNanos() + static_cast<int64_t>(timeout_s * 1e9);
  while (true) {
    auto read = ReadWholeFile(file);
    if (read.ok() && read->find(text) != std::string::npos) return true;
    if (MonotonicNanos() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

int WaitExit(pid_t pid, double timeout_s) {
  const int64_t deadline = MonotonicNanos() + static_cast<int64_t>(timeout_s * 1e9);
  int status = 0;
  while (MonotonicNanos() < deadline) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      return WIFEXITED(status) ? WEXITSTATUS(status) : -2;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return -1;
}

ProcessResult RunProcess(const ProcessOptions& o) {
  auto r = RealProcessRunner().Run(o);
  if (!r.ok()) {
    ProcessResult failed;
    failed.err = r.status().message();
    return failed;
  }
  return std::move(r).value();
}

ProcessResult RunProgram(const std::string& program, const std::vector<std::string>& args,
                         const std::map<std::string, std::string>& env,
                         const std::string& stdin_data, std::chrono::milliseconds timeout) {
  ProcessOptions o;
  o.argv.push_back(program);
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.env = env;
  o.stdin_data = stdin_data;
  o.timeout = timeout;
  return RunProcess(o);
}

ProcessResult RunPgrig(const std::vector<std::string>& args,
                       const std::map<std::string, std::string>& env, const std::string& stdin_data,
                       std::chrono::milliseconds timeout) {
  return RunProgram(PgrigExe(), args, env, stdin_data, timeout);
}

ProcessResult RunServerTool(const std::string& tool, const std::vector<std::string>& args,
                            const std::map<std::string, std::string>& env) {
  RealProcessRunner runner;
  auto bins = cluster::FindServerBinaries(runner);
  return RunProgram(bins.ok() ? bins->bindir + "/" + tool : tool, args, env, "",
                    std::chrono::minutes(10));
}

}  // namespace pgrig::testing
