// Comparing two facts documents: flatten both to key -> value, keep the
// keys whose values differ, and order them by how much they explain a
// difference in results.
#include <algorithm>
#include <map>

#include "common/strings.h"
#include "host/facts_json.h"

namespace pgrig::host {

namespace {

using nlohmann::json;

bool EndsWith(std::string_view s, std::string_view suf) {
  return s.size() >= suf.size() && s.substr(s.size() - suf.size()) == suf;
}

std::string Render(const std::string& key, const json& v) {
  if (v.is_null()) return "unknown";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_unsigned() && EndsWith(key, "_bytes")) {
    uint64_t n = v.get<uint64_t>();
    return std::to_string(n) + " (" + HumanBytes(n) + ")";
  }
  if (v.is_number_integer() && EndsWith(key, "_bytes") && v.get<int64_t>() >= 0) {
    uint64_t n = static_cast<uint64_t>(v.get<int64_t>());
    return std::to_string(n) + " (" + HumanBytes(n) + ")";
  }
  return v.dump();
}

// Keys that change from one minute to the next, or describe how facts were
// gathered rather than the machine.
bool Skipped(const std::string& key) {
  static const char* kSkip[] = {
      "host.notes",         "server.notes", "host.sysroot", "host.memory.available_bytes",
      "host.cpu.cpu_flags", "schema",       "collected_at"};
  for (const char* s : kSkip) {
    if (key == s || key.rfind(std::string(s) + ".", 0) == 0) return true;
  }
  if (EndsWith(key, ".free") || EndsWith(key, ".reserved") || EndsWith(key, ".surplus"))
    return true;
  // Cache sizes are compared through host.cpu.l*_size_bytes; the list adds
  // only instance counts, sharing and geometry.
  if (key.rfind("host.cpu.caches.", 0) == 0 &&
      (EndsWith(key, ".size_bytes") || EndsWith(key, ".name") || EndsWith(key, ".level") ||
       EndsWith(key, ".type"))) {
    return true;
  }
  return false;
}

void Flatten(const std::string& key, const json& v, std::map<std::string, std::string>* out) {
  if (Skipped(key)) return;
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      Flatten(key.empty() ? it.key() : key + "." + it.key(), it.value(), out);
    }
    return;
  }
  if (v.is_array() && v.empty()) {
    (*out)[key] = "(none)";
    return;
  }
  if (v.is_array() && (EndsWith(key, ".chip_candidates") || EndsWith(key, ".core_types"))) {
    // One line per list: "AWS Graviton2 [high], Ampere Altra [low]".
    std::vector<std::string> parts;
    for (const auto& e : v) {
      if (e.contains("name")) {
        parts.push_back(Render("", e["name"]) + " [" + Render("", e.value("confidence", json())) +
                        "]");
      } else if (e.contains("core")) {
        parts.push_back(Render("", e["core"]) + " x" + Render("", e.value("cpus", json())));
      }
    }
    (*out)[key] = Join(parts, ", ");
    return;
  }
  if (v.is_array()) {
    bool scalars =
        std::all_of(v.begin(), v.end(), [](const json& e) { return !e.is_structured(); });
    if (scalars) {
      std::vector<std::string> parts;
      for (const auto& e : v) parts.push_back(Render("", e));
      (*out)[key] = Join(parts, ", ");
      return;
    }
    // Name array elements by what they are, not by position, so that an
    // extra cache level or NUMA node does not shift every later entry.
    for (size_t i = 0; i < v.size(); ++i) {
      const json& e = v[i];
      std::string id = std::to_string(i);
      if (e.is_object()) {
        for (const char* k : {"name", "page_size_bytes", "node", "part"}) {
          if (e.contains(k) && !e[k].is_null()) {
            id = e[k].is_string() ? e[k].get<std::string>() : e[k].dump();
            break;
          }
        }
      }
      Flatten(key + "." + id, e, out);
    }
    return;
  }
  (*out)[key] = Render(key, v);
}

