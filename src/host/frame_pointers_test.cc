// ScanFramePointers (host/frame_pointers.h): the patterns, the verdict, and
// binaries compiled here with and without -fno-omit-frame-pointer.
#include "host/frame_pointers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace pgrig::host {
namespace {

using ::testing::HasSubstr;
using namespace std::string_view_literals;

TEST(FramePointers, VerdictIsAShareOfTheFunctions) {
  EXPECT_EQ(FramePointerVerdict(19, 19), "unknown");
  EXPECT_EQ(FramePointerVerdict(50, 100), "yes");
  EXPECT_EQ(FramePointerVerdict(49, 100), "partly");
  EXPECT_EQ(FramePointerVerdict(6, 100), "partly");
  EXPECT_EQ(FramePointerVerdict(5, 100), "no");
  EXPECT_EQ(FramePointerVerdict(0, 100), "no");
}

TEST(FramePointers, RecognisesEachPrologue) {
  EXPECT_TRUE(X86_64SetsUpFramePointer("\x55\x48\x89\xe5\x41\x57"sv));
  EXPECT_TRUE(X86_64SetsUpFramePointer("\xf3\x0f\x1e\xfa\x55\x48\x89\xe5"sv));  // endbr64 first
  EXPECT_TRUE(X86_64SetsUpFramePointer("\x55\x48\x8b\xec"sv));
  // push %rbp; lea (%rdi,%rdi,2),%eax; mov %rsp,%rbp (as GCC -O2 schedules it)
  EXPECT_TRUE(X86_64SetsUpFramePointer("\x55\x8d\x04\x7f\x48\x89\xe5"sv));
  EXPECT_FALSE(X86_64SetsUpFramePointer("\x55\x53\x48\x83\xec\x08"sv));  // rbp saved, not set up
  EXPECT_FALSE(X86_64SetsUpFramePointer("\x55\x48\x89"sv));              // cut short
  EXPECT_FALSE(X86_64SetsUpFramePointer("\x53\x48\x89\xe5"sv));          // no push %rbp
  EXPECT_FALSE(X86_64SetsUpFramePointer(""sv));
  // stp x29, x30, [sp, #-32]!; mov x29, sp
  EXPECT_TRUE(Aarch64SetsUpFramePointer("\xfd\x7b\xbe\xa9\xfd\x03\x00\x91"sv));
  // stp x29, x30, [sp, #-32]! only; then ret
  EXPECT_FALSE(Aarch64SetsUpFramePointer("\xfd\x7b\xbe\xa9\xc0\x03\x5f\xd6"sv));
  EXPECT_FALSE(Aarch64SetsUpFramePointer("\xfd\x03\x00"sv));  // not a whole word
}

TEST(FramePointers, MalformedInputIsAnErrorNeverACrash) {
  EXPECT_FALSE(ScanFramePointers("").ok());
  EXPECT_THAT(ScanFramePointers("#!/bin/sh\n").status().message(), HasSubstr("not an ELF"));
  std::ifstream self("/proc/self/exe", std::ios::binary);
  std::stringstream ss;
  ss << self.rdbuf();
  const std::string whole = ss.str();
  ASSERT_GT(whole.size(), 4096u);
  // Every prefix of a real binary, at coarse and fine steps near the start.
  for (size_t n = 0; n < whole.size(); n += n < 8192 ? 61 : 65537) {
    auto r = ScanFramePointers(whole.substr(0, n));
    if (r.ok()) {
      EXPECT_LE(r->with_frame_setup, r->functions);
    }
  }
  // Bytes flipped across the headers.
  std::string bent = whole;
  for (size_t i = 16; i < 64; ++i) bent[i] = static_cast<char>(~bent[i]);
  auto r = ScanFramePointers(bent);
  EXPECT_TRUE(!r.ok() || r->with_frame_setup <= r->functions);
}

// 40 functions that need a stack frame (a local whose address escapes).
std::string FortyFunctions() {
  std::string c = "extern void sink(int *);\n";
  for (int i = 0; i < 40; ++i) {
    c += "int f" + std::to_string(i) + "(int x) { int v[4] = {x, " + std::to_string(i) +
         ", x * 3, 7}; sink(v); return v[0] + v[2]; }\n";
  }
  return c;
}

// Compiles FortyFunctions() into a shared object with `compiler` and
// `flags`; empty when the compiler is not installed.
std::string Compile(const std::string& dir, const std::string& compiler, const std::string& flags,
                    const std::string& name) {
  const std::string src = dir + "/fp.c";
  std::ofstream(src) << FortyFunctions();
  const std::string out = dir + "/" + name + ".so";
  const std::string cmd =
      compiler + " -O2 -shared -fPIC " + flags + " -o " + out + " " + src + " >/dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) return "";
  std::ifstream in(out, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void ExpectBothWays(const std::string& compiler) {
  char tmpl[] = "/tmp/pgrig-fp-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  const std::string with = Compile(dir, compiler, "-fno-omit-frame-pointer", "with");
  const std::string without = Compile(dir, compiler, "-fomit-frame-pointer", "without");
  std::filesystem::remove_all(dir);
  if (with.empty() || without.empty()) GTEST_SKIP() << compiler << " is not installed";
  auto a = ScanFramePointers(with);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->verdict, "yes") << a->detail;
  EXPECT_GE(a->functions, 40u);
  EXPECT_THAT(a->detail, HasSubstr("functions"));
  auto b = ScanFramePointers(without);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->verdict, "no") << b->detail;
  EXPECT_GE(b->functions, 40u);
}

TEST(FramePointers, X86_64BinariesCompiledBothWays) { ExpectBothWays("x86_64-linux-gnu-gcc"); }

TEST(FramePointers, Aarch64BinariesCompiledBothWays) { ExpectBothWays("aarch64-linux-gnu-gcc"); }

TEST(FramePointers, OtherMachinesAreNotApplicable) {
  char tmpl[] = "/tmp/pgrig-fp-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  // A 32-bit x86 object, when the compiler can make one.
  const std::string obj = dir + "/x.o";
  std::ofstream(dir + "/x.c") << "int f(int x) { return x + 1; }\n";
  const int rc = std::system(
      ("x86_64-linux-gnu-gcc -m32 -c -o " + obj + " " + dir + "/x.c >/dev/null 2>&1").c_str());
  std::string bytes;
  if (rc == 0) {
    std::ifstream in(obj, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    bytes = ss.str();
  }
  std::filesystem::remove_all(dir);
  if (bytes.empty()) GTEST_SKIP() << "no 32-bit x86 compiler";
  auto r = ScanFramePointers(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace pgrig::host
