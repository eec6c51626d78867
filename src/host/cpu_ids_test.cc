// The identification tables: pairs, not part numbers; ties broken by DMI.
#include "host/cpu_ids.h"

#include <gtest/gtest.h>

namespace pgrig::host {
namespace {

DmiStrings Dmi(std::string vendor, std::string product = "") {
  DmiStrings d;
  d.sys_vendor = vendor;
  d.product_name = product;
  d.readable = true;
  return d;
}

TEST(ArmCoreTest, NamesTheRequiredCores) {
  struct Case {
    uint32_t imp, part;
    const char* name;
  };
  for (const Case& c : {Case{0x41, 0xd08, "Cortex-A72"}, Case{0x41, 0xd0c, "Neoverse N1"},
                        Case{0x41, 0xd40, "Neoverse V1"}, Case{0x41, 0xd49, "Neoverse N2"},
                        Case{0x41, 0xd4f, "Neoverse V2"}, Case{0x41, 0xd84, "Neoverse V3"},
                        Case{0x41, 0xd8e, "Neoverse N3"}, Case{0xc0, 0xac3, "AmpereOne"}}) {
    auto core = IdentifyArmCore(c.imp, c.part);
    ASSERT_TRUE(core.has_value()) << c.name;
    EXPECT_EQ(core->name, c.name);
  }
}

TEST(ArmCoreTest, MatchesThePairNeverThePartAlone) {
  // 0xd0c under another implementer is not a Neoverse N1.
  EXPECT_FALSE(IdentifyArmCore(0x51, 0xd0c).has_value());
  EXPECT_FALSE(IdentifyArmCore(0xc0, 0xd4f).has_value());
  // Microsoft's implementer with N2's part is Cobalt 100.
  auto cobalt = IdentifyArmCore(0x6d, 0xd49);
  ASSERT_TRUE(cobalt.has_value());
  EXPECT_NE(cobalt->name.find("Cobalt 100"), std::string::npos);
  EXPECT_FALSE(IdentifyArmCore(0x41, 0xfff).has_value());
}

TEST(ArmChipTest, NeoverseV2IsAmbiguousWithoutDmi) {
  DmiStrings none;
  auto chips = ArmChipCandidates(0x41, 0xd4f, none);
  ASSERT_EQ(chips.size(), 3u);
  for (const auto& c : chips) EXPECT_EQ(c.confidence, Confidence::kLow) << c.name;
}

TEST(ArmChipTest, DmiBreaksTiesBetweenV2Chips) {
  auto aws = ArmChipCandidates(0x41, 0xd4f, Dmi("Amazon EC2", "r8g.large"));
  EXPECT_EQ(aws[0].name, "AWS Graviton4");
  EXPECT_EQ(aws[0].confidence, Confidence::kHigh);
  auto gcp = ArmChipCandidates(0x41, 0xd4f, Dmi("Google", "Google Compute Engine"));
  EXPECT_EQ(gcp[0].name, "Google Axion");
  EXPECT_EQ(gcp[0].confidence, Confidence::kHigh);
  auto metal = ArmChipCandidates(0x41, 0xd4f, Dmi("Supermicro", "ARS-111GL-NHR"));
  EXPECT_EQ(metal[0].name, "NVIDIA Grace");
  EXPECT_EQ(metal[0].confidence, Confidence::kMedium);
  auto nv = ArmChipCandidates(0x41, 0xd4f, Dmi("NVIDIA", "P3880"));
  EXPECT_EQ(nv[0].name, "NVIDIA Grace");
  EXPECT_EQ(nv[0].confidence, Confidence::kHigh);
}

TEST(ArmChipTest, GravitonGenerations) {
  auto aws = Dmi("Amazon EC2", "x.large");
  EXPECT_EQ(ArmChipCandidates(0x41, 0xd08, aws)[0].name, "AWS Graviton (first generation)");
  EXPECT_EQ(ArmChipCandidates(0x41, 0xd0c, aws)[0].name, "AWS Graviton2");
  EXPECT_NE(ArmChipCandidates(0x41, 0xd40, aws)[0].name.find("Graviton3"), std::string::npos);
  EXPECT_EQ(ArmChipCandidates(0x41, 0xd4f, aws)[0].name, "AWS Graviton4");
  EXPECT_EQ(ArmChipCandidates(0x41, 0xd84, aws)[0].name, "AWS Graviton5");
  // A core no known chip uses yields no candidates rather than a guess.
  EXPECT_TRUE(ArmChipCandidates(0x41, 0xd8e, aws).empty());
}

TEST(ArmChipTest, CobaltByImplementerIsCertain) {
  DmiStrings none;
  auto c = ArmChipCandidates(0x6d, 0xd49, none);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].name, "Microsoft Azure Cobalt 100");
  EXPECT_EQ(c[0].confidence, Confidence::kHigh);
  auto n2 = ArmChipCandidates(0x41, 0xd49, Dmi("Microsoft Corporation", "Virtual Machine"));
  EXPECT_EQ(n2[0].name, "Microsoft Azure Cobalt 100");
  EXPECT_EQ(n2[0].confidence, Confidence::kHigh);
}

