#include "cli/report_output.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/fs.h"
#include "common/strings.h"
#include "results/reader.h"

namespace pgrig::cli {

std::vector<const report::SuiteStats*> LoadedSuites::Pointers() const {
  std::vector<const report::SuiteStats*> out;
  for (const auto& s : stats) out.push_back(s.get());
  return out;
}

Result<std::vector<std::optional<double>>> ParsePrices(const std::vector<std::string>& texts,
                                                       size_t suites) {
  std::vector<std::optional<double>> out(suites);
  if (texts.empty()) return out;
  if (texts.size() != suites) {
    return InvalidArgument(fmt::format(
        "--usd-per-hour was given {} time(s) for {} suite(s): give it once per suite in the same "
        "order (\"-\" keeps a suite's own price), or not at all",
        texts.size(), suites));
  }
  for (size_t i = 0; i < texts.size(); ++i) {
    if (texts[i] == "-") continue;
    std::optional<double> v = ParseDouble(texts[i]);
    if (!v || !std::isfinite(*v) || *v <= 0) {
      return InvalidArgument("--usd-per-hour expects a price greater than 0, got \"" + texts[i] +
                             "\"");
    }
    out[i] = *v;
  }
  return out;
}

Result<LoadedSuites> LoadAndAnalyze(const std::vector<std::string>& paths,
                                    const std::vector<std::optional<double>>& prices,
                                    bool split_builds) {
  std::vector<results::Suite> suites;
  for (size_t i = 0; i < paths.size(); ++i) {
    PGRIG_ASSIGN_OR_RETURN(results::Suite s, results::LoadSuite(paths[i]));
    if (i < prices.size() && prices[i]) s.usd_per_hour = prices[i];
    std::vector<results::Suite> parts;
    if (split_builds) parts = results::SplitByBuild(s);
    if (parts.empty()) {
      suites.push_back(std::move(s));
    } else {
      for (results::Suite& p : parts) suites.push_back(std::move(p));
    }
  }
  return AnalyzeSuites(std::move(suites));
}

Result<LoadedSuites> AnalyzeSuites(std::vector<results::Suite> suites) {
  LoadedSuites out;
  for (results::Suite& s : suites) {
    out.suites.push_back(std::make_unique<results::Suite>(std::move(s)));
  }
  // Labels name the columns and series.  Suites of the same plan share a
  // label ("standard"), so colliding labels become the machine's name
  // (instance type, else CPU core), then the results directory's name, then
  // a letter, whichever first makes them distinct.
  auto colliding = [&]() {
    std::vector<size_t> out_idx;
    for (size_t i = 0; i < out.suites.size(); ++i) {
      for (size_t j = 0; j < out.suites.size(); ++j) {
        if (j != i && out.suites[j]->label == out.suites[i]->label) {
          out_idx.push_back(i);
          break;
        }
      }
    }
    return out_idx;
  };
  for (size_t i : colliding()) {
    results::Suite& s = *out.suites[i];
    std::string machine = s.instance_type;
    if (machine.empty() && s.facts.is_object()) {
      const auto& cpu =
          s.facts.value("host", nlohmann::json::object()).value("cpu", nlohmann::json::object());
      if (cpu.contains("microarchitecture") && cpu["microarchitecture"].is_string()) {
        machine = cpu["microarchitecture"].get<std::string>();
      }
    }
    if (!machine.empty()) s.label += " " + machine;
  }
  for (size_t i : colliding()) {
    const std::filesystem::path src(out.suites[i]->source);
    const std::string dir = src.filename() == "suite.json" ? src.parent_path().filename().string()
                                                           : src.stem().string();
    if (!dir.empty()) out.suites[i]->label += " " + dir;
  }
  for (size_t i : colliding())
    out.suites[i]->label += fmt::format(" ({})", static_cast<char>('A' + i));
  for (const auto& s : out.suites) {
    PGRIG_ASSIGN_OR_RETURN(report::SuiteStats st, report::Analyze(*s));
    out.stats.push_back(std::make_unique<report::SuiteStats>(std::move(st)));
  }
  return out;
}

Status CheckWritable(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec))
    return InvalidArgument("--out " + path + " is a directory; name a file");
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec)) {
    return InvalidArgument("--out " + path + ": directory " + dir.string() + " does not exist");
  }
  if (access(dir.c_str(), W_OK) != 0) {
    return InvalidArgument("--out " + path + ": directory " + dir.string() + " is not writable");
  }
  if (fs::exists(path, ec) && access(path.c_str(), W_OK) != 0) {
    return InvalidArgument("--out " + path + " exists and is not writable");
  }
  return Status::Ok();
}

Status Emit(const std::string& path, const std::string& text) {
  if (path.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return Status::Ok();
  }
  return WriteFileAtomically(path, text);
}

}  // namespace pgrig::cli
