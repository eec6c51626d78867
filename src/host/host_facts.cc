// Memory, cgroup, OS, virtualization and storage facts, and the collection
// of all host facts.  CPU facts are in cpu_facts.cc.
#include "host/host_facts.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "common/strings.h"
#include "host/hypervisor_cpuid.h"

namespace pgrig::host {

namespace {

std::optional<int64_t> ReadInt(const SysFs& fs, const std::string& path) {
  auto r = fs.ReadLine(path);
  if (!r.ok()) return std::nullopt;
  return ParseInt64(*r);
}

std::optional<int> ReadSmallInt(const SysFs& fs, const std::string& path,
                                std::vector<std::string>* notes, const char* what) {
  auto v = ReadInt(fs, path);
  if (!v) {
    notes->push_back(std::string(what) + ": " + path + " unreadable; unknown");
    return std::nullopt;
  }
  return static_cast<int>(*v);
}

// /proc/meminfo-style "Key:   123 kB" lines -> bytes (or a bare count).
std::map<std::string, uint64_t> ParseMeminfo(const std::string& text) {
  std::map<std::string, uint64_t> out;
  for (const auto& line : Split(text, '\n')) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key(Trim(std::string_view(line).substr(0, colon)));
    auto words = SplitWords(std::string_view(line).substr(colon + 1));
    if (words.empty()) continue;
    auto v = ParseInt64(words[0]);
    if (!v || *v < 0) continue;
    uint64_t n = static_cast<uint64_t>(*v);
    if (words.size() > 1 && ToLower(words[1]) == "kb") n *= 1024;
    out[key] = n;
  }
  return out;
}

// Limits at or above this are "no limit" (cgroup v1 writes 2^63 rounded
// down to a page; nobody has an exabyte of RAM).
constexpr uint64_t kUnlimitedBytes = 1ull << 60;

std::string Parent(const std::string& p) {
  if (p.empty() || p == "/") return "/";
  auto slash = p.find_last_of('/');
  if (slash == 0 || slash == std::string::npos) return "/";
  return p.substr(0, slash);
}

std::string Join2(const std::string& base, const std::string& rel) {
  if (rel.empty() || rel == "/") return base;
  return base + (rel[0] == '/' ? "" : "/") + rel;
}

}  // namespace

std::optional<std::string> BracketedChoice(std::string_view text) {
  auto b = text.find('[');
  auto e = text.find(']', b == std::string_view::npos ? 0 : b);
  if (b == std::string_view::npos || e == std::string_view::npos) return std::nullopt;
  return std::string(text.substr(b + 1, e - b - 1));
}

MemoryFacts CollectMemoryFacts(const SysFs& fs, std::vector<std::string>* notes) {
  MemoryFacts m;
  if (auto text = fs.ReadFile("/proc/meminfo"); text.ok()) {
    auto kv = ParseMeminfo(*text);
    auto get = [&](const char* k) -> std::optional<uint64_t> {
      auto it = kv.find(k);
      if (it == kv.end()) return std::nullopt;
      return it->second;
    };
    m.total_bytes = get("MemTotal");
    m.available_bytes = get("MemAvailable");
    m.swap_total_bytes = get("SwapTotal");
    m.default_huge_page_size_bytes = get("Hugepagesize");
    if (!m.total_bytes)
      notes->push_back("memory: no MemTotal in /proc/meminfo; total memory unknown");
  } else {
    notes->push_back("memory: " + text.status().message() + "; total memory unknown");
  }

  const std::string hp = "/sys/kernel/mm/hugepages";
  for (const auto& d : fs.ListDir(hp)) {
    // "hugepages-2048kB"
    if (d.rfind("hugepages-", 0) != 0) continue;
    auto size = ParseSizeWithSuffix(std::string_view(d).substr(10));
    if (!size) continue;
    HugePagePool p;
    p.page_size_bytes = *size;
    p.total = ReadInt(fs, hp + "/" + d + "/nr_hugepages");
    p.free = ReadInt(fs, hp + "/" + d + "/free_hugepages");
    p.reserved = ReadInt(fs, hp + "/" + d + "/resv_hugepages");
    p.surplus = ReadInt(fs, hp + "/" + d + "/surplus_hugepages");
    m.huge_pages.push_back(p);
  }
  std::sort(m.huge_pages.begin(), m.huge_pages.end(),
            [](const HugePagePool& a, const HugePagePool& b) {
              return a.page_size_bytes < b.page_size_bytes;
            });
  if (m.huge_pages.empty())
    notes->push_back("memory: " + hp + " unreadable; huge page pools unknown");

  const std::string thp = "/sys/kernel/mm/transparent_hugepage";
  auto choice = [&](const std::string& f) -> std::optional<std::string> {
    auto r = fs.ReadLine(thp + "/" + f);
    if (!r.ok()) return std::nullopt;
    return BracketedChoice(*r);
  };
  m.thp_enabled = choice("enabled");
  m.thp_defrag = choice("defrag");
  m.thp_shmem_enabled = choice("shmem_enabled");
  if (!m.thp_enabled)
    notes->push_back("memory: " + thp +
                     "/enabled unreadable or without a [choice]; THP mode unknown");

  m.swappiness = ReadSmallInt(fs, "/proc/sys/vm/swappiness", notes, "memory");
  m.overcommit_memory = ReadSmallInt(fs, "/proc/sys/vm/overcommit_memory", notes, "memory");
  m.overcommit_ratio = ReadSmallInt(fs, "/proc/sys/vm/overcommit_ratio", notes, "memory");
  if (auto v = ReadInt(fs, "/proc/sys/vm/dirty_ratio")) m.dirty_ratio = static_cast<int>(*v);
  if (auto v = ReadInt(fs, "/proc/sys/vm/dirty_background_ratio"))
    m.dirty_background_ratio = static_cast<int>(*v);
  if (auto v = ReadInt(fs, "/proc/sys/vm/zone_reclaim_mode"))
    m.zone_reclaim_mode = static_cast<int>(*v);
  return m;
}

