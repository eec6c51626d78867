// Facts as data: the "facts" part of pgrig's results format, plus a
// readable summary and the comparison of two facts documents.
//
// ToJson() produces snake_case keys with units in the names
// (memory.total_bytes, l2_size_bytes); a fact that could not be read is
// null, never absent-and-guessed, and every document carries its notes.
// The layout is documented in docs/facts.md.  All functions are pure.
#ifndef PGRIG_HOST_FACTS_JSON_H_
#define PGRIG_HOST_FACTS_JSON_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "host/host_facts.h"
#include "host/server_facts.h"

namespace pgrig::host {

inline constexpr const char* kFactsSchema = "pgrig.facts/1";

nlohmann::json ToJson(const HostFacts& h);
nlohmann::json ToJson(const ServerFacts& s);
// {"path", "arm_atomics", "arm_atomics_detail", "frame_pointers",
//  "frame_pointers_detail"}: the same keys as facts' server.build.
nlohmann::json ToJson(const ServerBinaryFacts& b);
// Its reverse; `where` names the object in errors.
Result<ServerBinaryFacts> ServerBinaryFromJson(const nlohmann::json& j, const std::string& where);
// {"schema": "pgrig.facts/1", "host": {...}, "server": {...} or null}
nlohmann::json FactsToJson(const HostFacts& h, const std::optional<ServerFacts>& s);

// A readable, multi-line summary ("unknown" where a fact is missing).
std::string FormatFacts(const HostFacts& h, const std::optional<ServerFacts>& s);

// The facts object in a document: the document itself when it has "host",
// or its "facts" member (a results file).
Result<nlohmann::json> ExtractFacts(const nlohmann::json& doc);

struct FactDifference {
  std::string key;  // "host.cpu.microarchitecture"
  std::string a;    // rendered value, "(absent)" when missing
  std::string b;
  int rank = 0;  // lower is more relevant
};

// Differences between two facts objects, most relevant first: CPU
// identity, CPU counts, memory, server version, key settings, build, caches,
// cloud and virtualization, storage, OS tuning, then everything else.
// Volatile values (available memory, free huge pages, notes) are skipped.
std::vector<FactDifference> DiffFacts(const nlohmann::json& a, const nlohmann::json& b);

}  // namespace pgrig::host

#endif  // PGRIG_HOST_FACTS_JSON_H_
