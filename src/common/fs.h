// Files: reading facts through an injectable root, and writing safely.
//
// SysFs reads files under a root directory ("/" on the real machine, a
// fixture tree in tests, or the user's --sysroot), so that every reader of
// /proc and /sys can be tested against recorded machines.  Paths passed to it
// are absolute as on the target machine ("/proc/cpuinfo"); it prefixes the
// root.  It is immutable and thread-safe.
//
// WriteFileAtomically never leaves a half-written file: it writes a sibling
// temporary file, fsyncs it and renames it over the target.
#ifndef PGRIG_COMMON_FS_H_
#define PGRIG_COMMON_FS_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/status.h"

namespace pgrig {

class SysFs {
 public:
  explicit SysFs(std::string root = "/");

  const std::string& root() const { return root_; }

  // The path on this machine that stands for `path` on the target.
  std::string Resolve(const std::string& path) const;

  Result<std::string> ReadFile(const std::string& path) const;
  // First line without its newline, trimmed.
  Result<std::string> ReadLine(const std::string& path) const;
  bool Exists(const std::string& path) const;
  // Names of the entries in a directory, sorted; empty when it is missing.
  std::vector<std::string> ListDir(const std::string& path) const;

 private:
  std::string root_;
};

// Reads a whole file from the real filesystem.
Result<std::string> ReadWholeFile(const std::string& path);

// Writes `contents` to `path` atomically with the given mode.
Status WriteFileAtomically(const std::string& path, const std::string& contents,
                           mode_t mode = 0644);

// Whether a file can be created at `path` (what WriteFileAtomically needs):
// creates and removes a probe file in its directory, so that a long run's
// results are not lost to an unwritable path at its end.  InvalidArgument
// naming `what` ("the results (--json)") and the reason.
Status CheckCanCreate(const std::string& path, const std::string& what);

// mkdir -p with the given mode for the directories it creates.
Status MakeDirs(const std::string& path, mode_t mode = 0755);

// rm -rf; missing is not an error.
Status RemoveTree(const std::string& path);

// The directory of the running executable (from /proc/self/exe); empty when
// the link cannot be read.  Where pgrig looks for the data shipped beside it.
std::string ExecutableDir();

// Total size in bytes of the regular files below `path`.
uint64_t TreeSize(const std::string& path);

}  // namespace pgrig

#endif  // PGRIG_COMMON_FS_H_
