// What the fleet module does with a run's manifest (the document
// pgrig.fleet-run/1 is results/fleet_run_doc.h's): a new run's manifest,
// the check --resume makes, the content hash both use.  Pure functions;
// thread-safe.
#ifndef PGRIG_FLEET_MANIFEST_H_
#define PGRIG_FLEET_MANIFEST_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "fleet/fleet_file.h"
#include "results/fleet_run_doc.h"

namespace pgrig::fleet {

// The document's types, by their fleet names.
using results::kManifestName;
using results::Manifest;
using results::ManifestHost;
using results::ManifestOutcome;
using results::ManifestOutcomeName;
using results::ParseManifest;
using results::ParseManifestOutcome;
using results::ReadManifest;
using results::WriteManifest;

// "fnv1a64:<16 hex digits>" of the bytes: enough to see that a file changed.
std::string ContentHash(std::string_view bytes);

// A new run's manifest: every sut host of `fleet` pending, the others
// skipped ("not a sut host"); the two files by absolute path and hash.
Manifest NewManifest(const Fleet& fleet, const std::string& run_id, const std::string& fleet_file,
                     std::string_view fleet_text, const std::string& plan_file,
                     std::string_view plan_text);

// Why `--resume` must refuse, or OK: the fleet file's text (as it is now)
// must hash to what the manifest recorded, and the plan's too.
Status CheckResumable(const Manifest& m, std::string_view fleet_text, std::string_view plan_text);

}  // namespace pgrig::fleet

#endif  // PGRIG_FLEET_MANIFEST_H_
