// LSE detection: instruction classes from their architectural encodings, and
// the verdict from the counts.
#include "host/arm_atomics.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "common/fs.h"

namespace pgrig::host {
namespace {

std::string Words(std::initializer_list<uint32_t> ws) {
  std::string s;
  for (uint32_t w : ws) {
    for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((w >> (8 * i)) & 0xff));
  }
  return s;
}

// Encodings assembled by hand from the Arm ARM field layouts.
constexpr uint32_t kLdaddalW = 0xB8E10040;  // ldaddal w1, w0, [x2]
constexpr uint32_t kCasalW = 0x88E1FC02;    // casal w1, w2, [x0]
constexpr uint32_t kSwpalX = 0xF8E18040;    // swpal x1, x0, [x2]
constexpr uint32_t kCaspalX = 0x4860FC04;   // caspal x0, x1, x4, x5, [x0]
constexpr uint32_t kLdaxrW = 0x885FFC20;    // ldaxr w0, [x1]
constexpr uint32_t kStlxrW = 0x8802FC01;    // stlxr w2, w1, [x0]
constexpr uint32_t kLdaprW = 0xB8BFC020;    // ldapr w0, [x1] (RCpc load, not an atomic)
constexpr uint32_t kAddX = 0x8B020020;      // add x0, x1, x2
constexpr uint32_t kLdrX = 0xF9400020;      // ldr x0, [x1]
constexpr uint32_t kNop = 0xD503201F;

TEST(ArmAtomicsTest, ClassifiesInstructions) {
  EXPECT_TRUE(IsLseAtomicInstruction(kLdaddalW));
  EXPECT_TRUE(IsLseAtomicInstruction(kCasalW));
  EXPECT_TRUE(IsLseAtomicInstruction(kSwpalX));
  EXPECT_TRUE(IsLseAtomicInstruction(kCaspalX));
  for (uint32_t w : {kLdaxrW, kStlxrW, kLdaprW, kAddX, kLdrX, kNop}) {
    EXPECT_FALSE(IsLseAtomicInstruction(w)) << std::hex << w;
  }
  EXPECT_TRUE(IsLoadExclusiveInstruction(kLdaxrW));
  for (uint32_t w : {kStlxrW, kCasalW, kLdaddalW, kLdrX, kNop}) {
    EXPECT_FALSE(IsLoadExclusiveInstruction(w)) << std::hex << w;
  }
}

TEST(ArmAtomicsTest, VerdictFromCounts) {
  AtomicsScan lse;
  CountAarch64Atomics(Words({kNop, kLdaddalW, kAddX, kCasalW}), &lse);
  DecideAtomicsKind(&lse);
  EXPECT_EQ(lse.lse_instructions, 2u);
  EXPECT_EQ(lse.kind, AtomicsKind::kLse);

  AtomicsScan llsc;
  CountAarch64Atomics(Words({kLdaxrW, kStlxrW, kNop}), &llsc);
  DecideAtomicsKind(&llsc);
  EXPECT_EQ(llsc.kind, AtomicsKind::kLoadStoreExclusive);

  AtomicsScan both;
  CountAarch64Atomics(Words({kCasalW, kLdaxrW, kStlxrW}), &both);
  DecideAtomicsKind(&both);
  EXPECT_EQ(both.kind, AtomicsKind::kOutlineAtomics);

  AtomicsScan sym;
  sym.outline_helper_symbols = true;
  DecideAtomicsKind(&sym);
  EXPECT_EQ(sym.kind, AtomicsKind::kOutlineAtomics);

  AtomicsScan none;
  CountAarch64Atomics(Words({kNop, kAddX}), &none);
  DecideAtomicsKind(&none);
  EXPECT_EQ(none.kind, AtomicsKind::kUnknown);
  EXPECT_STREQ(AtomicsKindName(AtomicsKind::kLoadStoreExclusive), "ll_sc_only");
}

TEST(ArmAtomicsTest, RejectsNonElfAndOtherMachines) {
  EXPECT_FALSE(ScanAarch64Atomics("hello").ok());
  // This test binary is an ELF for the build machine; unless that is an
  // AArch64 machine, the answer is "not applicable".
  auto self = ReadWholeFile("/proc/self/exe");
  ASSERT_TRUE(self.ok());
  auto r = ScanAarch64Atomics(*self);
#if defined(__aarch64__)
  ASSERT_TRUE(r.ok()) << r.status().ToString();
#else
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
#endif
}

// The arm64 postgres of Debian's postgresql-15 package, unpacked into the
// sysroot by scripts/arm64-sysroot.sh.  Debian's GCC builds for aarch64 with
// -moutline-atomics by default, so the binary carries both forms: the
// helpers' CAS/LDADD/SWP and their LDAXR/STLXR fallbacks.  The cross build
// (cmake/pgrig_arm64.cmake) requires the file; a native build runs this test
// when the sysroot has been prepared and skips it otherwise.
TEST(ArmAtomicsTest, DebianArm64PostgresUsesOutlineAtomics) {
#if defined(PGRIG_ARM64_POSTGRES)
  const std::string path = PGRIG_ARM64_POSTGRES;
#else
  const std::string path;
#endif
#if defined(PGRIG_ARM64_POSTGRES_REQUIRED)
  ASSERT_TRUE(!path.empty() && std::filesystem::exists(path))
      << "the arm64 postgres binary is missing (" << path << "): run scripts/arm64-sysroot.sh";
#endif
  if (path.empty() || !std::filesystem::exists(path)) {
    GTEST_SKIP() << "no arm64 postgres binary (" << path << "): run scripts/arm64-sysroot.sh";
  }
  auto bytes = ReadWholeFile(path);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  ASSERT_GT(bytes->size(), 1u << 20) << path << " is not the server binary";
  auto r = ScanAarch64Atomics(*bytes);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // Debian strips the binary, so the verdict rests on the instructions: each
  // libgcc helper linked in holds one LSE instruction and one exclusive load
  // (`aarch64-linux-gnu-objdump -d` of 15.x in Debian 12 shows 7 of each).
  EXPECT_EQ(r->kind, AtomicsKind::kOutlineAtomics) << r->detail;
  EXPECT_GT(r->lse_instructions, 0u) << r->detail;
  EXPECT_EQ(r->lse_instructions, r->exclusive_loads) << r->detail;
}

}  // namespace
}  // namespace pgrig::host
