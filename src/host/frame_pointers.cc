// ScanFramePointers (host/frame_pointers.h).
#include "host/frame_pointers.h"

#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "host/elf_file.h"

namespace pgrig::host {
namespace {

bool StartsWithBytes(std::string_view code, std::string_view bytes) {
  return code.substr(0, bytes.size()) == bytes;
}

uint32_t WordAt(std::string_view code, size_t i) {
  uint32_t w = 0;
  std::memcpy(&w, code.data() + i * 4, 4);  // AArch64 code is little-endian here
  return w;
}

}  // namespace

std::string FramePointerVerdict(uint64_t with, uint64_t functions) {
  if (functions < 20) return "unknown";
  if (with * 2 >= functions) return "yes";
  if (with * 20 <= functions) return "no";
  return "partly";
}

bool X86_64SetsUpFramePointer(std::string_view code) {
  using namespace std::string_view_literals;
  if (StartsWithBytes(code, "\xf3\x0f\x1e\xfa"sv)) code.remove_prefix(4);  // endbr64
  if (!StartsWithBytes(code, "\x55"sv)) return false;                      // push %rbp
  // mov %rsp,%rbp, which the scheduler may move a few instructions down.
  const std::string_view head = code.substr(1, 32);
  return head.find("\x48\x89\xe5"sv) != std::string_view::npos ||
         head.find("\x48\x8b\xec"sv) != std::string_view::npos;
}

bool Aarch64SetsUpFramePointer(std::string_view code) {
  const size_t words = std::min<size_t>(code.size() / 4, 8);
  for (size_t i = 0; i < words; ++i) {
    if (WordAt(code, i) == 0x910003fdu) return true;  // add x29, sp, #0
  }
  return false;
}

Result<FramePointerScan> ScanFramePointers(const std::string& b) {
  PGRIG_ASSIGN_OR_RETURN(const ElfFile elf, ParseElf(b));
  const Elf64_Ehdr& eh = elf.header;
  if (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64) {
    return FailedPrecondition("not an x86-64 or AArch64 binary (ELF machine " +
                              std::to_string(eh.e_machine) + ")");
  }
  const std::vector<Elf64_Shdr>& sh = elf.sections;
  // .symtab names every function; .dynsym only the exported ones.  Take
  // the fuller table when there is one.
  const Elf64_Shdr* table = nullptr;
  for (const Elf64_Shdr& s : sh) {
    if (s.sh_type == SHT_SYMTAB) table = &s;
  }
  if (table == nullptr) {
    for (const Elf64_Shdr& s : sh) {
      if (s.sh_type == SHT_DYNSYM) table = &s;
    }
  }
  FramePointerScan scan;
  if (table == nullptr || table->sh_entsize != sizeof(Elf64_Sym)) {
    scan.detail = "no symbol table to find the functions by";
    return scan;
  }
  if (!elf.Contents(*table)) return InvalidArgument("truncated ELF symbol table");
  const bool x86 = eh.e_machine == EM_X86_64;
  std::vector<uint64_t> seen;
  for (uint64_t off = 0; off + sizeof(Elf64_Sym) <= table->sh_size; off += sizeof(Elf64_Sym)) {
    Elf64_Sym sym;
    if (!elf.ReadAt(table->sh_offset + off, &sym)) break;
    if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_size < 8 || sym.st_shndx == SHN_UNDEF ||
        sym.st_shndx >= sh.size()) {
      continue;
    }
    const Elf64_Shdr& sec = sh[sym.st_shndx];
    if (sec.sh_type != SHT_PROGBITS || (sec.sh_flags & SHF_EXECINSTR) == 0 ||
        sym.st_value < sec.sh_addr || sym.st_value - sec.sh_addr >= sec.sh_size) {
      continue;
    }
    const uint64_t in_sec = sym.st_value - sec.sh_addr;
    const uint64_t file_off = sec.sh_offset + in_sec;
    if (file_off > b.size()) continue;
    const uint64_t len = std::min<uint64_t>(
        {sym.st_size, sec.sh_size - in_sec, 64, static_cast<uint64_t>(b.size()) - file_off});
    seen.push_back(sym.st_value);
    const std::string_view code(b.data() + file_off, len);
    // Aliases (two names, one address) are counted once below.
    if (x86 ? X86_64SetsUpFramePointer(code) : Aarch64SetsUpFramePointer(code)) {
      seen.back() |= uint64_t{1} << 63;
    }
  }
  std::sort(seen.begin(), seen.end());
  uint64_t last = ~uint64_t{0};
  for (uint64_t v : seen) {
    const uint64_t addr = v & ~(uint64_t{1} << 63);
    if (addr == last) continue;
    last = addr;
    ++scan.functions;
    if ((v >> 63) != 0) ++scan.with_frame_setup;
  }
  scan.verdict = FramePointerVerdict(scan.with_frame_setup, scan.functions);
  const double pct = scan.functions > 0 ? 100.0 * static_cast<double>(scan.with_frame_setup) /
                                              static_cast<double>(scan.functions)
                                        : 0;
  scan.detail = fmt::format(
      "{} of {} functions ({:.1f}%) set up a frame pointer ({}; symbols from {})",
      scan.with_frame_setup, scan.functions, pct, x86 ? "push %rbp; mov %rsp,%rbp" : "mov x29, sp",
      table->sh_type == SHT_SYMTAB ? ".symtab" : ".dynsym");
  return scan;
}

}  // namespace pgrig::host
