// The "tpcc" section of a pgrig.result/1 document (docs/results-format.md,
// "tpcc"): what a `pgrig tpcc run` measured, as one struct with one writer
// and one reader.  tpcc::Measurer fills it for a run; a fleet's merge
// (fleet/merge.h) reads every client's with ReadTpccSection, adds them up
// and writes the merged one with the same TpccSectionJson, so each key is
// spelled here and nowhere else.
//
// The reader is strict about types and lenient about presence: a key that
// is missing or null keeps the struct's default (older documents and the
// merge's tests write fewer keys), a value of the wrong type or a count
// outside [0, kMaxDocumentCount] is an InvalidArgument naming `where` and the
// key.  Only "types" is required.  Pure functions; thread-safe.
#ifndef PGRIG_RESULTS_TPCC_SECTION_H_
#define PGRIG_RESULTS_TPCC_SECTION_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "stats/histogram.h"

namespace pgrig::results {

// Latency (ms) of a type's successful transactions; all 0 when none ended.
struct TpccLatencyMs {
  double p50 = 0, p90 = 0, p95 = 0, p99 = 0, max = 0;
};

// One entry of "types", keyed by the transaction's name ("new-order", ...).
struct TpccType {
  std::string name;
  int64_t transactions = 0;  // ended successfully
  int64_t failures = 0;      // serialization or deadlock errors out of tries
  int64_t retries = 0;
  std::optional<stats::Histogram> histogram;  // packed in the document; null without one
  TpccLatencyMs latency_ms;
};

struct TpccNewOrders {
  int64_t committed = 0;  // as the client (or the summed clients) counted them
  int64_t rolled_back = 0;
  std::optional<int64_t> database;  // the D_NEXT_O_ID sum's growth; null: not read here
  std::optional<bool> agree;        // null with `database`
};

// Districts a Delivery found no new order for (tpcc::SkippedDeliveries).
struct TpccDelivery {
  int64_t districts = 0;     // 10 x the Deliveries the client saw end
  int64_t delivered = 0;     // orders delivered, by the database
  int64_t skipped = 0;       // max(0, districts - delivered)
  double skipped_share = 0;  // skipped / districts (0 without Deliveries)
};

struct TpccRunConstants {
  int64_t c_last = 0, c_id = 0, ol_i_id = 0;
};

struct TpccSection {
  int64_t warehouses = 0;
  bool procedures = false;
  bool spec_timing = false;
  int64_t warmup_s = 0;
  bool warmup_ended_early = false;
  std::optional<TpccRunConstants> run_constants;  // null in a merge: each client drew its own
  double window_s = 0;
  // Null when the run gives no figure (`refused` says why).
  std::optional<double> nopm, tpmc_like, tpm;
  bool fleet_client = false;
  std::optional<int64_t> fleet_clients;  // a merge's host count; absent otherwise
  TpccNewOrders new_orders;
  std::vector<TpccType> types;  // in the document's order
  std::optional<TpccDelivery> delivery;
  double client_cpu_us_per_transaction = 0;
  std::optional<double> server_cpu_us_per_transaction;
  std::vector<int64_t> checked_warehouses;  // "checks.warehouses"; empty: all
  // "checks.conditions": [{"condition", "what", "violations"}] as checked.
  nlohmann::json conditions = nlohmann::json::array();
  bool consistent = false;
  std::vector<std::string> refused;  // why the run gives no NOPM
};

// The latency figures of a type from its histogram (ms; 0 when empty).
TpccLatencyMs TpccLatencyFromHistogram(const stats::Histogram& h);

nlohmann::json TpccSectionJson(const TpccSection& s);

// `section` is the document's "tpcc" value; `where` names the document
// ("host a: a.json") in errors, which then name the key ("tpcc.types.payment:
// "failures" must be ...").
Result<TpccSection> ReadTpccSection(const nlohmann::json& section, const std::string& where);

}  // namespace pgrig::results

#endif  // PGRIG_RESULTS_TPCC_SECTION_H_
