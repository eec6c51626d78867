// Text and JSON renderings of the cost module's results: the catalog
// listing, TCO breakdowns, claim checks and per-dollar figures.  Renderers
// compute nothing but layout; every figure comes from the structs they are
// given.  They return strings (cli/ prints them).  Units are in every column
// heading and JSON key.  Pure functions; thread-safe.
#ifndef PGRIG_COST_RENDER_H_
#define PGRIG_COST_RENDER_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cost/catalog.h"
#include "cost/claim.h"
#include "cost/per_dollar.h"
#include "cost/tco.h"

namespace pgrig::cost {

// Columns padded to their widest cell; `right[i]` right-aligns column i.
std::string RenderTable(const std::vector<std::string>& headers,
                        const std::vector<std::vector<std::string>>& rows,
                        const std::vector<bool>& right, const std::string& indent = "  ");

// ---- catalog listing ----
// Entries whose name, provider or region match `pattern` (see
// MatchesPattern); all when empty.
std::string RenderCatalogList(const Catalog& catalog, const std::string& pattern);
nlohmann::json CatalogListToJson(const Catalog& catalog, const std::string& pattern);

// ---- TCO ----
// One machine priced for a TCO: what it is, the price used and where from.
struct MachineCost {
  std::string label;                      // what the user asked for
  std::optional<InstancePrice> instance;  // the catalog entry, when known
  std::string price_from;                 // "catalog" or "--usd-per-hour"
  std::optional<StoragePrice> storage;    // storage price used, when any
  Tco tco;
  std::optional<ClaimCheck> claim;
};

std::string DescribeInstance(const InstancePrice& e);
std::string RenderMachineCost(const MachineCost& m);
// Price ratios of machines 2..n relative to the first (catalog and claimed).
std::string RenderPriceRatios(const std::vector<MachineCost>& machines);
nlohmann::json MachineCostToJson(const MachineCost& m);
nlohmann::json PriceRatiosToJson(const std::vector<MachineCost>& machines);

// ---- per-dollar ----
struct PerDollarRow {
  PricedRun priced;
  PerDollar figures;
};
struct PerDollarReport {
  std::vector<PerDollarRow> rows;
  std::vector<PerDollarRatio> ratios;  // rows[i+1] relative to rows[0]
};
std::string RenderPerDollar(const PerDollarReport& report);
nlohmann::json PerDollarToJson(const PerDollarReport& report);

nlohmann::json InstanceToJson(const InstancePrice& e);

}  // namespace pgrig::cost

#endif  // PGRIG_COST_RENDER_H_
