#include "cost/per_dollar.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "common/fs.h"
#include "cost/format.h"
#include "stats/summary.h"

namespace pgrig::cost {

namespace {

using Json = nlohmann::json;

// Follows a dotted path ("summary.tps"); nullptr when any step is missing.
const Json* Find(const Json& root, std::initializer_list<const char*> path) {
  const Json* cur = &root;
  for (const char* step : path) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(step);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur;
}

Status Bad(const std::string& file, const std::string& key, const std::string& what) {
  return InvalidArgument(fmt::format("{}: \"{}\" {}", file, key, what));
}

Result<std::optional<double>> PositiveNumber(const Json& root, const std::string& file,
                                             std::initializer_list<const char*> path,
                                             const std::string& key) {
  const Json* j = Find(root, path);
  if (j == nullptr || j->is_null()) return std::optional<double>();
  if (!j->is_number()) return Bad(file, key, fmt::format("must be a number, got {}", j->dump()));
  const double v = j->get<double>();
  if (!std::isfinite(v) || v <= 0) {
    return Bad(file, key, fmt::format("must be greater than 0, got {}", j->dump()));
  }
  return std::optional<double>(v);
}

Result<std::string> OptionalString(const Json& root, const std::string& file,
                                   std::initializer_list<const char*> path,
                                   const std::string& key) {
  const Json* j = Find(root, path);
  if (j == nullptr || j->is_null()) return std::string();
  if (!j->is_string()) return Bad(file, key, fmt::format("must be a string, got {}", j->dump()));
  return j->get<std::string>();
}

// 1-based line and column of a byte offset, for JSON syntax errors.
std::pair<size_t, size_t> LineColumn(std::string_view text, size_t byte) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

}  // namespace

Result<MeasuredRun> ParseResultJson(std::string_view text, const std::string& file) {
  Json root;
  try {
    root = Json::parse(text);
  } catch (const Json::parse_error& e) {
    auto [line, col] = LineColumn(text, e.byte > 0 ? e.byte - 1 : 0);
    return InvalidArgument(
        fmt::format("{}:{}:{}: not valid JSON; expected a pgrig results file", file, line, col));
  }
  if (!root.is_object()) {
    return InvalidArgument(fmt::format("{}: expected a JSON object (a pgrig results file)", file));
  }
  MeasuredRun run;
  run.file = file;
  PGRIG_ASSIGN_OR_RETURN(run.schema, OptionalString(root, file, {"schema"}, "schema"));
  if (run.schema.empty()) {
    run.warnings.push_back(
        fmt::format("{} has no \"schema\" key; reading it as a pgrig result anyway", file));
  } else if (!run.schema.starts_with("pgrig.")) {
    return InvalidArgument(
        fmt::format("{}: \"schema\" is \"{}\", not a pgrig results file (expected \"pgrig.…\")",
                    file, run.schema));
  }

  PGRIG_ASSIGN_OR_RETURN(auto tps, PositiveNumber(root, file, {"summary", "tps"}, "summary.tps"));
  if (!tps) {
    return InvalidArgument(fmt::format(
        "{}: no \"summary.tps\" (transactions per second); is this a pgrig bench result?", file));
  }
  run.tps = *tps;

  if (const Json* ci = Find(root, {"summary", "tps_ci95"}); ci != nullptr && !ci->is_null()) {
    if (!ci->is_array() || ci->size() != 2 || !(*ci)[0].is_number() || !(*ci)[1].is_number()) {
      return Bad(file, "summary.tps_ci95",
                 fmt::format("must be [low, high] (two numbers), got {}", ci->dump()));
    }
    Interval iv{(*ci)[0].get<double>(), (*ci)[1].get<double>()};
    if (!std::isfinite(iv.low) || !std::isfinite(iv.high) || iv.low <= 0 || iv.low > iv.high) {
      return Bad(file, "summary.tps_ci95",
                 fmt::format("must have 0 < low <= high, got {}", ci->dump()));
    }
    if (run.tps < iv.low || run.tps > iv.high) {
      run.warnings.push_back(fmt::format("{}: summary.tps {} lies outside summary.tps_ci95 {}",
                                         file, FormatPlain(run.tps), ci->dump()));
    }
    run.tps_ci95 = iv;
  }

  if (const Json* it = Find(root, {"summary", "iterations"}); it != nullptr && !it->is_null()) {
    if (!it->is_number_integer() || it->get<int64_t>() < 1) {
      return Bad(file, "summary.iterations",
                 fmt::format("must be a whole number of at least 1, got {}", it->dump()));
    }
    run.iterations = it->get<int64_t>();
  }

  if (const Json* s = Find(root, {"summary", "tps_samples"}); s != nullptr && !s->is_null()) {
    if (!s->is_array()) {
      return Bad(file, "summary.tps_samples",
                 fmt::format("must be an array of numbers, got {}", s->dump()));
    }
    for (size_t i = 0; i < s->size(); ++i) {
      const Json& v = (*s)[i];
      if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0) {
        return Bad(file, fmt::format("summary.tps_samples[{}]", i),
                   fmt::format("must be a number greater than 0, got {}", v.dump()));
      }
      run.tps_samples.push_back(v.get<double>());
    }
    if (run.iterations && static_cast<size_t>(*run.iterations) != run.tps_samples.size()) {
      run.warnings.push_back(
          fmt::format("{}: summary.iterations is {} but summary.tps_samples has {} values", file,
                      *run.iterations, run.tps_samples.size()));
    }
  }

  PGRIG_ASSIGN_OR_RETURN(run.usd_per_hour,
                         PositiveNumber(root, file, {"run", "usd_per_hour"}, "run.usd_per_hour"));
  PGRIG_ASSIGN_OR_RETURN(run.instance_type,
                         OptionalString(root, file, {"run", "instance_type"}, "run.instance_type"));
  if (!run.instance_type.empty()) {
    run.instance_type_key = "run.instance_type";
  } else {
    PGRIG_ASSIGN_OR_RETURN(run.instance_type,
                           OptionalString(root, file, {"facts", "host", "cloud", "instance_type"},
                                          "facts.host.cloud.instance_type"));
    if (!run.instance_type.empty()) run.instance_type_key = "facts.host.cloud.instance_type";
  }
  return run;
}

Result<MeasuredRun> LoadResultFile(const std::string& path) {
  auto text = ReadWholeFile(path);
  if (!text.ok()) {
    return NotFound(fmt::format("cannot read results file {}: {}", path, text.status().message()));
  }
  return ParseResultJson(*text, path);
}

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
