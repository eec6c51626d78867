// wire_probe: what would a select-only transaction cost the client without
// libpq's per-result path, and with system calls batched across
// connections?  An experiment that decides how the engine's hot path should
// evolve (docs/performance.md, "What it would take to halve it"); not part
// of pgrig.
//
// It connects with libpq, prepares pgbench's select-only statement, then
// drives the sockets itself with hand-built protocol messages (Bind/Execute/
// Sync, or Query), in one of two loops per thread:
//   epoll  one send and one recv per transaction, epoll_wait when nothing is
//          ready: the engine's system-call pattern, minus libpq;
//   uring  io_uring: every send and recv of a loop turn goes in with one
//          io_uring_enter that also waits for the next completion.
//
// Usage: wire_probe epoll|uring prepared|simple CLIENTS THREADS SECONDS CONNINFO
// Prints pgbench's "number of transactions actually processed" and "tps ="
// lines, so bench/wire_probe.sh can compare it with pgbench.
#include <liburing.h>
#include <libpq-fe.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>

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

namespace {

constexpr const char* kSelect = "SELECT abalance FROM pgbench_accounts WHERE aid = ";

struct Conn {
  PGconn* pg = nullptr;
  int fd = -1;
  char out[256];
  size_t out_len = 0;
  char in[16384];
  size_t in_len = 0;
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
  char* p = c.out;
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
  c.out_len = static_cast<size_t>(p - c.out);
}

// True when c.in holds a whole response ending in ReadyForQuery; exits on an
// ErrorResponse.
bool Complete(const Conn& c) {
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
};

void RunEpoll(std::vector<Conn*> conns, bool prepared, int64_t naccounts, int64_t end_ns,
              uint64_t seed, ThreadResult* out) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> aid(1, naccounts);
  const int ep = epoll_create1(EPOLL_CLOEXEC);
  for (Conn* c : conns) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = c;
    epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
    Build(*c, prepared, aid(rng));
    if (send(c->fd, c->out, c->out_len, MSG_NOSIGNAL) != static_cast<ssize_t>(c->out_len)) std::exit(2);
  }
  epoll_event evs[64];
  size_t inflight = conns.size();
  bool ending = false;
  while (inflight > 0) {
    const int n = epoll_wait(ep, evs, 64, 100);
    for (int i = 0; i < n; ++i) {
      Conn& c = *static_cast<Conn*>(evs[i].data.ptr);
      const ssize_t r = recv(c.fd, c.in + c.in_len, sizeof c.in - c.in_len, 0);
      if (r <= 0) continue;
      c.in_len += static_cast<size_t>(r);
      if (!Complete(c)) continue;
      c.in_len = 0;
      ++out->txns;
      if (!ending) {
        timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ending = ts.tv_sec * 1'000'000'000LL + ts.tv_nsec >= end_ns;
      }
      if (ending) {
        --inflight;
        continue;
      }
      Build(c, prepared, aid(rng));
      if (send(c.fd, c.out, c.out_len, MSG_NOSIGNAL) != static_cast<ssize_t>(c.out_len)) std::exit(2);
    }
  }
  close(ep);
}

void RunUring(std::vector<Conn*> conns, bool prepared, int64_t naccounts, int64_t end_ns,
              uint64_t seed, ThreadResult* out) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> aid(1, naccounts);
  io_uring ring;
  io_uring_params params{};
  params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
  if (io_uring_queue_init_params(256, &ring, &params) < 0) {
    params = io_uring_params{};
    if (io_uring_queue_init_params(256, &ring, &params) < 0) {
      std::fprintf(stderr, "wire_probe: io_uring unavailable\n");
      std::exit(1);
    }
  }
  // user_data: connection index; sends complete silently unless they fail.
  auto queue_txn = [&](size_t idx) {
    Conn& c = *conns[idx];
    io_uring_sqe* s = io_uring_get_sqe(&ring);
    io_uring_prep_send(s, c.fd, c.out, c.out_len, MSG_NOSIGNAL);
    s->flags |= IOSQE_CQE_SKIP_SUCCESS;
    io_uring_sqe_set_data64(s, ~uint64_t{0});
    io_uring_sqe* r = io_uring_get_sqe(&ring);
    io_uring_prep_recv(r, c.fd, c.in + c.in_len, sizeof c.in - c.in_len, 0);
    io_uring_sqe_set_data64(r, idx);
  };
  for (size_t i = 0; i < conns.size(); ++i) {
    Build(*conns[i], prepared, aid(rng));
    queue_txn(i);
  }
  size_t inflight = conns.size();
  bool ending = false;
  while (inflight > 0) {
    io_uring_submit_and_wait(&ring, 1);
    io_uring_cqe* cqe;
    unsigned head;
    unsigned seen = 0;
    io_uring_for_each_cqe(&ring, head, cqe) {
      ++seen;
      const uint64_t idx = io_uring_cqe_get_data64(cqe);
      if (idx == ~uint64_t{0} || cqe->res <= 0) {
        std::fprintf(stderr, "wire_probe: send/recv failed: %s\n", std::strerror(-cqe->res));
        std::exit(2);
      }
      Conn& c = *conns[idx];
      c.in_len += static_cast<size_t>(cqe->res);
      if (!Complete(c)) {
        io_uring_sqe* r = io_uring_get_sqe(&ring);
        io_uring_prep_recv(r, c.fd, c.in + c.in_len, sizeof c.in - c.in_len, 0);
        io_uring_sqe_set_data64(r, idx);
        continue;
      }
      c.in_len = 0;
      ++out->txns;
      if (!ending) {
        timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ending = ts.tv_sec * 1'000'000'000LL + ts.tv_nsec >= end_ns;
      }
      if (ending) {
        --inflight;
        continue;
      }
      Build(c, prepared, aid(rng));
      queue_txn(idx);
    }
    io_uring_cq_advance(&ring, seen);
  }
  io_uring_queue_exit(&ring);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr,
                 "usage: wire_probe epoll|uring prepared|simple CLIENTS THREADS SECONDS CONNINFO\n");
    return 1;
  }
  const std::string loop = argv[1];
  const bool prepared = std::string(argv[2]) == "prepared";
  const int clients = std::atoi(argv[3]);
  const int threads = std::atoi(argv[4]);
  const int seconds = std::atoi(argv[5]);
  const char* conninfo = argv[6];

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
  }
  const auto t1 = std::chrono::steady_clock::now();
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  const int64_t end_ns = now.tv_sec * 1'000'000'000LL + now.tv_nsec + seconds * 1'000'000'000LL;

  std::vector<ThreadResult> results(static_cast<size_t>(threads));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    std::vector<Conn*> mine;
    for (int i = t; i < clients; i += threads) mine.push_back(&conns[static_cast<size_t>(i)]);
    auto* res = &results[static_cast<size_t>(t)];
    const uint64_t seed = 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(t + 1);
    if (loop == "uring") {
      pool.emplace_back(RunUring, mine, prepared, naccounts, end_ns, seed, res);
    } else {
      pool.emplace_back(RunEpoll, mine, prepared, naccounts, end_ns, seed, res);
    }
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
  return 0;
}
