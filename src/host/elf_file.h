// An ELF file's header and section table, read from its bytes with every
// offset and size checked against the file: the one ELF reader of host/,
// under the scanners of server binaries (Arm atomics, frame pointers).  64-bit little-endian files
// only, which is every x86-64 and AArch64 Linux binary.
//
// An ElfFile views the bytes it was parsed from: they must outlive it.
#ifndef PGRIG_HOST_ELF_FILE_H_
#define PGRIG_HOST_ELF_FILE_H_

#include <elf.h>

#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace pgrig::host {

struct ElfFile {
  std::string_view bytes;
  Elf64_Ehdr header{};
  std::vector<Elf64_Shdr> sections;

  // A T read at `offset`; false when it does not lie wholly inside the file.
  template <typename T>
  bool ReadAt(uint64_t offset, T* out) const {
    if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
    std::memcpy(out, bytes.data() + offset, sizeof(T));
    return true;
  }
  // A section's bytes; nullopt when they lie outside the file (or it has
  // none in the file, SHT_NOBITS).
  std::optional<std::string_view> Contents(const Elf64_Shdr& s) const;
};

// InvalidArgument when `bytes` are not an ELF file or have no (or a
// truncated) section table; FailedPrecondition for an ELF file that is not
// 64-bit little-endian (a 32-bit program: nothing to scan, not an error).
Result<ElfFile> ParseElf(std::string_view bytes);

}  // namespace pgrig::host

#endif  // PGRIG_HOST_ELF_FILE_H_
