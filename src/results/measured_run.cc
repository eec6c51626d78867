#include "results/measured_run.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "common/fs.h"
#include "cost/format.h"
#include "results/json_read.h"

namespace pgrig::results {

namespace {

using Json = nlohmann::json;

Status Bad(const std::string& file, const std::string& key, const std::string& what) {
  return InvalidArgument(fmt::format("{}: \"{}\" {}", file, key, what));
}

Result<std::optional<double>> PositiveNumber(const Json& root, const std::string& file,
                                             std::initializer_list<const char*> path,
                                             const std::string& key) {
  const Json* j = FindPath(root, path);
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
  const Json* j = FindPath(root, path);
  if (j == nullptr || j->is_null()) return std::string();
  if (!j->is_string()) return Bad(file, key, fmt::format("must be a string, got {}", j->dump()));
  return j->get<std::string>();
}

}  // namespace

Result<cost::MeasuredRun> ParseMeasuredRun(std::string_view text, const std::string& file) {
  PGRIG_ASSIGN_OR_RETURN(Json root, ParseJsonObject(text, file, "a pgrig results file"));
  cost::MeasuredRun run;
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

  if (const Json* ci = FindPath(root, {"summary", "tps_ci95"}); ci != nullptr && !ci->is_null()) {
    if (!ci->is_array() || ci->size() != 2 || !(*ci)[0].is_number() || !(*ci)[1].is_number()) {
      return Bad(file, "summary.tps_ci95",
                 fmt::format("must be [low, high] (two numbers), got {}", ci->dump()));
    }
    cost::Interval iv{(*ci)[0].get<double>(), (*ci)[1].get<double>()};
    if (!std::isfinite(iv.low) || !std::isfinite(iv.high) || iv.low <= 0 || iv.low > iv.high) {
      return Bad(file, "summary.tps_ci95",
                 fmt::format("must have 0 < low <= high, got {}", ci->dump()));
    }
    if (run.tps < iv.low || run.tps > iv.high) {
      run.warnings.push_back(fmt::format("{}: summary.tps {} lies outside summary.tps_ci95 {}",
                                         file, cost::FormatPlain(run.tps), ci->dump()));
    }
    run.tps_ci95 = iv;
  }

  if (const Json* it = FindPath(root, {"summary", "iterations"}); it != nullptr && !it->is_null()) {
    if (!it->is_number_integer() || it->get<int64_t>() < 1) {
      return Bad(file, "summary.iterations",
                 fmt::format("must be a whole number of at least 1, got {}", it->dump()));
    }
    run.iterations = it->get<int64_t>();
  }

  if (const Json* s = FindPath(root, {"summary", "tps_samples"}); s != nullptr && !s->is_null()) {
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

Result<cost::MeasuredRun> LoadMeasuredRun(const std::string& path) {
  auto text = ReadWholeFile(path);
  if (!text.ok()) {
    return NotFound(fmt::format("cannot read results file {}: {}", path, text.status().message()));
  }
  return ParseMeasuredRun(*text, path);
}

}  // namespace pgrig::results
