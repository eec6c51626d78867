// The hypervisor's CPUID signature (x86 leaf 0x40000000), which names the
// hypervisor when DMI does not (a KVM guest booted without SMBIOS tables,
// such as a microVM).
//
// ReadHypervisorCpuidSignature() executes CPUID on this machine; it is
// compiled only for x86 (elsewhere it returns nullopt and callers fall back
// to DMI and the device tree).  HypervisorFromCpuidSignature() is the pure
// half, so tests feed it signatures.  No state; thread-safe.
#ifndef PGRIG_HOST_HYPERVISOR_CPUID_H_
#define PGRIG_HOST_HYPERVISOR_CPUID_H_

#include <optional>
#include <string>
#include <string_view>

namespace pgrig::host {

// The 12-byte vendor signature of leaf 0x40000000 (EBX, ECX, EDX), with
// trailing NULs removed; nullopt when the CPU does not set the hypervisor
// bit (CPUID.1:ECX[31]) or this is not an x86 build.
std::optional<std::string> ReadHypervisorCpuidSignature();

// "KVMKVMKVM" -> "kvm", "Microsoft Hv" -> "hyper-v", "VMwareVMware" ->
// "vmware", "XenVMMXenVMM" -> "xen", "TCGTCGTCGTCG" -> "qemu-tcg",
// "ACRNACRNACRN" -> "acrn", " lrpepyh  vr" -> "parallels", "bhyve bhyve " ->
// "bhyve", "VBoxVBoxVBox" -> "virtualbox"; nullopt for anything else.
std::optional<std::string> HypervisorFromCpuidSignature(std::string_view signature);

}  // namespace pgrig::host

#endif  // PGRIG_HOST_HYPERVISOR_CPUID_H_
