// LocateLocalPostmaster and its checks (host/server_cpu.h).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "host/server_cpu.h"

namespace pgrig::host {
namespace {

std::string CmdLine(const std::string& root, int pid) {
  std::ifstream in(root + "/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  std::string c = s.str();
  for (char& ch : c)
    if (ch == '\0') ch = ' ';
  return c;
}

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

PeerKind ClassifyPeer(const sockaddr* addr, socklen_t len) {
  if (addr == nullptr || len < static_cast<socklen_t>(sizeof(sa_family_t))) return PeerKind::kOther;
  switch (addr->sa_family) {
    case AF_UNIX:
      return PeerKind::kUnixSocket;
    case AF_INET: {
      if (len < static_cast<socklen_t>(sizeof(sockaddr_in))) return PeerKind::kOther;
      sockaddr_in in4;
      std::memcpy(&in4, addr, sizeof in4);
      return (ntohl(in4.sin_addr.s_addr) >> 24) == 127 ? PeerKind::kLoopback : PeerKind::kOther;
    }
    case AF_INET6: {
      if (len < static_cast<socklen_t>(sizeof(sockaddr_in6))) return PeerKind::kOther;
      sockaddr_in6 in6;
      std::memcpy(&in6, addr, sizeof in6);
      if (IN6_IS_ADDR_LOOPBACK(&in6.sin6_addr)) return PeerKind::kLoopback;
      if (IN6_IS_ADDR_V4MAPPED(&in6.sin6_addr) && in6.sin6_addr.s6_addr[12] == 127)
        return PeerKind::kLoopback;
      return PeerKind::kOther;
    }
    default:
      return PeerKind::kOther;
  }
}

Result<int> PostmasterOfBackend(PeerKind peer, int backend_pid, int64_t connect_started_ticks,
                                const ServerCpuOptions& options) {
  const std::string& root = options.proc_root;
  if (peer == PeerKind::kOther)
    return FailedPrecondition(
        "the server is reached through a network address that is not loopback, so its processes "
        "may be on another machine");
  if (backend_pid <= 0) return FailedPrecondition("the server reported no backend PID");
  const std::string which = "backend PID " + std::to_string(backend_pid);
  auto backend = ReadProcStat(root, backend_pid);
  if (!backend.ok())
    return FailedPrecondition(which +
                              " has no process here: the server runs in another PID namespace "
                              "(a container) or on another machine");
  // A backend's title replaces its command line: "postgres: user db ...".
  if (backend->comm != "postgres" || !StartsWith(CmdLine(root, backend_pid), "postgres: "))
    return FailedPrecondition(which + " is a process here that is not a PostgreSQL backend (\"" +
                              backend->comm +
                              "\"): the server runs in another PID namespace or machine");
  // One tick of slack: both clocks are read at tick resolution.
  if (backend->starttime + 1 < connect_started_ticks)
    return FailedPrecondition(which +
                              " here started before the connection did: it is another server's "
                              "process (the server runs in another PID namespace)");
  const int pm = backend->ppid;
  auto parent = ReadProcStat(root, pm);
  if (!parent.ok()) return FailedPrecondition("the parent of " + which + " is not visible here");
  if (parent->comm != "postgres" || StartsWith(CmdLine(root, pm), "postgres: "))
    return FailedPrecondition("the parent of " + which + " (PID " + std::to_string(pm) + ", \"" +
                              parent->comm + "\") is not a PostgreSQL postmaster");
  return pm;
}

Result<int> LocateLocalPostmaster(const pg::ConnectionParams& params,
                                  const ServerCpuOptions& options) {
  PGRIG_ASSIGN_OR_RETURN(int64_t before, BootTicksNow(options.proc_root));
  auto conn = pg::Connect(params);
  if (!conn.ok())
    return Unavailable("could not connect to find the server: " + conn.status().message());
  const int sock = PQsocket(conn->raw());
  sockaddr_storage peer{};
  socklen_t len = sizeof peer;
  PeerKind kind = PeerKind::kOther;
  if (sock >= 0 && getpeername(sock, reinterpret_cast<sockaddr*>(&peer), &len) == 0)
    kind = ClassifyPeer(reinterpret_cast<const sockaddr*>(&peer), len);
  return PostmasterOfBackend(kind, PQbackendPID(conn->raw()), before, options);
}

}  // namespace pgrig::host
