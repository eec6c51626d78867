// Naming CPUs from the numbers they report: Arm MIDR (implementer, part)
// pairs and x86 (vendor, family, model, stepping).
//
// These are pure lookups over static tables, safe to call from any thread.
// Every number in the tables was checked against a public source (the Linux
// kernel's arch/arm64/include/asm/cputype.h, arch/x86/include/asm/
// intel-family.h and the Zen ranges in arch/x86/kernel/cpu/amd.c); docs/
// facts.md lists them.  An unknown pair yields std::nullopt, never a guess.
//
// A core does not name a chip: Neoverse V2 is in AWS Graviton4, Google Axion
// and NVIDIA Grace.  ArmChipCandidates() lists every chip the pair implies,
// each with a confidence, and uses DMI strings (cloud vendor, product name)
// to break ties when they are readable.
#ifndef PGRIG_HOST_CPU_IDS_H_
#define PGRIG_HOST_CPU_IDS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pgrig::host {

enum class Confidence { kLow, kMedium, kHigh };
const char* ConfidenceName(Confidence c);  // "low", "medium", "high"

// The name of an Arm implementer code ("Arm", "Ampere", ...), or nullopt.
std::optional<std::string> ArmImplementerName(uint32_t implementer);

struct ArmCore {
  std::string name;          // "Neoverse V1"
  std::string architecture;  // "Armv8.4-A"
};

// The core for an (implementer, part) pair; the pair, never the part alone,
// because different implementers reuse part numbers.
std::optional<ArmCore> IdentifyArmCore(uint32_t implementer, uint32_t part);

// What DMI says about the machine, used to break ties between chips.
struct DmiStrings {
  std::string sys_vendor;
  std::string product_name;
  std::string board_vendor;
  std::string bios_vendor;
  std::string chassis_asset_tag;
  bool readable = false;  // false: none of the files could be read
};

struct ChipCandidate {
  std::string name;    // "AWS Graviton3"
  std::string vendor;  // "Amazon"
  Confidence confidence = Confidence::kLow;
  std::string reason;  // why this confidence
};

// Every chip known to use this core, most likely first.
std::vector<ChipCandidate> ArmChipCandidates(uint32_t implementer, uint32_t part,
                                             const DmiStrings& dmi);

struct X86Microarchitecture {
  std::string microarchitecture;  // "Golden Cove", "Zen 4"
  std::string codename;           // "Sapphire Rapids", "Genoa"; may be empty
  Confidence confidence = Confidence::kHigh;
  std::string note;  // e.g. why the codename is uncertain
};

// vendor is /proc/cpuinfo's vendor_id ("GenuineIntel", "AuthenticAMD");
// model_name is used only to confirm a server part ("EPYC", "Xeon").
std::optional<X86Microarchitecture> IdentifyX86(std::string_view vendor, int family, int model,
                                                int stepping, std::string_view model_name);

// The cloud and instance type that DMI shows, when it shows one.
struct CloudIdentity {
  std::string provider;       // "aws", "gcp", "azure", "oci", "alibaba", "hetzner"
  std::string instance_type;  // "r7g.large"; empty when DMI does not carry it
};
std::optional<CloudIdentity> IdentifyCloud(const DmiStrings& dmi);

}  // namespace pgrig::host

#endif  // PGRIG_HOST_CPU_IDS_H_
