// replay_main: runs a fuzz target's LLVMFuzzerTestOneInput over files.
//
// libFuzzer is clang-only; this tiny driver lets a gcc build (or any build
// without -fsanitize=fuzzer) replay the committed corpus and the crash
// regressions, so a change that breaks on a known input fails an ordinary
// test run.  Each argument is a file or a directory (its regular files are
// replayed in name order, not recursively).  A crash or sanitizer report
// aborts the process, which is the failure; otherwise it prints how many
// inputs ran and exits 0.  Exits 1 when an argument cannot be read or when
// no input at all was found (an empty replay would pass silently).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

bool ReadWhole(const std::filesystem::path& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
    return 1;
  }
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; i++) {
    const std::filesystem::path arg(argv[i]);
    std::error_code ec;
    if (std::filesystem::is_directory(arg, ec)) {
      std::vector<std::filesystem::path> in_dir;
      for (const auto& entry : std::filesystem::directory_iterator(arg, ec)) {
        if (entry.is_regular_file()) in_dir.push_back(entry.path());
      }
      if (ec) {
        std::fprintf(stderr, "%s: cannot list %s: %s\n", argv[0], argv[i], ec.message().c_str());
        return 1;
      }
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else if (std::filesystem::is_regular_file(arg, ec)) {
      files.push_back(arg);
    } else {
      std::fprintf(stderr, "%s: %s is neither a file nor a directory\n", argv[0], argv[i]);
      return 1;
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "%s: no inputs found in the given directories\n", argv[0]);
    return 1;
  }
  std::string data;
  for (const auto& f : files) {
    if (!ReadWhole(f, &data)) {
      std::fprintf(stderr, "%s: cannot read %s\n", argv[0], f.c_str());
      return 1;
    }
    // A copy in its own allocation, so ASan catches reads past the end.
    std::vector<uint8_t> buf(data.begin(), data.end());
    LLVMFuzzerTestOneInput(buf.data(), buf.size());
  }
  std::printf("replayed %zu inputs\n", files.size());
  return 0;
}
