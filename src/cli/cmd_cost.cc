// pgrig cost: the price catalog, total cost of ownership, checks of
// published claims, and transactions per dollar from measured results.
// The arithmetic lives in cost/; this file parses options, loads the
// catalog, pairs per-machine options with machines, and prints.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/exit_status.h"
#include "common/fs.h"
#include "common/status.h"
#include "common/strings.h"
#include "cost/catalog.h"
#include "cost/claim.h"
#include "cost/format.h"
#include "cost/per_dollar.h"
#include "cost/pricing.h"
#include "cost/render.h"
#include "cost/tco.h"
#include "results/measured_run.h"

namespace pgrig::cli {

namespace {

using Json = nlohmann::json;
using cost::Catalog;

constexpr const char* kCostFooter = R"(Modes:
  TCO:        pgrig cost --instance TYPE [--count N] [--years Y] [--storage-gb G] ...
  per-dollar: pgrig cost --results A.json [B.json ...]
  catalog:    pgrig cost --list [PATTERN]

TCO (all amounts in USD; storage, IOPS and throughput are per instance):
  compute    = count x USD per hour x 8,760 h x years
  discount   = compute x discount% (reserved instances, savings plans: compute only)
  storage    = count x GB x USD per GB-month x 12 x years
  iops       = count x (IOPS - included IOPS) x USD per IOPS-month x 12 x years
  throughput = count x (MB/s - included MB/s) x USD per MB/s-month x 12 x years
  support    = support% x (compute - discount + storage + iops + throughput)
  total      = compute - discount + storage + iops + throughput + support

Per-dollar (from pgrig results JSON: summary.tps, summary.tps_ci95,
summary.tps_samples, run.usd_per_hour, run.instance_type,
facts.host.cloud.instance_type):
  transactions per USD    = tps x 3,600 / USD per hour
  USD per 1M transactions = USD per hour x 1,000,000 / (tps x 3,600)
  With two or more files, each is compared with the first: the ratio of
  transactions per USD, as a ratio of geometric means with a Welch t 95%
  interval on the log scale when both files have >= 2 summary.tps_samples;
  otherwise the point ratio, with the interval reported as unknown.  An
  interval that spans 1.0 is reported as "no significant difference".

Per-machine options pair by position: with several --instance (or --results
files), give --usd-per-hour, --claim-usd-per-hour and --claim-total either
not at all or exactly once per machine, in the same order; "-" skips one.
With --results, --instance and --usd-per-hour are likewise once per file
("-" keeps what the file says).  A results file's price comes from, first to
last: --usd-per-hour, --instance (catalog), run.usd_per_hour,
run.instance_type or facts.host.cloud.instance_type (catalog).

Flexible shapes are sized as SHAPE:OCPUS:MEMORY_GB, e.g.
  --instance VM.Standard.A1.Flex:4:24   (4 OCPUs, 24 GB)

Catalog: $PGRIG_DATA_DIR/prices.toml if PGRIG_DATA_DIR is set; else the
first of <exe dir>/../data/prices.toml, <exe dir>/../share/pgrig/prices.toml,
<exe dir>/../../data/prices.toml; else the data/prices.toml compiled into
pgrig.  Each --catalog FILE is merged on top, in order: entries with the same
provider + region + name replace earlier ones.

Examples:
  pgrig cost --instance r8g.16xlarge --count 3 --storage-gb 1000 --iops 6000
  pgrig cost --instance r8g.16xlarge --instance r7i.16xlarge \
             --claim-usd-per-hour 6.00 --claim-usd-per-hour 7.68
  pgrig cost --results arm.json x86.json --instance r8g.4xlarge --instance r7i.4xlarge
  pgrig cost --list 'r8g.*'

Exit codes: 0 success, 1 bad invocation or input.
See docs/cost.md for the model, units and the catalog format.)";

constexpr CommandName kCostCommand{"pgrig cost"};

Result<double> ParseNumber(const std::string& text, const std::string& option) {
  std::optional<double> v = cost::ParseDecimal(text);
  if (!v) {
    return InvalidArgument(
        fmt::format("{} expects a decimal number such as 12 or 0.5, got \"{}\"", option, text));
  }
  return *v;
}

struct LoadedCatalog {
  Catalog catalog;
  Json info;                       // for --json
  std::vector<std::string> lines;  // for text output
};

// cost::LoadCatalog with what it read, for the text and the JSON.
Result<LoadedCatalog> LoadCatalog(const std::vector<std::string>& overlays) {
  PGRIG_ASSIGN_OR_RETURN(
      cost::LoadedCatalog loaded,
      cost::LoadCatalog(cost::CatalogSearchFromEnvironment(ExecutableDir()), overlays));
  LoadedCatalog out;
  out.catalog = std::move(loaded.catalog);
  Json files = Json::array();
  for (const cost::CatalogSource& src : loaded.sources) {
    if (src.found_as == "--catalog") {
      out.lines.push_back(fmt::format("Catalog overlay: {} ({} entries replaced, {} added)",
                                      src.path, src.replaced, src.added));
    } else if (src.path == cost::kShippedCatalogName) {
      out.lines.push_back(fmt::format("Price catalog: built into pgrig ({} entries)", src.added));
    } else {
      out.lines.push_back(fmt::format("Price catalog: {} (found as {}; {} entries)", src.path,
                                      src.found_as, src.added));
    }
    files.push_back(Json{{"path", src.path},
                         {"found_as", src.found_as},
                         {"added", src.added},
                         {"replaced", src.replaced}});
  }
  out.info = Json{{"files", files}};
  return out;
}

void PrintLines(const std::vector<std::string>& lines) {
  for (const auto& l : lines) std::printf("%s\n", l.c_str());
}

struct CostOptions {
  std::vector<std::string> instances;
  std::vector<std::string> usd_per_hour;
  std::vector<std::string> claim_usd_per_hour;
  std::vector<std::string> claim_total;
  std::vector<std::string> catalogs;
  std::vector<std::string> results;
  std::string list_pattern;
  bool list = false;
  bool json = false;
  std::string count = "1";
  std::string years = "3";
  std::string storage_gb = "0";
  std::string iops = "0";
  std::string throughput = "0";
  std::string support = "0";
  std::string discount = "0";
  std::string storage_type;
  std::string region;
  std::string provider;
  // Which TCO-only options were given, to reject them in the other modes.
  std::vector<std::string> tco_only_given;
};

int RunList(const CostOptions& o) {
  auto loaded = LoadCatalog(o.catalogs);
  if (!loaded.ok()) return Fail(kCostCommand, loaded.status());
  if (o.json) {
    Json j = cost::CatalogListToJson(loaded->catalog, o.list_pattern);
    j["schema"] = "pgrig.cost/1";
    j["mode"] = "list";
    j["pattern"] = o.list_pattern;
    j["catalog"] = loaded->info;
    std::printf("%s\n", j.dump(2).c_str());
    return kExitOk;
  }
  PrintLines(loaded->lines);
  std::printf("\n%s", cost::RenderCatalogList(loaded->catalog, o.list_pattern).c_str());
  return kExitOk;
}

int RunTco(const CostOptions& o) {
  cost::TcoRequest request;
  request.instances = o.instances;
  request.storage_type = o.storage_type;
  request.lookup = cost::LookupOptions{o.region, o.provider};
  struct {
    const std::vector<std::string>& texts;
    const char* option;
    std::vector<std::optional<double>>* out;
  } lists[] = {{o.usd_per_hour, "--usd-per-hour", &request.usd_per_hour},
               {o.claim_usd_per_hour, "--claim-usd-per-hour", &request.claim_usd_per_hour},
               {o.claim_total, "--claim-total", &request.claim_total}};
  for (auto& l : lists) {
    auto values = cost::ParsePerMachineValues(l.texts, l.option);
    if (!values.ok()) return Fail(kCostCommand, values.status());
    *l.out = std::move(*values);
  }
  if (Status s = cost::CheckTcoRequest(request); !s.ok()) return Fail(kCostCommand, s);

  cost::TcoInput& base = request.base;
  std::optional<int64_t> count = ParseInt64(o.count);
  if (!count) {
    return Fail(kCostCommand, fmt::format("--count expects a whole number, got \"{}\"", o.count));
  }
  base.count = *count;
  struct {
    const std::string& text;
    const char* name;
    double* out;
  } nums[] = {{o.years, "--years", &base.years},
              {o.storage_gb, "--storage-gb", &base.storage_gb},
              {o.iops, "--iops", &base.iops},
              {o.throughput, "--throughput", &base.throughput_mbps},
              {o.support, "--support", &base.support_pct},
              {o.discount, "--discount", &base.discount_pct}};
  for (auto& n : nums) {
    auto v = ParseNumber(n.text, n.name);
    if (!v.ok()) return Fail(kCostCommand, v.status());
    *n.out = *v;
  }

  auto loaded = LoadCatalog(o.catalogs);
  if (!loaded.ok()) return Fail(kCostCommand, loaded.status());
  auto priced = cost::PriceMachines(request, loaded->catalog);
  if (!priced.ok()) return Fail(kCostCommand, priced.status());
  const std::vector<cost::MachineCost>& results = *priced;

  if (o.json) {
    Json machines_json = Json::array();
    for (const auto& m : results) machines_json.push_back(cost::MachineCostToJson(m));
    Json j{{"schema", "pgrig.cost/1"},
           {"mode", "tco"},
           {"catalog", loaded->info},
           {"machines", machines_json},
           {"ratios", cost::PriceRatiosToJson(results)}};
    std::printf("%s\n", j.dump(2).c_str());
    return kExitOk;
  }
  PrintLines(loaded->lines);
  for (const auto& m : results) std::printf("\n%s", cost::RenderMachineCost(m).c_str());
  if (results.size() > 1) std::printf("\n%s", cost::RenderPriceRatios(results).c_str());
  return kExitOk;
}

int RunResults(const CostOptions& o) {
  if (!o.tco_only_given.empty()) {
    return Fail(kCostCommand, fmt::format("{} only apply to a TCO (--instance without --results)",
                                          Join(o.tco_only_given, ", ")));
  }
  cost::PerDollarRequest request;
  request.instances = o.instances;
  request.lookup = cost::LookupOptions{o.region, o.provider};
  auto prices = cost::ParsePerMachineValues(o.usd_per_hour, "--usd-per-hour");
  if (!prices.ok()) return Fail(kCostCommand, prices.status());
  request.usd_per_hour = std::move(*prices);
  if (Status s =
          cost::CheckPerDollarPairing(o.results.size(), request.instances, request.usd_per_hour);
      !s.ok()) {
    return Fail(kCostCommand, s);
  }

  auto loaded = LoadCatalog(o.catalogs);
  if (!loaded.ok()) return Fail(kCostCommand, loaded.status());
  for (const std::string& file : o.results) {
    auto run = results::LoadMeasuredRun(file);
    if (!run.ok()) return Fail(kCostCommand, run.status());
    for (const auto& w : run->warnings)
      std::fprintf(stderr, "pgrig cost: warning: %s\n", w.c_str());
    request.runs.push_back(std::move(*run));
  }
  auto compared = cost::ComparePerDollarRuns(std::move(request), loaded->catalog);
  if (!compared.ok()) return Fail(kCostCommand, compared.status());
  const cost::PerDollarReport& report = *compared;

  if (o.json) {
    Json j = cost::PerDollarToJson(report);
    j["schema"] = "pgrig.cost/1";
    j["mode"] = "per_dollar";
    j["catalog"] = loaded->info;
    std::printf("%s\n", j.dump(2).c_str());
    return kExitOk;
  }
  PrintLines(loaded->lines);
  std::printf("\n%s", cost::RenderPerDollar(report).c_str());
  return kExitOk;
}

}  // namespace

