// fleet_fuzzer: libFuzzer target over what the fleet module reads: the
// fleet file (fleet/fleet_file.h, TOML a user writes), a host's facts as the
// instance check reads them (fleet/instance_check.h) and the result
// documents a clients-mode run copies back from its client hosts, merged
// into one (fleet/merge.h).
//
// Input: the bytes of a fleet file or of a host's `pgrig facts --json`, and
// the same bytes cut at every line "%%" into up to four client documents
// (JSON).  A part that is not JSON is
// a host whose result was unreadable, as client_mode.cc treats one.  When
// any part has a "tpcc" member the merge runs as after `pgrig tpcc run`,
// with fixed server-side counts.
//
// Checked invariants (abort = crash report): nothing either reader calls
// throws out of it; a fleet file's refusal starts with the file's name, a
// merge's names a host (or says that none had a result); an accepted fleet
// file has hosts with distinct labels and what its mode needs; a host shape
// read from facts has a vCPU count in [1, 2^20] and a positive memory size
// when it has them at all; and a merged
// document is one that the results reader accepts (`pgrig report` and
// `pgrig compare` read it), with its "tpcc" section when one was merged,
// and it says it is incomplete whenever a host's result was missing.
//
// Stateless between inputs; single-threaded.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/fleet_file.h"
#include "fleet/instance_check.h"
#include "fleet/merge.h"
#include "fuzz_check.h"
#include "results/result_doc.h"
#include "results/tpcc_section.h"

namespace {

using pgrig::fleet::ClientHostResult;
using pgrig::fleet::Fleet;
using pgrig::fleet::FleetMode;
using pgrig::fleet::HostRole;

void FleetFile(const std::string& text) {
  const std::string file = "fuzz/fleet.toml";
  auto f = pgrig::fleet::ParseFleet(text, file);
  if (!f.ok()) {
    FUZZ_CHECK(f.status().message().rfind(file, 0) == 0);
    return;
  }
  FUZZ_CHECK(!f->hosts.empty());
  std::set<std::string> labels;
  for (const auto& h : f->hosts) FUZZ_CHECK(labels.insert(h.label).second);
  if (f->mode == FleetMode::kCompare) {
    FUZZ_CHECK(!f->plan.empty());
    FUZZ_CHECK(!f->HostsWithRole(HostRole::kSut).empty());
  } else {
    FUZZ_CHECK(!f->HostsWithRole(HostRole::kClient).empty());
    FUZZ_CHECK(f->server.has_value());
    FUZZ_CHECK(f->bench.has_value() != f->tpcc.has_value());
  }
}

void HostFacts(std::string_view text) {
  auto shape = pgrig::fleet::ParseHostShape(text);
  if (!shape.ok()) return;
  if (shape->vcpus) FUZZ_CHECK(*shape->vcpus >= 1 && *shape->vcpus <= (1 << 20));
  if (shape->memory_gib) FUZZ_CHECK(*shape->memory_gib > 0);
}

std::vector<std::string_view> Parts(std::string_view text) {
  std::vector<std::string_view> parts;
  constexpr std::string_view kCut = "\n%%\n";
  while (parts.size() < 3) {
    const size_t at = text.find(kCut);
    if (at == std::string_view::npos) break;
    parts.push_back(text.substr(0, at));
    text.remove_prefix(at + kCut.size());
  }
  parts.push_back(text);
  return parts;
}

void Merge(std::string_view text) {
  std::vector<ClientHostResult> hosts;
  bool tpcc = false, missing = false;
  for (std::string_view part : Parts(text)) {
    ClientHostResult h;
    h.label = "h" + std::to_string(hosts.size());
    h.file = "fuzz/host-" + h.label + ".json";
    nlohmann::json doc = nlohmann::json::parse(part, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) {
      h.error = "its result " + h.file + " is not JSON";
      missing = true;
    } else {
      tpcc = tpcc || (doc.is_object() && doc.contains("tpcc"));
      h.doc = std::move(doc);
    }
    hosts.push_back(std::move(h));
  }
  pgrig::fleet::MergeOptions options{.tool_version = "fuzz", .command_line = {"pgrig", "fleet"}};
  if (tpcc) {
    options.tpcc = pgrig::fleet::TpccServerCounts{
        .new_orders = 100, .undelivered_before = 5, .undelivered_after = 7, .consistent = true};
  }
  auto merged = pgrig::fleet::MergeClientResults(hosts, options);
  if (!merged.ok()) {
    const std::string& m = merged.status().message();
    FUZZ_CHECK(m.rfind("host ", 0) == 0 || m.rfind("no client host produced a result", 0) == 0);
    return;
  }
  auto doc = pgrig::results::ResultDocFromJson(*merged, "merged");
  FUZZ_CHECK(doc.ok());
  if (missing) FUZZ_CHECK(!doc->complete);
  if (tpcc) {
    FUZZ_CHECK(merged->contains("tpcc"));
    FUZZ_CHECK(pgrig::results::ReadTpccSection((*merged)["tpcc"], "merged").ok());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  FleetFile(text);
  HostFacts(text);
  Merge(text);
  return 0;
}
