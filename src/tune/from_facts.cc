#include "tune/from_facts.h"

#include <algorithm>
#include <cmath>

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
  if (h.memory.default_huge_page_size_bytes) in.huge_page_size = *h.memory.default_huge_page_size_bytes;
  for (const auto& pool : h.memory.huge_pages) in.huge_page_sizes.push_back(pool.page_size_bytes);

  in.storage = StorageClass::kSsd;
  if (h.storage) {
    if (h.storage->nvme.value_or(false)) {
      in.storage = StorageClass::kNvme;
    } else if (h.storage->rotational) {
      in.storage = *h.storage->rotational ? StorageClass::kHdd : StorageClass::kSsd;
    } else {
      notes->push_back("storage: class unknown, assumed ssd; give --storage");
    }
  } else {
    notes->push_back("storage: the data directory's device is unknown, assumed ssd; give --storage");
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

}  // namespace pgrig::tune
