// The exact number of huge pages the server needs for candidate settings.
//
// PostgreSQL 15 and later compute it themselves:
//   postgres -C shared_memory_size_in_huge_pages -D <datadir> -c name=value ...
// That refuses to run on the data directory of a running server, so pgrig
// never asks the real one: it initdb's a throwaway data directory (as the
// server account when pgrig runs as root), asks the same major version's
// binary with the candidate values, and removes the directory.  Older
// servers, or machines without the server binaries, get the estimate from
// the memory budget instead (rules.h: EstimateHugePages).
//
// Runs programs through an injected ProcessRunner; not thread-safe for one
// options object only in the sense that the scratch directory is unique per
// call (mkdtemp), so concurrent calls are fine.
#ifndef PGRIG_TUNE_HUGE_PAGES_H_
#define PGRIG_TUNE_HUGE_PAGES_H_

#include <optional>
#include <string>
#include <vector>

#include "common/process.h"
#include "common/status.h"
#include "tune/rules.h"
#include "tune/settings.h"

namespace pgrig::tune {

struct HugePagesProbeOptions {
  const ProcessRunner* runner = nullptr;  // required
  std::string bindir;                     // initdb and postgres of the server's major version
  std::optional<RunAs> run_as;            // the server account, when pgrig runs as root
  std::string scratch_parent = "/tmp";    // must be reachable by run_as
};

// The settings that size shared memory, as `-c name=value` arguments.
std::vector<std::string> SharedMemoryArgs(const SettingMap& config);

// Asks the server binary; fails with FailedPrecondition before PostgreSQL 15.
// `config` is the full candidate configuration (current + proposals).
Result<HugePagesPlan> ProbeHugePages(const SettingMap& config, int server_major,
                                     uint64_t default_huge_page_size,
                                     const HugePagesProbeOptions& options);

}  // namespace pgrig::tune

#endif  // PGRIG_TUNE_HUGE_PAGES_H_
