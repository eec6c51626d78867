#include "host/facts_json.h"

#include <cstdio>

#include "common/strings.h"

namespace pgrig::host {

namespace {

using nlohmann::json;

// Spelled once: facts' server.build and a profile's server_binary share them.
constexpr char kArmAtomicsKey[] = "arm_atomics";
constexpr char kArmAtomicsDetailKey[] = "arm_atomics_detail";
constexpr char kFramePointersKey[] = "frame_pointers";
constexpr char kFramePointersDetailKey[] = "frame_pointers_detail";

template <typename T>
json Opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json OptHex(const std::optional<uint32_t>& v) { return v ? json(HexId(*v)) : json(nullptr); }

// "L1d", "L1i", "L2", "L3" as lscpu names them.
std::string CacheName(const CacheLevel& c) {
  std::string n = "l" + std::to_string(c.level);
  if (c.type == "Data") n += "d";
  if (c.type == "Instruction") n += "i";
  return n;
}

json CpuJson(const CpuFacts& c) {
  json j;
  j["architecture"] = Opt(c.architecture);
  j["vendor"] = Opt(c.vendor);
  j["model_name"] = Opt(c.model_name);
  j["microarchitecture"] = Opt(c.microarchitecture);
  j["codename"] = Opt(c.codename);
  j["isa"] = Opt(c.isa);
  j["identification_confidence"] = c.identification_confidence
                                       ? json(ConfidenceName(*c.identification_confidence))
                                       : json(nullptr);
  if (c.arm_implementer) {
    json a;
    a["implementer"] = OptHex(c.arm_implementer);
    a["implementer_name"] = Opt(ArmImplementerName(*c.arm_implementer));
    a["part"] = OptHex(c.arm_part);
    a["variant"] = OptHex(c.arm_variant);
    a["revision"] = Opt(c.arm_revision);
    a["midr_source"] = Opt(c.midr_source);
    json types = json::array();
    for (const auto& t : c.core_types) {
      auto core = IdentifyArmCore(t.implementer, t.part);
      types.push_back({{"implementer", HexId(t.implementer)},
                       {"part", HexId(t.part)},
                       {"core", core ? json(core->name) : json(nullptr)},
                       {"cpus", t.cpus}});
    }
    a["core_types"] = types;
    j["arm"] = a;
  }
  if (c.family || c.model) {
    j["x86"] = {{"family", Opt(c.family)}, {"model", Opt(c.model)}, {"stepping", Opt(c.stepping)}};
  }
  json chips = json::array();
  for (const auto& ch : c.chips) {
    chips.push_back({{"name", ch.name},
                     {"vendor", ch.vendor},
                     {"confidence", ConfidenceName(ch.confidence)},
                     {"reason", ch.reason}});
  }
  j["chip_candidates"] = chips;
  j["sockets"] = Opt(c.sockets);
  j["cores"] = Opt(c.cores);
  j["threads_per_core"] = Opt(c.threads_per_core);
  j["vcpus"] = Opt(c.vcpus);
  j["vcpu_is"] = Opt(c.vcpu_is);
  json caches = json::array();
  std::optional<uint64_t> l1d, l1i, l2, l3, l3_total;
  for (const auto& k : c.caches) {
    json e = {{"name", CacheName(k)},
              {"level", k.level},
              {"type", k.type},
              {"size_bytes", k.size_bytes},
              {"instances", k.instances},
              {"total_bytes", k.size_bytes * static_cast<uint64_t>(k.instances)},
              {"shared_cpu_count", k.shared_cpu_count},
              {"ways", Opt(k.ways)},
              {"line_size_bytes", Opt(k.line_size_bytes)}};
    caches.push_back(e);
    std::string n = CacheName(k);
    if (n == "l1d") l1d = k.size_bytes;
    if (n == "l1i") l1i = k.size_bytes;
    if (n == "l2") l2 = k.size_bytes;
    if (n == "l3") {
      l3 = k.size_bytes;
      l3_total = k.size_bytes * static_cast<uint64_t>(k.instances);
    }
  }
  j["caches"] = caches;
  j["l1d_size_bytes"] = Opt(l1d);
  j["l1i_size_bytes"] = Opt(l1i);
  j["l2_size_bytes"] = Opt(l2);
  j["l3_size_bytes"] = Opt(l3);
  j["l3_total_bytes"] = Opt(l3_total);
  json flags;
  bool arm = c.arm_implementer.has_value() || (c.architecture && *c.architecture == "aarch64");
  if (arm) {
    flags["lse_atomics"] = Opt(c.lse_atomics);
    flags["crc32"] = Opt(c.crc32);
  } else {
    flags["sse4_2"] = Opt(c.sse4_2);
    flags["crc32"] = Opt(c.crc32);
    flags["avx2"] = Opt(c.avx2);
    flags["avx512f"] = Opt(c.avx512f);
    flags["hypervisor"] = Opt(c.hypervisor_flag);
  }
  j["flags"] = flags;
  j["cpu_flags"] = c.flags;
  return j;
}

json MemoryJson(const MemoryFacts& m) {
  json j;
  j["total_bytes"] = Opt(m.total_bytes);
  j["available_bytes"] = Opt(m.available_bytes);
  j["swap_total_bytes"] = Opt(m.swap_total_bytes);
  j["huge_page_size_bytes"] = Opt(m.default_huge_page_size_bytes);
  json pools = json::array();
  for (const auto& p : m.huge_pages) {
    pools.push_back({{"page_size_bytes", p.page_size_bytes},
                     {"total", Opt(p.total)},
                     {"free", Opt(p.free)},
                     {"reserved", Opt(p.reserved)},
                     {"surplus", Opt(p.surplus)}});
  }
  j["huge_pages"] = pools;
  j["thp_enabled"] = Opt(m.thp_enabled);
  j["thp_defrag"] = Opt(m.thp_defrag);
  j["thp_shmem_enabled"] = Opt(m.thp_shmem_enabled);
  j["swappiness"] = Opt(m.swappiness);
  j["overcommit_memory"] = Opt(m.overcommit_memory);
  j["overcommit_ratio"] = Opt(m.overcommit_ratio);
  j["dirty_ratio"] = Opt(m.dirty_ratio);
  j["dirty_background_ratio"] = Opt(m.dirty_background_ratio);
  j["zone_reclaim_mode"] = Opt(m.zone_reclaim_mode);
  return j;
}

json CgroupJson(const CgroupFacts& c) {
  return {{"version", Opt(c.version)},
          {"path", Opt(c.path)},
          {"memory_limit_bytes", Opt(c.memory_limit_bytes)},
          {"memory_unlimited", c.memory_unlimited},
          {"cpu_quota_cpus", Opt(c.cpu_quota_cpus)},
          {"cpu_unlimited", c.cpu_unlimited},
          {"cpuset", Opt(c.cpuset)},
          {"cpuset_cpus", Opt(c.cpuset_cpus)}};
}

json OsJson(const OsFacts& o) {
  json nodes = json::array();
  for (const auto& n : o.numa_nodes) {
    nodes.push_back({{"node", n.id}, {"cpus", n.cpus}, {"memory_bytes", Opt(n.memory_bytes)}});
  }
  return {{"kernel_release", Opt(o.kernel_release)},
          {"os_name", Opt(o.os_name)},
          {"page_size_bytes", Opt(o.page_size_bytes)},
          {"clocksource", Opt(o.clocksource)},
          {"cpufreq_governor", Opt(o.cpufreq_governor)},
          {"numa_node_count", o.numa_nodes.empty() ? json(nullptr) : json(o.numa_nodes.size())},
          {"numa_nodes", nodes}};
}

json VirtJson(const VirtualizationFacts& v) {
  json dmi = nullptr;
  if (v.dmi.readable) {
    dmi = {{"sys_vendor", v.dmi.sys_vendor},
           {"product_name", v.dmi.product_name},
           {"board_vendor", v.dmi.board_vendor},
           {"bios_vendor", v.dmi.bios_vendor},
           {"chassis_asset_tag", v.dmi.chassis_asset_tag}};
  }
  return {{"virtualized", Opt(v.virtualized)},
          {"hypervisor", Opt(v.hypervisor)},
          {"hypervisor_type", Opt(v.hypervisor_type)},
          {"cpuid_signature", Opt(v.cpuid_signature)},
          {"container", Opt(v.container)},
          {"dmi", dmi}};
}

json StorageJson(const StorageFacts& s) {
  return {{"path", s.path},
          {"mount_point", Opt(s.mount_point)},
          {"filesystem", Opt(s.filesystem)},
          {"source", Opt(s.source)},
          {"device", Opt(s.device)},
          {"rotational", Opt(s.rotational)},
          {"nvme", Opt(s.nvme)},
          {"virtual_disk", Opt(s.virtual_disk)},
          {"model", Opt(s.model)},
          {"scheduler", Opt(s.scheduler)}};
}

}  // namespace

nlohmann::json ToJson(const HostFacts& h) {
  json j;
  j["sysroot"] = h.sysroot;
  j["cpu"] = CpuJson(h.cpu);
  j["memory"] = MemoryJson(h.memory);
  j["cgroup"] = CgroupJson(h.cgroup);
  j["os"] = OsJson(h.os);
  j["virtualization"] = VirtJson(h.virtualization);
  j["cloud"] = h.virtualization.cloud
                   ? json{{"provider", h.virtualization.cloud->provider},
                          {"instance_type", h.virtualization.cloud->instance_type.empty()
                                                ? json(nullptr)
                                                : json(h.virtualization.cloud->instance_type)}}
                   : json(nullptr);
  j["storage"] = h.storage ? StorageJson(*h.storage) : json(nullptr);
  j["effective_cpus"] = Opt(h.effective_cpus);
  j["effective_memory_bytes"] = Opt(h.effective_memory_bytes);
  j["notes"] = h.notes;
  return j;
}

nlohmann::json ToJson(const ServerBinaryFacts& b) {
  return {{"path", b.path},
          {kArmAtomicsKey, b.arm_atomics},
          {kArmAtomicsDetailKey, Opt(b.arm_atomics_detail)},
          {kFramePointersKey, b.frame_pointers},
          {kFramePointersDetailKey, Opt(b.frame_pointers_detail)}};
}

Result<ServerBinaryFacts> ServerBinaryFromJson(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) return InvalidArgument(where + " must be an object");
  ServerBinaryFacts b;
  auto text = [&](const char* key, std::string& out) -> Status {
    auto it = j.find(key);
    if (it == j.end() || !it->is_string()) {
      return InvalidArgument(where + "." + key + " must be a string");
    }
    out = it->get<std::string>();
    return Status();
  };
  auto optional_text = [&](const char* key, std::optional<std::string>& out) -> Status {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return Status();
    if (!it->is_string()) return InvalidArgument(where + "." + key + " must be a string or null");
    out = it->get<std::string>();
    return Status();
  };
  PGRIG_RETURN_IF_ERROR(text("path", b.path));
  PGRIG_RETURN_IF_ERROR(text(kArmAtomicsKey, b.arm_atomics));
  PGRIG_RETURN_IF_ERROR(optional_text(kArmAtomicsDetailKey, b.arm_atomics_detail));
  PGRIG_RETURN_IF_ERROR(text(kFramePointersKey, b.frame_pointers));
  PGRIG_RETURN_IF_ERROR(optional_text(kFramePointersDetailKey, b.frame_pointers_detail));
  return b;
}

