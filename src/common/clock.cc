#include "common/clock.h"

#include <ctime>

namespace pgrig {

std::string IsoTimestampUtc(double wall_seconds) {
  time_t t = static_cast<time_t>(wall_seconds);
  tm tm_utc;
  gmtime_r(&t, &tm_utc);
  char buf[32];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm_utc);
  return buf;
}

}  // namespace pgrig
