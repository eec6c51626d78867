// floor: the least a benchmark client must do for a select-only transaction,
// measured, so that pgrig's and pgbench's client CPU per transaction can be
// stated as a distance from it (issue 16, point 4).  Not part of pgrig.
//
// What it measures.  CLIENTS connections over Unix sockets, served by THREADS
// client threads, each thread owning every THREADS-th connection.  Each
// connection does round trips for SECONDS: one send of REQUEST bytes, then
// receives until REPLY bytes are in, then the next send.  The default sizes
// are what pgrig bench and pgbench exchange for `-S -M prepared` (measured
// with strace on both, PostgreSQL 15, scale 10, abalance 0):
//   out 50 bytes  Bind (28, 6-digit aid) + Describe portal (7) + Execute (10)
//                 + Sync (5); 49 with a 5-digit aid
//   in  71 bytes  BindComplete (5) + RowDescription (34) + DataRow (12)
//                 + CommandComplete "SELECT 1" (14) + ReadyForQuery (6)
// and `-M simple` (the `-M simple` shortcut): out 63 bytes (Query), in 66
// bytes (RowDescription + DataRow + CommandComplete + ReadyForQuery).
// The peer is a forked process with its own threads (PEER_THREADS, default
// THREADS) that answers every whole request with the fixed reply at once,
// from an epoll loop; its CPU comes from wait4 and is reported apart.  Client
// CPU is getrusage(RUSAGE_THREAD) of the client threads over their loops
// only (not connection set-up, not the peer).
//
// Two client loops (bench/round_trip_loop.h, shared with wire_probe), both one
// send and one receive per round trip:
//   epoll  send(), then epoll_wait for readable connections and recv() each;
//   uring  io_uring: each loop turn submits every send+recv it queued and
//          waits for the next completion in one io_uring_enter (sends
//          complete silently).
//
// What it leaves out: the PostgreSQL server (the peer does no work), the
// protocol parsing of the reply (it counts bytes), building the request (a
// fixed buffer: no random aid, no formatting), the script interpreter,
// latency histograms, progress reports, the start-up handshake.  So it is a
// lower bound on the client's cost, not a client.
//
// Usage: floor [-c CLIENTS] [-j THREADS] [-T SECONDS] [-M prepared|simple]
//              [--loop uring|epoll] [--request BYTES] [--reply BYTES]
//              [--peer-threads N]
// Defaults: -c 8 -j 2 -T 10 -M prepared --loop uring.  Prints pgbench's
// "number of transactions actually processed" and "tps =" lines (so the
// scripts in bench/ parse it like pgbench) and the CPU lines:
//   client CPU per round trip: U us (user X, sys Y)
//   peer CPU per round trip: U us (user X, sys Y)
// Example: build/bench/floor -c 8 -j 2 -T 10 --loop epoll
#include <getopt.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include "round_trip_loop.h"

namespace {

constexpr size_t kMaxMessage = 4096;
constexpr int kMaxClients = 10000;
constexpr int kMaxSeconds = 3600;

enum class Loop { kUring, kEpoll };

struct Options {
  int clients = 8;
  int threads = 2;
  int seconds = 10;
  int peer_threads = 0;  // 0: as many as client threads
  size_t request = 50;
  size_t reply = 71;
  Loop loop = Loop::kUring;
};

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "floor: %s: %s\n", what, std::strerror(errno));
  std::exit(2);
}

int64_t NowNs() { return pgrig::bench::MonotonicNs(); }

double Seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

// ---- the peer -------------------------------------------------------------

// Answers each whole request on each of `fds` with `reply` bytes until every
// connection is closed by the client.
void PeerLoop(std::vector<int> fds, size_t request, size_t reply) {
  const int ep = epoll_create1(EPOLL_CLOEXEC);
  if (ep < 0) Die("peer epoll_create1");
  std::vector<size_t> pending(fds.size(), 0);
  for (size_t i = 0; i < fds.size(); ++i) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = i;
    if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev) != 0) Die("peer epoll_ctl");
  }
  const std::vector<char> answer(reply, 'r');
  char buf[kMaxMessage * 4];
  size_t open = fds.size();
  epoll_event evs[64];
  while (open > 0) {
    const int n = epoll_wait(ep, evs, 64, 1000);
    if (n < 0 && errno != EINTR) Die("peer epoll_wait");
    for (int k = 0; k < n; ++k) {
      const size_t i = evs[k].data.u64;
      const ssize_t r = recv(fds[i], buf, sizeof buf, MSG_DONTWAIT);
      if (r == 0 || (r < 0 && errno != EAGAIN)) {
        epoll_ctl(ep, EPOLL_CTL_DEL, fds[i], nullptr);
        close(fds[i]);
        --open;
        continue;
      }
      if (r < 0) continue;
      pending[i] += static_cast<size_t>(r);
      for (; pending[i] >= request; pending[i] -= request) {
        if (send(fds[i], answer.data(), reply, MSG_NOSIGNAL) != static_cast<ssize_t>(reply)) {
          Die("peer send");
        }
      }
    }
  }
  close(ep);
}

