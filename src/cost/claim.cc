#include "cost/claim.h"

#include <fmt/format.h>

#include <cmath>

namespace pgrig::cost {

Result<ClaimCheck> CheckClaim(const Tco& reference, const Claim& claim) {
  if (!claim.usd_per_hour && !claim.total_usd) {
    return InvalidArgument("nothing to check: give a claimed price or total");
  }
  ClaimCheck c;
  c.reference_usd_per_hour = reference.input.usd_per_hour;
  if (claim.usd_per_hour) {
    const double p = *claim.usd_per_hour;
    if (!std::isfinite(p) || p <= 0) {
      return InvalidArgument(fmt::format("--claim-usd-per-hour must be greater than 0, got {}", p));
    }
    c.claimed_usd_per_hour = p;
    c.hourly_difference_usd = p - c.reference_usd_per_hour;
    c.hourly_difference_pct = 100 * c.hourly_difference_usd / c.reference_usd_per_hour;
    TcoInput in = reference.input;
    in.usd_per_hour = p;
    PGRIG_ASSIGN_OR_RETURN(Tco at_claim, ComputeTco(in));
    c.tco_at_claimed_price = std::move(at_claim);
  }
  if (claim.total_usd) {
    const double total = *claim.total_usd;
    if (!std::isfinite(total) || total <= 0) {
      return InvalidArgument(fmt::format("--claim-total must be greater than 0, got {}", total));
    }
    c.claimed_total_usd = total;
    c.total_difference_usd = total - reference.total_usd;
    c.total_difference_pct = 100 * c.total_difference_usd / reference.total_usd;
    const TcoInput& in = reference.input;
    const double non_compute =
        reference.storage_usd + reference.iops_usd + reference.throughput_usd;
    const double compute_net = total / (1 + in.support_pct / 100) - non_compute;
    const double instance_hours = static_cast<double>(in.count) * reference.hours;
    if (compute_net > 0) {
      c.implied_usd_per_hour = compute_net / (instance_hours * (1 - in.discount_pct / 100));
    }
  }
  return c;
}

}  // namespace pgrig::cost