CgroupFacts CollectCgroupFacts(const SysFs& fs, std::vector<std::string>* notes) {
  CgroupFacts cg;
  auto self = fs.ReadFile("/proc/self/cgroup");
  if (!self.ok()) {
    notes->push_back("cgroup: " + self.status().message() + "; container limits unknown");
    return cg;
  }
  std::string v2_path;
  bool has_v2_line = false;
  std::map<std::string, std::string> v1;  // controller -> path
  for (const auto& line : Split(*self, '\n')) {
    auto parts = Split(line, ':');
    if (parts.size() < 3) continue;
    std::string rel = parts[2];
    for (size_t i = 3; i < parts.size(); ++i) rel += ":" + parts[i];
    if (parts[0] == "0" && parts[1].empty()) {
      has_v2_line = true;
      v2_path = rel;
    } else {
      for (const auto& c : Split(parts[1], ',')) v1[c] = rel;
    }
  }
  bool v1_memory = v1.count("memory") && fs.Exists("/sys/fs/cgroup/memory");
  bool v2 = fs.Exists("/sys/fs/cgroup/cgroup.controllers");
  if (v2 && has_v2_line && !v1_memory) {
    cg.version = "v2";
    cg.path = v2_path;
    // The effective limit is the tightest one on the way up to the root.
    std::string p = v2_path.empty() ? "/" : v2_path;
    // Without a cgroup namespace a container may see only its own group
    // mounted at /sys/fs/cgroup while /proc/self/cgroup names the full path.
    if (!fs.Exists(Join2("/sys/fs/cgroup", p))) p = "/";
    bool any_mem = false, any_cpu = false;
    for (;;) {
      std::string dir = Join2("/sys/fs/cgroup", p);
      if (auto r = fs.ReadLine(dir + "/memory.max"); r.ok()) {
        any_mem = true;
        if (*r != "max") {
          if (auto v = ParseInt64(*r); v && *v >= 0) {
            uint64_t b = static_cast<uint64_t>(*v);
            if (!cg.memory_limit_bytes || b < *cg.memory_limit_bytes) cg.memory_limit_bytes = b;
          }
        }
      }
      if (auto r = fs.ReadLine(dir + "/cpu.max"); r.ok()) {
        any_cpu = true;
        auto w = SplitWords(*r);
        if (w.size() == 2 && w[0] != "max") {
          auto q = ParseInt64(w[0]), per = ParseInt64(w[1]);
          if (q && per && *per > 0) {
            double cpus = static_cast<double>(*q) / static_cast<double>(*per);
            if (!cg.cpu_quota_cpus || cpus < *cg.cpu_quota_cpus) cg.cpu_quota_cpus = cpus;
          }
        }
      }
      if (!cg.cpuset) {
        if (auto r = fs.ReadLine(dir + "/cpuset.cpus.effective"); r.ok() && !r->empty())
          cg.cpuset = *r;
      }
      if (p == "/") break;
      p = Parent(p);
    }
    if (!any_mem) notes->push_back("cgroup: memory.max unreadable under /sys/fs/cgroup" + v2_path);
    cg.memory_unlimited = any_mem && !cg.memory_limit_bytes;
    cg.cpu_unlimited = any_cpu && !cg.cpu_quota_cpus;
  } else if (!v1.empty()) {
    cg.version = "v1";
    cg.path = v1.count("memory") ? v1["memory"] : v1.begin()->second;
    // Inside a cgroup namespace the process's path is not under the mount;
    // the mount's root is then the process's own group.
    auto dir_for = [&](const std::vector<std::string>& mounts,
                       const std::string& ctl) -> std::string {
      for (const auto& m : mounts) {
        std::string base = "/sys/fs/cgroup/" + m;
        if (!fs.Exists(base)) continue;
        std::string rel = v1.count(ctl) ? v1[ctl] : "/";
        std::string d = Join2(base, rel);
        return fs.Exists(d) ? d : base;
      }
      return "";
    };
    std::string mem = dir_for({"memory"}, "memory");
    if (!mem.empty()) {
      if (auto v = ReadInt(fs, mem + "/memory.limit_in_bytes"); v && *v >= 0) {
        uint64_t b = static_cast<uint64_t>(*v);
        if (b >= kUnlimitedBytes)
          cg.memory_unlimited = true;
        else
          cg.memory_limit_bytes = b;
      } else {
        notes->push_back("cgroup: " + mem +
                         "/memory.limit_in_bytes unreadable; memory limit unknown");
      }
    }
    std::string cpu = dir_for({"cpu,cpuacct", "cpu", "cpuacct,cpu"}, "cpu");
    if (!cpu.empty()) {
      auto q = ReadInt(fs, cpu + "/cpu.cfs_quota_us");
      auto per = ReadInt(fs, cpu + "/cpu.cfs_period_us");
      if (q && *q < 0)
        cg.cpu_unlimited = true;
      else if (q && per && *per > 0)
        cg.cpu_quota_cpus = static_cast<double>(*q) / static_cast<double>(*per);
    }
    std::string cs = dir_for({"cpuset"}, "cpuset");
    if (!cs.empty()) {
      auto r = fs.ReadLine(cs + "/cpuset.effective_cpus");
      if (!r.ok() || r->empty()) r = fs.ReadLine(cs + "/cpuset.cpus");
      if (r.ok() && !r->empty()) cg.cpuset = *r;
    }
  } else {
    // The kernel always lists at least "0::/" when it has cgroups at all;
    // an empty or foreign file says nothing about limits.
    notes->push_back(
        "cgroup: /proc/self/cgroup lists no usable cgroup (or cgroup2 is not mounted at "
        "/sys/fs/cgroup); container limits unknown");
  }
  if (cg.cpuset) {
    if (auto l = ParseCpuList(*cg.cpuset)) cg.cpuset_cpus = static_cast<int>(l->size());
  }
  return cg;
}