[[noreturn]] void RunPeer(int listener, const Options& o) {
  std::vector<int> fds;
  for (int i = 0; i < o.clients; ++i) {
    const int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) Die("peer accept");
    fds.push_back(fd);
  }
  close(listener);
  const int pt = o.peer_threads > 0 ? o.peer_threads : o.threads;
  std::vector<std::thread> pool;
  for (int t = 0; t < pt; ++t) {
    std::vector<int> mine;
    for (size_t i = static_cast<size_t>(t); i < fds.size(); i += static_cast<size_t>(pt)) {
      mine.push_back(fds[i]);
    }
    pool.emplace_back(PeerLoop, std::move(mine), o.request, o.reply);
  }
  for (auto& th : pool) th.join();
  std::_Exit(0);
}

// ---- the client -----------------------------------------------------------

// A connection and its reply buffer; the loops see only the RoundTripConn.
struct Conn {
  pgrig::bench::RoundTripConn rt;
  char in[kMaxMessage];
};

struct ThreadResult {
  int64_t round_trips = 0;
  double user_s = 0;
  double sys_s = 0;
};

struct Shared {
  const char* request = nullptr;
  size_t request_len = 0;
  size_t reply_len = 0;
  int64_t end_ns = 0;
};

// Every request is the same buffer; a reply is whole once reply_len bytes
// are in (one request is in flight per connection, so no more can come).
struct FixedSizes {
  const Shared* s;
  void Next(pgrig::bench::RoundTripConn& c) const {
    c.out = s->request;
    c.out_len = s->request_len;
  }
  bool Complete(const pgrig::bench::RoundTripConn& c) const { return c.in_len >= s->reply_len; }
};

void ClientThread(std::vector<pgrig::bench::RoundTripConn*> conns, const Shared& s, Loop loop,
                  ThreadResult* out) {
  FixedSizes policy{&s};
  rusage before;
  getrusage(RUSAGE_THREAD, &before);
  if (loop == Loop::kUring) {
    pgrig::bench::RunUringLoop(conns, s.end_ns, policy, &out->round_trips);
  } else {
    pgrig::bench::RunEpollLoop(conns, s.end_ns, policy, &out->round_trips);
  }
  rusage after;
  getrusage(RUSAGE_THREAD, &after);
  out->user_s = Seconds(after.ru_utime) - Seconds(before.ru_utime);
  out->sys_s = Seconds(after.ru_stime) - Seconds(before.ru_stime);
}

// ---- options --------------------------------------------------------------

[[noreturn]] void Usage(const char* why) {
  std::fprintf(stderr,
               "floor: %s\nusage: floor [-c CLIENTS] [-j THREADS] [-T SECONDS] "
               "[-M prepared|simple] [--loop uring|epoll] [--request BYTES] [--reply BYTES] "
               "[--peer-threads N]\n",
               why);
  std::exit(1);
}

long ParseNumber(const char* text, long lo, long hi, const char* name) {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi) {
    static char msg[160];
    std::snprintf(msg, sizeof msg, "%s must be a whole number from %ld to %ld, not \"%s\"", name,
                  lo, hi, text);
    Usage(msg);
  }
  return v;
}

