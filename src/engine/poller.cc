#include "engine/poller.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>

#include "common/clock.h"
#include "engine/messages.h"

namespace pgrig::engine {

namespace {

// Ring tags: the owner's address with the operation in the low bits.
constexpr uint64_t kTagRecv = 1;
constexpr uint64_t kTagSend = 2;
constexpr uint64_t kTagEpoll = 4;  // the poll on the epoll set (no owner)
uint64_t Tag(void* owner, uint64_t op) { return reinterpret_cast<uint64_t>(owner) | op; }

constexpr int64_t kDrainNs = 2'000'000'000;

}  // namespace

Poller::Poller() { epfd_ = epoll_create1(EPOLL_CLOEXEC); }

Poller::~Poller() {
  ring_.reset();
  if (epfd_ >= 0) ::close(epfd_);
}

bool Poller::StartRing(unsigned entries) {
  ring_ = Ring::Create(entries);
  return ring_ != nullptr;
}

void Poller::Watch(PollSlot* slot, int fd, uint32_t events, void* owner) {
  if (fd != slot->fd) {
    if (slot->fd >= 0) epoll_ctl(epfd_, EPOLL_CTL_DEL, slot->fd, nullptr);  // may be closed already
    slot->fd = -1;
    slot->mask = 0;
    if (fd < 0) return;
    epoll_event ev{};
    ev.events = events;
    ev.data.ptr = owner;
    if (epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev) != 0) return;
    slot->fd = fd;
    slot->mask = events;
    return;
  }
  if (slot->fd >= 0 && slot->mask != events) {
    epoll_event ev{};
    ev.events = events;
    ev.data.ptr = owner;
    epoll_ctl(epfd_, EPOLL_CTL_MOD, slot->fd, &ev);
    slot->mask = events;
  }
}

void Poller::Unwatch(PollSlot* slot) {
  if (slot->fd >= 0) epoll_ctl(epfd_, EPOLL_CTL_DEL, slot->fd, nullptr);
  slot->fd = -1;
  slot->mask = 0;
}

void Poller::Send(int fd, const char* data, size_t len, void* owner) {
  ring_->Send(fd, data, len, Tag(owner, kTagSend));
}

void Poller::Recv(int fd, char* buf, size_t len, void* owner) {
  ring_->Recv(fd, buf, len, Tag(owner, kTagRecv));
  ++armed_recvs_;
}

void Poller::CancelRecv(void* owner) {
  if (ring_) ring_->Cancel(Tag(owner, kTagRecv));
}

void Poller::DispatchEpoll(int n, Handler& h) {
  h.OnWakeup();
  for (int i = 0; i < n; ++i) h.OnEvents(events_[i].data.ptr, events_[i].events);
}

bool Poller::Wait(int64_t wait_ns, int yield_rounds, Handler& h, std::string* error) {
  int n = 0;
  if (ring_) {
    bool epoll_ready = false;
    if (!RingTurn(wait_ns, h, &epoll_ready, error)) return false;
    if (epoll_ready) n = epoll_wait(epfd_, events_, kMaxEvents, 0);
    if (n > 0) DispatchEpoll(n, h);
    return true;
  }
  if (wait_ns > 0 && yield_rounds > 0) {
    // Going to sleep costs a context switch and a wake-up, the largest
    // item in the client's CPU profile.  With a busy server on the same
    // machine, giving the CPU away for a moment (sched_yield) often lets
    // a backend answer, and the answers are then collected without
    // sleeping.
    for (int round = 0; round < yield_rounds && n == 0; ++round) {
      sched_yield();
      n = epoll_wait(epfd_, events_, kMaxEvents, 0);
    }
  }
  timespec ts{static_cast<time_t>(wait_ns / 1'000'000'000),
              static_cast<long>(wait_ns % 1'000'000'000)};
  if (n == 0) n = epoll_pwait2(epfd_, events_, kMaxEvents, &ts, nullptr);
  if (n < 0) {
    if (errno == ENOSYS) {
      n = epoll_wait(epfd_, events_, kMaxEvents, static_cast<int>((wait_ns + 999'999) / 1'000'000));
    }
    if (n < 0) {
      if (errno == EINTR) return true;
      *error = msg::SystemCallFailed("epoll_wait", errno);
      return false;
    }
  }
  if (n > 0) DispatchEpoll(n, h);
  return true;
}

// One turn of the ring: everything queued goes to the kernel, then the
// completions are handled.
bool Poller::RingTurn(int64_t wait_ns, Handler& h, bool* epoll_ready, std::string* error) {
  if (!epoll_polled_) {
    ring_->PollIn(epfd_, kTagEpoll);
    epoll_polled_ = true;
  }
  if (!ring_->SubmitAndWait(wait_ns)) {
    *error = msg::SystemCallFailed("io_uring_enter", errno);
    return false;
  }
  h.OnWakeup();
  ring_->ForEachCompletion([this, &h, epoll_ready](uint64_t tag, int res) {
    if (tag == kTagEpoll) {
      epoll_polled_ = false;
      *epoll_ready = true;
      return;
    }
    if (tag == 0) return;  // a cancellation that found nothing to cancel
    void* owner = reinterpret_cast<void*>(tag & ~uint64_t{7});
    if (tag & kTagRecv) {
      --armed_recvs_;
      h.OnRecv(owner, res);
    } else {
      h.OnSendFailed(owner, res);
    }
  });
  return true;
}

void Poller::DrainRecvs(Handler& h) {
  if (!ring_) return;
  const int64_t deadline = MonotonicNanos() + kDrainNs;
  std::string error;
  while (armed_recvs_ > 0 && MonotonicNanos() < deadline) {
    bool epoll_ready = false;
    if (!RingTurn(10'000'000, h, &epoll_ready, &error)) break;
  }
  ring_.reset();
}

}  // namespace pgrig::engine
