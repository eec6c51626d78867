#include "cost/tco.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cost/format.h"

namespace pgrig::cost {

namespace {

Status CheckFinite(double v, const char* what) {
  if (!std::isfinite(v)) return InvalidArgument(fmt::format("{} must be a finite number", what));
  return Status::Ok();
}

Status Validate(const TcoInput& in) {
  PGRIG_RETURN_IF_ERROR(CheckFinite(in.usd_per_hour, "the price per hour"));
  PGRIG_RETURN_IF_ERROR(CheckFinite(in.years, "--years"));
  PGRIG_RETURN_IF_ERROR(CheckFinite(in.storage_gb, "--storage-gb"));
  PGRIG_RETURN_IF_ERROR(CheckFinite(in.iops, "--iops"));
  PGRIG_RETURN_IF_ERROR(CheckFinite(in.throughput_mbps, "--throughput"));
  PGRIG_RETURN_IF_ERROR(CheckFinite(in.support_pct, "--support"));
  PGRIG_RETURN_IF_ERROR(CheckFinite(in.discount_pct, "--discount"));
  if (in.usd_per_hour <= 0) {
    return InvalidArgument(
        fmt::format("the price per hour must be greater than 0 USD, got {}", in.usd_per_hour));
  }
  if (in.usd_per_hour > kMaxUsdPerHour) {
    return InvalidArgument(
        fmt::format("the price per hour must be at most {} USD per instance, got {}",
                    FormatPlain(kMaxUsdPerHour), in.usd_per_hour));
  }
  if (in.count < 1) {
    return InvalidArgument(fmt::format("--count must be at least 1 instance, got {}", in.count));
  }
  if (in.count > kMaxCount) {
    return InvalidArgument(
        fmt::format("--count must be at most {} instances, got {}", kMaxCount, in.count));
  }
  if (in.years <= 0) {
    return InvalidArgument(fmt::format("--years must be greater than 0, got {}", in.years));
  }
  if (in.years > kMaxYears) {
    return InvalidArgument(
        fmt::format("--years must be at most {}, got {}", FormatPlain(kMaxYears), in.years));
  }
  if (in.storage_gb > kMaxStorageGb) {
    return InvalidArgument(fmt::format("--storage-gb must be at most {} GB per instance, got {}",
                                       FormatPlain(kMaxStorageGb), in.storage_gb));
  }
  if (in.iops > kMaxIops) {
    return InvalidArgument(
        fmt::format("--iops must be at most {}, got {}", FormatPlain(kMaxIops), in.iops));
  }
  if (in.throughput_mbps > kMaxThroughputMbps) {
    return InvalidArgument(fmt::format("--throughput must be at most {} MB/s, got {}",
                                       FormatPlain(kMaxThroughputMbps), in.throughput_mbps));
  }
  if (in.storage_gb < 0) {
    return InvalidArgument(fmt::format("--storage-gb must be 0 or more, got {}", in.storage_gb));
  }
  if (in.iops < 0) return InvalidArgument(fmt::format("--iops must be 0 or more, got {}", in.iops));
  if (in.throughput_mbps < 0) {
    return InvalidArgument(
        fmt::format("--throughput must be 0 or more MB/s, got {}", in.throughput_mbps));
  }
  if (in.support_pct < 0 || in.support_pct > 100) {
    return InvalidArgument(
        fmt::format("--support must be a percentage from 0 to 100, got {}", in.support_pct));
  }
  if (in.discount_pct < 0 || in.discount_pct >= 100) {
    return InvalidArgument(fmt::format(
        "--discount must be a percentage from 0 to less than 100, got {}", in.discount_pct));
  }
  if ((in.iops > 0 || in.throughput_mbps > 0) && in.storage_gb <= 0) {
    return InvalidArgument(
        "--iops and --throughput are provisioned on a volume: give its size with --storage-gb");
  }
  if (in.storage_gb > 0 && !in.storage) {
    return InvalidArgument("--storage-gb needs a storage price: none was chosen");
  }
  return Status::Ok();
}

std::string Count(int64_t count) {
  return fmt::format("{} instance{}", count, count == 1 ? "" : "s");
}

// Adds a line priced per unit (quantity x unit price) to `t`; its cost.
double AddPricedLine(Tco& t, const char* component, double quantity, const char* unit,
                     double unit_price_usd, const char* price_unit, std::string how) {
  TcoLine l;
  l.component = component;
  l.quantity = quantity;
  l.unit = unit;
  l.unit_price_usd = unit_price_usd;
  l.price_unit = price_unit;
  l.how = std::move(how);
  l.usd = quantity * unit_price_usd;
  t.lines.push_back(l);
  return l.usd;
}

}  // namespace

Result<Tco> ComputeTco(const TcoInput& in) {
  PGRIG_RETURN_IF_ERROR(Validate(in));
  Tco t;
  t.input = in;
  t.hours = kHoursPerYear * in.years;
  t.months = kMonthsPerYear * in.years;
  const double n = static_cast<double>(in.count);

  t.compute_usd = AddPricedLine(
      t, "compute", n * t.hours, "instance-hours", in.usd_per_hour, "USD per instance-hour",
      fmt::format("{} x {} h ({} year{} x 8,760 h)", Count(in.count),
                  FormatNumber(t.hours, t.hours == std::floor(t.hours) ? 0 : 2),
                  FormatPlain(in.years), in.years == 1 ? "" : "s"));
  if (in.discount_pct > 0) {
    TcoLine l;
    l.component = "discount";
    l.quantity = in.discount_pct;
    l.unit = "%";
    l.how = fmt::format("{}% of compute", FormatPlain(in.discount_pct));
    t.discount_usd = t.compute_usd * in.discount_pct / 100;
    l.usd = -t.discount_usd;
    t.lines.push_back(l);
  }
  if (in.storage_gb > 0) {
    const StoragePrice& sp = *in.storage;
    t.storage_usd =
        AddPricedLine(t, "storage", n * in.storage_gb * t.months, "GB-months", sp.usd_per_gb_month,
                      "USD per GB-month",
                      fmt::format("{} x {} GB {} x {} months", Count(in.count),
                                  FormatPlain(in.storage_gb), sp.name, FormatPlain(t.months)));
    const double extra_iops = std::max(0.0, in.iops - sp.included_iops);
    if (in.iops > 0) {
      t.iops_usd = AddPricedLine(
          t, "iops", n * extra_iops * t.months, "IOPS-months", sp.usd_per_iops_month,
          "USD per IOPS-month",
          extra_iops == 0 ? fmt::format("{} IOPS <= {} included: nothing extra",
                                        FormatPlain(in.iops), FormatPlain(sp.included_iops))
                          : fmt::format("{} x ({} - {} included) IOPS x {} months", Count(in.count),
                                        FormatPlain(in.iops), FormatPlain(sp.included_iops),
                                        FormatPlain(t.months)));
    }
    const double extra_mbps = std::max(0.0, in.throughput_mbps - sp.included_mbps);
    if (in.throughput_mbps > 0) {
      t.throughput_usd = AddPricedLine(
          t, "throughput", n * extra_mbps * t.months, "MB/s-months", sp.usd_per_mbps_month,
          "USD per MB/s-month",
          extra_mbps == 0
              ? fmt::format("{} MB/s <= {} included: nothing extra",
                            FormatPlain(in.throughput_mbps), FormatPlain(sp.included_mbps))
              : fmt::format("{} x ({} - {} included) MB/s x {} months", Count(in.count),
                            FormatPlain(in.throughput_mbps), FormatPlain(sp.included_mbps),
                            FormatPlain(t.months)));
    }
  }
  t.subtotal_usd = t.compute_usd - t.discount_usd + t.storage_usd + t.iops_usd + t.throughput_usd;
  if (in.support_pct > 0) {
    TcoLine l;
    l.component = "support";
    l.quantity = in.support_pct;
    l.unit = "%";
    l.how =
        fmt::format("{}% of {} USD", FormatPlain(in.support_pct), FormatNumber(t.subtotal_usd, 2));
    t.support_usd = t.subtotal_usd * in.support_pct / 100;
    l.usd = t.support_usd;
    t.lines.push_back(l);
  }
  t.total_usd = t.subtotal_usd + t.support_usd;
  t.usd_per_year = t.total_usd / in.years;
  t.usd_per_month = t.total_usd / t.months;
  t.usd_per_hour = t.total_usd / t.hours;
  if (!std::isfinite(t.total_usd) || !std::isfinite(t.usd_per_hour)) {
    return InvalidArgument(
        "the total is too large to compute; lower --count, --years or the sizes");
  }
  return t;
}

}  // namespace pgrig::cost
