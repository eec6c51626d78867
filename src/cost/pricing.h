// What `pgrig cost` computes between parsing its options and printing:
// per-machine values paired with their machines, each machine of a TCO
// priced (catalog entry or given price, storage, claim checks), and each
// results file of a per-dollar comparison priced and compared with the first.
// The cli parses the options into these requests and renders the answers
// (render.h).  Pure functions; thread-safe.
#ifndef PGRIG_COST_PRICING_H_
#define PGRIG_COST_PRICING_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "cost/catalog.h"
#include "cost/per_dollar.h"
#include "cost/render.h"
#include "cost/tco.h"

namespace pgrig::cost {

// A per-machine option's values as numbers greater than 0, in order; "-"
// (skip this machine) stays nullopt.  Errors name `option`.
Result<std::vector<std::optional<double>>> ParsePerMachineValues(
    const std::vector<std::string>& texts, const std::string& option);

// OK when a per-machine option was given not at all or once per machine;
// otherwise an InvalidArgument that says how to pair them.  `what` names a
// machine ("instance", "results file").
Status CheckPairing(size_t given, size_t machines, const std::string& option,
                    const std::string& what);

struct TcoRequest {
  // The machines: one per instance type ("-" for none) when any is given,
  // else one per usd_per_hour.  Every list below pairs by position.
  std::vector<std::string> instances;
  std::vector<std::optional<double>> usd_per_hour;  // overrides the catalog's price
  std::vector<std::optional<double>> claim_usd_per_hour;
  std::vector<std::optional<double>> claim_total;
  TcoInput base;             // count, years, storage, IOPS, throughput, support, discount
  std::string storage_type;  // "" : the provider's default
  LookupOptions lookup;      // region and provider for catalog look-ups
};

// OK when the request names at least one machine and every per-machine list
// pairs with the machines (checked before anything is read or priced).
Status CheckTcoRequest(const TcoRequest& request);

// One MachineCost per machine.  CheckTcoRequest first; errors name the
// machine or the catalog look-up that failed.
Result<std::vector<MachineCost>> PriceMachines(const TcoRequest& request, const Catalog& catalog);

struct PerDollarRequest {
  std::vector<MeasuredRun> runs;                    // the results files, in order
  std::vector<std::string> instances;               // per run, "-" for none
  std::vector<std::optional<double>> usd_per_hour;  // per run
  LookupOptions lookup;
};

// OK when --instance and --usd-per-hour pair with `files` results files
// (checked before any file is read).
Status CheckPerDollarPairing(size_t files, const std::vector<std::string>& instances,
                             const std::vector<std::optional<double>>& usd_per_hour);

// Each run priced (PriceRun's precedence) with its per-dollar figures, and
// runs 2..n compared with the first.  CheckPerDollarPairing first.
Result<PerDollarReport> ComparePerDollarRuns(PerDollarRequest request, const Catalog& catalog);

}  // namespace pgrig::cost

#endif  // PGRIG_COST_PRICING_H_
