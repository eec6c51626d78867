// Time sources.  Clock is injectable so that code measuring durations can be
// tested with a fake; the real one reads CLOCK_MONOTONIC.  NowNanos() is
// inline and cheap enough for the engine's per-transaction path.
#ifndef PGRIG_COMMON_CLOCK_H_
#define PGRIG_COMMON_CLOCK_H_

#include <time.h>

#include <cstdint>
#include <string>

namespace pgrig {

// Monotonic nanoseconds (arbitrary epoch).
inline int64_t MonotonicNanos() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Wall-clock seconds since the Unix epoch, with microseconds.
inline double WallSeconds() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// "2026-11-29T22:53:39Z"
std::string IsoTimestampUtc(double wall_seconds);

class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t Nanos() const = 0;
};

class RealClock : public Clock {
 public:
  int64_t Nanos() const override { return MonotonicNanos(); }
};

class FakeClock : public Clock {
 public:
  int64_t Nanos() const override { return now_; }
  void Advance(int64_t ns) { now_ += ns; }

 private:
  int64_t now_ = 0;
};

}  // namespace pgrig

#endif  // PGRIG_COMMON_CLOCK_H_
