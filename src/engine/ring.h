// Ring: the engine's io_uring, so that one system call per loop turn sends
// every message the turn produced and waits for the next answers.
//
// On the lean protocol path (pg/wire.h) a transaction needs a send and a
// receive; with epoll each is its own system call and the wait a third.
// Here sends and receives are queued as submissions and go to the kernel
// together, inside the call that also waits for completions (measured:
// docs/performance.md, "Where the client's time goes").  libpq's own I/O
// (connecting, preparing) keeps using the worker's epoll set, whose file
// descriptor the ring polls.
//
// Completions carry a tag the caller chose: a 64-bit value whose low three
// bits are free for the caller's use (pointers to 8-byte aligned objects).
// Buffers passed to Send and Recv must stay valid and unchanged until their
// completion.  One thread uses a Ring; not thread-safe.
#ifndef PGRIG_ENGINE_RING_H_
#define PGRIG_ENGINE_RING_H_

#include <liburing.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace pgrig::engine {

class Ring {
 public:
  // nullptr when the kernel or its policy refuses io_uring (old kernel,
  // io_uring_disabled, a seccomp filter): the engine then uses epoll alone.
  static std::unique_ptr<Ring> Create(unsigned entries);
  ~Ring();
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;

  // Queues a send of all of data[0, len) (MSG_WAITALL); only a failure
  // produces a completion.
  void Send(int fd, const char* data, size_t len, uint64_t tag);
  // Queues one receive of at most len bytes into buf.
  void Recv(int fd, char* buf, size_t len, uint64_t tag);
  // Queues a one-shot poll for readability of fd (the epoll set).
  void PollIn(int fd, uint64_t tag);
  // Queues the cancellation of the pending request tagged `tag`.
  void Cancel(uint64_t tag);

  // Submits what is queued and waits up to timeout_ns (0: no wait) for at
  // least one completion.  Returns false on an unexpected error (errno set).
  bool SubmitAndWait(int64_t timeout_ns);

  // Calls f(tag, res) for every completion that is ready, then marks them
  // seen.  f may queue new requests.
  template <typename F>
  void ForEachCompletion(F&& f) {
    io_uring_cqe* cqe = nullptr;
    while (io_uring_peek_cqe(&ring_, &cqe) == 0) {
      const uint64_t tag = cqe->user_data;
      const int res = cqe->res;
      io_uring_cqe_seen(&ring_, cqe);
      f(tag, res);
    }
  }

 private:
  Ring() = default;
  io_uring_sqe* Sqe();

  io_uring ring_{};
};

}  // namespace pgrig::engine

#endif  // PGRIG_ENGINE_RING_H_
