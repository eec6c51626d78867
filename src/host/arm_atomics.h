// Does a PostgreSQL binary use Arm's LSE atomics, outline atomics, or only
// load/store-exclusive loops?
//
// On many-core Arm machines this decides how spinlocks and LWLocks scale:
// binaries built for Armv8.0 without -moutline-atomics use LDXR/STXR retry
// loops; binaries built with -march=armv8.1-a (or later) use CAS/LDADD/SWP
// directly; with outline atomics (GCC's default on some distributions) every
// atomic calls a small helper that picks LSE at run time.
//
// ScanAarch64Atomics reads an ELF file itself (no objdump needed), decodes
// the 32-bit instruction words of its executable sections and counts both
// kinds, and looks for the outline-atomics helper symbols.  Pure functions
// of the file's bytes; thread-safe.
#ifndef PGRIG_HOST_ARM_ATOMICS_H_
#define PGRIG_HOST_ARM_ATOMICS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace pgrig::host {

enum class AtomicsKind { kUnknown, kLse, kOutlineAtomics, kLoadStoreExclusive };
const char* AtomicsKindName(AtomicsKind k);  // "lse", "outline_atomics", "ll_sc_only", "unknown"

struct AtomicsScan {
  AtomicsKind kind = AtomicsKind::kUnknown;
  uint64_t lse_instructions = 0;        // CAS*, CASP*, LD<op>*, SWP*
  uint64_t exclusive_loads = 0;         // LDXR/LDAXR (the retry-loop form)
  bool outline_helper_symbols = false;  // __aarch64_have_lse_atomics, __aarch64_cas*, ...
  std::string detail;
};

// Classification of one A64 instruction word.
bool IsLseAtomicInstruction(uint32_t insn);
bool IsLoadExclusiveInstruction(uint32_t insn);

// Scans raw little-endian A64 code.
void CountAarch64Atomics(std::string_view code, AtomicsScan* scan);

// Decides the kind from counts and symbols (exposed for tests).
void DecideAtomicsKind(AtomicsScan* scan);

// Reads an ELF file.  Errors: unreadable, not ELF, or not AArch64
// (kFailedPrecondition, so callers can say "not applicable").
Result<AtomicsScan> ScanAarch64Atomics(const std::string& elf_bytes);

}  // namespace pgrig::host

#endif  // PGRIG_HOST_ARM_ATOMICS_H_
