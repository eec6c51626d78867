#include "common/interrupt.h"

#include <unistd.h>

#include <cstring>

namespace pgrig {
namespace {

std::atomic<bool> g_interrupted{false};
std::atomic<int> g_signals{0};
// The CriticalSection's message while one is open (owned by it), else null.
std::atomic<const std::string*> g_critical{nullptr};

void OnSignal(int sig) {
  const int n = g_signals.fetch_add(1) + 1;
  if (n == 1) {
    g_interrupted.store(true);
    return;
  }
  const std::string* critical = g_critical.load();
  if (n == 2 && critical != nullptr) {
    // write(2) is async-signal-safe; the string is not changed while published.
    ssize_t ignored = ::write(STDERR_FILENO, critical->data(), critical->size());
    (void)ignored;
    return;
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void Install(int sig, struct sigaction* old) {
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, old);
}

}  // namespace

InterruptScope::InterruptScope() {
  g_interrupted.store(false);
  g_signals.store(0);
  Install(SIGINT, &old_int_);
  Install(SIGTERM, &old_term_);
  Install(SIGHUP, &old_hup_);
}

InterruptScope::~InterruptScope() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
  sigaction(SIGHUP, &old_hup_, nullptr);
}

const std::atomic<bool>* InterruptScope::flag() { return &g_interrupted; }

CriticalSection::CriticalSection(std::string message) : message_(std::move(message)) {
  g_critical.store(&message_);
}

CriticalSection::~CriticalSection() { g_critical.store(nullptr); }

}  // namespace pgrig
