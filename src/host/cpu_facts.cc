// CPU facts: identity from /proc/cpuinfo and MIDR_EL1, topology from
// /sys/devices/system/cpu/cpu*/topology, caches from cpu*/cache/index*.
#include <algorithm>
#include <map>
#include <set>

#include "common/strings.h"
#include "host/host_facts.h"

namespace pgrig::host {

namespace {

using Block = std::map<std::string, std::string>;

// /proc/cpuinfo as one key/value map per "processor" block.  Lines outside
// any block (arm64's trailing "Hardware", s390's header) go into a block of
// their own, which callers may ignore.
std::vector<Block> ParseCpuinfo(const std::string& text) {
  std::vector<Block> blocks;
  Block cur;
  for (const auto& raw : Split(text, '\n')) {
    std::string_view line = Trim(raw);
    if (line.empty()) {
      if (!cur.empty()) blocks.push_back(std::move(cur));
      cur.clear();
      continue;
    }
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string key(Trim(line.substr(0, colon)));
    std::string value(Trim(line.substr(colon + 1)));
    cur[key] = value;
  }
  if (!cur.empty()) blocks.push_back(std::move(cur));
  return blocks;
}

std::optional<int64_t> ParseNumber(std::string_view s) {
  s = Trim(s);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    uint64_t v = 0;
    for (char c : s.substr(2)) {
      int d;
      if (c >= '0' && c <= '9')
        d = c - '0';
      else if (c >= 'a' && c <= 'f')
        d = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        d = c - 'A' + 10;
      else
        return std::nullopt;
      if (v >> 60) return std::nullopt;
      v = v * 16 + static_cast<uint64_t>(d);
    }
    return static_cast<int64_t>(v);
  }
  return ParseInt64(s);
}

std::optional<std::string> Get(const Block& b, const std::string& key) {
  auto it = b.find(key);
  if (it == b.end()) return std::nullopt;
  return it->second;
}

std::optional<int64_t> ReadNumber(const SysFs& fs, const std::string& path) {
  auto r = fs.ReadLine(path);
  if (!r.ok()) return std::nullopt;
  return ParseNumber(*r);
}

struct Midr {
  uint32_t implementer, variant, part, revision;
};

Midr DecodeMidr(uint64_t v) {
  return Midr{static_cast<uint32_t>((v >> 24) & 0xff), static_cast<uint32_t>((v >> 20) & 0xf),
              static_cast<uint32_t>((v >> 4) & 0xfff), static_cast<uint32_t>(v & 0xf)};
}

std::string CpuDir(int cpu) { return "/sys/devices/system/cpu/cpu" + std::to_string(cpu); }

void Identify(const SysFs& fs, const std::vector<Block>& blocks, const std::vector<int>& online,
              const DmiStrings& dmi, CpuFacts* cpu, std::vector<std::string>* notes) {
  const Block* first = nullptr;
  for (const auto& b : blocks) {
    if (b.count("processor")) {
      first = &b;
      break;
    }
  }
  // Architecture: the kernel says it directly on recent kernels; otherwise
  // the shape of cpuinfo does.
  if (auto a = fs.ReadLine("/proc/sys/kernel/arch"); a.ok() && !a->empty()) {
    cpu->architecture = *a;
  } else if (first && first->count("CPU implementer")) {
    cpu->architecture = "aarch64";
  } else if (first && first->count("vendor_id")) {
    cpu->architecture = "x86_64";
  }

  bool arm = cpu->architecture &&
             (*cpu->architecture == "aarch64" || cpu->architecture->rfind("arm", 0) == 0);
  if (first) {
    cpu->model_name = Get(*first, "model name");
    std::string flags = Get(*first, arm ? "Features" : "flags").value_or("");
    if (!flags.empty()) cpu->flags = SplitWords(flags);
  }

  if (arm) {
    // Per-CPU MIDR: sysfs first (exact register), else cpuinfo fields.
    std::map<std::pair<uint32_t, uint32_t>, int> counts;
    std::map<std::pair<uint32_t, uint32_t>, Midr> example;
    bool from_sysfs = false;
    for (int c : online) {
      auto r = ReadNumber(fs, CpuDir(c) + "/regs/identification/midr_el1");
      if (!r) continue;
      Midr m = DecodeMidr(static_cast<uint64_t>(*r));
      counts[{m.implementer, m.part}]++;
      example[{m.implementer, m.part}] = m;
      from_sysfs = true;
    }
    if (!from_sysfs) {
      for (const auto& b : blocks) {
        auto imp = Get(b, "CPU implementer");
        auto part = Get(b, "CPU part");
        if (!imp || !part) continue;
        auto i = ParseNumber(*imp), p = ParseNumber(*part);
        if (!i || !p) continue;
        Midr m{static_cast<uint32_t>(*i), 0, static_cast<uint32_t>(*p), 0};
        if (auto v = Get(b, "CPU variant"))
          m.variant = static_cast<uint32_t>(ParseNumber(*v).value_or(0));
        if (auto v = Get(b, "CPU revision"))
          m.revision = static_cast<uint32_t>(ParseNumber(*v).value_or(0));
        counts[{m.implementer, m.part}]++;
        example[{m.implementer, m.part}] = m;
      }
    }
    if (counts.empty()) {
      notes->push_back(
          "cpu: no MIDR in /sys/devices/system/cpu/cpu*/regs/identification/midr_el1 nor "
          "\"CPU implementer\"/\"CPU part\" in /proc/cpuinfo; core unknown");
      return;
    }
    cpu->midr_source = from_sysfs ? "sysfs midr_el1" : "/proc/cpuinfo";
    for (const auto& [k, n] : counts) cpu->core_types.push_back({k.first, k.second, n});
    std::stable_sort(cpu->core_types.begin(), cpu->core_types.end(),
                     [](const ArmCoreCount& a, const ArmCoreCount& b) { return a.cpus > b.cpus; });
    const ArmCoreCount& main = cpu->core_types.front();
    Midr m = example[{main.implementer, main.part}];
    cpu->arm_implementer = m.implementer;
    cpu->arm_part = m.part;
    cpu->arm_variant = m.variant;
    cpu->arm_revision = m.revision;
    cpu->vendor = ArmImplementerName(m.implementer).value_or("implementer " + HexId(m.implementer));
    if (auto core = IdentifyArmCore(m.implementer, m.part)) {
      cpu->microarchitecture = core->name;
      cpu->isa = core->architecture;
      cpu->identification_confidence = Confidence::kHigh;
    } else {
      notes->push_back("cpu: Arm core (implementer " + HexId(m.implementer) + ", part " +
                       HexId(m.part) + ") is not in pgrig's table; core unknown");
    }
    if (cpu->core_types.size() > 1) {
      notes->push_back("cpu: " + std::to_string(cpu->core_types.size()) +
                       " different core types (big.LITTLE); facts describe the most common one");
    }
    cpu->chips = ArmChipCandidates(m.implementer, m.part, dmi);
    if (cpu->microarchitecture && cpu->chips.empty()) {
      notes->push_back("cpu: no chip known for " + *cpu->microarchitecture);
    }
    return;
  }

  if (!first || !first->count("vendor_id")) {
    notes->push_back("cpu: /proc/cpuinfo unreadable or without vendor_id; CPU identity unknown");
    return;
  }
  cpu->vendor = Get(*first, "vendor_id");
  auto fam = Get(*first, "cpu family");
  auto mod = Get(*first, "model");
  auto step = Get(*first, "stepping");
  if (fam) cpu->family = static_cast<int>(ParseNumber(*fam).value_or(-1));
  if (mod) cpu->model = static_cast<int>(ParseNumber(*mod).value_or(-1));
  if (step) cpu->stepping = static_cast<int>(ParseNumber(*step).value_or(-1));
  if (cpu->family && *cpu->family < 0) cpu->family.reset();
  if (cpu->model && *cpu->model < 0) cpu->model.reset();
  if (cpu->stepping && *cpu->stepping < 0) cpu->stepping.reset();
  if (!cpu->family || !cpu->model) {
    notes->push_back("cpu: family/model missing from /proc/cpuinfo; microarchitecture unknown");
    return;
  }
  auto u = IdentifyX86(*cpu->vendor, *cpu->family, *cpu->model, cpu->stepping.value_or(0),
                       cpu->model_name.value_or(""));
  if (!u) {
    notes->push_back("cpu: " + *cpu->vendor + " family " + std::to_string(*cpu->family) +
                     " model " + std::to_string(*cpu->model) +
                     " is not in pgrig's table; microarchitecture unknown");
    return;
  }
  cpu->microarchitecture = u->microarchitecture;
  if (!u->codename.empty()) cpu->codename = u->codename;
  cpu->identification_confidence = u->confidence;
  if (!u->note.empty()) notes->push_back("cpu: " + u->note);
}

void Flags(CpuFacts* cpu) {
  if (cpu->flags.empty()) return;
  std::set<std::string> f(cpu->flags.begin(), cpu->flags.end());
  bool arm =
      cpu->arm_implementer.has_value() || (cpu->architecture && *cpu->architecture == "aarch64");
  if (arm) {
    cpu->lse_atomics = f.count("atomics") > 0;
    cpu->crc32 = f.count("crc32") > 0;
  } else {
    cpu->sse4_2 = f.count("sse4_2") > 0;
    cpu->crc32 = cpu->sse4_2;  // PostgreSQL's CRC32C uses the SSE 4.2 instruction
    cpu->avx2 = f.count("avx2") > 0;
    cpu->avx512f = f.count("avx512f") > 0;
    cpu->hypervisor_flag = f.count("hypervisor") > 0;
  }
}

void Topology(const SysFs& fs, const std::vector<Block>& blocks, const std::vector<int>& online,
              CpuFacts* cpu, std::vector<std::string>* notes) {
  std::set<int64_t> packages;
  std::set<std::pair<int64_t, int64_t>> cores;
  int max_threads = 0;
  bool sysfs_ok = !online.empty();
  for (int c : online) {
    auto pkg = ReadNumber(fs, CpuDir(c) + "/topology/physical_package_id");
    auto core = ReadNumber(fs, CpuDir(c) + "/topology/core_id");
    if (!pkg || !core || *pkg < 0) {
      sysfs_ok = false;
      break;
    }
    packages.insert(*pkg);
    cores.insert({*pkg, *core});
    auto sib = fs.ReadLine(CpuDir(c) + "/topology/thread_siblings_list");
    if (!sib.ok()) sib = fs.ReadLine(CpuDir(c) + "/topology/core_cpus_list");
    if (sib.ok()) {
      if (auto l = ParseCpuList(*sib))
        max_threads = std::max(max_threads, static_cast<int>(l->size()));
    }
  }
  if (sysfs_ok) {
    cpu->sockets = static_cast<int>(packages.size());
    cpu->cores = static_cast<int>(cores.size());
    cpu->threads_per_core =
        max_threads > 0 ? max_threads : std::max(1, *cpu->vcpus / std::max(1, *cpu->cores));
  } else {
    // x86 cpuinfo carries the same numbers.
    std::set<std::string> phys;
    std::set<std::pair<std::string, std::string>> core_ids;
    for (const auto& b : blocks) {
      auto p = Get(b, "physical id");
      auto c = Get(b, "core id");
      if (p) phys.insert(*p);
      if (p && c) core_ids.insert({*p, *c});
    }
    if (!phys.empty() && !core_ids.empty()) {
      cpu->sockets = static_cast<int>(phys.size());
      cpu->cores = static_cast<int>(core_ids.size());
      if (cpu->vcpus) cpu->threads_per_core = std::max(1, *cpu->vcpus / *cpu->cores);
      notes->push_back("cpu: topology from /proc/cpuinfo (sysfs topology unreadable)");
    } else {
      notes->push_back(
          "cpu: /sys/devices/system/cpu/cpu*/topology unreadable; sockets, cores and threads "
          "per core unknown");
    }
  }
  if (cpu->threads_per_core) cpu->vcpu_is = *cpu->threads_per_core > 1 ? "hyperthread" : "core";
}

void Caches(const SysFs& fs, const std::vector<int>& online, CpuFacts* cpu,
            std::vector<std::string>* notes) {
  struct Acc {
    uint64_t size = 0;
    std::set<std::vector<int>> instances;
    int shared = 0;
    std::optional<int> ways, line;
  };
  std::map<std::pair<int, std::string>, Acc> acc;
  for (int c : online) {
    std::string base = CpuDir(c) + "/cache";
    for (const auto& idx : fs.ListDir(base)) {
      if (idx.rfind("index", 0) != 0) continue;
      std::string d = base + "/" + idx;
      auto level = ReadNumber(fs, d + "/level");
      auto type = fs.ReadLine(d + "/type");
      auto size = fs.ReadLine(d + "/size");
      if (!level || !type.ok() || !size.ok()) continue;
      auto bytes = ParseSizeWithSuffix(*size);
      if (!bytes) continue;
      Acc& a = acc[{static_cast<int>(*level), *type}];
      a.size = *bytes;
      std::vector<int> shared{c};
      if (auto s = fs.ReadLine(d + "/shared_cpu_list"); s.ok()) {
        if (auto l = ParseCpuList(*s)) shared = *l;
      }
      a.shared = static_cast<int>(shared.size());
      a.instances.insert(shared);
      if (auto w = ReadNumber(fs, d + "/ways_of_associativity"); w && *w > 0)
        a.ways = static_cast<int>(*w);
      if (auto l = ReadNumber(fs, d + "/coherency_line_size"); l && *l > 0)
        a.line = static_cast<int>(*l);
    }
  }
  if (acc.empty()) {
    notes->push_back("cpu: /sys/devices/system/cpu/cpu*/cache unreadable; cache sizes unknown");
    return;
  }
  for (const auto& [k, a] : acc) {
    CacheLevel cl;
    cl.level = k.first;
    cl.type = k.second;
    cl.size_bytes = a.size;
    cl.instances = static_cast<int>(a.instances.size());
    cl.shared_cpu_count = a.shared;
    cl.ways = a.ways;
    cl.line_size_bytes = a.line;
    cpu->caches.push_back(cl);
  }
}

}  // namespace

