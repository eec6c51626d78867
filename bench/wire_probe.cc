// wire_probe: what would a select-only transaction cost the client without
// libpq's per-result path, and with system calls batched across
// connections?  An experiment that decides how the engine's hot path should
// evolve (docs/performance.md, "What it would take to halve it"); not part
// of pgrig.
//
// It connects with libpq, prepares pgbench's select-only statement, then
// drives the sockets itself with hand-built protocol messages (Bind/Execute/
// Sync, or Query), in one of two loops per thread (bench/round_trip_loop.h,
// shared with bench/floor.cc):
//   epoll  one send and one recv per transaction, epoll_wait when nothing is
//          ready: the engine's system-call pattern, minus libpq;
//   uring  io_uring: every send and recv of a loop turn goes in with one
//          io_uring_enter that also waits for the next completion.
//
// With a RATE (transactions per second over all threads, split evenly as
// pgbench's -R is), each thread paces its transactions on pgbench's Poisson
// schedule instead (RunPacedLoop): the floor of a client at a fixed rate
// against the real server, which bench/fixed_rate.sh sets beside pgbench
// and pgrig bench.  Its latency runs from each transaction's scheduled start.
//
// Usage: wire_probe epoll|uring prepared|simple CLIENTS THREADS SECONDS CONNINFO [RATE]
// Prints pgbench's "number of transactions actually processed" and "tps ="
// lines, so bench/wire_probe.sh can compare it with pgbench, and with a RATE
//   latency percentiles: p50 X ms, p90 X ms, p99 X ms, p99.9 X ms
#include <arpa/inet.h>
#include <libpq-fe.h>
#include <liburing.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "round_trip_loop.h"

