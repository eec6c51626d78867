#include "cli/micro_cli.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "pg/connection.h"

namespace pgrig::cli {

Status CheckJsonDestination(const std::string& file) {
  if (file.empty() || file == "-") return Status::Ok();
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) {
    return InvalidArgument("--json " + file + " is a directory; give a file name");
  }
  std::string dir = std::filesystem::path(file).parent_path().string();
  if (dir.empty()) dir = ".";
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return InvalidArgument("--json " + file + ": directory " + dir +
                           " does not exist; create it or give another path");
  }
  if (access(dir.c_str(), W_OK) != 0) {
    return PermissionDenied("--json " + file + ": cannot write in " + dir);
  }
  return Status::Ok();
}

}  // namespace pgrig::cli
