// elf_fuzzer: libFuzzer target over the ELF reader of host/ (elf_file.h)
// and the two scanners of a server binary built on it: frame pointers
// (frame_pointers.h) and Arm atomics (arm_atomics.h).  `pgrig facts` runs
// them on whatever `postgres` binary it finds, a hand-built one included.
//
// Input: the bytes of a file.  All three get them.
//
// Checked invariants (abort = crash report): nothing reads outside the
// bytes (AddressSanitizer) or crashes; a refusal is InvalidArgument (not an
// ELF file, a truncated one) or FailedPrecondition (an ELF file of another
// class or machine); every section's contents that ParseElf returns lie
// inside the bytes; the frame-pointer scan counts no more functions with a
// frame set-up than functions, and its verdict is FramePointerVerdict's for
// those counts; the atomics scan's kind is DecideAtomicsKind's for its
// counts.
//
// Stateless between inputs; single-threaded.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "host/arm_atomics.h"
#include "host/elf_file.h"
#include "host/frame_pointers.h"

namespace {

bool IsRefusal(const pgrig::Status& s) {
  return s.code() == pgrig::StatusCode::kInvalidArgument ||
         s.code() == pgrig::StatusCode::kFailedPrecondition;
}

void Sections(const std::string& bytes) {
  auto elf = pgrig::host::ParseElf(bytes);
  if (!elf.ok()) {
    FUZZ_CHECK(IsRefusal(elf.status()));
    return;
  }
  for (const Elf64_Shdr& s : elf->sections) {
    if (auto c = elf->Contents(s)) {
      FUZZ_CHECK(c->data() >= bytes.data());
      FUZZ_CHECK(c->data() + c->size() <= bytes.data() + bytes.size());
    }
  }
}

void FramePointers(const std::string& bytes) {
  auto scan = pgrig::host::ScanFramePointers(bytes);
  if (!scan.ok()) {
    FUZZ_CHECK(IsRefusal(scan.status()));
    return;
  }
  FUZZ_CHECK(scan->with_frame_setup <= scan->functions);
  if (scan->functions > 0) {
    FUZZ_CHECK(scan->verdict ==
               pgrig::host::FramePointerVerdict(scan->with_frame_setup, scan->functions));
  }
}

void Atomics(const std::string& bytes) {
  auto scan = pgrig::host::ScanAarch64Atomics(bytes);
  if (!scan.ok()) {
    FUZZ_CHECK(IsRefusal(scan.status()));
    return;
  }
  pgrig::host::AtomicsScan again = *scan;
  pgrig::host::DecideAtomicsKind(&again);
  FUZZ_CHECK(again.kind == scan->kind);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  Sections(bytes);
  FramePointers(bytes);
  Atomics(bytes);
  return 0;
}
