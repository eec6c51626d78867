#include "cost/per_dollar.h"

#include <fmt/format.h>

#include <cmath>

#include "cost/format.h"
#include "stats/summary.h"

namespace pgrig::cost {

namespace {

std::string CatalogOrigin(const InstancePrice& e) {
  return fmt::format("catalog: {} ({} {}, recorded {}, {}:{})", e.instance_type, e.provider,
                     e.region, e.provenance.date, e.provenance.file, e.provenance.line);
}

}  // namespace

Result<PricedRun> PriceRun(MeasuredRun run, const PriceOverride& ov, const Catalog& catalog,
                           const LookupOptions& lookup) {
  PricedRun p;
  const std::string file = run.file;
  auto lookup_type = [&](const std::string& type, const std::string& why) -> Status {
    auto e = catalog.FindInstance(type, lookup);
    if (!e.ok()) return e.status().WithContext(fmt::format("{} ({})", file, why));
    p.instance = *e;
    return Status::Ok();
  };
  if (!ov.instance.empty()) {
    PGRIG_RETURN_IF_ERROR(lookup_type(ov.instance, "--instance"));
  } else if (!run.instance_type.empty()) {
    if (!ov.usd_per_hour && !run.usd_per_hour) {
      PGRIG_RETURN_IF_ERROR(lookup_type(run.instance_type, run.instance_type_key));
    } else if (auto e = catalog.FindInstance(run.instance_type, lookup); e.ok()) {
      // The price comes from elsewhere; the entry only describes the machine.
      p.instance = *e;
    }
  }

  if (ov.usd_per_hour) {
    if (!std::isfinite(*ov.usd_per_hour) || *ov.usd_per_hour <= 0) {
      return InvalidArgument(
          fmt::format("{}: --usd-per-hour must be greater than 0, got {}", file, *ov.usd_per_hour));
    }
    p.usd_per_hour = *ov.usd_per_hour;
    p.price_from = "--usd-per-hour";
  } else if (!ov.instance.empty()) {
    p.usd_per_hour = p.instance->usd_per_hour;
    p.price_from = CatalogOrigin(*p.instance) + ", chosen with --instance";
  } else if (run.usd_per_hour) {
    p.usd_per_hour = *run.usd_per_hour;
    p.price_from = "run.usd_per_hour in the results file";
  } else if (p.instance) {
    p.usd_per_hour = p.instance->usd_per_hour;
    p.price_from = CatalogOrigin(*p.instance) + ", from " + run.instance_type_key;
  } else {
    return InvalidArgument(fmt::format(
        "{}: no price: the file records neither run.usd_per_hour nor an instance type; give "
        "--instance TYPE or --usd-per-hour X for it (one per results file, in order; \"-\" "
        "keeps what the file says)",
        file));
  }
  p.run = std::move(run);
  return p;
}

Result<PerDollar> ComputePerDollar(const MeasuredRun& run, double usd_per_hour) {
  if (!(run.tps > 0) || !std::isfinite(run.tps)) {
    return InvalidArgument(
        fmt::format("{}: tps must be greater than 0, got {}", run.file, run.tps));
  }
  if (!(usd_per_hour > 0) || !std::isfinite(usd_per_hour)) {
    return InvalidArgument(fmt::format("{}: the price must be greater than 0 USD per hour, got {}",
                                       run.file, usd_per_hour));
  }
  PerDollar d;
  auto per_usd = [&](double tps) { return tps * kSecondsPerHour / usd_per_hour; };
  d.transactions_per_usd = per_usd(run.tps);
  d.usd_per_million_transactions = 1e6 / d.transactions_per_usd;

  std::optional<Interval> tps_iv;
  if (run.tps_ci95) {
    tps_iv = run.tps_ci95;
    d.interval_from = "summary.tps_ci95";
  } else if (run.tps_samples.size() >= 2) {
    PGRIG_ASSIGN_OR_RETURN(stats::LogScaleEstimate gm,
                           stats::GeometricMeanInterval(run.tps_samples));
    tps_iv = Interval{gm.interval.low, gm.interval.high};
    d.interval_from =
        fmt::format("summary.tps_samples (n={}: t interval of the geometric mean on the log scale)",
                    run.tps_samples.size());
  }
  if (tps_iv) {
    d.transactions_per_usd_ci95 = Interval{per_usd(tps_iv->low), per_usd(tps_iv->high)};
    // Dollars per transaction fall as throughput rises: the ends swap.
    d.usd_per_million_transactions_ci95 =
        Interval{1e6 / per_usd(tps_iv->high), 1e6 / per_usd(tps_iv->low)};
  }
  return d;
}

const char* VerdictKey(stats::Verdict v) {
  switch (v) {
    case stats::Verdict::kHigher:
      return "higher";
    case stats::Verdict::kLower:
      return "lower";
    case stats::Verdict::kNoSignificantDifference:
      return "no_significant_difference";
    case stats::Verdict::kInsufficientData:
      return "unknown";
  }
  return "unknown";
}

Result<PerDollarRatio> ComparePerDollar(const PricedRun& base, const PricedRun& other) {
  if (!(base.usd_per_hour > 0) || !(other.usd_per_hour > 0) || !(base.run.tps > 0) ||
      !(other.run.tps > 0)) {
    return InvalidArgument("per-dollar ratio needs tps and prices greater than 0");
  }
  // Transactions per USD is tps x 3600 / price, so the ratio of two is
  // (tps_o / tps_b) x (price_b / price_o): the prices are exact constants.
  const double price_factor = base.usd_per_hour / other.usd_per_hour;
  PerDollarRatio r;
  if (base.run.tps_samples.size() >= 2 && other.run.tps_samples.size() >= 2) {
    // stats compares A against B: here A is the other machine, B the base.
    PGRIG_ASSIGN_OR_RETURN(stats::RatioEstimate w,
                           stats::CompareRatio(other.run.tps_samples, base.run.tps_samples));
    r.from_samples = true;
    r.ratio = *w.ratio * price_factor;
    r.ci95 = Interval{w.interval->low * price_factor, w.interval->high * price_factor};
    r.welch_df = w.dof;
    r.method = fmt::format(
        "ratio of geometric means over {} and {} iterations, Welch t interval on the log scale",
        base.run.tps_samples.size(), other.run.tps_samples.size());
    r.verdict = stats::VerdictOf(*r.ci95);
  } else {
    r.ratio = other.run.tps / base.run.tps * price_factor;
    const std::string& lacking = base.run.tps_samples.size() < 2 ? base.run.file : other.run.file;
    r.method = fmt::format(
        "point ratio of summary.tps; no interval: {} has fewer than 2 summary.tps_samples",
        lacking);
    r.verdict = stats::Verdict::kInsufficientData;
  }
  return r;
}

}  // namespace pgrig::cost
