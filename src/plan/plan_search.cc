#include "plan/plan_search.h"

#include <cstdlib>
#include <filesystem>
#include <set>
#include <utility>

namespace pgrig::plan {

namespace fs = std::filesystem;

PlanSearch PlanSearchFromEnvironment(std::string exe_dir) {
  PlanSearch search;
  if (const char* d = std::getenv("PGRIG_DATA_DIR"); d != nullptr && *d != '\0')
    search.data_dir = d;
  search.exe_dir = std::move(exe_dir);
  return search;
}

bool LooksLikePlanFile(const std::string& arg) {
  return arg.find('/') != std::string::npos ||
         (arg.size() > 5 && arg.compare(arg.size() - 5, 5, ".toml") == 0);
}

std::vector<std::string> PlanDirectories(const PlanSearch& search) {
  if (search.data_dir) return {*search.data_dir + "/plans"};
  std::vector<std::string> out;
  if (!search.exe_dir.empty()) {
    out.push_back(search.exe_dir + "/../plans");
    out.push_back(search.exe_dir + "/../share/pgrig/plans");
    out.push_back(search.exe_dir + "/../../plans");
  }
  return out;
}

Result<PlanLocation> LocatePlan(const std::string& arg, const PlanSearch& search) {
  std::error_code ec;
  if (LooksLikePlanFile(arg)) {
    if (!fs::is_regular_file(arg, ec)) return NotFound("plan file \"" + arg + "\" does not exist");
    return PlanLocation{arg, "file"};
  }
  std::set<std::string> known;
  std::string tried;
  for (const std::string& dir : PlanDirectories(search)) {
    const fs::path p = fs::path(dir) / (arg + ".toml");
    if (fs::is_regular_file(p, ec)) {
      return PlanLocation{fs::weakly_canonical(p, ec).string(), "shipped plan '" + arg + "'"};
    }
    tried += (tried.empty() ? "" : ", ") + p.lexically_normal().string();
    if (fs::is_directory(dir, ec)) {
      for (const auto& e : fs::directory_iterator(dir, ec)) {
        if (e.path().extension() == ".toml") known.insert(e.path().stem().string());
      }
    }
  }
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  return NotFound("no plan named '" + arg + "' (looked for " + (tried.empty() ? "nothing" : tried) +
                  ")" + (list.empty() ? "" : "; shipped plans: " + list) +
                  "; give a file path to run your own plan");
}

}  // namespace pgrig::plan
