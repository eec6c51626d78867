// Was a binary compiled with frame pointers?  That decides how good perf's
// call stacks are (`perf record -g` walks the frame-pointer chain; without
// it, callers are missing or wrong, docs/profiles.md).
//
// ScanFramePointers reads an ELF file itself, takes its function symbols
// (.symtab when present, else the exported ones in .dynsym: a stripped
// PostgreSQL still exports thousands) and looks at each function's first
// instructions for the frame set-up a compiler emits with
// -fno-omit-frame-pointer:
//
//   x86-64   [endbr64] push %rbp, then mov %rsp,%rbp (48 89 e5 / 48 8b ec)
//            within the next 32 bytes (GCC schedules other work between)
//   AArch64  mov x29, sp (add x29, sp, #0) among the first 8 instructions,
//            after the stp x29, x30, [sp, #-N]! that saves the pair
//
// A compiler may move the set-up later in a function (shrink-wrapping) or
// leave it out of leaf functions, so the answer is a share: "yes" when at
// least half the functions set one up, "no" at 5% or less, "partly" in
// between, "unknown" under 20 functions.  Pure functions of the file's
// bytes; thread-safe; malformed ELF is an error, never a crash.
#ifndef PGRIG_HOST_FRAME_POINTERS_H_
#define PGRIG_HOST_FRAME_POINTERS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace pgrig::host {

struct FramePointerScan {
  std::string verdict = "unknown";  // "yes", "no", "partly", "unknown"
  uint64_t functions = 0;           // distinct function symbols examined
  uint64_t with_frame_setup = 0;    // of those, setting up a frame pointer
  std::string detail;               // "412 of 5021 functions (8.2%) set up ..."
};

// The verdict for `with` of `functions` (exposed for tests).
std::string FramePointerVerdict(uint64_t with, uint64_t functions);

// Whether the code at the start of a function sets up a frame pointer.
bool X86_64SetsUpFramePointer(std::string_view code);
bool Aarch64SetsUpFramePointer(std::string_view code);

// Errors: not ELF or malformed (kInvalidArgument), an ELF for another
// machine than x86-64 or AArch64 (kFailedPrecondition).
Result<FramePointerScan> ScanFramePointers(const std::string& elf_bytes);

}  // namespace pgrig::host

#endif  // PGRIG_HOST_FRAME_POINTERS_H_
