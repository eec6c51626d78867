// ParseElf (host/elf_file.h).
#include "host/elf_file.h"

#include <string>

namespace pgrig::host {

std::optional<std::string_view> ElfFile::Contents(const Elf64_Shdr& s) const {
  if (s.sh_type == SHT_NOBITS || s.sh_offset > bytes.size() ||
      s.sh_size > bytes.size() - s.sh_offset) {
    return std::nullopt;
  }
  return bytes.substr(s.sh_offset, s.sh_size);
}

Result<ElfFile> ParseElf(std::string_view bytes) {
  ElfFile elf;
  elf.bytes = bytes;
  if (!elf.ReadAt(0, &elf.header) || std::memcmp(elf.header.e_ident, ELFMAG, SELFMAG) != 0) {
    return InvalidArgument("not an ELF file");
  }
  if (elf.header.e_ident[EI_CLASS] != ELFCLASS64 || elf.header.e_ident[EI_DATA] != ELFDATA2LSB) {
    return FailedPrecondition("not a 64-bit little-endian ELF file (class " +
                              std::to_string(elf.header.e_ident[EI_CLASS]) + ", data " +
                              std::to_string(elf.header.e_ident[EI_DATA]) + ")");
  }
  if (elf.header.e_shentsize != sizeof(Elf64_Shdr) || elf.header.e_shnum == 0) {
    return InvalidArgument("ELF file has no section headers");
  }
  elf.sections.resize(elf.header.e_shnum);
  for (size_t i = 0; i < elf.sections.size(); ++i) {
    if (!elf.ReadAt(elf.header.e_shoff + i * sizeof(Elf64_Shdr), &elf.sections[i])) {
      return InvalidArgument("truncated ELF section table");
    }
  }
  return elf;
}

}  // namespace pgrig::host
