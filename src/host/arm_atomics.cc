#include "host/arm_atomics.h"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "common/enum_names.h"
#include "host/elf_file.h"

namespace pgrig::host {

const char* AtomicsKindName(AtomicsKind k) {
  static constexpr const char* kNames[] = {"unknown", "lse", "outline_atomics", "ll_sc_only"};
  return NameAt<AtomicsKind::kLoadStoreExclusive>(k, kNames, "unknown");
}

// Encodings from the Arm ARM's "Loads and Stores" class tables.
bool IsLseAtomicInstruction(uint32_t insn) {
  // Atomic memory operations (LDADD, LDCLR, LDEOR, LDSET, LD[SU]MAX/MIN, SWP
  // and their ST aliases): size 111 0 00 A R 1 Rs o3 opc 00 Rn Rt.  LDAPR
  // (o3=1, opc=100) lives in the same space and is not an atomic.
  if ((insn & 0x3F200C00u) == 0x38200000u) return (insn & 0xF000u) != 0xC000u;
  // CAS{A,L,AL}{B,H}: size 0010001 L 1 Rs o0 11111 Rn Rt.
  if ((insn & 0x3FA07C00u) == 0x08A07C00u) return true;
  // CASP: 0 sz 0010000 L 1 Rs o0 11111 Rn Rt.
  if ((insn & 0xBFA07C00u) == 0x08207C00u) return true;
  return false;
}

bool IsLoadExclusiveInstruction(uint32_t insn) {
  // LDXR/LDAXR{B,H}: size 0010000 1 0 Rs o0 Rt2 Rn Rt.
  return (insn & 0x3FE00000u) == 0x08400000u;
}

void CountAarch64Atomics(std::string_view code, AtomicsScan* scan) {
  for (size_t i = 0; i + 4 <= code.size(); i += 4) {
    uint32_t w = static_cast<uint32_t>(static_cast<uint8_t>(code[i])) |
                 static_cast<uint32_t>(static_cast<uint8_t>(code[i + 1])) << 8 |
                 static_cast<uint32_t>(static_cast<uint8_t>(code[i + 2])) << 16 |
                 static_cast<uint32_t>(static_cast<uint8_t>(code[i + 3])) << 24;
    if (IsLseAtomicInstruction(w))
      ++scan->lse_instructions;
    else if (IsLoadExclusiveInstruction(w))
      ++scan->exclusive_loads;
  }
}

void DecideAtomicsKind(AtomicsScan* scan) {
  const std::string counts = std::to_string(scan->lse_instructions) + " LSE atomic instructions, " +
                             std::to_string(scan->exclusive_loads) + " load-exclusive instructions";
  if (scan->outline_helper_symbols) {
    scan->kind = AtomicsKind::kOutlineAtomics;
    scan->detail = "outline-atomics helper symbols present (" + counts +
                   "); LSE is chosen at run time through a call per atomic";
  } else if (scan->lse_instructions > 0 && scan->exclusive_loads == 0) {
    scan->kind = AtomicsKind::kLse;
    scan->detail = counts + ": built for Armv8.1-A or later";
  } else if (scan->lse_instructions > 0) {
    scan->kind = AtomicsKind::kOutlineAtomics;
    scan->detail =
        counts + ": both forms, as outline-atomics helpers have (likely -moutline-atomics)";
  } else if (scan->exclusive_loads > 0) {
    scan->kind = AtomicsKind::kLoadStoreExclusive;
    scan->detail = counts + ": no LSE; atomics are load/store-exclusive retry loops";
  } else {
    scan->kind = AtomicsKind::kUnknown;
    scan->detail = "no atomic instructions found";
  }
}

namespace {

bool IsHelperName(std::string_view n) {
  return n == "__aarch64_have_lse_atomics" || n.rfind("__aarch64_cas", 0) == 0 ||
         n.rfind("__aarch64_ldadd", 0) == 0 || n.rfind("__aarch64_swp", 0) == 0 ||
         n.rfind("__aarch64_ldset", 0) == 0;
}

}  // namespace

Result<AtomicsScan> ScanAarch64Atomics(const std::string& b) {
  PGRIG_ASSIGN_OR_RETURN(const ElfFile elf, ParseElf(b));
  if (elf.header.e_machine != EM_AARCH64) {
    return FailedPrecondition("not an AArch64 binary (ELF machine " +
                              std::to_string(elf.header.e_machine) + ")");
  }
  const std::vector<Elf64_Shdr>& sh = elf.sections;
  AtomicsScan scan;
  for (const auto& s : sh) {
    if (s.sh_type == SHT_PROGBITS && (s.sh_flags & SHF_EXECINSTR)) {
      if (auto code = elf.Contents(s)) CountAarch64Atomics(*code, &scan);
    }
    if ((s.sh_type == SHT_SYMTAB || s.sh_type == SHT_DYNSYM) && s.sh_link < sh.size() &&
        s.sh_entsize == sizeof(Elf64_Sym)) {
      const Elf64_Shdr& str = sh[s.sh_link];
      for (uint64_t off = 0; off + sizeof(Elf64_Sym) <= s.sh_size && !scan.outline_helper_symbols;
           off += sizeof(Elf64_Sym)) {
        Elf64_Sym sym;
        if (!elf.ReadAt(s.sh_offset + off, &sym)) break;
        uint64_t name_off = str.sh_offset + sym.st_name;
        if (sym.st_name >= str.sh_size || name_off >= b.size()) continue;
        const char* p = b.data() + name_off;
        size_t max = std::min<uint64_t>(b.size() - name_off, str.sh_size - sym.st_name);
        std::string_view name(p, strnlen(p, max));
        if (IsHelperName(name)) scan.outline_helper_symbols = true;
      }
    }
  }
  DecideAtomicsKind(&scan);
  return scan;
}

}  // namespace pgrig::host
