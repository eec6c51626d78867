// A server profile in a results document ("server_profile",
// docs/results-format.md and docs/profiles.md): the one place its keys are
// spelled, writer and reader.  The profile itself is profile/profile.h's.
// Plain value types and pure functions.
#ifndef PGRIG_RESULTS_PROFILE_JSON_H_
#define PGRIG_RESULTS_PROFILE_JSON_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/status.h"
#include "profile/profile.h"
#include "profile/server_profiler.h"

namespace pgrig::results {

struct ServerProfileDoc {
  std::optional<profile::Profile> profile;  // nullopt: see `unavailable`
  std::string unavailable;
  std::string folded_stacks_file;               // beside the document; empty: not kept
  std::optional<double> measured_server_cpu_s;  // /proc's figure for the window (server_cpu)
  // Over the window on the server's processes; nullopt: see the reason.
  std::optional<profile::CounterValues> hardware_counters;
  std::string hardware_counters_unavailable;
  // What the profiled server binary keeps: frame pointers, atomics.
  std::optional<host::ServerBinaryFacts> server_binary;
};

// The document for a profiler's outcome, its folded stacks written to
// `folded_path` and named `folded_name` in the document (the path relative
// to the results file); a write that fails leaves the name empty and says
// why in `*write_error`.
ServerProfileDoc KeepServerProfile(const profile::ProfileMeasure& m, const std::string& folded_path,
                                   const std::string& folded_name, std::string* write_error);

// {"unavailable": reason} when there is no profile.
nlohmann::json ServerProfileToJson(const ServerProfileDoc& d);

// The profile's "categories" array (every category: key, samples, pct) and
// its "top_functions" array (the first `max` by self share), as
// ServerProfileToJson writes them; report and compare JSON use the same.
// "hardware_counters": the events and IPC, cache and branch miss rates.
nlohmann::json HardwareCountersToJson(const profile::CounterValues& v);

nlohmann::json ProfileCategoriesJson(const profile::Profile& p);
nlohmann::json ProfileTopFunctionsJson(const profile::Profile& p, size_t max = SIZE_MAX);

// The summary back (categories, top functions; the folded stacks stay in
// their file).  Malformed input is an error naming `where` and the key.
Result<ServerProfileDoc> ServerProfileFromJson(const nlohmann::json& j, const std::string& where);

}  // namespace pgrig::results

#endif  // PGRIG_RESULTS_PROFILE_JSON_H_