int RunCost(int argc, char** argv) {
  CLI::App app{
      "Prices, total cost of ownership and transactions per dollar, with every price's date and "
      "source.",
      "pgrig cost"};
  app.footer(kCostFooter);
  app.get_formatter()->column_width(30);
  CostOptions o;

  // Descriptions stay short (CLI11 does not wrap); the footer has the rules.
  app.add_option("--instance", o.instances,
                 "Catalog instance type, or SHAPE:OCPUS:MEMORY_GB (repeatable)")
      ->type_name("TYPE")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--usd-per-hour", o.usd_per_hour,
                 "Price in USD per instance-hour, overriding the catalog (repeatable)")
      ->type_name("X")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--count", o.count, "Instances in the cluster (default 1)")->type_name("N");
  app.add_option("--years", o.years, "TCO period in years of 8,760 h (default 3)")->type_name("Y");
  app.add_option("--storage-gb", o.storage_gb, "Block storage per instance, GB (default 0)")
      ->type_name("G");
  app.add_option("--iops", o.iops, "Provisioned IOPS per volume (default: included only)")
      ->type_name("I");
  app.add_option("--throughput", o.throughput,
                 "Provisioned MB/s per volume (default: included only)")
      ->type_name("MBPS");
  app.add_option("--support", o.support, "Support, % of the subtotal (default 0)")
      ->type_name("PCT");
  app.add_option("--discount", o.discount, "Discount off compute, % (RI, savings plan; default 0)")
      ->type_name("PCT");
  app.add_option("--storage-type", o.storage_type,
                 "Storage entry for volumes (default: the provider/region's only one)")
      ->type_name("NAME");
  app.add_option("--region", o.region, "Region for catalog lookups (when several match)")
      ->type_name("REGION");
  app.add_option("--provider", o.provider, "Provider for catalog lookups (aws, oci, ...)")
      ->type_name("NAME");
  app.add_option("--catalog", o.catalogs,
                 "Price file merged over the shipped catalog, by key (repeatable)")
      ->type_name("FILE")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--claim-usd-per-hour", o.claim_usd_per_hour,
                 "Published hourly price to check, one per machine (repeatable)")
      ->type_name("X")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--claim-total", o.claim_total,
                 "Published total cost in USD to check, one per machine (repeatable)")
      ->type_name("USD")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--results", o.results,
                 "pgrig results JSON files: per-dollar figures and ratios to the first")
      ->type_name("FILE")
      ->expected(1, -1);
  app.add_option("--list", o.list_pattern,
                 "List the catalog with dates and sources; PATTERN: glob or substring")
      ->type_name("[PATTERN]")
      ->expected(0, 1);
  app.add_flag("--json", o.json, "Print JSON to stdout instead of tables");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      std::printf("%s", app.help().c_str());
      return kExitOk;
    }
    return Fail(kCostCommand, fmt::format("{}; see pgrig cost --help", e.what()));
  }
  o.list = app.count("--list") > 0;
  for (const char* name :
       {"--count", "--years", "--storage-gb", "--iops", "--throughput", "--support", "--discount",
        "--storage-type", "--claim-usd-per-hour", "--claim-total"}) {
    if (app.count(name) > 0) o.tco_only_given.push_back(name);
  }
  if (!app.remaining().empty()) {
    return Fail(kCostCommand, fmt::format("unexpected argument \"{}\"; see pgrig cost --help",
                                          app.remaining().front()));
  }

  if (o.list) {
    if (!o.results.empty() || !o.instances.empty() || !o.usd_per_hour.empty() ||
        !o.tco_only_given.empty()) {
      return Fail(kCostCommand, "--list takes only [PATTERN], --catalog and --json");
    }
    return RunList(o);
  }
  if (!o.results.empty()) return RunResults(o);
  return RunTco(o);
}

}  // namespace pgrig::cli