TEST(X86Test, IntelServerGenerations) {
  struct Case {
    int model, stepping;
    const char* codename;
  };
  for (const Case& c : {Case{106, 6, "Ice Lake-SP"}, Case{143, 8, "Sapphire Rapids"},
                        Case{207, 2, "Emerald Rapids"}, Case{173, 1, "Granite Rapids"},
                        Case{175, 3, "Sierra Forest"}, Case{85, 4, "Skylake-SP"},
                        Case{85, 7, "Cascade Lake-SP"}, Case{85, 11, "Cooper Lake-SP"}}) {
    auto u = IdentifyX86("GenuineIntel", 6, c.model, c.stepping, "Intel(R) Xeon(R)");
    ASSERT_TRUE(u.has_value()) << c.model;
    EXPECT_EQ(u->codename, c.codename);
  }
  EXPECT_FALSE(IdentifyX86("GenuineIntel", 6, 0x01, 0, "").has_value());
  EXPECT_FALSE(IdentifyX86("GenuineIntel", 15, 143, 0, "").has_value());
}

TEST(X86Test, AmdZenGenerations) {
  struct Case {
    int family, model;
    const char* uarch;
    const char* codename;
  };
  for (const Case& c :
       {Case{0x17, 0x31, "Zen 2", "Rome"}, Case{0x19, 0x01, "Zen 3", "Milan"},
        Case{0x19, 0x11, "Zen 4", "Genoa"}, Case{0x19, 0xa0, "Zen 4c", "Bergamo / Siena"},
        Case{0x1a, 0x02, "Zen 5", "Turin"}, Case{0x1a, 0x11, "Zen 5c", "Turin Dense"}}) {
    auto u = IdentifyX86("AuthenticAMD", c.family, c.model, 1, "AMD EPYC 9xx4");
    ASSERT_TRUE(u.has_value()) << c.codename;
    EXPECT_EQ(u->microarchitecture, c.uarch);
    EXPECT_EQ(u->codename, c.codename);
    EXPECT_EQ(u->confidence, Confidence::kHigh);
  }
}

TEST(X86Test, AmdDesktopPartsGetNoServerCodename) {
  // Ryzen 7000 shares Zen 4's family with Genoa; the model name tells them apart.
  auto ryzen = IdentifyX86("AuthenticAMD", 0x19, 0x11, 1, "AMD Ryzen Threadripper 7980X");
  ASSERT_TRUE(ryzen.has_value());
  EXPECT_EQ(ryzen->microarchitecture, "Zen 4");
  EXPECT_EQ(ryzen->codename, "");
  auto unnamed = IdentifyX86("AuthenticAMD", 0x19, 0x11, 1, "");
  ASSERT_TRUE(unnamed.has_value());
  EXPECT_EQ(unnamed->codename, "Genoa");
  EXPECT_EQ(unnamed->confidence, Confidence::kMedium);
  auto client = IdentifyX86("AuthenticAMD", 0x1a, 0x44, 0, "AMD Ryzen 9 9950X");
  ASSERT_TRUE(client.has_value());
  EXPECT_EQ(client->microarchitecture, "Zen 5");
  EXPECT_EQ(client->codename, "");
}

TEST(CloudTest, AwsInstanceTypeFromProductName) {
  auto c = IdentifyCloud(Dmi("Amazon EC2", "r7g.large"));
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->provider, "aws");
  EXPECT_EQ(c->instance_type, "r7g.large");
  auto xen = IdentifyCloud(Dmi("Xen", "HVM domU"));
  EXPECT_FALSE(xen.has_value());
  auto old = IdentifyCloud(Dmi("Amazon EC2", "HVM domU"));
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->instance_type, "");
  DmiStrings azure = Dmi("Microsoft Corporation", "Virtual Machine");
  EXPECT_FALSE(IdentifyCloud(azure).has_value());  // Hyper-V anywhere
  azure.chassis_asset_tag = "7783-7084-3265-9085-8269-3286-77";
  ASSERT_TRUE(IdentifyCloud(azure).has_value());
  EXPECT_EQ(IdentifyCloud(azure)->provider, "azure");
  EXPECT_FALSE(IdentifyCloud(DmiStrings{}).has_value());
}

}  // namespace
}  // namespace pgrig::host
