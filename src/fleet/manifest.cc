#include "fleet/manifest.h"

#include <fmt/format.h>

#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "common/fs.h"
#include "results/schemas.h"

namespace pgrig::fleet {
namespace {}  // namespace

const char* ManifestOutcomeName(ManifestOutcome o) {
  switch (o) {
    case ManifestOutcome::kPending:
      return "pending";
    case ManifestOutcome::kCompleted:
      return "completed";
    case ManifestOutcome::kPartial:
      return "partial";
    case ManifestOutcome::kFailed:
      return "failed";
    case ManifestOutcome::kSkipped:
      return "skipped";
  }
  return "?";
}

std::optional<ManifestOutcome> ParseManifestOutcome(std::string_view name) {
  for (ManifestOutcome o :
       {ManifestOutcome::kPending, ManifestOutcome::kCompleted, ManifestOutcome::kPartial,
        ManifestOutcome::kFailed, ManifestOutcome::kSkipped}) {
    if (name == ManifestOutcomeName(o)) return o;
  }
  return std::nullopt;
}

ManifestHost* Manifest::Find(std::string_view label) {
  for (ManifestHost& h : hosts) {
    if (h.label == label) return &h;
  }
  return nullptr;
}

std::string ContentHash(std::string_view bytes) {
  uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return fmt::format("fnv1a64:{:016x}", h);
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
  nlohmann::json j = {{"schema", results::kFleetRunSchema},
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
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return bad(std::string("invalid JSON (") + e.what() + ")");
  }
  PGRIG_RETURN_IF_ERROR(results::CheckSchema(j, results::kFleetRunSchema, path));
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

Status CheckResumable(const Manifest& m, std::string_view fleet_text, std::string_view plan_text) {
  if (ContentHash(fleet_text) != m.fleet_hash) {
    return InvalidArgument(fmt::format(
        "the fleet file {} changed since run {} started ({} then, {} now); --resume continues "
        "the same fleet only: restore the file as it was, or start a new run without --resume",
        m.fleet_file, m.run_id, m.fleet_hash, ContentHash(fleet_text)));
  }
  if (ContentHash(plan_text) != m.plan_hash) {
    return InvalidArgument(fmt::format(
        "the plan {} changed since run {} started ({} then, {} now); --resume continues the "
        "same plan only: restore it, or start a new run without --resume",
        m.plan, m.run_id, m.plan_hash, ContentHash(plan_text)));
  }
  return Status::Ok();
}

Manifest NewManifest(const Fleet& fleet, const std::string& run_id, const std::string& fleet_file,
                     std::string_view fleet_text, const std::string& plan_file,
                     std::string_view plan_text) {
  Manifest m;
  m.run_id = run_id;
  m.fleet_file = std::filesystem::absolute(fleet_file).lexically_normal().string();
  m.fleet_hash = ContentHash(fleet_text);
  m.plan = std::filesystem::absolute(plan_file).lexically_normal().string();
  m.plan_hash = ContentHash(plan_text);
  m.mode = FleetModeName(fleet.mode);
  for (const FleetHost& h : fleet.hosts) {
    const bool sut = h.role == HostRole::kSut;
    m.hosts.push_back(
        ManifestHost{.label = h.label,
                     .destination = h.destination,
                     .outcome = sut ? ManifestOutcome::kPending : ManifestOutcome::kSkipped,
                     .results = "",
                     .remote_results = "",
                     .message = sut ? "" : "not a sut host"});
  }
  return m;
}

}  // namespace pgrig::fleet
