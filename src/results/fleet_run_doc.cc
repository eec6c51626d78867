#include "results/fleet_run_doc.h"

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "common/enum_names.h"
#include "common/fs.h"
#include "results/json_read.h"
#include "results/schemas.h"

namespace pgrig::results {

constexpr const char* kManifestOutcomeNames[] = {"pending", "completed", "partial", "failed",
                                                 "skipped"};

const char* ManifestOutcomeName(ManifestOutcome o) {
  return NameAt<ManifestOutcome::kSkipped>(o, kManifestOutcomeNames);
}

std::optional<ManifestOutcome> ParseManifestOutcome(std::string_view name) {
  return ValueAt<ManifestOutcome::kSkipped>(name, kManifestOutcomeNames);
}

ManifestHost* Manifest::Find(std::string_view label) {
  for (ManifestHost& h : hosts) {
    if (h.label == label) return &h;
  }
  return nullptr;
}

std::string ManifestToJson(const Manifest& m) {
  nlohmann::json hosts = nlohmann::json::array();
  for (const ManifestHost& h : m.hosts) {
    hosts.push_back({{"label", h.label},
                     {"destination", h.destination},
                     {"outcome", ManifestOutcomeName(h.outcome)},
                     {"results", h.results},
                     {"remote_results", h.remote_results},
                     {"message", h.message}});
  }
  nlohmann::json j = {{"schema", kFleetRunSchema},
                      {"run_id", m.run_id},
                      {"fleet_file", m.fleet_file},
                      {"fleet_hash", m.fleet_hash},
                      {"plan", m.plan},
                      {"plan_hash", m.plan_hash},
                      {"mode", m.mode},
                      {"updated", m.updated},
                      {"hosts", hosts}};
  return j.dump(2) + "\n";
}

Result<Manifest> ParseManifest(const std::string& text, const std::string& path) {
  auto bad = [&](const std::string& why) {
    return InvalidArgument(path + ": not a fleet run manifest: " + why);
  };
  auto parsed = ParseJson(text, path);
  if (!parsed.ok())
    return Status(parsed.status().code(),
                  parsed.status().message() + " (not a fleet run manifest)");
  nlohmann::json j = std::move(parsed).value();
  PGRIG_RETURN_IF_ERROR(CheckSchema(j, kFleetRunSchema, path));
  Manifest m;
  try {
    m.run_id = j.at("run_id").get<std::string>();
    m.fleet_file = j.at("fleet_file").get<std::string>();
    m.fleet_hash = j.at("fleet_hash").get<std::string>();
    m.plan = j.at("plan").get<std::string>();
    m.plan_hash = j.at("plan_hash").get<std::string>();
    m.mode = j.at("mode").get<std::string>();
    m.updated = j.value("updated", "");
    for (const nlohmann::json& h : j.at("hosts")) {
      ManifestHost mh;
      mh.label = h.at("label").get<std::string>();
      mh.destination = h.at("destination").get<std::string>();
      std::string outcome = h.at("outcome").get<std::string>();
      auto o = ParseManifestOutcome(outcome);
      if (!o) return bad("host \"" + mh.label + "\" has an unknown outcome \"" + outcome + "\"");
      mh.outcome = *o;
      mh.results = h.value("results", "");
      mh.remote_results = h.value("remote_results", "");
      mh.message = h.value("message", "");
      m.hosts.push_back(std::move(mh));
    }
  } catch (const nlohmann::json::exception& e) {
    return bad(e.what());
  }
  return m;
}

Status WriteManifest(const std::string& run_dir, Manifest& m) {
  m.updated = IsoTimestampUtc(WallSeconds());
  return WriteFileAtomically(run_dir + "/" + kManifestName, ManifestToJson(m));
}

Result<Manifest> ReadManifest(const std::string& run_dir) {
  const std::string path = run_dir + "/" + kManifestName;
  auto text = ReadWholeFile(path);
  if (!text.ok()) {
    return NotFound(run_dir + " is not a fleet run directory: no " + kManifestName + " there (" +
                    text.status().message() + ")");
  }
  return ParseManifest(*text, path);
}

}  // namespace pgrig::results