OsFacts CollectOsFacts(const SysFs& fs, std::vector<std::string>* notes) {
  OsFacts os;
  if (auto r = fs.ReadLine("/proc/sys/kernel/osrelease"); r.ok())
    os.kernel_release = *r;
  else
    notes->push_back("os: /proc/sys/kernel/osrelease unreadable; kernel version unknown");

  if (auto r = fs.ReadFile("/etc/os-release"); r.ok()) {
    for (const auto& line : Split(*r, '\n')) {
      if (line.rfind("PRETTY_NAME=", 0) == 0) {
        std::string v = line.substr(12);
        if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'')) v = v.substr(1, v.size() - 2);
        os.os_name = v;
      }
    }
  }

  // Base page size: the kernel's own word for our mappings, which a fixture
  // can carry; on the live machine sysconf is the same answer.
  if (auto r = fs.ReadFile("/proc/self/smaps"); r.ok()) {
    for (const auto& line : Split(*r, '\n')) {
      if (line.rfind("KernelPageSize:", 0) == 0) {
        auto w = SplitWords(std::string_view(line).substr(15));
        if (!w.empty()) os.page_size_bytes = ParseSizeWithSuffix(Join(w, ""));
        break;
      }
    }
  }
  if (!os.page_size_bytes && (fs.root() == "/" || fs.root().empty())) {
    long ps = ::sysconf(_SC_PAGESIZE);
    if (ps > 0) os.page_size_bytes = static_cast<uint64_t>(ps);
  }
  if (!os.page_size_bytes)
    notes->push_back("os: /proc/self/smaps unreadable; base page size unknown");

  if (auto r = fs.ReadLine("/sys/devices/system/clocksource/clocksource0/current_clocksource");
      r.ok()) {
    os.clocksource = *r;
  }
  if (auto r = fs.ReadLine("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"); r.ok()) {
    os.cpufreq_governor = *r;
  }

  const std::string nodes = "/sys/devices/system/node";
  for (const auto& d : fs.ListDir(nodes)) {
    if (d.rfind("node", 0) != 0) continue;
    auto id = ParseInt64(std::string_view(d).substr(4));
    if (!id) continue;
    NumaNode n;
    n.id = static_cast<int>(*id);
    if (auto r = fs.ReadLine(nodes + "/" + d + "/cpulist"); r.ok()) {
      if (auto l = ParseCpuList(*r)) n.cpus = static_cast<int>(l->size());
    }
    if (auto r = fs.ReadFile(nodes + "/" + d + "/meminfo"); r.ok()) {
      // "Node 0 MemTotal:       32768 kB"
      for (const auto& line : Split(*r, '\n')) {
        auto w = SplitWords(line);
        if (w.size() >= 4 && w[2] == "MemTotal:") {
          if (auto v = ParseInt64(w[3])) n.memory_bytes = static_cast<uint64_t>(*v) * 1024;
        }
      }
    }
    os.numa_nodes.push_back(n);
  }
  std::sort(os.numa_nodes.begin(), os.numa_nodes.end(),
            [](const NumaNode& a, const NumaNode& b) { return a.id < b.id; });
  if (os.numa_nodes.empty()) notes->push_back("os: " + nodes + " unreadable; NUMA nodes unknown");
  return os;
}

