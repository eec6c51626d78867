#include "tune/from_facts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/strings.h"

namespace pgrig::tune {

TuneInputs InputsFromFacts(const host::HostFacts& h, const host::ServerFacts* server,
                           std::vector<std::string>* notes) {
  TuneInputs in;
  if (h.effective_memory_bytes) {
    in.memory_bytes = *h.effective_memory_bytes;
  } else if (h.memory.total_bytes) {
    in.memory_bytes = *h.memory.total_bytes;
  } else {
    notes->push_back("memory: unknown; give --memory");
  }
  if (h.effective_cpus) {
    in.cpus = std::max(1, static_cast<int>(std::floor(*h.effective_cpus)));
  } else if (h.cpu.vcpus) {
    in.cpus = *h.cpu.vcpus;
  } else {
    in.cpus = 1;
    notes->push_back("CPUs: unknown, assumed 1; give --cpus");
  }
  in.threads_per_core = std::max(1, h.cpu.threads_per_core.value_or(1));
  in.arch = h.cpu.architecture.value_or("x86_64");
  in.cpu_description = h.cpu.microarchitecture.value_or(h.cpu.model_name.value_or(""));
  if (h.os.page_size_bytes) in.base_page_size = *h.os.page_size_bytes;
  if (h.memory.default_huge_page_size_bytes)
    in.huge_page_size = *h.memory.default_huge_page_size_bytes;
  for (const auto& pool : h.memory.huge_pages) in.huge_page_sizes.push_back(pool.page_size_bytes);

  in.storage = StorageClass::kSsd;
  if (h.storage) {
    if (h.storage->nvme.value_or(false)) {
      in.storage = StorageClass::kNvme;
    } else if (h.storage->virtual_disk.value_or(false)) {
      // virtio-blk and Xen disks report rotational = 1 whatever is behind
      // them; cloud volumes and VM images on hosts are flash nearly always.
      notes->push_back(fmt::format(
          "storage: {} is a virtual disk whose rotational flag says nothing about the storage "
          "behind it; assumed ssd; give --storage",
          h.storage->device.value_or("the data directory's device")));
    } else if (h.storage->rotational) {
      in.storage = *h.storage->rotational ? StorageClass::kHdd : StorageClass::kSsd;
    } else {
      notes->push_back("storage: class unknown, assumed ssd; give --storage");
    }
  } else {
    notes->push_back(
        "storage: the data directory's device is unknown, assumed ssd; give --storage");
  }

  if (server) {
    if (server->version_num) in.server_major = *server->version_num / 10000;
    const std::string& a = server->build.arm_atomics;
    in.arm_atomics = a == "lse"               ? ArmAtomics::kLse
                     : a == "outline_atomics" ? ArmAtomics::kOutlineAtomics
                     : a == "ll_sc_only"      ? ArmAtomics::kLoadStoreExclusive
                     : a == "unknown"         ? ArmAtomics::kUnknown
                                              : ArmAtomics::kNotApplicable;
  }
  return in;
}

namespace {

// Drops the notes whose topic ("memory:", "CPUs:", "storage:") an option answered.
void DropNotes(const std::string& topic, std::vector<std::string>* notes) {
  notes->erase(std::remove_if(notes->begin(), notes->end(),
                              [&](const std::string& n) { return n.rfind(topic, 0) == 0; }),
               notes->end());
}

uint64_t DefaultHugePageFor(uint64_t base_page) {
  // Linux's PMD-sized huge page for each arm64 granule; 2MB on x86-64.
  if (base_page == 64 * kKiB) return 512 * kMiB;
  if (base_page == 16 * kKiB) return 32 * kMiB;
  return 2 * kMiB;
}

}  // namespace

Result<std::string> ParseArch(std::string_view text) {
  std::string a = ToLower(Trim(text));
  if (a == "arm64") a = "aarch64";
  if (a == "amd64" || a == "x64") a = "x86_64";
  for (const char* k : {"x86_64", "aarch64", "ppc64le", "s390x", "riscv64"}) {
    if (a == k) return a;
  }
  return InvalidArgument(fmt::format(
      "--arch '{}' is not an architecture pgrig knows; give x86_64, aarch64, ppc64le, s390x or "
      "riscv64",
      text));
}

Status ValidateOverrides(const InputOverrides& o) {
  if (o.memory && *o.memory < kMinMemoryBytes) {
    return InvalidArgument(
        fmt::format("--memory {} is below the 256MB pgrig can tune for (nothing was changed)",
                    SettingValue::Bytes(*o.memory).ToConf()));
  }
  if (o.memory && *o.memory > kMaxMemoryBytes) {
    return InvalidArgument(fmt::format("--memory {} is too large: pgrig tunes for at most 64TB",
                                       SettingValue::Bytes(*o.memory).ToConf()));
  }
  if (o.cpus && (*o.cpus < 1 || *o.cpus > 4096)) {
    return InvalidArgument(fmt::format("--cpus {} is out of range; give 1 to 4096", *o.cpus));
  }
  if (o.connections && (*o.connections < kMinConnections || *o.connections > kMaxConnections)) {
    return InvalidArgument(
        fmt::format("--connections {} is out of range; give {} to {} (nothing was changed)",
                    *o.connections, kMinConnections, kMaxConnections));
  }
  if (o.threads_per_core && (*o.threads_per_core < 1 || *o.threads_per_core > 8)) {
    return InvalidArgument(fmt::format(
        "--smt {} is out of range; give the threads per core, 1 to 8", *o.threads_per_core));
  }
  if (o.page_size && *o.page_size != 4 * kKiB && *o.page_size != 16 * kKiB &&
      *o.page_size != 64 * kKiB) {
    return InvalidArgument(
        fmt::format("--page-size {} is not a kernel page size; give 4kB, 16kB or 64kB",
                    SettingValue::Bytes(*o.page_size).ToConf()));
  }
  const std::string arch = o.arch.value_or("");
  if (o.page_size && *o.page_size != 4 * kKiB && !arch.empty() && arch != "aarch64" &&
      arch != "ppc64le") {
    return InvalidArgument(
        fmt::format("--page-size {} does not exist on {}; {} kernels use 4kB pages",
                    SettingValue::Bytes(*o.page_size).ToConf(), arch, arch));
  }
  if (o.threads_per_core && *o.threads_per_core > 1 && o.cpus &&
      *o.cpus % *o.threads_per_core != 0) {
    return InvalidArgument(fmt::format("--cpus {} is not a whole number of cores with --smt {}",
                                       *o.cpus, *o.threads_per_core));
  }
  return Status::Ok();
}

void ApplyOverrides(const InputOverrides& o, TuneInputs* in, std::vector<std::string>* notes) {
  if (o.memory) {
    in->memory_bytes = *o.memory;
    DropNotes("memory:", notes);
  }
  if (o.cpus) {
    in->cpus = *o.cpus;
    DropNotes("CPUs:", notes);
  }
  if (o.storage) {
    in->storage = *o.storage;
    DropNotes("storage:", notes);
  }
  if (o.threads_per_core) {
    in->threads_per_core = *o.threads_per_core;
    in->threads_per_core_known = true;
  }
  if (o.arch) {
    in->arch = *o.arch;
    in->arm_atomics = *o.arch == "aarch64" ? ArmAtomics::kUnknown : ArmAtomics::kNotApplicable;
  }
  if (o.page_size) {
    in->base_page_size = *o.page_size;
    in->huge_page_size = DefaultHugePageFor(*o.page_size);
    in->huge_page_sizes = {in->huge_page_size};
    if (*o.page_size == 64 * kKiB) in->huge_page_sizes.push_back(2 * kMiB);  // contiguous-PTE
  }
  if (o.connections) in->connections = o.connections;
  if (o.data_size) in->data_size_bytes = o.data_size;
}

TuneInputs InputsAsGiven(const InputOverrides& o, std::vector<std::string>* notes) {
  TuneInputs in;
  in.arch.clear();  // unknown unless --arch says
  in.threads_per_core = 1;
  in.threads_per_core_known = false;
  in.base_page_size = 4 * kKiB;
  in.huge_page_size = 2 * kMiB;
  in.huge_page_sizes = {2 * kMiB};
  in.storage = StorageClass::kSsd;
  notes->push_back("storage: not given, assumed ssd; give --storage");
  ApplyOverrides(o, &in, notes);
  if (!o.threads_per_core) {
    notes->push_back(
        "SMT: not given, so every vCPU counts as a core; give --smt 2 for an SMT machine");
  }
  return in;
}

}  // namespace pgrig::tune
