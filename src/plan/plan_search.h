// Finding a plan by name: `pgrig run scaling` means the shipped
// plans/scaling.toml; `pgrig run my.toml` (or any argument with a '/' or
// ending in .toml) means that file.  Shipped plans are looked for like the
// price catalog (cost/catalog.h LocateCatalog): $PGRIG_DATA_DIR/plans/ when
// set (and only there), then <exe>/../plans/ (source tree build),
// <exe>/../share/pgrig/plans/ (installed), <exe>/../../plans/ (nested build
// directory).  Pure apart from checking which files exist; thread-safe.
#ifndef PGRIG_PLAN_PLAN_SEARCH_H_
#define PGRIG_PLAN_PLAN_SEARCH_H_

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace pgrig::plan {

struct PlanSearch {
  std::optional<std::string> data_dir;  // $PGRIG_DATA_DIR, when set
  std::string exe_dir;                  // directory of the running executable; empty if unknown
};

struct PlanLocation {
  std::string path;  // the file
  std::string how;   // "shipped plan 'quick' (<exe>/../plans)" or "file"
};

// $PGRIG_DATA_DIR (when set and not empty) and `exe_dir`: where every
// command that takes a plan looks for shipped plans.
PlanSearch PlanSearchFromEnvironment(std::string exe_dir);

// True when `arg` names a file rather than a shipped plan.
bool LooksLikePlanFile(const std::string& arg);

// The shipped plan directories to try, in order.
std::vector<std::string> PlanDirectories(const PlanSearch& search);

// NotFound lists the places tried and the shipped plans found there.
Result<PlanLocation> LocatePlan(const std::string& arg, const PlanSearch& search);

}  // namespace pgrig::plan

#endif  // PGRIG_PLAN_PLAN_SEARCH_H_
