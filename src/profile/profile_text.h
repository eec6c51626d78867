// A server profile for a terminal (`pgrig bench --profile`): the window's
// figures, the categories by share and the top functions.
#ifndef PGRIG_PROFILE_PROFILE_TEXT_H_
#define PGRIG_PROFILE_PROFILE_TEXT_H_

#include <optional>
#include <string>

#include "profile/server_profiler.h"

namespace pgrig::profile {

// One line saying why when there is no profile.  `measured_server_cpu_s`
// (/proc's figure for the window) is shown beside the sampled one.
// "hardware counters: IPC 1.52, cache misses 3.10% of references, branch
// misses 0.84%", or "hardware counters: none (REASON)".
std::string FormatCountersLine(const std::optional<CounterValues>& v,
                               const std::string& unavailable);

std::string FormatProfileText(const ProfileMeasure& m, std::optional<double> measured_server_cpu_s,
                              size_t top = 10);

}  // namespace pgrig::profile

#endif  // PGRIG_PROFILE_PROFILE_TEXT_H_
