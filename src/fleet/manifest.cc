#include "fleet/manifest.h"

#include <fmt/format.h>

#include <filesystem>

namespace pgrig::fleet {

std::string ContentHash(std::string_view bytes) {
  uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return fmt::format("fnv1a64:{:016x}", h);
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