DmiStrings ReadDmi(const SysFs& fs) {
  DmiStrings d;
  const std::string base = "/sys/class/dmi/id/";
  auto read = [&](const char* f, std::string* out) {
    auto r = fs.ReadLine(base + f);
    if (r.ok()) {
      *out = *r;
      d.readable = true;
    }
  };
  read("sys_vendor", &d.sys_vendor);
  read("product_name", &d.product_name);
  read("board_vendor", &d.board_vendor);
  read("bios_vendor", &d.bios_vendor);
  read("chassis_asset_tag", &d.chassis_asset_tag);
  return d;
}

VirtualizationFacts CollectVirtualizationFacts(const SysFs& fs, const CpuFacts& cpu,
                                               std::vector<std::string>* notes,
                                               const std::optional<std::string>& cpuid_signature) {
  VirtualizationFacts v;
  v.cpuid_signature = cpuid_signature;
  const std::optional<std::string> by_cpuid =
      cpuid_signature ? HypervisorFromCpuidSignature(*cpuid_signature) : std::nullopt;
  v.dmi = ReadDmi(fs);
  v.cloud = IdentifyCloud(v.dmi);
  if (auto r = fs.ReadLine("/sys/hypervisor/type"); r.ok() && !r->empty()) v.hypervisor_type = *r;

  std::string vendor = ToLower(v.dmi.sys_vendor);
  std::string product = ToLower(v.dmi.product_name);
  auto has = [](const std::string& s, const char* w) { return s.find(w) != std::string::npos; };
  if (v.cloud && v.cloud->provider == "aws") {
    bool metal = has(product, ".metal");
    v.virtualized = !metal;
    if (!metal) v.hypervisor = has(product, "hvm domu") ? "xen" : "nitro";
  } else if (has(vendor, "qemu") || has(product, "kvm") || has(product, "standard pc")) {
    v.virtualized = true;
    v.hypervisor = "kvm";
  } else if (has(vendor, "google")) {
    v.virtualized = true;
    v.hypervisor = "kvm";
  } else if (has(vendor, "microsoft") && has(product, "virtual machine")) {
    v.virtualized = true;
    v.hypervisor = "hyper-v";
  } else if (has(vendor, "vmware")) {
    v.virtualized = true;
    v.hypervisor = "vmware";
  } else if (has(vendor, "innotek") || has(product, "virtualbox")) {
    v.virtualized = true;
    v.hypervisor = "virtualbox";
  } else if (has(vendor, "xen") || v.hypervisor_type) {
    v.virtualized = true;
    v.hypervisor = v.hypervisor_type.value_or("xen");
  } else if (by_cpuid) {
    // No DMI name (e.g. a KVM guest without SMBIOS): the CPUID signature,
    // as lscpu's "Hypervisor vendor".
    v.virtualized = true;
    v.hypervisor = *by_cpuid;
  } else if (cpu.hypervisor_flag && *cpu.hypervisor_flag) {
    v.virtualized = true;
    if (cpuid_signature) {
      notes->push_back("virtualization: unknown CPUID hypervisor signature \"" + *cpuid_signature +
                       "\"");
    }
  } else if (cpu.hypervisor_flag && !*cpu.hypervisor_flag) {
    v.virtualized = false;  // x86 sets the flag under every hypervisor
  } else if (v.dmi.readable && !vendor.empty()) {
    // Arm has no hypervisor flag; a hardware vendor in DMI is bare metal
    // as far as we can tell.
    v.virtualized = false;
    notes->push_back("virtualization: no hypervisor named in DMI (\"" + v.dmi.sys_vendor +
                     "\"); assumed bare metal");
  } else {
    notes->push_back("virtualization: no hypervisor flag and DMI unreadable; unknown");
  }

  // Containers: the runtimes' marker files, or a container path in our cgroup.
  if (fs.Exists("/.dockerenv") || fs.Exists("/run/.containerenv")) {
    v.container = true;
  } else if (auto r = fs.ReadFile("/proc/self/cgroup"); r.ok()) {
    v.container = r->find("docker") != std::string::npos ||
                  r->find("kubepods") != std::string::npos ||
                  r->find("containerd") != std::string::npos || r->find("lxc") != std::string::npos;
  }
  return v;
}