nlohmann::json ToJson(const ServerFacts& s) {
  json j;
  j["version"] = Opt(s.version);
  j["version_num"] = Opt(s.version_num);
  j["local"] = s.local;
  j["database"] = Opt(s.database);
  j["database_size_bytes"] = Opt(s.database_size_bytes);
  j["data_directory"] = Opt(s.data_directory);
  json settings = json::object();
  for (const auto& st : s.settings) {
    settings[st.name] = {
        {"setting", st.setting}, {"unit", Opt(st.unit)}, {"source", Opt(st.source)}};
  }
  j["settings"] = settings;
  j["shared_buffers_bytes"] = Opt(s.shared_buffers_bytes);
  j["fits_in_shared_buffers"] = Opt(s.fits_in_shared_buffers);
  j["fits_in_ram"] = Opt(s.fits_in_ram);
  j["build"] = {{"configure", Opt(s.build.configure)},
                {"cflags", Opt(s.build.cflags)},
                {"cc", Opt(s.build.cc)},
                {"compiler", Opt(s.build.compiler)},
                {"bindir", Opt(s.build.bindir)},
                {"source", Opt(s.build.source)},
                {"postgres_binary", Opt(s.build.postgres_binary)},
                {kArmAtomicsKey, s.build.arm_atomics},
                {kArmAtomicsDetailKey, Opt(s.build.arm_atomics_detail)},
                {kFramePointersKey, s.build.frame_pointers},
                {kFramePointersDetailKey, Opt(s.build.frame_pointers_detail)}};
  j["notes"] = s.notes;
  return j;
}

nlohmann::json FactsToJson(const HostFacts& h, const std::optional<ServerFacts>& s) {
  return {
      {"schema", kFactsSchema}, {"host", ToJson(h)}, {"server", s ? ToJson(*s) : json(nullptr)}};
}

}  // namespace pgrig::host
