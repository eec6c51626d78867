// Poller: a worker's wait for its sockets, over epoll alone or over epoll and
// io_uring together, behind one small interface.
//
// Every connection's socket is registered with the worker's epoll set
// (Watch/Unwatch, through a PollSlot the connection owns).  Without the ring
// Wait() is one epoll_pwait2 (after optional sched_yield rounds) and reports
// each ready socket to Handler::OnEvents.  With the ring (StartRing, the
// lean protocol's I/O, engine/ring.h) sends and receives are queued with
// Send/Recv and go to the kernel inside the call that waits, so a loop turn
// costs one system call; the epoll set is then polled through the ring and
// read with a zero-timeout epoll_wait only when it has something (libpq's
// connecting and preparing).  Receive completions go to Handler::OnRecv,
// failed sends to Handler::OnSendFailed.
//
// Owners are the objects the handler gets back: pointers to 8-byte aligned
// objects (their low bits tag the ring's operations).  Buffers passed to
// Send/Recv stay valid until their completion (CancelRecv asks for one
// early; DrainRecvs waits for the cancellations).
//
// One thread uses a Poller; not thread-safe.
#ifndef PGRIG_ENGINE_POLLER_H_
#define PGRIG_ENGINE_POLLER_H_

#include <sys/epoll.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "engine/ring.h"

namespace pgrig::engine {

// A socket's registration with the epoll set, kept by its connection.
struct PollSlot {
  int fd = -1;              // registered with epoll; -1: not registered
  uint32_t mask = 0;        // events registered
  bool want_write = false;  // output is pending: EPOLLOUT is wanted
};

class Poller {
 public:
  class Handler {
   public:
    virtual ~Handler() = default;
    // The loop woke up with something to report (before the calls below).
    virtual void OnWakeup() = 0;
    virtual void OnEvents(void* owner, uint32_t events) = 0;
    // A ring receive completed: res bytes, or -errno.
    virtual void OnRecv(void* owner, int res) = 0;
    // A ring send failed with -errno res.
    virtual void OnSendFailed(void* owner, int res) = 0;
  };

  Poller();
  ~Poller();
  Poller(const Poller&) = delete;
  Poller& operator=(const Poller&) = delete;

  // Sets up the ring for `entries` requests; false (and epoll alone) when
  // the kernel refuses io_uring.
  bool StartRing(unsigned entries);
  bool ring() const { return ring_ != nullptr; }

  // Registers fd for `events` (re-registers when the fd changed, modifies
  // when only the events did).  fd < 0 removes the registration.
  void Watch(PollSlot* slot, int fd, uint32_t events, void* owner);
  void Unwatch(PollSlot* slot);

  // The ring's requests (only when ring()).
  void Send(int fd, const char* data, size_t len, void* owner);
  void Recv(int fd, char* buf, size_t len, void* owner);
  void CancelRecv(void* owner);

  // Waits up to wait_ns for events and reports them to h.  False when the
  // wait itself failed (the message in *error): the loop cannot go on.
  bool Wait(int64_t wait_ns, int yield_rounds, Handler& h, std::string* error);
  // Waits (at most two seconds) for the completions of pending receives
  // whose connections are gone, then closes the ring.
  void DrainRecvs(Handler& h);

 private:
  bool RingTurn(int64_t wait_ns, Handler& h, bool* epoll_ready, std::string* error);
  void DispatchEpoll(int n, Handler& h);

  int epfd_ = -1;
  std::unique_ptr<Ring> ring_;
  bool epoll_polled_ = false;  // the ring has a poll pending on epfd_
  int armed_recvs_ = 0;
  static constexpr int kMaxEvents = 256;
  epoll_event events_[kMaxEvents];
};

}  // namespace pgrig::engine

#endif  // PGRIG_ENGINE_POLLER_H_
