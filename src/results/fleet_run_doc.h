// pgrig.fleet-run/1: the state of a fleet run, kept in
// <results>/<run id>/fleet-run.json so that `pgrig fleet run --resume` knows
// what is done.  The typed Manifest, its one writer and its one reader; the
// fleet module makes and updates it (fleet/manifest.h).
//
//   { "schema": "pgrig.fleet-run/1", "run_id": "...", "fleet_file": "/abs/fleet.toml",
//     "fleet_hash": "fnv1a64:...", "plan": "/abs/plan.toml", "plan_hash": "fnv1a64:...",
//     "mode": "compare", "updated": "2026-12-01T13:00:00Z",
//     "hosts": [ { "label": "a", "destination": "h0", "outcome": "completed",
//                  "results": "/abs/results/<id>/a", "remote_results": "...",
//                  "message": "..." } ] }
//
// Host outcomes: pending (not run yet), completed (its suite came back
// complete), partial (its run stopped, a suite that is not complete came
// back), failed (nothing usable came back), skipped (not a sut host).
// Written atomically (common/fs.h) after each change, so an interrupted
// `fleet run` leaves a manifest that says what finished.  A plain value:
// not thread-safe; callers serialise updates.
#ifndef PGRIG_RESULTS_FLEET_RUN_DOC_H_
#define PGRIG_RESULTS_FLEET_RUN_DOC_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace pgrig::results {

inline constexpr char kManifestName[] = "fleet-run.json";

enum class ManifestOutcome { kPending, kCompleted, kPartial, kFailed, kSkipped };
const char* ManifestOutcomeName(ManifestOutcome o);
std::optional<ManifestOutcome> ParseManifestOutcome(std::string_view name);

struct ManifestHost {
  std::string label;
  std::string destination;
  ManifestOutcome outcome = ManifestOutcome::kPending;
  std::string results;         // local results directory; empty when none came back
  std::string remote_results;  // on the host
  std::string message;         // redacted
};

struct Manifest {
  std::string run_id;
  std::string fleet_file;  // absolute
  std::string fleet_hash;
  std::string plan;  // the plan file, absolute
  std::string plan_hash;
  std::string mode;
  std::string updated;  // UTC, ISO 8601
  std::vector<ManifestHost> hosts;

  ManifestHost* Find(std::string_view label);
};

std::string ManifestToJson(const Manifest& m);
// Errors name `path` (used in messages only) and what is wrong.
Result<Manifest> ParseManifest(const std::string& text, const std::string& path);

// <run_dir>/fleet-run.json, atomically; `updated` is set to now.
Status WriteManifest(const std::string& run_dir, Manifest& m);
Result<Manifest> ReadManifest(const std::string& run_dir);

}  // namespace pgrig::results

#endif  // PGRIG_RESULTS_FLEET_RUN_DOC_H_
