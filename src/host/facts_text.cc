// The readable summary printed by `pgrig facts`.
#include <fmt/format.h>

#include "common/strings.h"
#include "host/facts_json.h"

namespace pgrig::host {

namespace {

constexpr const char* kUnknown = "unknown";

template <typename T>
std::string Or(const std::optional<T>& v) {
  if (!v) return kUnknown;
  if constexpr (std::is_same_v<T, std::string>)
    return v->empty() ? std::string(kUnknown) : *v;
  else if constexpr (std::is_same_v<T, bool>)
    return *v ? "yes" : "no";
  else
    return fmt::format("{}", *v);
}

std::string Bytes(const std::optional<uint64_t>& v) { return v ? HumanBytes(*v) : kUnknown; }

void Line(std::string* out, std::string_view label, std::string_view value) {
  *out += fmt::format("  {:<22} {}\n", label, value);
}

}  // namespace

std::string FormatFacts(const HostFacts& h, const std::optional<ServerFacts>& s) {
  std::string o;
  const CpuFacts& c = h.cpu;
  o += "CPU\n";
  Line(&o, "architecture", Or(c.architecture));
  Line(&o, "vendor", Or(c.vendor));
  if (c.model_name) Line(&o, "model name", *c.model_name);
  std::string uarch = Or(c.microarchitecture);
  if (c.codename) uarch += " (" + *c.codename + ")";
  if (c.isa) uarch += ", " + *c.isa;
  Line(&o, c.arm_implementer ? "core" : "microarchitecture", uarch);
  if (c.arm_implementer) {
    Line(&o, "MIDR",
         fmt::format("implementer {:#x}, part {:#x}, r{}p{} (from {})", *c.arm_implementer,
                     c.arm_part.value_or(0), c.arm_variant.value_or(0), c.arm_revision.value_or(0),
                     Or(c.midr_source)));
  }
  if (c.family) {
    Line(&o, "family/model/stepping",
         fmt::format("{} / {} ({:#x}) / {}", *c.family, Or(c.model), c.model.value_or(0),
                     Or(c.stepping)));
  }
  if (!c.chips.empty()) {
    std::vector<std::string> parts;
    for (const auto& ch : c.chips)
      parts.push_back(ch.name + " [" + ConfidenceName(ch.confidence) + "]");
    Line(&o, "chip", Join(parts, ", "));
  } else if (c.arm_implementer) {
    Line(&o, "chip", kUnknown);
  }
  Line(&o, "vCPUs", Or(c.vcpus) + (c.vcpu_is ? " (each a " + *c.vcpu_is + ")" : ""));
  Line(&o, "sockets / cores / thr",
       fmt::format("{} / {} / {}", Or(c.sockets), Or(c.cores), Or(c.threads_per_core)));
  if (c.caches.empty()) {
    Line(&o, "caches", kUnknown);
  } else {
    std::vector<std::string> parts;
    for (const auto& k : c.caches) {
      std::string n = "L" + std::to_string(k.level) +
                      (k.type == "Data"          ? "d"
                       : k.type == "Instruction" ? "i"
                                                 : "");
      parts.push_back(fmt::format("{} {} x{}", n, HumanBytes(k.size_bytes), k.instances));
    }
    Line(&o, "caches", Join(parts, ", "));
  }
  std::vector<std::string> flags;
  auto flag = [&](const char* n, const std::optional<bool>& v) {
    if (v) flags.push_back(std::string(n) + (*v ? "+" : "-"));
  };
  flag("lse", c.lse_atomics);
  flag("crc32", c.crc32);
  flag("sse4_2", c.sse4_2);
  flag("avx2", c.avx2);
  flag("avx512f", c.avx512f);
  Line(&o, "flags", flags.empty() ? std::string(kUnknown) : Join(flags, " "));

  const MemoryFacts& m = h.memory;
  o += "Memory and OS\n";
  Line(&o, "memory", Bytes(m.total_bytes));
  if (h.cgroup.memory_limit_bytes)
    Line(&o, "cgroup memory limit", Bytes(h.cgroup.memory_limit_bytes));
  if (h.cgroup.cpu_quota_cpus)
    Line(&o, "cgroup CPU quota", fmt::format("{:.2f} CPUs", *h.cgroup.cpu_quota_cpus));
  if (h.cgroup.cpuset) Line(&o, "cpuset", *h.cgroup.cpuset);
  Line(&o, "cgroup", Or(h.cgroup.version));
  Line(&o, "effective",
       fmt::format("{} CPUs, {}",
                   h.effective_cpus ? fmt::format("{:g}", *h.effective_cpus) : kUnknown,
                   Bytes(h.effective_memory_bytes)));
  if (m.huge_pages.empty()) {
    Line(&o, "huge pages", kUnknown);
  } else {
    std::vector<std::string> parts;
    for (const auto& p : m.huge_pages) {
      parts.push_back(fmt::format("{}: {} total, {} free", HumanBytes(p.page_size_bytes),
                                  Or(p.total), Or(p.free)));
    }
    Line(&o, "huge pages", Join(parts, "; "));
  }
  Line(&o, "THP enabled/defrag", Or(m.thp_enabled) + " / " + Or(m.thp_defrag));
  Line(&o, "swappiness", Or(m.swappiness));
  Line(&o, "overcommit", "memory=" + Or(m.overcommit_memory) + " ratio=" + Or(m.overcommit_ratio));
  Line(&o, "kernel", Or(h.os.kernel_release));
  if (h.os.os_name) Line(&o, "OS", *h.os.os_name);
  Line(&o, "page size", Bytes(h.os.page_size_bytes));
  Line(&o, "NUMA nodes",
       h.os.numa_nodes.empty() ? std::string(kUnknown) : std::to_string(h.os.numa_nodes.size()));
  if (h.os.clocksource) Line(&o, "clocksource", *h.os.clocksource);
  const VirtualizationFacts& v = h.virtualization;
  std::string virt = v.virtualized ? (*v.virtualized ? "yes" : "no") : kUnknown;
  if (v.hypervisor) virt += " (" + *v.hypervisor + ")";
  if (v.container && *v.container) virt += ", in a container";
  Line(&o, "virtualized", virt);
  if (v.cloud) {
    Line(&o, "cloud",
         v.cloud->provider + (v.cloud->instance_type.empty() ? "" : " " + v.cloud->instance_type));
  }
  if (h.storage) {
    const StorageFacts& st = *h.storage;
    std::string d = Or(st.device);
    if (st.nvme && *st.nvme) d += ", NVMe";
    if (st.virtual_disk && *st.virtual_disk) d += ", virtual disk (rotational unknown)";
    if (st.rotational) d += *st.rotational ? ", rotational" : ", solid-state";
    if (st.filesystem) d += ", " + *st.filesystem;
    Line(&o, "storage (" + st.path + ")", d);
  }

  if (s) {
    o += "Server\n";
    Line(&o, "version", Or(s->version));
    Line(&o, "database", Or(s->database) + " (" + Bytes(s->database_size_bytes) + ")");
    Line(&o, "fits in shared_buffers", Or(s->fits_in_shared_buffers));
    Line(&o, "fits in RAM", Or(s->fits_in_ram));
    for (const auto& st : s->settings) {
      std::string val = st.setting;
      if (auto b = SettingBytes(st))
        val = *b == 0 ? std::string("0 (default)") : HumanBytes(*b);
      else if (st.unit)
        val += " " + *st.unit;
      Line(&o, st.name, val);
    }
    Line(&o, "compiler", Or(s->build.compiler));
    Line(&o, "build flags (CFLAGS)", Or(s->build.cflags));
    Line(&o, "configure", Or(s->build.configure));
    Line(&o, "Arm atomics",
         s->build.arm_atomics +
             (s->build.arm_atomics_detail ? " (" + *s->build.arm_atomics_detail + ")" : ""));
    Line(&o, "frame pointers",
         s->build.frame_pointers +
             (s->build.frame_pointers_detail ? " (" + *s->build.frame_pointers_detail + ")" : ""));
  } else {
    o += "Server\n";
    Line(&o, "server", "not connected (host facts only)");
  }

  std::vector<std::string> notes = h.notes;
  if (s) notes.insert(notes.end(), s->notes.begin(), s->notes.end());
  if (!notes.empty()) {
    o += "Notes\n";
    for (const auto& n : notes) o += "  - " + n + "\n";
  }
  return o;
}

}  // namespace pgrig::host
