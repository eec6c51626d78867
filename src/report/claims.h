// Checking a published claim against measured suites.  Two forms are
// understood (case-insensitive; suites named by their label or by letter in
// command-line order, A first):
//
//   "A is 1.38x B on read-only"    ratio claim: the tps ratio A / B of the
//                                  matched cell of that workload kind (or
//                                  workload name) where A peaks
//   "19,000 TPS per dollar"        per-dollar claim, optionally "B: ..." and
//   "B: 5.1M transactions per dollar on read-write"  "on <kind>"
//
// "TPS per dollar" is read as the published tables use it: tps divided by the
// price per hour (units: tps per USD/h); "transactions per dollar" is tps x
// 3,600 / USD per hour.  A claim is SUPPORTED when the claimed value lies in
// the 95% interval of the measurement, CONTRADICTED when it lies outside,
// and NOT DECIDABLE when there is no interval (fewer than 2 iterations, no
// price, no matching cell).  Pure functions; thread-safe.
#ifndef PGRIG_REPORT_CLAIMS_H_
#define PGRIG_REPORT_CLAIMS_H_

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "report/analysis.h"

namespace pgrig::report {

enum class ClaimVerdict { kSupported, kContradicted, kNotDecidable };
const char* ClaimVerdictName(ClaimVerdict v);  // "supported", "contradicted", "not decidable"

struct ClaimCheck {
  std::string claim;  // as given
  double claimed = 0;
  std::optional<double> measured;
  std::optional<stats::Interval> interval;
  ClaimVerdict verdict = ClaimVerdict::kNotDecidable;
  std::string basis;  // which cells and which statistic, or why not decidable
};

// Fails (kInvalidArgument) only for a claim in neither form or naming a
// suite that is not there; everything else is a verdict.
Result<ClaimCheck> CheckClaim(const std::string& claim,
                              const std::vector<const SuiteStats*>& suites);

}  // namespace pgrig::report

#endif  // PGRIG_REPORT_CLAIMS_H_