StorageFacts CollectStorageFacts(const SysFs& fs, const std::string& path,
                                 std::vector<std::string>* notes) {
  StorageFacts s;
  s.path = path;
  auto mi = fs.ReadFile("/proc/self/mountinfo");
  if (!mi.ok()) {
    notes->push_back("storage: " + mi.status().message() + "; device under " + path + " unknown");
    return s;
  }
  // Longest mount point that is a prefix of the path (lexically: a sysroot
  // has no live symlinks to follow).
  std::string best_mp, best_fs, best_src;
  for (const auto& line : Split(*mi, '\n')) {
    auto w = SplitWords(line);
    if (w.size() < 10) continue;
    auto dash = std::find(w.begin(), w.end(), "-");
    if (dash == w.end() || dash + 2 >= w.end()) continue;
    const std::string& mp = w[4];
    bool prefix = path == mp || mp == "/" ||
                  (path.rfind(mp, 0) == 0 && path.size() > mp.size() && path[mp.size()] == '/');
    if (!prefix || mp.size() < best_mp.size()) continue;
    best_mp = mp;
    best_fs = *(dash + 1);
    best_src = *(dash + 2);
  }
  if (best_mp.empty()) {
    notes->push_back("storage: no mount in /proc/self/mountinfo holds " + path);
    return s;
  }
  s.mount_point = best_mp;
  s.filesystem = best_fs;
  s.source = best_src;
  if (best_src.rfind("/dev/", 0) != 0) {
    notes->push_back("storage: " + path + " is on " + best_fs + " (" + best_src +
                     "), not a block device; device class unknown");
    return s;
  }
  std::string name = best_src.substr(5);
  if (name.rfind("mapper/", 0) == 0) {
    // /dev/mapper/x names a dm-N device; its slaves are the disks.
    std::string want = name.substr(7);
    for (const auto& d : fs.ListDir("/sys/block")) {
      if (auto r = fs.ReadLine("/sys/block/" + d + "/dm/name"); r.ok() && *r == want) name = d;
    }
  }
  std::string disk;
  if (fs.Exists("/sys/block/" + name)) {
    disk = name;
  } else {
    for (const auto& d : fs.ListDir("/sys/block")) {
      if (fs.Exists("/sys/block/" + d + "/" + name)) disk = d;  // a partition of d
    }
  }
  if (disk.empty()) {
    notes->push_back("storage: /sys/block has no device for " + best_src);
    return s;
  }
  if (disk.rfind("dm-", 0) == 0) {
    auto slaves = fs.ListDir("/sys/block/" + disk + "/slaves");
    if (!slaves.empty()) {
      std::string under = slaves.front();
      if (!fs.Exists("/sys/block/" + under)) {
        for (const auto& d : fs.ListDir("/sys/block")) {
          if (fs.Exists("/sys/block/" + d + "/" + under)) under = d;
        }
      }
      if (slaves.size() > 1)
        notes->push_back("storage: " + disk + " spans several devices; describing " + under);
      disk = under;
    }
  }
  s.device = disk;
  std::string q = "/sys/block/" + disk + "/queue";
  const bool virt = disk.rfind("vd", 0) == 0 || disk.rfind("xvd", 0) == 0;
  s.virtual_disk = virt;
  if (auto v = ReadInt(fs, q + "/rotational")) {
    if (virt) {
      // virtio-blk and Xen's blkfront leave the queue rotational whatever
      // backs the disk, so the flag is no evidence either way.
      notes->push_back("storage: " + disk + " is a virtual disk (" +
                       (disk[0] == 'x' ? std::string("Xen") : std::string("virtio-blk")) +
                       "); its rotational flag (" + std::to_string(*v) +
                       ") says nothing about the storage behind it; class unknown");
    } else {
      s.rotational = *v != 0;
    }
  } else {
    notes->push_back("storage: " + q + "/rotational unreadable; rotational unknown");
  }
  if (auto r = fs.ReadLine(q + "/scheduler"); r.ok())
    s.scheduler = BracketedChoice(*r).value_or(*r);
  s.nvme = disk.rfind("nvme", 0) == 0;
  if (auto r = fs.ReadLine("/sys/block/" + disk + "/device/model"); r.ok() && !r->empty())
    s.model = *r;
  return s;
}

