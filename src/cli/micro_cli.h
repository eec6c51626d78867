// What `pgrig lio` and `pgrig fsync` share: checking a --json destination
// before anything runs.  (Their Ctrl-C handling is common/interrupt.h's.)
#ifndef PGRIG_CLI_MICRO_CLI_H_
#define PGRIG_CLI_MICRO_CLI_H_

#include <string>
#include <vector>

#include "common/status.h"

namespace pgrig::cli {

// FILE can be written: its directory exists and is writable, and FILE is
// not a directory.  Creates nothing.  "" and "-" (standard output) are fine.
Status CheckJsonDestination(const std::string& file);

}  // namespace pgrig::cli

#endif  // PGRIG_CLI_MICRO_CLI_H_
