#include "fleet/instance_check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "results/json_read.h"

namespace pgrig::fleet {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMemoryLow = 0.85;
constexpr double kMemoryHigh = 1.10;
// More than any machine has: a count beyond it is a broken facts document.
constexpr double kMaxVcpus = 1 << 20;

std::optional<cost::Arch> ArchOf(std::string_view uname) {
  if (uname == "aarch64" || uname == "arm64") return cost::Arch::kArm64;
  if (uname == "x86_64" || uname == "amd64") return cost::Arch::kX86_64;
  return std::nullopt;
}

std::string Describe(const HostShape& s) {
  std::vector<std::string> parts;
  if (s.arch) parts.push_back(cost::ArchName(*s.arch));
  if (s.vcpus) parts.push_back(fmt::format("{} vCPUs", *s.vcpus));
  if (!s.cpu_model.empty()) parts.push_back("(" + s.cpu_model + ")");
  if (s.memory_gib) parts.push_back(fmt::format("{:.1f} GiB", *s.memory_gib));
  return parts.empty() ? "unknown" : fmt::format("{}", fmt::join(parts, " "));
}

}  // namespace

Result<HostShape> ParseHostShape(std::string_view facts_json) {
  auto parsed = results::ParseJson(facts_json, "the output of pgrig facts --json");
  if (!parsed.ok()) return parsed.status();
  const nlohmann::json j = std::move(parsed).value();
  if (!j.is_object() || !j.contains("host") || !j["host"].is_object()) {
    return InvalidArgument("pgrig facts --json printed no \"host\" object");
  }
  const nlohmann::json& h = j["host"];
  HostShape s;
  if (h.contains("cpu") && h["cpu"].is_object()) {
    const nlohmann::json& c = h["cpu"];
    if (c.contains("architecture") && c["architecture"].is_string()) {
      s.arch = ArchOf(c["architecture"].get<std::string>());
    }
    if (c.contains("vcpus") && c["vcpus"].is_number_integer()) {
      // Read as a double so that no value wraps before the range check.
      const double n = c["vcpus"].get<double>();
      if (n < 1 || n > kMaxVcpus) {
        return InvalidArgument(
            fmt::format("host.cpu.vcpus is {}, not a CPU count", c["vcpus"].dump()));
      }
      s.vcpus = static_cast<int>(n);
    }
    if (c.contains("model_name") && c["model_name"].is_string()) {
      s.cpu_model = c["model_name"].get<std::string>();
    }
  }
  if (h.contains("memory") && h["memory"].is_object() && h["memory"].contains("total_bytes") &&
      h["memory"]["total_bytes"].is_number()) {
    const double bytes = h["memory"]["total_bytes"].get<double>();
    if (!(bytes > 0)) {
      return InvalidArgument(fmt::format("host.memory.total_bytes is {}, not a memory size",
                                         h["memory"]["total_bytes"].dump()));
    }
    s.memory_gib = bytes / kGiB;
  }
  return s;
}

std::vector<std::string> Disagreements(const cost::InstancePrice& entry, const HostShape& shape) {
  std::vector<std::string> out;
  if (shape.arch && *shape.arch != entry.arch) {
    out.push_back(fmt::format("architecture {}, not {}", cost::ArchName(*shape.arch),
                              cost::ArchName(entry.arch)));
  }
  if (shape.vcpus && entry.vcpus > 0 && *shape.vcpus != entry.vcpus) {
    out.push_back(fmt::format("{} vCPUs, not {}", *shape.vcpus, entry.vcpus));
  }
  if (shape.memory_gib && entry.memory_gib > 0 &&
      (*shape.memory_gib < entry.memory_gib * kMemoryLow ||
       *shape.memory_gib > entry.memory_gib * kMemoryHigh)) {
    out.push_back(
        fmt::format("{:.1f} GiB of memory, not {:.4g}", *shape.memory_gib, entry.memory_gib));
  }
  return out;
}

Status CheckDeclaredInstances(const Fleet& fleet, const cost::Catalog& catalog,
                              const std::string& file) {
  // A fleet file has no --catalog or --usd-per-hour: say what it does have.
  cost::LookupOptions opts;
  opts.hint =
      "or give the host usd_per_hour = PRICE instead of instance, or point PGRIG_DATA_DIR at a "
      "directory whose prices.toml has it.";
  for (const FleetHost& h : fleet.hosts) {
    if (!h.instance) continue;
    if (auto found = catalog.FindInstance(*h.instance, opts); !found.ok()) {
      return InvalidArgument(fmt::format("{}:{}: host '{}': instance {}: {}", file, h.line, h.label,
                                         *h.instance, found.status().message()));
    }
  }
  return Status::Ok();
}

std::vector<InstanceFinding> CheckInstances(const std::vector<HostCheck>& checks,
                                            const cost::Catalog& catalog, const SshTransport& ssh) {
  std::vector<InstanceFinding> findings(checks.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < checks.size(); ++i) {
    const HostCheck& c = checks[i];
    findings[i].host = c.host;
    if (c.host == nullptr || !c.host->instance) continue;
    if (c.state != HostState::kReady && c.state != HostState::kCopied) continue;
    threads.emplace_back([&, i] {
      const HostCheck& hc = checks[i];
      const FleetHost& h = *hc.host;
      auto entry = catalog.FindInstance(*h.instance);
      if (!entry.ok()) {
        findings[i].warning = "instance " + *h.instance + ": " + entry.status().message();
        return;
      }
      auto r =
          ssh.Run(h.destination, RemoteCommand{.argv = {hc.pgrig, "facts", "--json", "--no-server"},
                                               .env = h.env,
                                               .timeout = std::chrono::seconds(60)});
      Result<HostShape> shape =
          !r.ok() ? Result<HostShape>(r.status())
          : !r->success()
              ? Result<HostShape>(RuntimeError("pgrig facts exited with " +
                                               std::to_string(r->exit_code) + ": " + r->err))
              : ParseHostShape(r->out);
      if (!shape.ok()) {
        findings[i].warning = fmt::format(
            "cannot check that it is a {} (its facts: {}); its results are priced as one",
            entry->instance_type, RedactLine(shape.status().message()));
        return;
      }
      std::vector<std::string> d = Disagreements(*entry, *shape);
      if (d.empty()) return;
      findings[i].warning = fmt::format(
          "declares instance {} ({} {}: {}, {} vCPUs, {:.4g} GiB) but has {}: {}; its results will "
          "be priced as a {} all the same: fix `instance` (or use usd_per_hour) in the fleet file "
          "if that is not what you mean",
          entry->instance_type, entry->provider, entry->instance_type, cost::ArchName(entry->arch),
          entry->vcpus, entry->memory_gib, Describe(*shape), fmt::join(d, ", "),
          entry->instance_type);
    });
  }
  for (std::thread& t : threads) t.join();
  return findings;
}

}  // namespace pgrig::fleet