// Relevance: the first matching prefix wins; unmatched keys come last.
int Rank(const std::string& key) {
  static const std::vector<std::string> kOrder = {"host.cpu.microarchitecture",
                                                  "host.cpu.codename",
                                                  "host.cpu.architecture",
                                                  "host.cpu.vendor",
                                                  "host.cpu.model_name",
                                                  "host.cpu.chip_candidates",
                                                  "host.cpu.arm.part",
                                                  "host.cpu.arm.implementer",
                                                  "host.cpu.x86.family",
                                                  "host.cpu.x86.model",
                                                  "host.effective_cpus",
                                                  "host.cpu.vcpus",
                                                  "host.cpu.cores",
                                                  "host.cpu.threads_per_core",
                                                  "host.cpu.vcpu_is",
                                                  "host.cpu.sockets",
                                                  "host.effective_memory_bytes",
                                                  "host.memory.total_bytes",
                                                  "host.cgroup.memory_limit_bytes",
                                                  "host.cgroup.cpu_quota_cpus",
                                                  "host.cgroup.cpuset",
                                                  "server.version_num",
                                                  "server.version",
                                                  "server.settings.shared_buffers",
                                                  "server.settings.huge_pages",
                                                  "server.settings.max_connections",
                                                  "server.settings.synchronous_commit",
                                                  "server.settings.fsync",
                                                  "server.settings.full_page_writes",
                                                  "server.settings.wal_level",
                                                  "server.settings.jit",
                                                  "server.settings.data_checksums",
                                                  "server.settings.checkpoint",
                                                  "server.settings.max_wal_size",
                                                  "server.settings.wal_",
                                                  "server.settings",
                                                  "server.build.arm_atomics",
                                                  "server.build.compiler",
                                                  "server.build.cflags",
                                                  "server.build.configure",
                                                  "server.build.frame_pointers",
                                                  "server.fits_in",
                                                  "server.database_size_bytes",
                                                  "host.cpu.flags",
                                                  "host.cpu.l3",
                                                  "host.cpu.l2",
                                                  "host.cpu.l1",
                                                  "host.cpu.caches",
                                                  "host.cloud",
                                                  "host.virtualization.virtualized",
                                                  "host.virtualization.hypervisor",
                                                  "host.os.numa",
                                                  "host.storage.nvme",
                                                  "host.storage.rotational",
                                                  "host.storage",
                                                  "host.os.page_size_bytes",
                                                  "host.memory.huge_pages",
                                                  "host.memory.huge_page_size_bytes",
                                                  "host.memory.thp",
                                                  "host.os.kernel_release",
                                                  "host.memory",
                                                  "host.os",
                                                  "server.build",
                                                  "host.cpu",
                                                  "host.virtualization",
                                                  "host.cgroup",
                                                  "server"};
  for (size_t i = 0; i < kOrder.size(); ++i) {
    if (key.rfind(kOrder[i], 0) == 0) return static_cast<int>(i);
  }
  return static_cast<int>(kOrder.size());
}

}  // namespace

Result<nlohmann::json> ExtractFacts(const nlohmann::json& doc) {
  if (doc.is_object() && doc.contains("host")) return doc;
  if (doc.is_object() && doc.contains("facts") && doc["facts"].is_object() &&
      doc["facts"].contains("host")) {
    return doc["facts"];
  }
  return InvalidArgument(
      "not a facts document: expected an object with \"host\" (pgrig facts --json) or with "
      "\"facts\" (a pgrig results file)");
}

std::vector<FactDifference> DiffFacts(const nlohmann::json& a, const nlohmann::json& b) {
  std::map<std::string, std::string> fa, fb;
  Flatten("", a, &fa);
  Flatten("", b, &fb);
  std::vector<FactDifference> out;
  auto add = [&](const std::string& k, const std::string& va, const std::string& vb) {
    out.push_back({k, va, vb, Rank(k)});
  };
  for (const auto& [k, va] : fa) {
    auto it = fb.find(k);
    if (it == fb.end())
      add(k, va, "(absent)");
    else if (it->second != va)
      add(k, va, it->second);
  }
  for (const auto& [k, vb] : fb) {
    if (!fa.count(k)) add(k, "(absent)", vb);
  }
  std::stable_sort(out.begin(), out.end(), [](const FactDifference& x, const FactDifference& y) {
    return x.rank != y.rank ? x.rank < y.rank : x.key < y.key;
  });
  return out;
}

}  // namespace pgrig::host