Options ParseOptions(int argc, char** argv) {
  Options o;
  static const option kLong[] = {{"loop", required_argument, nullptr, 'l'},
                                 {"request", required_argument, nullptr, 'q'},
                                 {"reply", required_argument, nullptr, 'r'},
                                 {"peer-threads", required_argument, nullptr, 'p'},
                                 {nullptr, 0, nullptr, 0}};
  int ch;
  while ((ch = getopt_long(argc, argv, "c:j:T:M:", kLong, nullptr)) != -1) {
    switch (ch) {
      case 'c':
        o.clients = static_cast<int>(ParseNumber(optarg, 1, kMaxClients, "-c"));
        break;
      case 'j':
        o.threads = static_cast<int>(ParseNumber(optarg, 1, 1024, "-j"));
        break;
      case 'T':
        o.seconds = static_cast<int>(ParseNumber(optarg, 1, kMaxSeconds, "-T"));
        break;
      case 'p':
        o.peer_threads = static_cast<int>(ParseNumber(optarg, 1, 1024, "--peer-threads"));
        break;
      case 'q':
        o.request = static_cast<size_t>(ParseNumber(optarg, 1, kMaxMessage, "--request"));
        break;
      case 'r':
        o.reply = static_cast<size_t>(ParseNumber(optarg, 1, kMaxMessage, "--reply"));
        break;
      case 'M':
        if (std::strcmp(optarg, "prepared") == 0) {
          o.request = 50;
          o.reply = 71;
        } else if (std::strcmp(optarg, "simple") == 0) {
          o.request = 63;
          o.reply = 66;
        } else {
          Usage("-M takes prepared or simple");
        }
        break;
      case 'l':
        if (std::strcmp(optarg, "uring") == 0) {
          o.loop = Loop::kUring;
        } else if (std::strcmp(optarg, "epoll") == 0) {
          o.loop = Loop::kEpoll;
        } else {
          Usage("--loop takes uring or epoll");
        }
        break;
      default:
        Usage("unknown option");
    }
  }
  if (optind != argc) Usage("unexpected argument");
  if (o.threads > o.clients) Usage("-j must not exceed -c (as in pgbench)");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = ParseOptions(argc, argv);

  char dir[] = "/tmp/pgrig-floor.XXXXXX";
  if (mkdtemp(dir) == nullptr) Die("mkdtemp");
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s/peer.sock", dir);
  const int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0) Die("socket");
  if (bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) Die("bind");
  if (listen(listener, kMaxClients) != 0) Die("listen");

  // Fork before any thread exists; the listener is ready, so connects queue.
  const pid_t peer = fork();
  if (peer < 0) Die("fork");
  if (peer == 0) RunPeer(listener, o);
  close(listener);

  std::vector<Conn> conns(static_cast<size_t>(o.clients));
  for (Conn& c : conns) {
    c.rt.in = c.in;
    c.rt.in_cap = sizeof c.in;
    c.rt.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c.rt.fd < 0) Die("socket");
    if (connect(c.rt.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) Die("connect");
  }
  unlink(addr.sun_path);
  rmdir(dir);

  // A request that looks like the real one where the sizes are the defaults
  // does not matter to the kernel; any bytes of the right length will do.
  const std::vector<char> request(o.request, 'q');
  Shared shared{.request = request.data(),
                .request_len = o.request,
                .reply_len = o.reply,
                .end_ns = NowNs() + o.seconds * 1'000'000'000LL};
  const int64_t t0 = NowNs();
  std::vector<ThreadResult> results(static_cast<size_t>(o.threads));
  std::vector<std::thread> pool;
  for (int t = 0; t < o.threads; ++t) {
    std::vector<pgrig::bench::RoundTripConn*> mine;
    for (int i = t; i < o.clients; i += o.threads)
      mine.push_back(&conns[static_cast<size_t>(i)].rt);
    pool.emplace_back(ClientThread, std::move(mine), std::cref(shared), o.loop,
                      &results[static_cast<size_t>(t)]);
  }
  for (auto& th : pool) th.join();
  const double run_s = static_cast<double>(NowNs() - t0) / 1e9;
  for (Conn& c : conns) close(c.rt.fd);

  int status = 0;
  rusage peer_usage{};
  if (wait4(peer, &status, 0, &peer_usage) != peer) Die("wait4");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "floor: the peer process failed (status %d)\n", status);
    return 2;
  }

  int64_t total = 0;
  double user = 0;
  double sys = 0;
  for (const ThreadResult& r : results) {
    total += r.round_trips;
    user += r.user_s;
    sys += r.sys_s;
  }
  if (total == 0) {
    std::fprintf(stderr, "floor: no round trip completed\n");
    return 2;
  }
  const double n = static_cast<double>(total);
  const double peer_user = Seconds(peer_usage.ru_utime);
  const double peer_sys = Seconds(peer_usage.ru_stime);
  std::printf(
      "loop: %s, clients: %d, threads: %d, peer threads: %d, request %zu bytes, reply %zu bytes\n",
      o.loop == Loop::kUring ? "uring" : "epoll", o.clients, o.threads,
      o.peer_threads > 0 ? o.peer_threads : o.threads, o.request, o.reply);
  std::printf("number of transactions actually processed: %lld\n", static_cast<long long>(total));
  std::printf("tps = %f (without initial connection time)\n", n / run_s);
  std::printf("round trips per second: %.1f\n", n / run_s);
  std::printf("client CPU per round trip: %.3f us (user %.3f, sys %.3f)\n", (user + sys) * 1e6 / n,
              user * 1e6 / n, sys * 1e6 / n);
  std::printf("peer CPU per round trip: %.3f us (user %.3f, sys %.3f)\n",
              (peer_user + peer_sys) * 1e6 / n, peer_user * 1e6 / n, peer_sys * 1e6 / n);
  return 0;
}
