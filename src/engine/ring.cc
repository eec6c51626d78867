#include "engine/ring.h"

#include <poll.h>
#include <sys/socket.h>

#include <atomic>
#include <cerrno>
#include <ctime>

namespace pgrig::engine {

namespace {

// The order in which rings give their memory back and take it again.
//
// liburing maps a ring's queues with raw system calls, so ThreadSanitizer
// never sees them unmapped.  When one worker finishes early and drops its
// ring, the kernel may hand the same addresses to a worker that starts its
// ring afterwards; TSan then compares the new owner's first writes with the
// old owner's last ones and, seeing no ordering between the two threads,
// reports a race.  The kernel does order them (the unmap completes before
// the address is reused); this counter states that ordering in terms TSan
// understands: a release before every unmap, an acquire after every map.
// One atomic operation per ring, at its start and end.
std::atomic<uint64_t> ring_handovers{0};

}  // namespace

std::unique_ptr<Ring> Ring::Create(unsigned entries) {
  io_uring ring{};
  io_uring_params p{};
  // Completions are processed only when this thread asks for them, which
  // keeps the backends' answers from interrupting the loop.  This flag is
  // Linux 6.1's; a kernel that lacks it also predates the send semantics
  // relied on below (silent successes, MSG_WAITALL retried by io_uring), so
  // without it the engine stays on epoll rather than on a half-working ring.
  p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
  if (io_uring_queue_init_params(entries, &ring, &p) != 0) return nullptr;
  ring_handovers.load(std::memory_order_acquire);
  if ((p.features & IORING_FEAT_CQE_SKIP) == 0) {
    io_uring_queue_exit(&ring);
    return nullptr;
  }
  // The structure only points into the kernel's mappings: it may be copied.
  std::unique_ptr<Ring> r(new Ring());
  r->ring_ = ring;
  return r;
}

Ring::~Ring() {
  ring_handovers.fetch_add(1, std::memory_order_release);
  io_uring_queue_exit(&ring_);
}

io_uring_sqe* Ring::Sqe() {
  io_uring_sqe* s = io_uring_get_sqe(&ring_);
  if (s == nullptr) {
    // The submission queue is full: hand it to the kernel and go on.
    io_uring_submit(&ring_);
    s = io_uring_get_sqe(&ring_);
  }
  return s;
}

void Ring::Send(int fd, const char* data, size_t len, uint64_t tag) {
  io_uring_sqe* s = Sqe();
  io_uring_prep_send(s, fd, data, len, MSG_NOSIGNAL | MSG_WAITALL);
  s->flags |= IOSQE_CQE_SKIP_SUCCESS;
  io_uring_sqe_set_data64(s, tag);
}

void Ring::Recv(int fd, char* buf, size_t len, uint64_t tag) {
  io_uring_sqe* s = Sqe();
  io_uring_prep_recv(s, fd, buf, len, 0);
  io_uring_sqe_set_data64(s, tag);
}

void Ring::PollIn(int fd, uint64_t tag) {
  io_uring_sqe* s = Sqe();
  io_uring_prep_poll_add(s, fd, POLLIN);
  io_uring_sqe_set_data64(s, tag);
}

void Ring::Cancel(uint64_t tag) {
  io_uring_sqe* s = Sqe();
  io_uring_prep_cancel64(s, tag, 0);
  s->flags |= IOSQE_CQE_SKIP_SUCCESS;
  io_uring_sqe_set_data64(s, 0);
}

bool Ring::SubmitAndWait(int64_t timeout_ns) {
  int r = 0;
  if (timeout_ns <= 0) {
    r = io_uring_submit(&ring_);
  } else {
    __kernel_timespec ts{.tv_sec = timeout_ns / 1'000'000'000,
                         .tv_nsec = timeout_ns % 1'000'000'000};
    io_uring_cqe* cqe = nullptr;
    r = io_uring_submit_and_wait_timeout(&ring_, &cqe, 1, &ts, nullptr);
  }
  if (r >= 0 || r == -ETIME || r == -EINTR || r == -EAGAIN || r == -EBUSY) return true;
  errno = -r;
  return false;
}

}  // namespace pgrig::engine
