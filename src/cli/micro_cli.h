// Pieces shared by `pgrig lio` and `pgrig fsync`: checking a --json
// destination before anything runs, and a SIGINT flag for a clean stop.  The SIGINT flag is the one
// process-wide state: installed by the command for the duration of its
// measurement and restored after it (InterruptScope, RAII).
#ifndef PGRIG_CLI_MICRO_CLI_H_
#define PGRIG_CLI_MICRO_CLI_H_

#include <signal.h>

#include <atomic>
#include <string>
#include <vector>

#include "common/status.h"

namespace pgrig::cli {

// FILE can be written: its directory exists and is writable, and FILE is
// not a directory.  Creates nothing.  "" and "-" (standard output) are fine.
Status CheckJsonDestination(const std::string& file);

// While alive, SIGINT sets flag() instead of killing the process; a second
// SIGINT kills as usual.
class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
  static const std::atomic<bool>* flag();

 private:
  struct sigaction old_ {};
};

}  // namespace pgrig::cli

#endif  // PGRIG_CLI_MICRO_CLI_H_
