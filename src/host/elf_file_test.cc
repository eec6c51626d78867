// ParseElf (host/elf_file.h) on the installed PostgreSQL server's binary
// and on damaged copies of it.
#include "host/elf_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace pgrig::host {
namespace {

using ::testing::HasSubstr;

// The newest /usr/lib/postgresql/MAJOR/bin/postgres (the tests' server).
std::string InstalledPostgres() {
  std::string path;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
    const std::string p = e.path().string() + "/bin/postgres";
    if (std::filesystem::exists(p) && p > path) path = p;
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ElfFile, TheInstalledServersSections) {
  const std::string bytes = InstalledPostgres();
  ASSERT_GT(bytes.size(), 1u << 20) << "the installed postgres binary was not read";
  auto elf = ParseElf(bytes);
  ASSERT_TRUE(elf.ok()) << elf.status().message();
  EXPECT_GT(elf->sections.size(), 10u);
  int code = 0;
  for (const Elf64_Shdr& s : elf->sections) {
    if (s.sh_type == SHT_PROGBITS && (s.sh_flags & SHF_EXECINSTR) && elf->Contents(s)) ++code;
  }
  EXPECT_GE(code, 1);  // .text at least
}

TEST(ElfFile, MalformedInputIsAnErrorNeverACrash) {
  EXPECT_THAT(ParseElf("").status().message(), HasSubstr("not an ELF"));
  EXPECT_THAT(ParseElf("#!/bin/sh\n").status().message(), HasSubstr("not an ELF"));
  const std::string whole = InstalledPostgres();
  ASSERT_GT(whole.size(), 4096u);
  // A 32-bit file is not applicable rather than broken.
  std::string elf32 = whole.substr(0, 64);
  elf32[EI_CLASS] = ELFCLASS32;
  EXPECT_EQ(ParseElf(elf32).status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(ParseElf(elf32).status().message(), HasSubstr("64-bit"));
  // Every prefix: the section table or the sections run past the end.
  for (size_t n = 0; n < whole.size(); n += n < 8192 ? 61 : 65537) {
    auto r = ParseElf(std::string_view(whole).substr(0, n));
    if (!r.ok()) continue;
    for (const Elf64_Shdr& s : r->sections) {
      if (auto c = r->Contents(s)) {
        EXPECT_LE(c->data() + c->size(), r->bytes.data() + n);
      }
    }
  }
  // The section table's offset past the end.
  std::string bent = whole;
  Elf64_Ehdr eh;
  std::memcpy(&eh, bent.data(), sizeof eh);
  eh.e_shoff = bent.size() - 10;
  std::memcpy(bent.data(), &eh, sizeof eh);
  EXPECT_THAT(ParseElf(bent).status().message(), HasSubstr("truncated"));
  // A section whose size runs past the end: no contents, no crash.
  bent = whole;
  std::memcpy(&eh, bent.data(), sizeof eh);
  Elf64_Shdr sh;
  std::memcpy(&sh, bent.data() + eh.e_shoff + sizeof sh, sizeof sh);
  sh.sh_size = ~uint64_t{0} - 4;
  std::memcpy(bent.data() + eh.e_shoff + sizeof sh, &sh, sizeof sh);
  auto r = ParseElf(bent);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->Contents(r->sections[1]).has_value());
}

}  // namespace
}  // namespace pgrig::host