namespace {

constexpr const char* kSelect = "SELECT abalance FROM pgbench_accounts WHERE aid = ";

// The loops of bench/round_trip_loop.h see the RoundTripConn part.
struct Conn : pgrig::bench::RoundTripConn {
  PGconn* pg = nullptr;
  char out_buf[256];
  char in_buf[16384];
};

void Put32(char* p, uint32_t v) {
  v = htonl(v);
  std::memcpy(p, &v, 4);
}
void Put16(char* p, uint16_t v) {
  v = htons(v);
  std::memcpy(p, &v, 2);
}

// Builds one transaction's messages in c.out.
void Build(Conn& c, bool prepared, int64_t aid) {
  char num[24];
  const int nl = std::snprintf(num, sizeof num, "%lld", static_cast<long long>(aid));
  char* p = c.out_buf;
  if (prepared) {
    // Bind: portal "", statement "s", no parameter formats, 1 parameter,
    // no result formats.
    const uint32_t len = 4 + 1 + 2 + 2 + 2 + 4 + static_cast<uint32_t>(nl) + 2;
    *p++ = 'B';
    Put32(p, len);
    p += 4;
    *p++ = '\0';
    *p++ = 's';
    *p++ = '\0';
    Put16(p, 0);
    p += 2;
    Put16(p, 1);
    p += 2;
    Put32(p, static_cast<uint32_t>(nl));
    p += 4;
    std::memcpy(p, num, static_cast<size_t>(nl));
    p += nl;
    Put16(p, 0);
    p += 2;
    *p++ = 'E';  // Execute: portal "", no row limit
    Put32(p, 4 + 1 + 4);
    p += 4;
    *p++ = '\0';
    Put32(p, 0);
    p += 4;
    *p++ = 'S';  // Sync
    Put32(p, 4);
    p += 4;
  } else {
    const size_t ql = std::strlen(kSelect);
    *p++ = 'Q';
    Put32(p, static_cast<uint32_t>(4 + ql + static_cast<size_t>(nl) + 2));
    p += 4;
    std::memcpy(p, kSelect, ql);
    p += ql;
    std::memcpy(p, num, static_cast<size_t>(nl));
    p += nl;
    *p++ = ';';
    *p++ = '\0';
  }
  c.out = c.out_buf;
  c.out_len = static_cast<size_t>(p - c.out_buf);
}

// True when c.in holds a whole response ending in ReadyForQuery; exits on an
// ErrorResponse.
bool Complete(const pgrig::bench::RoundTripConn& c) {
  size_t off = 0;
  while (off + 5 <= c.in_len) {
    uint32_t len;
    std::memcpy(&len, c.in + off + 1, 4);
    len = ntohl(len);
    if (off + 1 + len > c.in_len) return false;
    const char type = c.in[off];
    if (type == 'E') {
      std::fprintf(stderr, "wire_probe: server error\n");
      std::exit(2);
    }
    off += 1 + len;
    if (type == 'Z') return off == c.in_len;
  }
  return false;
}

struct ThreadResult {
  int64_t txns = 0;
  std::vector<int64_t> latencies_ns;  // paced runs only
};

// Each request is a new transaction with a random aid; a reply is whole at
// ReadyForQuery.
struct Transactions {
  bool prepared;
  std::mt19937_64 rng;
  std::uniform_int_distribution<int64_t> aid;
  void Next(pgrig::bench::RoundTripConn& c) { Build(static_cast<Conn&>(c), prepared, aid(rng)); }
  bool Complete(const pgrig::bench::RoundTripConn& c) const { return ::Complete(c); }
};

void RunThread(std::vector<pgrig::bench::RoundTripConn*> conns, bool uring, bool prepared,
               int64_t naccounts, int64_t end_ns, double delay_ns, uint64_t seed,
               ThreadResult* out) {
  Transactions policy{prepared, std::mt19937_64(seed),
                      std::uniform_int_distribution<int64_t>(1, naccounts)};
  if (delay_ns > 0) {
    pgrig::bench::RunPacedLoop(uring, conns, end_ns, delay_ns, seed, policy, &out->txns,
                               &out->latencies_ns);
  } else if (uring) {
    pgrig::bench::RunUringLoop(conns, end_ns, policy, &out->txns);
  } else {
    pgrig::bench::RunEpollLoop(conns, end_ns, policy, &out->txns);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7 && argc != 8) {
    std::fprintf(stderr,
                 "usage: wire_probe epoll|uring prepared|simple CLIENTS THREADS SECONDS CONNINFO "
                 "[RATE]\n");
    return 1;
  }
  const std::string loop = argv[1];
  const bool prepared = std::string(argv[2]) == "prepared";
  const int clients = std::atoi(argv[3]);
  const int threads = std::atoi(argv[4]);
  const int seconds = std::atoi(argv[5]);
  const char* conninfo = argv[6];
  const double rate = argc == 8 ? std::atof(argv[7]) : 0;
  if (clients < 1 || threads < 1 || threads > clients || seconds < 1 || (argc == 8 && rate <= 0)) {
    std::fprintf(stderr, "wire_probe: CLIENTS >= THREADS >= 1, SECONDS >= 1 and RATE > 0\n");
    return 1;
  }
  // pgbench's -R: each thread's share is rate / threads.
  const double delay_ns = rate > 0 ? 1e9 * threads / rate : 0;

  std::vector<Conn> conns(static_cast<size_t>(clients));
  int64_t naccounts = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (Conn& c : conns) {
    c.pg = PQconnectdb(conninfo);
    if (PQstatus(c.pg) != CONNECTION_OK) {
      std::fprintf(stderr, "wire_probe: %s", PQerrorMessage(c.pg));
      return 1;
    }
    if (naccounts == 0) {
      PGresult* r = PQexec(c.pg, "SELECT count(*) FROM pgbench_branches");
      naccounts = std::atoll(PQgetvalue(r, 0, 0)) * 100000;
      PQclear(r);
    }
    if (prepared) {
      const std::string sql = std::string(kSelect) + "$1";
      PGresult* r = PQprepare(c.pg, "s", sql.c_str(), 1, nullptr);
      if (PQresultStatus(r) != PGRES_COMMAND_OK) {
        std::fprintf(stderr, "wire_probe: %s", PQresultErrorMessage(r));
        return 1;
      }
      PQclear(r);
    }
    c.fd = PQsocket(c.pg);
    c.in = c.in_buf;
    c.in_cap = sizeof c.in_buf;
  }
  const auto t1 = std::chrono::steady_clock::now();
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  const int64_t end_ns = now.tv_sec * 1'000'000'000LL + now.tv_nsec + seconds * 1'000'000'000LL;

  std::vector<ThreadResult> results(static_cast<size_t>(threads));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    std::vector<pgrig::bench::RoundTripConn*> mine;
    for (int i = t; i < clients; i += threads) mine.push_back(&conns[static_cast<size_t>(i)]);
    auto* res = &results[static_cast<size_t>(t)];
    const uint64_t seed = 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(t + 1);
    if (rate > 0) res->latencies_ns.reserve(static_cast<size_t>(rate / threads * seconds * 1.2));
    pool.emplace_back(RunThread, std::move(mine), loop == "uring", prepared, naccounts, end_ns,
                      delay_ns, seed, res);
  }
  for (auto& th : pool) th.join();
  const auto t2 = std::chrono::steady_clock::now();
  int64_t total = 0;
  for (const auto& r : results) total += r.txns;
  for (Conn& c : conns) PQfinish(c.pg);
  const double run_s = std::chrono::duration<double>(t2 - t1).count();
  std::printf("number of transactions actually processed: %lld\n", static_cast<long long>(total));
  std::printf("initial connection time = %.3f ms\n",
              std::chrono::duration<double, std::milli>(t1 - t0).count());
  std::printf("tps = %f (without initial connection time)\n", static_cast<double>(total) / run_s);
  if (rate > 0) {
    std::vector<int64_t> all;
    for (const auto& r : results)
      all.insert(all.end(), r.latencies_ns.begin(), r.latencies_ns.end());
    std::sort(all.begin(), all.end());
    auto at = [&all](double q) {
      if (all.empty()) return 0.0;
      const size_t i =
          std::min(all.size() - 1, static_cast<size_t>(q * static_cast<double>(all.size())));
      return static_cast<double>(all[i]) / 1e6;
    };
    std::printf("latency percentiles: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, p99.9 %.3f ms\n",
                at(0.50), at(0.90), at(0.99), at(0.999));
  }
  return 0;
}
