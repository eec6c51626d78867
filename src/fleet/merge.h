// Merging the results of the fleet's load clients (clients mode) into one
// pgrig.result/1 document that `pgrig report` and `pgrig compare` read.
//
// Each client host wrote a `pgrig bench --json` document for the same window
// against the same server.  The merge is exact where the data allows it:
// latency histograms add (so every percentile and the mean of the merged
// document come from the merged histogram, never from averaging), counts,
// failures, retries, tps and client CPU seconds sum; each host's client CPU,
// busy fraction and tps stay listed under "client.hosts".  Where only
// summaries exist it is documented: lag (-R) keeps a count-weighted mean and
// the maximum; the per-second series adds intervals by index, each host's
// series starting at its own go (a skew of the start signal's delivery).
//
// A host without a document (it failed) or with an incomplete one makes the
// merged document incomplete: "complete" false, "fleet.partial" true and the
// host listed with its reason; the other hosts are still summed so that
// what ran is not lost, but never silently.  Pure functions; thread-safe.
#ifndef PGRIG_FLEET_MERGE_H_
#define PGRIG_FLEET_MERGE_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace pgrig::fleet {

struct ClientHostResult {
  std::string label;
  std::string file;                   // where its document is (here), for the record
  std::optional<nlohmann::json> doc;  // its pgrig.result/1; nullopt when it failed
  std::string error;                  // why it failed (redacted), when doc is nullopt
};

// Clients mode over `pgrig tpcc run`: what the controller read on the
// server, which no client can (each sees only its own commits).
struct TpccServerCounts {
  // The D_NEXT_O_ID sum's growth from "go" to after every client ended.
  std::optional<int64_t> new_orders;
  // Orders not yet delivered, at "go" and at the end (Delivery's skips).
  std::optional<int64_t> undelivered_before, undelivered_after;
  // Conditions 1-4 on every warehouse after the run (tpcc::ConditionsAfterRun).
  nlohmann::json conditions = nlohmann::json::array();
  bool consistent = false;
  // Why the merged run gives no NOPM on the server's side: what could not
  // be read or checked, each broken condition.
  std::vector<std::string> problems;
};

struct MergeOptions {
  std::string tool_version;
  std::vector<std::string> command_line;  // the fleet command, redacted
  nlohmann::json facts = nullptr;         // the server's facts, taken once by the controller
  nlohmann::json observation = nullptr;   // the controller's observation of the window
  nlohmann::json bottleneck = nullptr;    // what that observation names as the limit
  // Set when the clients ran `pgrig tpcc run`: the merged document gets a
  // "tpcc" section (docs/results-format.md): per-type counts and failures
  // summed, latency from the types' histograms added, NOPM the sum of the
  // hosts' (each host's committed New-Orders over its own window), checked
  // against `tpcc.new_orders`; no NOPM when a host failed or refused, the
  // counts disagree or a condition broke.
  std::optional<TpccServerCounts> tpcc;
};

// InvalidArgument when no host has a document, a document is not
// pgrig.result/1, its histogram is invalid, or the documents disagree on
// what was run (duration, -t, query mode, scale; for tpcc, warehouses and
// procedures), or a document lacks its "tpcc" section when options.tpcc is
// set or holds a malformed one (results::ReadTpccSection: the message names
// the key); the message names the host.
Result<nlohmann::json> MergeClientResults(const std::vector<ClientHostResult>& hosts,
                                          const MergeOptions& options);

}  // namespace pgrig::fleet

#endif  // PGRIG_FLEET_MERGE_H_
