#include "common/clock.h"

#include <ctime>

namespace pgrig {

namespace {

std::string FormatUtc(double wall_seconds, const char* format) {
  time_t t = static_cast<time_t>(wall_seconds);
  tm tm_utc;
  gmtime_r(&t, &tm_utc);
  char buf[32];
  strftime(buf, sizeof buf, format, &tm_utc);
  return buf;
}

}  // namespace

std::string IsoTimestampUtc(double wall_seconds) {
  return FormatUtc(wall_seconds, "%Y-%m-%dT%H:%M:%SZ");
}

std::string CompactTimestampUtc(double wall_seconds) {
  return FormatUtc(wall_seconds, "%Y%m%dT%H%M%SZ");
}

}  // namespace pgrig