HostFacts CollectHostFacts(const SysFs& fs, const HostProbeOptions& options) {
  HostFacts h;
  h.sysroot = fs.root().empty() ? "/" : fs.root();
  DmiStrings dmi = ReadDmi(fs);
  if (!dmi.readable)
    h.notes.push_back("dmi: /sys/class/dmi/id unreadable; chip and cloud identity less certain");
  h.cpu = CollectCpuFacts(fs, dmi, &h.notes);
  h.memory = CollectMemoryFacts(fs, &h.notes);
  h.cgroup = CollectCgroupFacts(fs, &h.notes);
  h.os = CollectOsFacts(fs, &h.notes);
  std::optional<std::string> sig = options.cpuid_signature;
  if (!sig && (fs.root().empty() || fs.root() == "/")) sig = ReadHypervisorCpuidSignature();
  h.virtualization = CollectVirtualizationFacts(fs, h.cpu, &h.notes, sig);
  if (!options.storage_path.empty())
    h.storage = CollectStorageFacts(fs, options.storage_path, &h.notes);

  h.effective_cpus = EffectiveCpus(h.cpu.vcpus, h.cgroup);
  std::optional<uint64_t> mem = h.memory.total_bytes;
  if (h.cgroup.memory_limit_bytes && (!mem || *h.cgroup.memory_limit_bytes < *mem)) {
    mem = h.cgroup.memory_limit_bytes;
  }
  h.effective_memory_bytes = mem;
  return h;
}

std::optional<double> EffectiveCpus(std::optional<int> vcpus, const CgroupFacts& cgroup) {
  std::optional<double> cpus;
  if (vcpus) cpus = *vcpus;
  if (cgroup.cpuset_cpus && (!cpus || *cgroup.cpuset_cpus < *cpus)) cpus = *cgroup.cpuset_cpus;
  if (cgroup.cpu_quota_cpus && (!cpus || *cgroup.cpu_quota_cpus < *cpus))
    cpus = *cgroup.cpu_quota_cpus;
  return cpus;
}

int UsableCpus(const HostFacts& h) {
  if (h.effective_cpus) return std::max(1, static_cast<int>(std::floor(*h.effective_cpus)));
  return static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
}

int UsableCpus() {
  std::vector<std::string> notes;
  const CgroupFacts cgroup = CollectCgroupFacts(SysFs("/"), &notes);
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  const auto cpus = EffectiveCpus(
      online > 0 ? std::optional<int>(static_cast<int>(online)) : std::nullopt, cgroup);
  return cpus ? std::max(1, static_cast<int>(std::floor(*cpus))) : 1;
}

}  // namespace pgrig::host
