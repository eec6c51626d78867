// round_trip_loop.h: the two cheapest client loops for request/reply round
// trips over sockets, shared by bench/floor.cc (against an echo peer) and
// bench/wire_probe.cc (against PostgreSQL).  Benchmark code, not part of
// pgrig.
//
// Each loop runs on one thread over the connections it is given (the caller
// owns them and their buffers; nothing is shared between threads), keeps one
// request in flight per connection, and stops sending once CLOCK_MONOTONIC
// passes end_ns, returning when every outstanding reply is in:
//   RunEpollLoop  send(), then epoll_wait for readable connections and one
//                 recv() each;
//   RunUringLoop  io_uring: every send+recv queued in a loop turn goes in
//                 with the one io_uring_enter that also waits for the next
//                 completion (sends complete silently).
// RunPacedLoop is either of the two at a fixed rate (pgbench's -R): the
// thread's transactions start on a Poisson schedule and each start takes an
// idle connection, so a loop turn sleeps until the next start or the next
// reply, whichever comes first: the least a paced client must do.
// The Policy says what a request and a whole reply are:
//   void Next(RoundTripConn&)            sets out/out_len to the next request
//   bool Complete(const RoundTripConn&)  true when in[0, in_len) is a whole
//                                        reply (the loop then empties in)
// On a system-call failure the loops print the error and exit(2): these are
// measuring programs, and a half-measured run must not print figures.
#ifndef PGRIG_BENCH_ROUND_TRIP_LOOP_H_
#define PGRIG_BENCH_ROUND_TRIP_LOOP_H_

#include <liburing.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

namespace pgrig::bench {

struct RoundTripConn {
  int fd = -1;
  const char* out = nullptr;  // the request in flight
  size_t out_len = 0;
  char* in = nullptr;  // the reply so far
  size_t in_cap = 0;
  size_t in_len = 0;
  int64_t scheduled_ns = 0;  // paced loops: when the request in flight was due
};

[[noreturn]] inline void DieErrno(const char* what, int err) {
  std::fprintf(stderr, "round trip loop: %s: %s\n", what, std::strerror(err));
  std::exit(2);
}

inline int64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

enum class ReplyStep { kIncomplete, kSendNext, kDone };

// After `got` more reply bytes on c: kIncomplete while the reply is not
// whole.  Otherwise counts the round trip, empties c's reply and says
// whether c sends its next request, or is done (dropped from *inflight)
// because end_ns has passed.
template <class Policy>
ReplyStep ReplyArrived(RoundTripConn& c, size_t got, Policy& policy, int64_t end_ns, bool* ending,
                       size_t* inflight, int64_t* round_trips) {
  c.in_len += got;
  if (!policy.Complete(c)) return ReplyStep::kIncomplete;
  c.in_len = 0;
  ++*round_trips;
  if (!*ending) *ending = MonotonicNs() >= end_ns;
  if (!*ending) return ReplyStep::kSendNext;
  --*inflight;
  return ReplyStep::kDone;
}

template <class Policy>
void RunEpollLoop(const std::vector<RoundTripConn*>& conns, int64_t end_ns, Policy& policy,
                  int64_t* round_trips) {
  const int ep = epoll_create1(EPOLL_CLOEXEC);
  if (ep < 0) DieErrno("epoll_create1", errno);
  auto send_next = [&](RoundTripConn& c) {
    policy.Next(c);
    if (send(c.fd, c.out, c.out_len, MSG_NOSIGNAL) != static_cast<ssize_t>(c.out_len)) {
      DieErrno("send", errno);
    }
  };
  for (RoundTripConn* c : conns) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = c;
    if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev) != 0) DieErrno("epoll_ctl", errno);
    send_next(*c);
  }
  epoll_event evs[64];
  size_t inflight = conns.size();
  bool ending = false;
  while (inflight > 0) {
    const int n = epoll_wait(ep, evs, 64, 1000);
    if (n < 0 && errno != EINTR) DieErrno("epoll_wait", errno);
    for (int i = 0; i < n; ++i) {
      RoundTripConn& c = *static_cast<RoundTripConn*>(evs[i].data.ptr);
      const ssize_t r = recv(c.fd, c.in + c.in_len, c.in_cap - c.in_len, MSG_DONTWAIT);
      if (r == 0) DieErrno("recv", EPIPE);
      if (r < 0) {
        if (errno == EAGAIN) continue;
        DieErrno("recv", errno);
      }
      if (ReplyArrived(c, static_cast<size_t>(r), policy, end_ns, &ending, &inflight,
                       round_trips) == ReplyStep::kSendNext) {
        send_next(c);
      }
    }
  }
  close(ep);
}

