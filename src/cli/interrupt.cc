#include "cli/interrupt.h"

namespace pgrig::cli {
namespace {

std::atomic<bool> g_interrupted{false};

void OnSigint(int) { g_interrupted.store(true); }

}  // namespace

InterruptScope::InterruptScope() {
  g_interrupted.store(false);
  struct sigaction sa {};
  sa.sa_handler = OnSigint;
  sa.sa_flags = SA_RESETHAND;  // a second Ctrl-C kills as usual
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_);
}

InterruptScope::~InterruptScope() { sigaction(SIGINT, &old_, nullptr); }

const std::atomic<bool>* InterruptScope::flag() { return &g_interrupted; }

}  // namespace pgrig::cli
