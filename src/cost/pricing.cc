#include "cost/pricing.h"

#include <fmt/format.h>

#include <utility>

#include "common/strings.h"
#include "cost/claim.h"
#include "cost/format.h"

namespace pgrig::cost {

Result<std::vector<std::optional<double>>> ParsePerMachineValues(
    const std::vector<std::string>& texts, const std::string& option) {
  std::vector<std::optional<double>> out;
  for (const auto& t : texts) {
    if (t == "-") {
      out.emplace_back();
      continue;
    }
    std::optional<double> v = ParseDecimal(t);
    if (!v) {
      return InvalidArgument(
          fmt::format("{} expects a decimal number such as 12 or 0.5, got \"{}\"", option, t));
    }
    if (*v <= 0) {
      return InvalidArgument(fmt::format("{} must be greater than 0, got {}", option, t));
    }
    out.emplace_back(*v);
  }
  return out;
}

Status CheckPairing(size_t given, size_t machines, const std::string& option,
                    const std::string& what) {
  if (given != 0 && given != machines) {
    return InvalidArgument(fmt::format(
        "{} was given {} time{} for {} {}{}: give it once per {} in the same order (\"-\" to "
        "skip one), or not at all",
        option, given, given == 1 ? "" : "s", machines, what, machines == 1 ? "" : "s", what));
  }
  return Status::Ok();
}

namespace {

// The machine's price and label: its catalog entry, the given price, or both
// (the given price wins and the label says what the catalog has).
Status PriceOneMachine(const TcoRequest& r, size_t i, const Catalog& catalog, MachineCost& m,
                       TcoInput& in) {
  std::optional<double> price;
  if (i < r.usd_per_hour.size()) price = r.usd_per_hour[i];
  if (i < r.instances.size() && r.instances[i] != "-") {
    PGRIG_ASSIGN_OR_RETURN(InstancePrice e, catalog.FindInstance(r.instances[i], r.lookup));
    m.instance = e;
    m.label = e.instance_type;
    in.usd_per_hour = e.usd_per_hour;
    m.price_from = "catalog";
  } else if (!price) {
    return InvalidArgument(
        fmt::format("machine {} has neither an --instance nor an --usd-per-hour", i + 1));
  } else {
    m.label = fmt::format("machine {} at {} USD/hour", i + 1, FormatPlain(*price));
  }
  if (price) {
    in.usd_per_hour = *price;
    m.price_from = m.instance ? fmt::format("given with --usd-per-hour; the catalog says {}",
                                            FormatPlain(m.instance->usd_per_hour))
                              : "given with --usd-per-hour";
  }
  return Status::Ok();
}

}  // namespace

Status CheckTcoRequest(const TcoRequest& r) {
  const size_t machines = r.instances.empty() ? r.usd_per_hour.size() : r.instances.size();
  if (machines == 0) {
    return InvalidArgument(
        "nothing to price: give --instance TYPE (or --usd-per-hour X), --results FILE..., or "
        "--list; see pgrig cost --help");
  }
  if (!r.instances.empty()) {
    PGRIG_RETURN_IF_ERROR(
        CheckPairing(r.usd_per_hour.size(), machines, "--usd-per-hour", "instance"));
  }
  PGRIG_RETURN_IF_ERROR(
      CheckPairing(r.claim_usd_per_hour.size(), machines, "--claim-usd-per-hour", "machine"));
  return CheckPairing(r.claim_total.size(), machines, "--claim-total", "machine");
}

Result<std::vector<MachineCost>> PriceMachines(const TcoRequest& r, const Catalog& catalog) {
  PGRIG_RETURN_IF_ERROR(CheckTcoRequest(r));
  const size_t machines = r.instances.empty() ? r.usd_per_hour.size() : r.instances.size();
  std::vector<MachineCost> out;
  for (size_t i = 0; i < machines; ++i) {
    MachineCost m;
    TcoInput in = r.base;
    PGRIG_RETURN_IF_ERROR(PriceOneMachine(r, i, catalog, m, in));
    if (in.storage_gb > 0 || in.iops > 0 || in.throughput_mbps > 0) {
      std::string provider = r.lookup.provider, region = r.lookup.region;
      if (m.instance) {
        if (provider.empty()) provider = m.instance->provider;
        if (region.empty() && ToLower(m.instance->region) != "all") region = m.instance->region;
      }
      PGRIG_ASSIGN_OR_RETURN(StoragePrice sp,
                             catalog.FindStorage(r.storage_type, provider, region));
      in.storage = sp;
      m.storage = sp;
    }
    PGRIG_ASSIGN_OR_RETURN(m.tco, ComputeTco(in));
    Claim claim;
    if (i < r.claim_usd_per_hour.size()) claim.usd_per_hour = r.claim_usd_per_hour[i];
    if (i < r.claim_total.size()) claim.total_usd = r.claim_total[i];
    if (claim.usd_per_hour || claim.total_usd) {
      PGRIG_ASSIGN_OR_RETURN(m.claim, CheckClaim(m.tco, claim));
    }
    out.push_back(std::move(m));
  }
  return out;
}

Status CheckPerDollarPairing(size_t files, const std::vector<std::string>& instances,
                             const std::vector<std::optional<double>>& usd_per_hour) {
  PGRIG_RETURN_IF_ERROR(CheckPairing(instances.size(), files, "--instance", "results file"));
  return CheckPairing(usd_per_hour.size(), files, "--usd-per-hour", "results file");
}

Result<PerDollarReport> ComparePerDollarRuns(PerDollarRequest r, const Catalog& catalog) {
  const size_t n = r.runs.size();
  PGRIG_RETURN_IF_ERROR(CheckPerDollarPairing(n, r.instances, r.usd_per_hour));
  PerDollarReport report;
  for (size_t i = 0; i < n; ++i) {
    PriceOverride ov;
    if (i < r.instances.size() && r.instances[i] != "-") ov.instance = r.instances[i];
    if (i < r.usd_per_hour.size()) ov.usd_per_hour = r.usd_per_hour[i];
    PGRIG_ASSIGN_OR_RETURN(PricedRun priced, PriceRun(std::move(r.runs[i]), ov, catalog, r.lookup));
    PGRIG_ASSIGN_OR_RETURN(PerDollar figures, ComputePerDollar(priced.run, priced.usd_per_hour));
    report.rows.push_back({std::move(priced), figures});
  }
  for (size_t i = 1; i < report.rows.size(); ++i) {
    PGRIG_ASSIGN_OR_RETURN(PerDollarRatio ratio,
                           ComparePerDollar(report.rows[0].priced, report.rows[i].priced));
    report.ratios.push_back(ratio);
  }
  return report;
}

}  // namespace pgrig::cost
