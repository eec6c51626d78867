#include "cli/exit_status.h"

#include <gtest/gtest.h>

namespace pgrig::cli {
namespace {

TEST(ExitStatusTest, CodesArePgbenchs) {
  EXPECT_EQ(kExitOk, 0);
  EXPECT_EQ(kExitBadInvocation, 1);
  EXPECT_EQ(kExitRunFailure, 2);
}

TEST(ExitStatusTest, OkIsZeroAtEitherStage) {
  EXPECT_EQ(ExitCodeFor(Status::Ok(), ExitStage::kSetup), kExitOk);
  EXPECT_EQ(ExitCodeFor(Status::Ok(), ExitStage::kRun), kExitOk);
}

TEST(ExitStatusTest, EveryErrorBeforeTheRunIsOne) {
  for (StatusCode c :
       {StatusCode::kInvalidArgument, StatusCode::kNotFound, StatusCode::kFailedPrecondition,
        StatusCode::kUnavailable, StatusCode::kPermissionDenied, StatusCode::kResourceExhausted,
        StatusCode::kAborted, StatusCode::kInternal, StatusCode::kRuntime}) {
    EXPECT_EQ(ExitCodeFor(Status(c, "x"), ExitStage::kSetup), kExitBadInvocation)
        << StatusCodeName(c);
  }
}

TEST(ExitStatusTest, DuringTheRunOnlyTheInvocationsFaultIsOne) {
  for (StatusCode c :
       {StatusCode::kInvalidArgument, StatusCode::kNotFound, StatusCode::kPermissionDenied}) {
    EXPECT_EQ(ExitCodeFor(Status(c, "x"), ExitStage::kRun), kExitBadInvocation)
        << StatusCodeName(c);
  }
  for (StatusCode c :
       {StatusCode::kFailedPrecondition, StatusCode::kUnavailable, StatusCode::kResourceExhausted,
        StatusCode::kAborted, StatusCode::kInternal, StatusCode::kRuntime}) {
    EXPECT_EQ(ExitCodeFor(Status(c, "x"), ExitStage::kRun), kExitRunFailure) << StatusCodeName(c);
  }
}

TEST(ExitStatusTest, ErrorLineStyles) {
  EXPECT_EQ(ErrorLine({"pgrig cost"}, "no such catalog"), "pgrig cost: no such catalog\n");
  EXPECT_EQ(ErrorLine({"pgrig init", ErrorStyle::kPgbench}, "could not connect"),
            "pgrig init: error: could not connect\n");
}

TEST(ExitStatusTest, FailPrintsOneLineAndReturnsTheCode) {
  constexpr CommandName kCommand{"pgrig lio"};
  ::testing::internal::CaptureStderr();
  const int setup = Fail(kCommand, RuntimeError("query failed"));
  const int run = Fail(kCommand, RuntimeError("query failed"), ExitStage::kRun);
  const int bad = Fail(kCommand, NotFound("no file x"), ExitStage::kRun);
  const int explicit_code = Fail(kCommand, "could not write x.json", kExitRunFailure);
  const int defaulted = Fail(kCommand, "give --scale or --fit");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "pgrig lio: query failed\npgrig lio: query failed\npgrig lio: no file x\n"
            "pgrig lio: could not write x.json\npgrig lio: give --scale or --fit\n");
  EXPECT_EQ(setup, kExitBadInvocation);
  EXPECT_EQ(run, kExitRunFailure);
  EXPECT_EQ(bad, kExitBadInvocation);
  EXPECT_EQ(explicit_code, kExitRunFailure);
  EXPECT_EQ(defaulted, kExitBadInvocation);
}

}  // namespace
}  // namespace pgrig::cli
