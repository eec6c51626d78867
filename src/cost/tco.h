// Total cost of ownership of a cluster of identical instances over N years,
// the arithmetic of a typical published TCO calculator made explicit:
//
//   hours          = 8,760 x years                (365-day years; 730 h a month)
//   months         = 12 x years
//   compute        = count x usd_per_hour x hours
//   discount       = compute x discount% / 100    (reserved instances, savings
//                                                   plans: they discount instance
//                                                   hours, not storage)
//   storage        = count x storage_gb x usd_per_gb_month x months
//   iops           = count x max(0, iops - included_iops) x usd_per_iops_month x months
//   throughput     = count x max(0, mbps - included_mbps) x usd_per_mbps_month x months
//   subtotal       = compute - discount + storage + iops + throughput
//   support        = subtotal x support% / 100
//   total          = subtotal + support
//
// Storage, IOPS and throughput are per instance (each instance has its own
// volume; the included IOPS and MB/s are per volume).  Everything is in US
// dollars.  Pure functions; thread-safe.
#ifndef PGRIG_COST_TCO_H_
#define PGRIG_COST_TCO_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "cost/catalog.h"

namespace pgrig::cost {

inline constexpr double kHoursPerYear = 8760;
inline constexpr double kMonthsPerYear = 12;

// Upper bounds on the inputs: far beyond any real cluster, low enough that
// every product stays a finite, printable number.
inline constexpr int64_t kMaxCount = 1000000;  // instances
inline constexpr double kMaxYears = 100;
inline constexpr double kMaxStorageGb = 1e9;  // per instance (an exabyte)
inline constexpr double kMaxIops = 1e9;
inline constexpr double kMaxThroughputMbps = 1e9;
inline constexpr double kMaxUsdPerHour = 1e6;  // per instance

struct TcoInput {
  double usd_per_hour = 0;  // per instance, before discount
  int64_t count = 1;        // instances
  double years = 3;
  double storage_gb = 0;       // per instance
  double iops = 0;             // provisioned per instance; 0 = what the volume includes
  double throughput_mbps = 0;  // provisioned per instance; 0 = what the volume includes
  double support_pct = 0;      // of the subtotal, 0..100
  double discount_pct = 0;     // off compute, 0..<100
  // REQUIRES (checked): set when storage_gb, iops or throughput_mbps > 0.
  std::optional<StoragePrice> storage;
};

// One row of the breakdown: usd = quantity x unit_price_usd (discount and
// support rows: usd = base_usd x pct / 100, with quantity = pct).
struct TcoLine {
  std::string component;  // "compute", "discount", "storage", "iops", "throughput", "support"
  double quantity = 0;
  std::string unit;  // "instance-hours", "GB-months", "IOPS-months", "MB/s-months", "%"
  double unit_price_usd = 0;
  std::string price_unit;  // "USD per instance-hour", ...
  std::string how;         // the arithmetic, e.g. "2 instances x 26,280 h"
  double usd = 0;          // negative for the discount
};

struct Tco {
  TcoInput input;
  double hours = 0;  // per instance
  double months = 0;
  std::vector<TcoLine> lines;  // only components that apply
  double compute_usd = 0;
  double discount_usd = 0;  // positive amount taken off
  double storage_usd = 0;
  double iops_usd = 0;
  double throughput_usd = 0;
  double subtotal_usd = 0;
  double support_usd = 0;
  double total_usd = 0;
  double usd_per_year = 0;   // total / years
  double usd_per_month = 0;  // total / months
  double usd_per_hour = 0;   // total / hours: the whole cluster's effective hourly cost
};

// Validates the input (1 <= count <= kMaxCount, 0 < years <= kMaxYears,
// 0 <= sizes <= their kMax*, 0 <= support <= 100, 0 <= discount < 100,
// 0 < price <= kMaxUsdPerHour, storage price present when needed) and
// computes the breakdown.
Result<Tco> ComputeTco(const TcoInput& input);

}  // namespace pgrig::cost

#endif  // PGRIG_COST_TCO_H_
