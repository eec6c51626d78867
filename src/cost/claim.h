// Checking a published claim against the catalog: a claimed hourly price
// (and/or a claimed total) is set beside the catalog's and the same TCO
// arithmetic, so a reader sees exactly where the figures part.
//
//   hourly difference   = claimed - catalog            (and in % of catalog)
//   total at the claim  = the TCO with the claimed hourly price, all else equal
//   implied hourly price from a claimed total (inverting the TCO formula):
//     (claimed_total / (1 + support/100) - storage - iops - throughput)
//       / (count x hours x (1 - discount/100))
//
// Pure functions; thread-safe.
#ifndef PGRIG_COST_CLAIM_H_
#define PGRIG_COST_CLAIM_H_

#include <optional>

#include "common/status.h"
#include "cost/tco.h"

namespace pgrig::cost {

struct Claim {
  std::optional<double> usd_per_hour;  // claimed price per instance-hour
  std::optional<double> total_usd;     // claimed TCO for the same inputs
};

struct ClaimCheck {
  double reference_usd_per_hour = 0;  // the price the reference TCO used

  std::optional<double> claimed_usd_per_hour;
  double hourly_difference_usd = 0;  // claimed - reference
  double hourly_difference_pct = 0;  // of the reference
  std::optional<Tco> tco_at_claimed_price;

  std::optional<double> claimed_total_usd;
  double total_difference_usd = 0;  // claimed total - reference total
  double total_difference_pct = 0;
  // The per-instance hourly price that makes the TCO equal the claimed
  // total; nullopt when even a zero price would not get down to it.
  std::optional<double> implied_usd_per_hour;
};

// REQUIRES (checked): at least one claim, each > 0 and finite.
Result<ClaimCheck> CheckClaim(const Tco& reference, const Claim& claim);

}  // namespace pgrig::cost

#endif  // PGRIG_COST_CLAIM_H_
