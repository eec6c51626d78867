#include "workload/init_analyze_plan.h"

#include <algorithm>
#include <cmath>

namespace pgrig::workload {

PartitionAnalyzePlan PlanPartitionAnalyses(int partitions, int sessions) {
  PartitionAnalyzePlan plan;
  if (partitions < 1 || sessions < 2) return plan;
  // Each session's fair share of the work, in partitions' ANALYZEs; the
  // parent's session fills its share up with partitions.  It keeps fewer
  // than all of them, so that some other session holds (and analyzes) at
  // least one.
  const double share = static_cast<double>(partitions + kParentAnalyzeWeight) / sessions;
  const long with_parent =
      std::clamp(std::lround(share - kParentAnalyzeWeight), 0L, static_cast<long>(partitions - 1));
  const int held = partitions - static_cast<int>(with_parent);
  const int holders = std::min(sessions - 1, held);
  int next = 1;
  for (int h = 0; h < holders; ++h) {
    const int count = held / holders + (h < held % holders ? 1 : 0);
    std::vector<int>& mine = plan.holders.emplace_back();
    for (int i = 0; i < count; ++i) mine.push_back(next++);
  }
  while (next <= partitions) plan.with_parent.push_back(next++);
  return plan;
}

}  // namespace pgrig::workload
