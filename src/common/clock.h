// Time sources: monotonic nanoseconds for durations, wall-clock seconds and
// their UTC text for timestamps.  MonotonicNanos() is inline and cheap enough
// for the engine's per-transaction path.  Free functions over clock_gettime;
// thread-safe.  (An injectable Clock interface lived here unused; it was
// removed rather than kept speculatively: the waits in tune/ and cluster/ are
// on a real server, and a test of them with a fake clock would test the fake.)
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

// "20261129T225339Z": the same instant without separators, for file and
// directory names (results directories, fleet run ids).
std::string CompactTimestampUtc(double wall_seconds);

// Nanoseconds as milliseconds (the unit of every latency in the results).
inline double NsToMs(int64_t ns) { return static_cast<double>(ns) / 1e6; }

}  // namespace pgrig

#endif  // PGRIG_COMMON_CLOCK_H_
