#include "host/cpu_ids.h"

#include <array>
#include <regex>

#include "common/enum_names.h"
#include "common/strings.h"

namespace pgrig::host {

namespace {

// Implementer codes (MIDR_EL1 bits 31:24), from the kernel's cputype.h.
constexpr uint32_t kImpArm = 0x41;
constexpr uint32_t kImpNvidia = 0x4e;
constexpr uint32_t kImpMicrosoft = 0x6d;
constexpr uint32_t kImpAmpere = 0xc0;

struct ImplementerRow {
  uint32_t code;
  const char* name;
};
constexpr std::array<ImplementerRow, 11> kImplementers = {{
    {0x41, "Arm"},
    {0x42, "Broadcom"},
    {0x43, "Cavium"},
    {0x46, "Fujitsu"},
    {0x48, "HiSilicon"},
    {0x4e, "NVIDIA"},
    {0x50, "Applied Micro"},
    {0x51, "Qualcomm"},
    {0x61, "Apple"},
    {0x6d, "Microsoft"},
    {0xc0, "Ampere"},
}};

struct CoreRow {
  uint32_t implementer;
  uint32_t part;
  const char* name;
  const char* architecture;
};
// Part numbers from arch/arm64/include/asm/cputype.h.
constexpr std::array<CoreRow, 22> kCores = {{
    {kImpArm, 0xd03, "Cortex-A53", "Armv8.0-A"},
    {kImpArm, 0xd07, "Cortex-A57", "Armv8.0-A"},
    {kImpArm, 0xd08, "Cortex-A72", "Armv8.0-A"},
    {kImpArm, 0xd09, "Cortex-A73", "Armv8.0-A"},
    {kImpArm, 0xd05, "Cortex-A55", "Armv8.2-A"},
    {kImpArm, 0xd0b, "Cortex-A76", "Armv8.2-A"},
    {kImpArm, 0xd0c, "Neoverse N1", "Armv8.2-A"},
    {kImpArm, 0xd0d, "Cortex-A77", "Armv8.2-A"},
    {kImpArm, 0xd40, "Neoverse V1", "Armv8.4-A"},
    {kImpArm, 0xd41, "Cortex-A78", "Armv8.2-A"},
    {kImpArm, 0xd44, "Cortex-X1", "Armv8.2-A"},
    {kImpArm, 0xd49, "Neoverse N2", "Armv9.0-A"},
    {kImpArm, 0xd4f, "Neoverse V2", "Armv9.0-A"},
    {kImpArm, 0xd83, "Neoverse V3AE", "Armv9.2-A"},
    {kImpArm, 0xd84, "Neoverse V3", "Armv9.2-A"},
    {kImpArm, 0xd8e, "Neoverse N3", "Armv9.2-A"},
    {kImpAmpere, 0xac3, "AmpereOne", "Armv8.6-A"},
    {kImpAmpere, 0xac4, "AmpereOne (AC04)", "Armv8.6-A"},
    // Azure Cobalt 100 reports Microsoft's implementer code with Neoverse
    // N2's part number ("Based on r0p0 of ARM Neoverse N2" in cputype.h).
    {kImpMicrosoft, 0xd49, "Neoverse N2 (Microsoft Azure Cobalt 100)", "Armv9.0-A"},
    {kImpNvidia, 0x003, "NVIDIA Denver 2", "Armv8.0-A"},
    {kImpNvidia, 0x004, "NVIDIA Carmel", "Armv8.2-A"},
    {0x46, 0x001, "Fujitsu A64FX", "Armv8.2-A"},
}};

bool Contains(std::string_view hay, std::string_view needle) {
  return ToLower(hay).find(ToLower(needle)) != std::string::npos;
}

enum class Cloud { kUnknownDmi, kOther, kAws, kGoogle, kAzure, kAlibaba, kOracle, kNvidia };

Cloud CloudOf(const DmiStrings& dmi) {
  if (!dmi.readable) return Cloud::kUnknownDmi;
  auto any = [&](std::string_view s) {
    return Contains(dmi.sys_vendor, s) || Contains(dmi.board_vendor, s) ||
           Contains(dmi.bios_vendor, s);
  };
  if (any("Amazon")) return Cloud::kAws;
  if (any("Google")) return Cloud::kGoogle;
  if (Contains(dmi.sys_vendor, "Microsoft")) return Cloud::kAzure;
  if (any("Alibaba")) return Cloud::kAlibaba;
  if (Contains(dmi.chassis_asset_tag, "OracleCloud")) return Cloud::kOracle;
  if (any("NVIDIA")) return Cloud::kNvidia;
  return Cloud::kOther;
}

const char* CloudWord(Cloud c) {
  static constexpr const char* kNames[] = {"unreadable DMI", "another vendor",  "Amazon EC2",
                                           "Google Cloud",   "Microsoft Azure", "Alibaba Cloud",
                                           "Oracle Cloud",   "NVIDIA"};
  return NameAt<Cloud::kNvidia>(c, kNames);
}

struct ChipRow {
  const char* name;
  const char* vendor;
  Cloud home;  // where this chip is found; kOther: sold as hardware
};

// Which chips use which core.  Graviton1 = Cortex-A72, Graviton2 = N1,
// Graviton3 = V1, Graviton4 = V2, Graviton5 = V3 (AWS and Arm, Dec 2025);
// Ampere Altra = N1; Google Axion = V2; NVIDIA Grace = V2; Azure Cobalt 100
// = N2; Alibaba Yitian 710 = N2.
std::vector<ChipRow> ChipsForCore(uint32_t implementer, uint32_t part) {
  if (implementer == kImpArm) {
    switch (part) {
      case 0xd08:
        return {{"AWS Graviton (first generation)", "Amazon", Cloud::kAws}};
      case 0xd0c:
        return {{"AWS Graviton2", "Amazon", Cloud::kAws},
                {"Ampere Altra / Altra Max", "Ampere", Cloud::kOther}};
      case 0xd40:
        return {{"AWS Graviton3 / Graviton3E", "Amazon", Cloud::kAws}};
      case 0xd4f:
        return {{"AWS Graviton4", "Amazon", Cloud::kAws},
                {"Google Axion", "Google", Cloud::kGoogle},
                {"NVIDIA Grace", "NVIDIA", Cloud::kOther}};
      case 0xd84:
        return {{"AWS Graviton5", "Amazon", Cloud::kAws}};
      case 0xd49:
        return {{"Microsoft Azure Cobalt 100", "Microsoft", Cloud::kAzure},
                {"Alibaba Yitian 710", "Alibaba", Cloud::kAlibaba}};
      default:
        return {};
    }
  }
  if (implementer == kImpMicrosoft && part == 0xd49) {
    return {{"Microsoft Azure Cobalt 100", "Microsoft", Cloud::kAzure}};
  }
  if (implementer == kImpAmpere && (part == 0xac3 || part == 0xac4)) {
    return {{"AmpereOne", "Ampere", Cloud::kOther}};
  }
  return {};
}

}  // namespace

const char* ConfidenceName(Confidence c) {
  static constexpr const char* kNames[] = {"low", "medium", "high"};
  return NameAt<Confidence::kHigh>(c, kNames, "low");
}

std::optional<std::string> ArmImplementerName(uint32_t implementer) {
  for (const auto& r : kImplementers) {
    if (r.code == implementer) return std::string(r.name);
  }
  return std::nullopt;
}

std::optional<ArmCore> IdentifyArmCore(uint32_t implementer, uint32_t part) {
  for (const auto& r : kCores) {
    if (r.implementer == implementer && r.part == part) return ArmCore{r.name, r.architecture};
  }
  return std::nullopt;
}

std::vector<ChipCandidate> ArmChipCandidates(uint32_t implementer, uint32_t part,
                                             const DmiStrings& dmi) {
  std::vector<ChipRow> rows = ChipsForCore(implementer, part);
  std::vector<ChipCandidate> out;
  if (rows.empty()) return out;
  Cloud cloud = CloudOf(dmi);
  // A chip is certain when its own cloud's DMI is present, or when it is the
  // only chip for this core and its maker's implementer code says so.
  bool vendor_specific_implementer = implementer != kImpArm;
  for (const auto& r : rows) {
    ChipCandidate c{r.name, r.vendor, Confidence::kLow, ""};
    if (rows.size() == 1 && vendor_specific_implementer) {
      c.confidence = Confidence::kHigh;
      c.reason = "the implementer code is the chip maker's own";
    } else if (cloud == Cloud::kUnknownDmi) {
      c.confidence = rows.size() == 1 ? Confidence::kMedium : Confidence::kLow;
      c.reason = rows.size() == 1 ? "the only known chip with this core; DMI unreadable to confirm"
                                  : "several chips share this core and DMI is unreadable";
    } else if (r.home != Cloud::kOther && r.home == cloud) {
      c.confidence = Confidence::kHigh;
      c.reason = std::string("DMI shows ") + CloudWord(cloud);
    } else if (r.home != Cloud::kOther) {
      c.confidence = Confidence::kLow;
      c.reason = std::string("this chip is only offered by its own cloud, but DMI shows ") +
                 CloudWord(cloud);
    } else {
      // Hardware sold to anyone: likely unless DMI names one of the clouds
      // that have their own chip for this core.
      bool own_chip_cloud = false;
      for (const auto& o : rows) {
        if (o.home != Cloud::kOther && o.home == cloud) own_chip_cloud = true;
      }
      if (own_chip_cloud) {
        c.confidence = Confidence::kLow;
        c.reason = std::string("DMI shows ") + CloudWord(cloud) + ", which has its own chip";
      } else if (cloud == Cloud::kNvidia && std::string_view(r.vendor) == "NVIDIA") {
        c.confidence = Confidence::kHigh;
        c.reason = "DMI names NVIDIA";
      } else {
        c.confidence = Confidence::kMedium;
        c.reason = std::string("sold as hardware; DMI shows ") + CloudWord(cloud);
      }
    }
    out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(), [](const ChipCandidate& a, const ChipCandidate& b) {
    return static_cast<int>(a.confidence) > static_cast<int>(b.confidence);
  });
  return out;
}

std::optional<X86Microarchitecture> IdentifyX86(std::string_view vendor, int family, int model,
                                                int stepping, std::string_view model_name) {
  using X = X86Microarchitecture;
  if (vendor == "GenuineIntel" && family == 6) {
    // Model numbers from arch/x86/include/asm/intel-family.h.
    switch (model) {
      case 0x3f:
        return X{"Haswell", "Haswell-EP", Confidence::kHigh, ""};
      case 0x4f:
        return X{"Broadwell", "Broadwell-EP", Confidence::kHigh, ""};
      case 0x55:
        // One model number, three generations told apart by stepping.
        if (stepping >= 10) return X{"Cooper Lake", "Cooper Lake-SP", Confidence::kHigh, ""};
        if (stepping >= 5) return X{"Cascade Lake", "Cascade Lake-SP", Confidence::kHigh, ""};
        return X{"Skylake", "Skylake-SP", Confidence::kHigh, ""};
      case 0x6a:
        return X{"Sunny Cove", "Ice Lake-SP", Confidence::kHigh, ""};
      case 0x6c:
        return X{"Sunny Cove", "Ice Lake-D", Confidence::kHigh, ""};
      case 0x8f:
        return X{"Golden Cove", "Sapphire Rapids", Confidence::kHigh, ""};
      case 0xcf:
        return X{"Raptor Cove", "Emerald Rapids", Confidence::kHigh, ""};
      case 0xad:
        return X{"Redwood Cove", "Granite Rapids", Confidence::kHigh, ""};
      case 0xae:
        return X{"Redwood Cove", "Granite Rapids-D", Confidence::kHigh, ""};
      case 0xaf:
        return X{"Crestmont", "Sierra Forest", Confidence::kHigh, ""};
      case 0xdd:
        return X{"Darkmont", "Clearwater Forest", Confidence::kHigh, ""};
      default:
        return std::nullopt;
    }
  }
  if (vendor == "AuthenticAMD") {
    bool epyc = Contains(model_name, "EPYC");
    // Zen generations by (family, model range), as arch/x86/kernel/cpu/amd.c
    // assigns them; the EPYC codename only for the server model ranges.
    auto server = [&](const char* uarch, const char* codename) -> X {
      if (epyc) return X{uarch, codename, Confidence::kHigh, ""};
      // Desktop and workstation parts share these model numbers; a readable
      // model name that is not an EPYC rules the server codename out.
      if (!Trim(model_name).empty()) return X{uarch, "", Confidence::kHigh, ""};
      return X{uarch, codename, Confidence::kMedium,
               "model name unreadable; the codename assumes a server part"};
    };
    if (family == 0x17) {
      if (model <= 0x0f) return server("Zen", "Naples");
      if (model >= 0x30 && model <= 0x3f) return server("Zen 2", "Rome");
      if (model <= 0x2f || (model >= 0x50 && model <= 0x5f))
        return X{"Zen", "", Confidence::kHigh, ""};
      if ((model >= 0x40 && model <= 0x7f) || model == 0x90 || model == 0x91 ||
          (model >= 0xa0 && model <= 0xaf)) {
        return X{"Zen 2", "", Confidence::kHigh, ""};
      }
      return std::nullopt;
    }
    if (family == 0x19) {
      if (model <= 0x0f) return server("Zen 3", "Milan");
      if (model >= 0x10 && model <= 0x1f) return server("Zen 4", "Genoa");
      if (model >= 0xa0 && model <= 0xaf) return server("Zen 4c", "Bergamo / Siena");
      if (model >= 0x20 && model <= 0x5f) return X{"Zen 3", "", Confidence::kHigh, ""};
      if (model >= 0x60 && model <= 0x9f) return X{"Zen 4", "", Confidence::kHigh, ""};
      return std::nullopt;
    }
    if (family == 0x1a) {
      if (model <= 0x0f) return server("Zen 5", "Turin");
      if (model >= 0x10 && model <= 0x1f) return server("Zen 5c", "Turin Dense");
      if ((model >= 0x20 && model <= 0x2f) || (model >= 0x40 && model <= 0x4f) ||
          (model >= 0x60 && model <= 0x7f)) {
        return X{"Zen 5", "", Confidence::kHigh, ""};
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<CloudIdentity> IdentifyCloud(const DmiStrings& dmi) {
  if (!dmi.readable) return std::nullopt;
  Cloud c = CloudOf(dmi);
  CloudIdentity id;
  switch (c) {
    case Cloud::kAws: {
      id.provider = "aws";
      // Nitro instances carry the instance type ("r7g.large") in
      // product_name; Xen-era ones say "HVM domU".
      static const std::regex kType("^[a-z][a-z0-9-]*\\.[a-z0-9-]+$");
      std::string p(Trim(dmi.product_name));
      if (std::regex_match(p, kType)) id.instance_type = p;
      return id;
    }
    case Cloud::kGoogle:
      id.provider = "gcp";
      return id;
    case Cloud::kAlibaba:
      id.provider = "alibaba";
      return id;
    case Cloud::kOracle:
      id.provider = "oci";
      return id;
    case Cloud::kAzure:
      // Azure's chassis asset tag, which Hyper-V on premises does not carry.
      if (Trim(dmi.chassis_asset_tag) == "7783-7084-3265-9085-8269-3286-77") {
        id.provider = "azure";
        return id;
      }
      return std::nullopt;
    default:
      break;
  }
  if (Contains(dmi.sys_vendor, "Hetzner")) {
    id.provider = "hetzner";
    return id;
  }
  return std::nullopt;
}

}  // namespace pgrig::host
