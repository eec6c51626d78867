#include "common/interrupt.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

namespace pgrig {
namespace {

TEST(InterruptScope, SigintSigtermAndSighupEachSetTheFlag) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    InterruptScope scope;
    EXPECT_FALSE(InterruptScope::flag()->load());
    ::raise(sig);
    EXPECT_TRUE(InterruptScope::flag()->load()) << sig;
  }
}

TEST(InterruptScope, ASecondSignalEndsTheProcessAsTheSignalWould) {
  EXPECT_EXIT(
      {
        InterruptScope scope;
        ::raise(SIGTERM);
        ::raise(SIGTERM);
        std::_Exit(0);  // not reached
      },
      ::testing::KilledBySignal(SIGTERM), "");
}

TEST(InterruptScope, InACriticalSectionTheSecondSignalIsToldAndTheThirdEnds) {
  EXPECT_EXIT(
      {
        InterruptScope scope;
        CriticalSection section("restoring the settings; once more leaves them changed\n");
        ::raise(SIGINT);
        ::raise(SIGINT);  // told, not obeyed
        if (!InterruptScope::flag()->load()) std::_Exit(3);
        ::raise(SIGINT);
        std::_Exit(0);  // not reached
      },
      ::testing::KilledBySignal(SIGINT), "restoring the settings; once more leaves them changed");
}

TEST(InterruptScope, OutsideACriticalSectionTheMessageIsGone) {
  EXPECT_EXIT(
      {
        InterruptScope scope;
        { CriticalSection section("not printed\n"); }
        ::raise(SIGHUP);
        ::raise(SIGHUP);
        std::_Exit(0);
      },
      ::testing::KilledBySignal(SIGHUP), "^$");
}

TEST(InterruptScope, TheScopePutsThePreviousHandlersBack) {
  struct sigaction before {};
  sigaction(SIGTERM, nullptr, &before);
  { InterruptScope scope; }
  struct sigaction after {};
  sigaction(SIGTERM, nullptr, &after);
  EXPECT_EQ(before.sa_handler, after.sa_handler);
}

}  // namespace
}  // namespace pgrig
