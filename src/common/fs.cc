#include "common/fs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/strings.h"

namespace pgrig {

namespace fs = std::filesystem;

SysFs::SysFs(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

std::string SysFs::Resolve(const std::string& path) const {
  if (root_ == "/" || root_.empty()) return path;
  if (!path.empty() && path[0] == '/') return root_ + path;
  return root_ + "/" + path;
}

Result<std::string> SysFs::ReadFile(const std::string& path) const {
  return ReadWholeFile(Resolve(path));
}

Result<std::string> SysFs::ReadLine(const std::string& path) const {
  auto r = ReadFile(path);
  if (!r.ok()) return r.status();
  std::string s = *r;
  auto nl = s.find('\n');
  if (nl != std::string::npos) s.resize(nl);
  return std::string(Trim(s));
}

bool SysFs::Exists(const std::string& path) const {
  std::error_code ec;
  return fs::exists(Resolve(path), ec);
}

std::vector<std::string> SysFs::ListDir(const std::string& path) const {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(Resolve(path), ec), end; !ec && it != end; it.increment(ec)) {
    out.push_back(it->path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::string> ReadWholeFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    Status s(e == ENOENT   ? StatusCode::kNotFound
             : e == EACCES ? StatusCode::kPermissionDenied
                           : StatusCode::kInternal,
             "cannot read " + path + ": " + std::strerror(e));
    return s;
  }
  std::string out;
  // A regular file's size is known: one allocation, not a doubling string
  // (a 300-MB suite.json copied and faulted in ~10 times over).  /proc and
  // /sys files report 0 and grow as read.
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    out.reserve(static_cast<size_t>(st.st_size) + 1);
  }
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      return Internal("cannot read " + path + ": " + std::strerror(e));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

Status WriteFileAtomically(const std::string& path, const std::string& contents, mode_t mode) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) {
    return Status(errno == EACCES ? StatusCode::kPermissionDenied : StatusCode::kInternal,
                  "cannot write " + path + ": " + std::strerror(errno));
  }
  size_t off = 0;
  while (off < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + off, contents.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return Status(e == ENOSPC ? StatusCode::kResourceExhausted : StatusCode::kInternal,
                    "cannot write " + path + ": " + std::strerror(e));
    }
    off += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    return Internal("cannot write " + path + ": " + std::strerror(e));
  }
  ::chmod(tmp.c_str(), mode);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    return Internal("cannot replace " + path + ": " + std::strerror(e));
  }
  return Status::Ok();
}

Status CheckCanCreate(const std::string& path, const std::string& what) {
  const size_t slash = path.rfind('/');
  const std::string dir =
      slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  struct stat st {};
  if (path.empty() || (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))) {
    return InvalidArgument("cannot write " + what + " \"" + path +
                           "\": " + (path.empty() ? "no file name" : "it is a directory"));
  }
  std::string probe = dir + "/.pgrig-probe-XXXXXX";
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) {
    return InvalidArgument("cannot write " + what + " \"" + path + "\": cannot create files in \"" +
                           dir + "\": " + std::strerror(errno));
  }
  ::close(fd);
  ::unlink(probe.c_str());
  return Status::Ok();
}

Status MakeDirs(const std::string& path, mode_t mode) {
  std::string cur;
  std::stringstream ss(path);
  std::string part;
  if (!path.empty() && path[0] == '/') cur = "";
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      if (i == 0) continue;
      std::string prefix = path.substr(0, i);
      if (::mkdir(prefix.c_str(), mode) != 0 && errno != EEXIST) {
        return Status(errno == EACCES ? StatusCode::kPermissionDenied : StatusCode::kInternal,
                      "cannot create directory " + prefix + ": " + std::strerror(errno));
      }
    }
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Internal("cannot create directory " + path + ": not a directory");
  }
  return Status::Ok();
}

Status RemoveTree(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
  if (ec) return Internal("cannot remove " + path + ": " + ec.message());
  return Status::Ok();
}

uint64_t TreeSize(const std::string& path) {
  uint64_t total = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec),
       end;
       !ec && it != end; it.increment(ec)) {
    std::error_code e2;
    if (it->is_regular_file(e2)) total += it->file_size(e2);
  }
  return total;
}

std::string ExecutableDir() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

}  // namespace pgrig