std::optional<std::vector<int>> ParseCpuList(std::string_view list) {
  std::vector<int> out;
  list = Trim(list);
  if (list.empty()) return out;
  for (const auto& part : Split(list, ',')) {
    std::string_view p = Trim(part);
    auto dash = p.find('-');
    if (dash == std::string_view::npos) {
      auto v = ParseInt64(p);
      if (!v || *v < 0) return std::nullopt;
      out.push_back(static_cast<int>(*v));
    } else {
      auto a = ParseInt64(p.substr(0, dash));
      auto b = ParseInt64(p.substr(dash + 1));
      if (!a || !b || *a < 0 || *b < *a || *b - *a > 1 << 20) return std::nullopt;
      for (int64_t i = *a; i <= *b; ++i) out.push_back(static_cast<int>(i));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::optional<uint64_t> ParseSizeWithSuffix(std::string_view text) {
  std::string s(Trim(text));
  if (s.empty()) return std::nullopt;
  size_t i = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  if (i == 0) return std::nullopt;
  auto n = ParseInt64(std::string_view(s).substr(0, i));
  if (!n || *n < 0) return std::nullopt;
  std::string unit = ToLower(Trim(std::string_view(s).substr(i)));
  uint64_t mult;
  if (unit.empty() || unit == "b")
    mult = 1;
  else if (unit == "k" || unit == "kb" || unit == "kib")
    mult = 1024;
  else if (unit == "m" || unit == "mb" || unit == "mib")
    mult = 1024ull * 1024;
  else if (unit == "g" || unit == "gb" || unit == "gib")
    mult = 1024ull * 1024 * 1024;
  else
    return std::nullopt;
  return static_cast<uint64_t>(*n) * mult;
}

CpuFacts CollectCpuFacts(const SysFs& fs, const DmiStrings& dmi, std::vector<std::string>* notes) {
  CpuFacts cpu;
  std::vector<Block> blocks;
  if (auto text = fs.ReadFile("/proc/cpuinfo"); text.ok()) {
    blocks = ParseCpuinfo(*text);
  } else {
    notes->push_back("cpu: " + text.status().message());
  }

  std::vector<int> online;
  if (auto o = fs.ReadLine("/sys/devices/system/cpu/online"); o.ok()) {
    if (auto l = ParseCpuList(*o)) online = *l;
  }
  if (online.empty()) {
    for (const auto& b : blocks) {
      if (auto p = Get(b, "processor")) {
        if (auto v = ParseInt64(*p)) online.push_back(static_cast<int>(*v));
      }
    }
    if (!online.empty()) {
      notes->push_back(
          "cpu: /sys/devices/system/cpu/online unreadable; vCPUs counted in /proc/cpuinfo");
    }
  }
  if (!online.empty()) {
    cpu.vcpus = static_cast<int>(online.size());
  } else {
    notes->push_back(
        "cpu: neither /sys/devices/system/cpu/online nor /proc/cpuinfo lists CPUs; vCPUs unknown");
  }

  Identify(fs, blocks, online, dmi, &cpu, notes);
  Flags(&cpu);
  if (cpu.vcpus) Topology(fs, blocks, online, &cpu, notes);
  Caches(fs, online, &cpu, notes);
  if (cpu.flags.empty())
    notes->push_back("cpu: CPU flags unreadable (no flags/Features in /proc/cpuinfo)");
  return cpu;
}

}  // namespace pgrig::host
