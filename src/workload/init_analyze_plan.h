// How `pgrig init` shares the ANALYZE of a partitioned pgbench_accounts
// among its sessions.
//
// pgbench's "vacuum analyze pgbench_accounts" leaves two kinds of
// statistics: each partition's own, and the parent's (rows sampled across
// all partitions, pg_stats' inherited rows).  Sampling for the parent costs
// about as much as analyzing two partitions (measured at scales 10 and 50
// with 8 partitions, docs/performance.md), and on its own it would leave
// the other sessions idle.  So the parent's ANALYZE runs beside the
// partitions' from the start: every session but the last locks some
// partitions (SHARE UPDATE EXCLUSIVE, the lock ANALYZE takes) in an open
// transaction and analyzes them there; the last session's
// ANALYZE (SKIP_LOCKED) of the parent samples every partition (which needs
// only ACCESS SHARE), then analyzes the partitions it could lock (its own,
// locked beforehand) and passes silently over the ones the others hold.
// Each partition is analyzed once; the statistics are pgbench's.
//
// PlanPartitionAnalyses() is a pure function so that the share is
// unit-tested; the loader runs the plan.  Thread-safe (no state).
#ifndef PGRIG_WORKLOAD_INIT_ANALYZE_PLAN_H_
#define PGRIG_WORKLOAD_INIT_ANALYZE_PLAN_H_

#include <vector>

namespace pgrig::workload {

// What the parent's sampling costs, in partitions' ANALYZEs.
inline constexpr int kParentAnalyzeWeight = 2;

struct PartitionAnalyzePlan {
  // holders[i]: the partitions (numbered from 1) that session i locks and
  // analyzes itself, in order; never empty.
  std::vector<std::vector<int>> holders;
  // The partitions that session holders.size() locks with the parent and
  // analyzes as part of its ANALYZE of the parent; may be empty.
  std::vector<int> with_parent;
};

// Shares `partitions` (>= 1) among `sessions` (>= 2) so that every session
// gets about the same work, the parent counted as kParentAnalyzeWeight
// partitions: the parent's session takes what is left after the holders'
// even shares.  Uses fewer sessions when there are fewer partitions.
PartitionAnalyzePlan PlanPartitionAnalyses(int partitions, int sessions);

}  // namespace pgrig::workload

#endif  // PGRIG_WORKLOAD_INIT_ANALYZE_PLAN_H_
