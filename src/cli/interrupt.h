// Ctrl-C during a measurement: a clean stop, not a kill.  While an
// InterruptScope is alive, SIGINT sets flag() instead of ending the process
// (the engine, the runner and the micro-benchmarks poll it and stop with
// what they measured); a second SIGINT ends the process as usual.  The flag
// is the one piece of process-wide state; the scope installs the handler for
// the duration of the measurement and restores the previous one after it.
// cli/ only; one scope at a time.
#ifndef PGRIG_CLI_INTERRUPT_H_
#define PGRIG_CLI_INTERRUPT_H_

#include <signal.h>

#include <atomic>

namespace pgrig::cli {

class InterruptScope {
 public:
  InterruptScope();  // clears flag()
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
  // Set by SIGINT while a scope is alive; stays valid for the process.
  static const std::atomic<bool>* flag();

 private:
  struct sigaction old_ {};
};

}  // namespace pgrig::cli

#endif  // PGRIG_CLI_INTERRUPT_H_
