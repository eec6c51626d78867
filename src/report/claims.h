// Checking a published claim against measured suites.  Two forms are
// understood (case-insensitive; suites named by their label or by letter in
// command-line order, A first), each optionally ending in "in cell ID" or
// "at peak":
//
//   "A is 1.38x B on read-only"    ratio claim: the tps ratio A / B, on every
//                                  matched cell of that workload kind (or
//                                  workload name)
//   "19,000 TPS per dollar"        per-dollar claim, optionally "B: ..." and
//   "B: 5.1M transactions per dollar on read-write"  "on <kind>"
//
// "TPS per dollar" is read as the published tables use it: tps divided by the
// price per hour (units: tps per USD/h); "transactions per dollar" is tps x
// 3,600 / USD per hour.
//
// Which cells.  A claim that names a cell ("... in cell
// select-only/simple/default/c8/j2") is judged on that cell alone.  Without
// one it is judged on every matching cell, each with its own verdict; the
// claim's verdict is theirs when they all agree and "undecided" (with the
// counts) when they do not.  "at peak" judges the one cell where the claim's
// subject peaks (highest median tps); since that cell was chosen as the best
// of m, its interval is widened to the Bonferroni level 1 - 0.05 / m, which
// covers every one of the m cells at once and so also the chosen one.
//
// The three answers, on a cell's 95% interval I and the tolerance band
// T = [c / (1 + tol), c x (1 + tol)] around the claimed value c:
//   ratio claim, c != 1:  SUPPORTED when I excludes 1.0 on c's side and meets
//                         T; CONTRADICTED when I misses T; else UNDECIDED.
//   ratio claim, c == 1:  SUPPORTED when I lies inside T (an equivalence
//                         claim); CONTRADICTED when I misses T; else UNDECIDED.
//   per-dollar claim:     as a 1.0x claim on measured / claimed: SUPPORTED
//                         when I lies inside T, CONTRADICTED when I misses
//                         T, else UNDECIDED.
// With no interval (fewer than 2 iterations, no price, no matching cell) the
// answer is UNDECIDED and the basis says why.  An undecided cell carries
// the iterations (per side, for a ratio) that would likely decide it at the
// observed spread (IterationsToDecide).  Pure functions; thread-safe.
#ifndef PGRIG_REPORT_CLAIMS_H_
#define PGRIG_REPORT_CLAIMS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "report/analysis.h"

namespace pgrig::report {

enum class ClaimVerdict { kSupported, kContradicted, kUndecided };
const char* ClaimVerdictName(ClaimVerdict v);  // "supported", "contradicted", "undecided"

struct ClaimOptions {
  // Relative: the claimed value c stands for [c / (1 + tolerance), c x (1 +
  // tolerance)].  The default allows for a published figure's rounding and
  // for a few percent of difference between two sets of the same runs.
  double tolerance = 0.05;
};

// One cell's verdict on a claim.
struct CellClaim {
  std::string cell;  // the cell id
  std::optional<double> measured;
  std::optional<stats::Interval> interval;
  double confidence = 0.95;  // of `interval` (above 0.95 for an "at peak" cell)
  int64_t n_a = 0;           // iterations of the claim's subject
  int64_t n_b = 0;           // of the other suite (ratio claims)
  ClaimVerdict verdict = ClaimVerdict::kUndecided;
  // When undecided and more iterations would likely decide it: how many per
  // side, at the observed spread (capped at kMaxIterationsToDecide).
  std::optional<int64_t> iterations_to_decide;
  std::string reason;  // a phrase: why this verdict
};

struct ClaimCheck {
  std::string claim;  // as given
  double claimed = 0;
  double tolerance = 0.05;
  std::vector<CellClaim> cells;  // every cell it was judged on
  ClaimVerdict verdict = ClaimVerdict::kUndecided;
  // The cell's figures when the claim was judged on one cell.
  std::optional<double> measured;
  std::optional<stats::Interval> interval;
  std::string basis;  // which cells and which statistic, or why undecided
};

// The most iterations IterationsToDecide proposes; beyond it, "more than".
inline constexpr int64_t kMaxIterationsToDecide = 1000;

// The smallest n in [2, kMaxIterationsToDecide] at which a t interval of n
// iterations per side, at the spread `sd_log` (standard deviation of one
// iteration's log tps), has a half-width on the log scale below `distance`:
// t((1 + confidence) / 2, dof) x sd_log x sqrt(sides / n) with dof =
// sides x (n - 1) (sides = 2 for a ratio, 1 for one suite's rate).  nullopt
// when even kMaxIterationsToDecide would not do, or for a distance <= 0.
std::optional<int64_t> IterationsToDecide(double distance, double sd_log, int sides,
                                          double confidence = 0.95);

// Fails (kInvalidArgument) only for a claim in neither form, naming a suite
// or a cell that is not there; everything else is a verdict.
Result<ClaimCheck> CheckClaim(const std::string& claim,
                              const std::vector<const SuiteStats*>& suites,
                              const ClaimOptions& options = {});

}  // namespace pgrig::report

#endif  // PGRIG_REPORT_CLAIMS_H_
