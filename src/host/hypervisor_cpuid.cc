#include "host/hypervisor_cpuid.h"

#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace pgrig::host {

std::optional<std::string> ReadHypervisorCpuidSignature() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return std::nullopt;
  if ((ecx & (1u << 31)) == 0) return std::nullopt;  // no hypervisor present
  // Leaf 0x40000000 is outside the basic range __get_cpuid checks against,
  // so it is read directly; with the hypervisor bit set it is defined.
  __cpuid(0x40000000, eax, ebx, ecx, edx);
  char sig[13] = {};
  std::memcpy(sig, &ebx, 4);
  std::memcpy(sig + 4, &ecx, 4);
  std::memcpy(sig + 8, &edx, 4);
  std::string s(sig, 12);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  if (s.empty()) return std::nullopt;
  return s;
#else
  return std::nullopt;
#endif
}

std::optional<std::string> HypervisorFromCpuidSignature(std::string_view signature) {
  std::string s(signature);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  struct Known {
    const char* signature;
    const char* name;
  };
  static constexpr Known kKnown[] = {
      {"KVMKVMKVM", "kvm"},           {"Linux KVM Hv", "kvm"},       {"Microsoft Hv", "hyper-v"},
      {"VMwareVMware", "vmware"},     {"XenVMMXenVMM", "xen"},       {"TCGTCGTCGTCG", "qemu-tcg"},
      {"ACRNACRNACRN", "acrn"},       {" lrpepyh  vr", "parallels"}, {"bhyve bhyve ", "bhyve"},
      {"VBoxVBoxVBox", "virtualbox"},
  };
  for (const auto& k : kKnown) {
    if (s == k.signature) return std::string(k.name);
  }
  return std::nullopt;
}

}  // namespace pgrig::host