template <class Policy>
void RunUringLoop(const std::vector<RoundTripConn*>& conns, int64_t end_ns, Policy& policy,
                  int64_t* round_trips) {
  io_uring ring;
  io_uring_params params{};
  params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
  const unsigned entries = static_cast<unsigned>(conns.size()) * 2 + 8;
  if (io_uring_queue_init_params(entries, &ring, &params) < 0) {
    params = io_uring_params{};  // kernels before 6.1: no DEFER_TASKRUN
    const int err = io_uring_queue_init_params(entries, &ring, &params);
    if (err < 0) DieErrno("io_uring_queue_init", -err);
  }
  constexpr uint64_t kSendTag = ~uint64_t{0};
  auto queue_recv = [&](size_t idx) {
    RoundTripConn& c = *conns[idx];
    io_uring_sqe* r = io_uring_get_sqe(&ring);
    io_uring_prep_recv(r, c.fd, c.in + c.in_len, c.in_cap - c.in_len, 0);
    io_uring_sqe_set_data64(r, idx);
  };
  auto queue_round_trip = [&](size_t idx) {
    RoundTripConn& c = *conns[idx];
    policy.Next(c);
    io_uring_sqe* w = io_uring_get_sqe(&ring);
    io_uring_prep_send(w, c.fd, c.out, c.out_len, MSG_NOSIGNAL);
    w->flags |= IOSQE_CQE_SKIP_SUCCESS;
    io_uring_sqe_set_data64(w, kSendTag);
    queue_recv(idx);
  };
  for (size_t i = 0; i < conns.size(); ++i) queue_round_trip(i);
  size_t inflight = conns.size();
  bool ending = false;
  while (inflight > 0) {
    const int err = io_uring_submit_and_wait(&ring, 1);
    if (err < 0 && err != -EINTR) DieErrno("io_uring_submit_and_wait", -err);
    io_uring_cqe* cqe;
    unsigned head;
    unsigned seen = 0;
    io_uring_for_each_cqe(&ring, head, cqe) {
      ++seen;
      const uint64_t idx = io_uring_cqe_get_data64(cqe);
      if (idx == kSendTag || cqe->res <= 0) {
        DieErrno(idx == kSendTag ? "io_uring send" : "io_uring recv",
                 cqe->res < 0 ? -cqe->res : EPIPE);
      }
      RoundTripConn& c = *conns[idx];
      switch (ReplyArrived(c, static_cast<size_t>(cqe->res), policy, end_ns, &ending, &inflight,
                           round_trips)) {
        case ReplyStep::kIncomplete:
          queue_recv(idx);
          break;
        case ReplyStep::kSendNext:
          queue_round_trip(idx);
          break;
        case ReplyStep::kDone:
          break;
      }
    }
    io_uring_cq_advance(&ring, seen);
  }
  io_uring_queue_exit(&ring);
}

// The schedule of a paced thread: pgbench's, a Poisson process of mean
// delay_ns (its -R divided over the threads), so each slot follows the one
// before by an exponentially distributed gap.
class PacedSchedule {
 public:
  PacedSchedule(int64_t start_ns, double delay_ns, uint64_t seed)
      : delay_ns_(delay_ns), state_(seed | 1), next_ns_(start_ns) {
    Advance();
  }
  int64_t next_ns() const { return next_ns_; }
  void Advance() {
    // xorshift64*: cheap and good enough for gaps; u in (0, 1].
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    const uint64_t r = state_ * 0x2545F4914F6CDD1DULL;
    const double u = (static_cast<double>(r >> 11) + 1.0) / 9007199254740992.0;
    next_ns_ += static_cast<int64_t>(-std::log(u) * delay_ns_);
  }

 private:
  double delay_ns_;
  uint64_t state_;
  int64_t next_ns_;
};

