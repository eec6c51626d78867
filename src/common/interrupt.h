// Ending a measurement cleanly on a signal, not a kill.
//
// While an InterruptScope is alive, SIGINT, SIGTERM and SIGHUP set flag()
// instead of ending the process (the engine, the runner and the
// micro-benchmarks poll it and stop with what they measured, so `timeout`,
// a closed terminal and Ctrl-C all end a run the same way).  A second
// signal ends the process as the signal would, except inside a
// CriticalSection: there it prints the section's message (what is being
// done and what a third signal would leave behind) and is otherwise
// ignored; a third ends the process.
//
// The flag and the section's message are the one piece of process-wide
// state; the scope installs the handlers for its lifetime and puts the
// previous ones back after it.  One scope at a time; a CriticalSection
// outside a scope does nothing.
#ifndef PGRIG_COMMON_INTERRUPT_H_
#define PGRIG_COMMON_INTERRUPT_H_

#include <signal.h>

#include <atomic>
#include <string>

namespace pgrig {

class InterruptScope {
 public:
  InterruptScope();  // clears flag() and the signal count
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
  // Set by the first signal while a scope is alive; stays valid for the process.
  static const std::atomic<bool>* flag();

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
  struct sigaction old_hup_ {};
};

// Work that must not be cut short by a second signal (restoring a server's
// settings).  `message` is printed to stderr as given (end it with a
// newline) when a second signal arrives during the section.
class CriticalSection {
 public:
  explicit CriticalSection(std::string message);
  ~CriticalSection();
  CriticalSection(const CriticalSection&) = delete;
  CriticalSection& operator=(const CriticalSection&) = delete;

 private:
  std::string message_;
};

}  // namespace pgrig

#endif  // PGRIG_COMMON_INTERRUPT_H_