// One thread's connections at a fixed rate (see the top of this file).
// Until end_ns, every due slot of the schedule starts a transaction on an
// idle connection (a slot with none idle waits for one, as in pgbench, and
// its lateness counts in the latency); a reply's latency, from its slot to
// the loop turn that saw it whole, goes to *latencies_ns.  The loop turn
// sleeps in epoll_pwait2 or, with uring, in the io_uring_enter that also
// submits the turn's sends and receives.
template <class Policy>
void RunPacedLoop(bool uring, const std::vector<RoundTripConn*>& conns, int64_t end_ns,
                  double delay_ns, uint64_t seed, Policy& policy, int64_t* round_trips,
                  std::vector<int64_t>* latencies_ns) {
  int ep = -1;
  io_uring ring{};
  if (uring) {
    io_uring_params params{};
    params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
    const int err =
        io_uring_queue_init_params(static_cast<unsigned>(conns.size()) * 2 + 8, &ring, &params);
    if (err < 0) DieErrno("io_uring_queue_init", -err);
  } else {
    ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0) DieErrno("epoll_create1", errno);
    for (size_t i = 0; i < conns.size(); ++i) {
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.u64 = i;
      if (epoll_ctl(ep, EPOLL_CTL_ADD, conns[i]->fd, &ev) != 0) DieErrno("epoll_ctl", errno);
    }
  }
  auto queue_recv = [&](size_t idx) {
    RoundTripConn& c = *conns[idx];
    io_uring_sqe* r = io_uring_get_sqe(&ring);
    io_uring_prep_recv(r, c.fd, c.in + c.in_len, c.in_cap - c.in_len, 0);
    io_uring_sqe_set_data64(r, idx);
  };
  constexpr uint64_t kSendTag = ~uint64_t{0};
  std::vector<size_t> idle;
  for (size_t i = conns.size(); i-- > 0;) idle.push_back(i);
  PacedSchedule schedule(MonotonicNs(), delay_ns, seed);
  size_t inflight = 0;
  bool ending = false;
  // After got more bytes on conns[idx] at now: true when its reply is whole
  // (counted, latency kept, the connection idle again).
  auto arrived = [&](size_t idx, size_t got, int64_t now) {
    RoundTripConn& c = *conns[idx];
    c.in_len += got;
    if (!policy.Complete(c)) return false;
    c.in_len = 0;
    ++*round_trips;
    latencies_ns->push_back(now - c.scheduled_ns);
    --inflight;
    idle.push_back(idx);
    return true;
  };
  epoll_event evs[64];
  for (;;) {
    int64_t now = MonotonicNs();
    if (!ending && now >= end_ns) ending = true;
    while (!ending && !idle.empty() && schedule.next_ns() <= now) {
      const size_t idx = idle.back();
      idle.pop_back();
      RoundTripConn& c = *conns[idx];
      c.scheduled_ns = schedule.next_ns();
      schedule.Advance();
      policy.Next(c);
      ++inflight;
      if (uring) {
        io_uring_sqe* w = io_uring_get_sqe(&ring);
        io_uring_prep_send(w, c.fd, c.out, c.out_len, MSG_NOSIGNAL);
        w->flags |= IOSQE_CQE_SKIP_SUCCESS;
        io_uring_sqe_set_data64(w, kSendTag);
        queue_recv(idx);
      } else if (send(c.fd, c.out, c.out_len, MSG_NOSIGNAL) != static_cast<ssize_t>(c.out_len)) {
        DieErrno("send", errno);
      }
    }
    if (ending && inflight == 0) break;
    int64_t wait_ns = 1'000'000'000;
    if (!ending && !idle.empty()) wait_ns = schedule.next_ns() - now;
    if (!ending) wait_ns = std::min(wait_ns, end_ns - now);
    if (wait_ns < 0) wait_ns = 0;
    const __kernel_timespec kts{.tv_sec = wait_ns / 1'000'000'000,
                                .tv_nsec = wait_ns % 1'000'000'000};
    if (uring) {
      io_uring_cqe* first = nullptr;
      const int err = io_uring_submit_and_wait_timeout(
          &ring, &first, 1, const_cast<__kernel_timespec*>(&kts), nullptr);
      if (err < 0 && err != -ETIME && err != -EINTR) DieErrno("io_uring_submit_and_wait", -err);
      now = MonotonicNs();
      io_uring_cqe* cqe;
      unsigned head;
      unsigned seen = 0;
      io_uring_for_each_cqe(&ring, head, cqe) {
        ++seen;
        const uint64_t idx = io_uring_cqe_get_data64(cqe);
        if (idx == kSendTag || cqe->res <= 0) {
          DieErrno(idx == kSendTag ? "io_uring send" : "io_uring recv",
                   cqe->res < 0 ? -cqe->res : EPIPE);
        }
        if (!arrived(idx, static_cast<size_t>(cqe->res), now)) queue_recv(idx);
      }
      io_uring_cq_advance(&ring, seen);
    } else {
      const timespec ts{.tv_sec = kts.tv_sec, .tv_nsec = kts.tv_nsec};
      const int n = epoll_pwait2(ep, evs, 64, &ts, nullptr);
      if (n < 0 && errno != EINTR) DieErrno("epoll_pwait2", errno);
      if (n > 0) now = MonotonicNs();
      for (int i = 0; i < n; ++i) {
        const size_t idx = evs[i].data.u64;
        RoundTripConn& c = *conns[idx];
        const ssize_t r = recv(c.fd, c.in + c.in_len, c.in_cap - c.in_len, MSG_DONTWAIT);
        if (r == 0) DieErrno("recv", EPIPE);
        if (r < 0) {
          if (errno == EAGAIN) continue;
          DieErrno("recv", errno);
        }
        arrived(idx, static_cast<size_t>(r), now);
      }
    }
  }
  if (uring) {
    io_uring_queue_exit(&ring);
  } else {
    close(ep);
  }
}

}  // namespace pgrig::bench

#endif  // PGRIG_BENCH_ROUND_TRIP_LOOP_H_
