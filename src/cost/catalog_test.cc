#include "cost/catalog.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace pgrig::cost {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kOneInstance = R"(schema = "pgrig.prices/1"

[[instance]]
provider = "aws"
region = "us-east-1"
instance_type = "r8g.large"
arch = "arm64"
vcpus = 2
vcpu_is = "core"
memory_gib = 16
usd_per_hour = 0.1178
date = 2026-11-29
source = "test table"

[[instance]]
provider = "aws"
region = "us-east-1"
instance_type = "r7i.large"
arch = "x86_64"
vcpus = 2
vcpu_is = "hyperthread"
memory_gib = 16
usd_per_hour = 0.1323
date = "2026-11-29"
source = "test table"

[[flex_shape]]
provider = "oci"
region = "all"
shape = "VM.Standard.A1.Flex"
arch = "arm64"
vcpus_per_ocpu = 1
vcpu_is = "core"
usd_per_ocpu_hour = 0.01
usd_per_gb_hour = 0.0015
date = 2026-11-29
source = "oci list"

[[flex_shape]]
provider = "oci"
region = "all"
shape = "VM.Standard.E4.Flex"
arch = "x86_64"
vcpus_per_ocpu = 2
vcpu_is = "hyperthread"
usd_per_ocpu_hour = 0.025
usd_per_gb_hour = 0.0015
date = 2026-11-29
source = "oci list"

[[storage]]
provider = "aws"
region = "us-east-1"
name = "gp3"
usd_per_gb_month = 0.08
included_iops = 3000
usd_per_iops_month = 0.005
included_mbps = 125
usd_per_mbps_month = 0.04
date = 2026-11-29
source = "ebs page"
)";

Catalog Base() {
  Catalog c;
  auto st = c.Merge(kOneInstance, "base.toml");
  EXPECT_TRUE(st.ok()) << st.status().message();
  return c;
}

TEST(CatalogTest, ParsesEveryKindOfEntry) {
  Catalog c = Base();
  ASSERT_EQ(c.instances().size(), 2u);
  ASSERT_EQ(c.flex_shapes().size(), 2u);
  ASSERT_EQ(c.storage().size(), 1u);
  const InstancePrice& r8g = c.instances()[0];
  EXPECT_EQ(r8g.instance_type, "r8g.large");
  EXPECT_EQ(r8g.arch, Arch::kArm64);
  EXPECT_EQ(r8g.vcpu_is, VcpuKind::kCore);
  EXPECT_EQ(r8g.vcpus, 2);
  EXPECT_DOUBLE_EQ(r8g.memory_gib, 16);
  EXPECT_DOUBLE_EQ(r8g.usd_per_hour, 0.1178);
  EXPECT_EQ(r8g.provenance.date, "2026-11-29");  // TOML date
  EXPECT_EQ(r8g.provenance.file, "base.toml");
  EXPECT_EQ(r8g.provenance.line, 3);                          // the [[instance]] header line
  EXPECT_EQ(c.instances()[1].provenance.date, "2026-11-29");  // string date
  EXPECT_EQ(c.instances()[1].vcpu_is, VcpuKind::kHyperthread);
  EXPECT_DOUBLE_EQ(c.storage()[0].included_iops, 3000);
  EXPECT_THAT(c.files(), ElementsAre("base.toml"));
}

TEST(CatalogTest, ShippedCatalogHasEveryFamilyAndSize) {
  Catalog c;
  auto st = c.MergeFile(PGRIG_SOURCE_DIR "/data/prices.toml");
  ASSERT_TRUE(st.ok()) << st.status().message();
  // 13 families x 6 sizes, the EBS gp3 entry and the two OCI shapes.
  EXPECT_EQ(c.instances().size(), 78u);
  EXPECT_EQ(c.flex_shapes().size(), 2u);
  EXPECT_EQ(c.storage().size(), 1u);
  for (const char* fam : {"r8g", "r7g", "r6g", "r7i", "r6i", "m7g", "m6g", "m7i", "m6i", "c7g",
                          "c7i", "m5d", "m6gd"}) {
    double large = 0;
    int vcpus = 2;
    double factor = 1;
    for (const char* size : {"large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge"}) {
      std::string type = std::string(fam) + "." + size;
      auto e = c.FindInstance(type);
      ASSERT_TRUE(e.ok()) << type << ": " << e.status().message();
      EXPECT_EQ(e->vcpus, vcpus) << type;
      EXPECT_FALSE(e->provenance.source.empty());
      // Graviton vCPUs are cores; Intel vCPUs are hyperthreads.
      EXPECT_EQ(e->vcpu_is, e->arch == Arch::kArm64 ? VcpuKind::kCore : VcpuKind::kHyperthread);
      const double per_vcpu = fam[0] == 'r' ? 8 : fam[0] == 'm' ? 4 : 2;
      EXPECT_DOUBLE_EQ(e->memory_gib, per_vcpu * vcpus) << type;
      if (large == 0) large = e->usd_per_hour;
      // Each size doubles the price (published tables round to 4 digits).
      EXPECT_NEAR(e->usd_per_hour, large * factor, 0.0002 * factor) << type;
      vcpus *= 2;
      factor *= 2;
    }
  }
  // Spot values straight from prices.md.
  EXPECT_DOUBLE_EQ(c.FindInstance("r8g.16xlarge")->usd_per_hour, 3.770);
  EXPECT_DOUBLE_EQ(c.FindInstance("r7i.16xlarge")->usd_per_hour, 4.2336);
  EXPECT_DOUBLE_EQ(c.FindInstance("m5d.8xlarge")->usd_per_hour, 1.808);
  EXPECT_DOUBLE_EQ(c.FindInstance("m6gd.8xlarge")->usd_per_hour, 1.4464);
  EXPECT_DOUBLE_EQ(c.FindInstance("c7i.large")->usd_per_hour, 0.08925);
  EXPECT_THAT(c.FindInstance("m5d.8xlarge")->provenance.source, HasSubstr("Percona"));
  auto gp3 = c.FindStorage("gp3", "aws", "us-east-1");
  ASSERT_TRUE(gp3.ok());
  EXPECT_DOUBLE_EQ(gp3->usd_per_gb_month, 0.08);
  EXPECT_DOUBLE_EQ(gp3->usd_per_iops_month, 0.005);
  EXPECT_DOUBLE_EQ(gp3->included_mbps, 125);
  EXPECT_DOUBLE_EQ(gp3->usd_per_mbps_month, 0.04);
}

TEST(CatalogTest, MalformedTomlNamesFileAndLine) {
  Catalog c;
  auto st = c.Merge("schema = \"pgrig.prices/1\"\n\n[[instance]]\nprovider = \"aws\n", "bad.toml");
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.status().message(), HasSubstr("bad.toml:4:"));
  EXPECT_THAT(st.status().message(), HasSubstr("not valid TOML"));
}

TEST(CatalogTest, BadFieldNamesLineOfTheField) {
  std::string text = kOneInstance;
  // Line 11 holds the first usd_per_hour.
  text.replace(text.find("usd_per_hour = 0.1178"), 21, "usd_per_hour = \"cheap\"");
  Catalog c;
  auto st = c.Merge(text, "p.toml");
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.status().message(), HasSubstr("p.toml:11:"));
  EXPECT_THAT(st.status().message(), HasSubstr("usd_per_hour"));
}

TEST(CatalogTest, RejectsUnknownKeysMissingFieldsAndBadValues) {
  struct Case {
    std::string from, to, expect;
  } cases[] = {
      {"usd_per_hour = 0.1178", "usd_per_hr = 0.1178", "unknown key \"usd_per_hr\""},
      {"usd_per_hour = 0.1178", "usd_per_hour = -1", "greater than 0"},
      {"vcpu_is = \"core\"", "vcpu_is = \"thread\"", "\"core\" or \"hyperthread\""},
      {"arch = \"arm64\"", "arch = \"sparc\"", "\"arm64\" or \"x86_64\""},
      {"vcpus = 2", "vcpus = 0", "positive whole number"},
      {"date = 2026-11-29\nsource = \"test table\"", "date = \"2026-02-30\"\nsource = \"t\"",
       "YYYY-MM-DD"},
      {"source = \"test table\"\n", "\n", "missing source"},
      {"instance_type = \"r8g.large\"", "instance_type = \"r8g large\"", "must not contain"},
  };
  for (const auto& k : cases) {
    std::string text = kOneInstance;
    size_t pos = text.find(k.from);
    ASSERT_NE(pos, std::string::npos) << k.from;
    text.replace(pos, k.from.size(), k.to);
    Catalog c;
    auto st = c.Merge(text, "x.toml");
    ASSERT_FALSE(st.ok()) << k.to;
    EXPECT_THAT(st.status().message(), HasSubstr(k.expect)) << k.to;
    EXPECT_THAT(st.status().message(), HasSubstr("x.toml:")) << k.to;
    EXPECT_EQ(c.size(), 0u) << "a failed merge must leave the catalog unchanged";
  }
}

TEST(CatalogTest, DuplicateInOneFileNamesBothLines) {
  std::string text = std::string(kOneInstance) + R"(
[[instance]]
provider = "AWS"
region = "us-east-1"
instance_type = "R8G.large"
arch = "arm64"
vcpus = 2
vcpu_is = "core"
memory_gib = 16
usd_per_hour = 0.2
date = 2026-11-29
source = "again"
)";
  Catalog c;
  auto st = c.Merge(text, "dup.toml");
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.status().message(), HasSubstr("duplicate entry"));
  EXPECT_THAT(st.status().message(), HasSubstr("first at line 3"));
}

TEST(CatalogTest, UnknownTopLevelKeyIsAnError) {
  Catalog c;
  auto st = c.Merge("schema = \"pgrig.prices/1\"\n[[instances]]\nprovider = \"aws\"\n", "t.toml");
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.status().message(), HasSubstr("t.toml:2"));
  EXPECT_THAT(st.status().message(), HasSubstr("\"instances\""));
}

TEST(CatalogTest, OverlayReplacesByKeyAndInheritsHardware) {
  Catalog c = Base();
  auto st = c.Merge(R"(
[[instance]]
provider = "aws"
region = "us-east-1"
instance_type = "r8g.large"
usd_per_hour = 0.1
date = 2027-01-01
source = "my negotiated price"

[[instance]]
provider = "aws"
region = "eu-west-1"
instance_type = "r8g.large"
arch = "arm64"
vcpus = 2
vcpu_is = "core"
memory_gib = 16
usd_per_hour = 0.13
date = 2027-01-01
source = "mine"
)",
                    "mine.toml");
  ASSERT_TRUE(st.ok()) << st.status().message();
  EXPECT_EQ(st->replaced, 1);
  EXPECT_EQ(st->added, 1);
  auto e = c.FindInstance("r8g.large", {.region = "us-east-1"});
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_DOUBLE_EQ(e->usd_per_hour, 0.1);
  EXPECT_EQ(e->vcpus, 2);               // inherited
  EXPECT_DOUBLE_EQ(e->memory_gib, 16);  // inherited
  EXPECT_EQ(e->provenance.source, "my negotiated price");
  EXPECT_EQ(e->provenance.file, "mine.toml");
  EXPECT_THAT(c.files(), ElementsAre("base.toml", "mine.toml"));

  // Now in two regions: a bare lookup is ambiguous and says how to choose.
  auto amb = c.FindInstance("r8g.large");
  ASSERT_FALSE(amb.ok());
  EXPECT_THAT(amb.status().message(), HasSubstr("--region"));
  EXPECT_THAT(amb.status().message(), HasSubstr("eu-west-1"));
  EXPECT_DOUBLE_EQ(c.FindInstance("r8g.large", {.region = "eu-west-1"})->usd_per_hour, 0.13);

  auto wrong_region = c.FindInstance("r7i.large", {.region = "eu-west-1"});
  ASSERT_FALSE(wrong_region.ok());
  EXPECT_THAT(wrong_region.status().message(), HasSubstr("only for region(s) us-east-1"));
}

TEST(CatalogTest, OverlayMustStillGivePriceDateAndSource) {
  Catalog c = Base();
  auto st = c.Merge(R"([[instance]]
provider = "aws"
region = "us-east-1"
instance_type = "r8g.large"
usd_per_hour = 0.1
)",
                    "o.toml");
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.status().message(), HasSubstr("missing date, source"));
  EXPECT_THAT(st.status().message(), HasSubstr("o.toml:1"));
  // A new key cannot inherit anything.
  auto st2 = c.Merge(R"([[instance]]
provider = "aws"
region = "us-east-1"
instance_type = "x9.large"
usd_per_hour = 0.1
date = 2027-01-01
source = "s"
)",
                     "n.toml");
  ASSERT_FALSE(st2.ok());
  EXPECT_THAT(st2.status().message(), HasSubstr("missing arch, vcpus, vcpu_is, memory_gib"));
  EXPECT_DOUBLE_EQ(c.FindInstance("r8g.large")->usd_per_hour, 0.1178);  // unchanged
}

TEST(CatalogTest, FlexShapeSizing) {
  Catalog c = Base();
  // 4 OCPU x 0.01 + 24 GB x 0.0015 = 0.04 + 0.036 = 0.076 USD/h; 4 vCPUs (cores).
  auto a1 = c.FindInstance("VM.Standard.A1.Flex:4:24");
  ASSERT_TRUE(a1.ok()) << a1.status().message();
  EXPECT_NEAR(a1->usd_per_hour, 0.076, 1e-12);
  EXPECT_EQ(a1->vcpus, 4);
  EXPECT_EQ(a1->vcpu_is, VcpuKind::kCore);
  EXPECT_DOUBLE_EQ(a1->memory_gib, 24);
  EXPECT_EQ(a1->instance_type, "VM.Standard.A1.Flex:4:24");
  // E4: 2 OCPU x 0.025 + 16 GB x 0.0015 = 0.05 + 0.024 = 0.074 USD/h; 4 vCPUs (hyperthreads).
  auto e4 = c.FindInstance("vm.standard.e4.flex:2:16");
  ASSERT_TRUE(e4.ok()) << e4.status().message();
  EXPECT_NEAR(e4->usd_per_hour, 0.074, 1e-12);
  EXPECT_EQ(e4->vcpus, 4);
  EXPECT_EQ(e4->vcpu_is, VcpuKind::kHyperthread);
  // Region "all" matches any region asked for.
  EXPECT_TRUE(c.FindInstance("VM.Standard.A1.Flex:1:6", {.region = "eu-frankfurt-1"}).ok());

  auto bare = c.FindInstance("VM.Standard.A1.Flex");
  ASSERT_FALSE(bare.ok());
  EXPECT_THAT(bare.status().message(), HasSubstr("VM.Standard.A1.Flex:4:24"));
  for (const char* bad :
       {"VM.Standard.A1.Flex:0:24", "VM.Standard.A1.Flex:-2:24", "VM.Standard.A1.Flex:4:0",
        "VM.Standard.A1.Flex:4", "VM.Standard.A1.Flex:x:1"}) {
    auto r = c.FindInstance(bad);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

TEST(CatalogTest, UnknownInstanceSuggestsClosestNames) {
  Catalog c;
  ASSERT_TRUE(c.MergeFile(PGRIG_SOURCE_DIR "/data/prices.toml").ok());
  auto r = c.FindInstance("r8g.16xlarg");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(r.status().message(), HasSubstr("did you mean r8g.16xlarge"));
  EXPECT_THAT(r.status().message(), HasSubstr("--list"));
  EXPECT_THAT(r.status().message(), HasSubstr("add yours with --catalog FILE"));
  // A caller without those options (a fleet file) gives its own way out.
  auto fleet = c.FindInstance("r8g.16xlarg", {.hint = "or write usd_per_hour."});
  ASSERT_FALSE(fleet.ok());
  EXPECT_THAT(fleet.status().message(), HasSubstr("did you mean r8g.16xlarge"));
  EXPECT_THAT(fleet.status().message(), ::testing::EndsWith("or write usd_per_hour."));
  EXPECT_THAT(fleet.status().message(), Not(HasSubstr("--catalog")));

  // One transposition away: r8g.16xlarge is closest.
  std::vector<std::string> s = c.Suggest("r8g.16xlrage");
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s[0], "r8g.16xlarge");
  // A prefix lists what it starts.
  s = c.Suggest("m6gd.");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0], "m6gd.large");
  // Nothing close: no random suggestions.
  EXPECT_TRUE(c.Suggest("completely-different-name").empty());
}

TEST(CatalogTest, FindStorage) {
  Catalog c = Base();
  auto s = c.FindStorage("", "aws", "us-east-1");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->name, "gp3");
  auto none = c.FindStorage("", "oci", "");
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("[[storage]]"));
  EXPECT_FALSE(c.FindStorage("io2", "aws", "us-east-1").ok());
}

TEST(PatternTest, GlobAndSubstringIgnoreCase) {
  EXPECT_TRUE(MatchesPattern("r8g.*", "r8g.16xlarge"));
  EXPECT_FALSE(MatchesPattern("r8g.*", "xr8g.large"));
  EXPECT_TRUE(MatchesPattern("*.16XLARGE", "m7i.16xlarge"));
  EXPECT_TRUE(MatchesPattern("16xl", "m7i.16xlarge"));
  EXPECT_TRUE(MatchesPattern("A1", "VM.Standard.A1.Flex"));
  EXPECT_FALSE(MatchesPattern("r9", "r8g.large"));
}

TEST(DateTest, Calendar) {
  EXPECT_TRUE(IsValidDate("2026-11-29"));
  EXPECT_TRUE(IsValidDate("2024-02-29"));
  EXPECT_FALSE(IsValidDate("2026-02-29"));
  EXPECT_FALSE(IsValidDate("1900-02-29"));
  EXPECT_TRUE(IsValidDate("2000-02-29"));
  EXPECT_FALSE(IsValidDate("2026-13-01"));
  EXPECT_FALSE(IsValidDate("2026-1-01"));
  EXPECT_FALSE(IsValidDate("Jan 2021"));
}

class LocateCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/pgrig_cost_locate_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    std::filesystem::create_directories(root_ + "/repo/build");
    std::filesystem::create_directories(root_ + "/repo/data");
    std::filesystem::create_directories(root_ + "/prefix/bin");
    std::filesystem::create_directories(root_ + "/prefix/share/pgrig");
    std::filesystem::create_directories(root_ + "/env");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void Touch(const std::string& rel) {
    std::ofstream(root_ + rel) << "schema = \"pgrig.prices/1\"\n";
  }
  std::string root_;
};

TEST_F(LocateCatalogTest, SearchOrder) {
  // Nothing there yet: NotFound lists what was tried.
  auto none = LocateCatalog({.exe_dir = root_ + "/repo/build"});
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr(root_ + "/repo/data/prices.toml"));
  EXPECT_THAT(none.status().message(), HasSubstr("PGRIG_DATA_DIR"));

  Touch("/repo/data/prices.toml");
  auto repo = LocateCatalog({.exe_dir = root_ + "/repo/build"});
  ASSERT_TRUE(repo.ok());
  EXPECT_EQ(repo->path, root_ + "/repo/data/prices.toml");

  Touch("/prefix/share/pgrig/prices.toml");
  auto installed = LocateCatalog({.exe_dir = root_ + "/prefix/bin"});
  ASSERT_TRUE(installed.ok());
  EXPECT_EQ(installed->path, root_ + "/prefix/share/pgrig/prices.toml");

  // Nested build directory: <repo>/build/release/pgrig.
  std::filesystem::create_directories(root_ + "/repo/build/release");
  auto nested = LocateCatalog({.exe_dir = root_ + "/repo/build/release"});
  ASSERT_TRUE(nested.ok());
  EXPECT_EQ(nested->path, root_ + "/repo/data/prices.toml");

  // $PGRIG_DATA_DIR wins; set but wrong is an error, not a fallback.
  Touch("/env/prices.toml");
  auto env = LocateCatalog({.data_dir = root_ + "/env", .exe_dir = root_ + "/repo/build"});
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->path, root_ + "/env/prices.toml");
  EXPECT_EQ(env->how, "$PGRIG_DATA_DIR/prices.toml");
  auto wrong = LocateCatalog({.data_dir = root_ + "/nowhere", .exe_dir = root_ + "/repo/build"});
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.status().message(), HasSubstr("PGRIG_DATA_DIR is set"));
}

// Issue 14, item 17: an empty file or an unknown format version is refused.
TEST(CatalogTest, EmptyFileAndUnknownSchemaVersionAreRefused) {
  Catalog c;
  auto empty = c.Merge("", "empty.toml");
  ASSERT_FALSE(empty.ok());
  EXPECT_THAT(empty.status().message(), HasSubstr("empty.toml: the price catalog has no entries"));
  auto only_schema = c.Merge("schema = \"pgrig.prices/1\"\n", "bare.toml");
  ASSERT_FALSE(only_schema.ok());
  EXPECT_THAT(only_schema.status().message(), HasSubstr("no entries"));
  std::string v2 = kOneInstance;
  v2.replace(v2.find("pgrig.prices/1"), 14, "pgrig.prices/2");
  auto future = c.Merge(v2, "v2.toml");
  ASSERT_FALSE(future.ok());
  EXPECT_THAT(future.status().message(), HasSubstr("v2.toml:1: schema \"pgrig.prices/2\""));
  EXPECT_THAT(future.status().message(), HasSubstr("reads \"pgrig.prices/1\""));
  EXPECT_EQ(c.size(), 0u);  // nothing merged
  EXPECT_TRUE(c.Merge(kOneInstance, "one.toml").ok());
}

// Issue 14, item 17: the error for a provider filter never suggests the
// very name it refused.
TEST(CatalogTest, ProviderFilterErrorsSayWhatIsThere) {
  Catalog c;
  ASSERT_TRUE(c.MergeFile(PGRIG_SOURCE_DIR "/data/prices.toml").ok());
  auto gcp = c.FindInstance("r8g.large", {.provider = "gcp"});
  ASSERT_FALSE(gcp.ok());
  EXPECT_THAT(gcp.status().message(), HasSubstr("only for provider(s) aws, not --provider gcp"));
  EXPECT_THAT(gcp.status().message(), Not(HasSubstr("did you mean r8g.large")));
  auto unknown = c.FindInstance("n2-standard-8", {.provider = "gcp"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("no instances of provider \"gcp\""));
  auto typo = c.FindInstance("R8G.LARGEE");
  ASSERT_FALSE(typo.ok());
  EXPECT_THAT(typo.status().message(), HasSubstr("did you mean r8g.large"));
}

// LoadCatalog, the one loader cost, run and fleet use: the file found, else
// the built-in text, then the overlays; a wrong PGRIG_DATA_DIR is an error
// (issue 26: `run` had no built-in fallback, fleet fell back silently).
TEST_F(LocateCatalogTest, LoadCatalogFileOrBuiltInThenOverlays) {
  // Nothing on the search path: the compiled-in catalog.
  auto built_in = LoadCatalog({.exe_dir = root_ + "/repo/build"});
  ASSERT_TRUE(built_in.ok()) << built_in.status().ToString();
  ASSERT_EQ(built_in->sources.size(), 1u);
  EXPECT_EQ(built_in->sources[0].path, kShippedCatalogName);
  EXPECT_EQ(built_in->sources[0].found_as, "built in");
  EXPECT_GT(built_in->sources[0].added, 50);
  EXPECT_TRUE(built_in->catalog.FindInstance("r8g.16xlarge").ok());

  // A file on the search path replaces the built-in one; overlays follow.
  std::ofstream(root_ + "/repo/data/prices.toml") << kOneInstance;
  std::ofstream(root_ + "/overlay.toml") << R"([[instance]]
provider = "aws"
region = "us-east-1"
instance_type = "r8g.large"
usd_per_hour = 0.2
date = 2026-12-01
source = "overlay test"
)";
  Catalog expected;
  auto expected_stats = expected.Merge(kOneInstance, "x");
  ASSERT_TRUE(expected_stats.ok());
  auto file = LoadCatalog({.exe_dir = root_ + "/repo/build"}, {root_ + "/overlay.toml"});
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  ASSERT_EQ(file->sources.size(), 2u);
  EXPECT_EQ(file->sources[0].path, root_ + "/repo/data/prices.toml");
  EXPECT_EQ(file->sources[0].added, expected_stats->added);
  EXPECT_EQ(file->sources[1].path, root_ + "/overlay.toml");
  EXPECT_EQ(file->sources[1].found_as, "--catalog");
  EXPECT_EQ(file->sources[1].replaced, 1);
  EXPECT_FALSE(file->catalog.FindInstance("r8g.16xlarge").ok());
  auto price = file->catalog.FindInstance("r8g.large");
  ASSERT_TRUE(price.ok()) << price.status().ToString();
  EXPECT_DOUBLE_EQ(price->usd_per_hour, 0.2);

  // A PGRIG_DATA_DIR that names nothing is an error, not the built-in one.
  auto wrong = LoadCatalog({.data_dir = root_ + "/nowhere", .exe_dir = root_ + "/repo/build"});
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.status().message(), HasSubstr("PGRIG_DATA_DIR is set"));
  // A broken overlay names its file.
  std::ofstream(root_ + "/broken.toml") << "[[instance]\n";
  auto broken = LoadCatalog({.exe_dir = root_ + "/repo/build"}, {root_ + "/broken.toml"});
  ASSERT_FALSE(broken.ok());
  EXPECT_THAT(broken.status().message(), HasSubstr(root_ + "/broken.toml"));
}

// Issue 14, item 10: the compiled-in catalog is data/prices.toml, verbatim.
TEST(CatalogTest, BuiltInCatalogIsTheShippedFile) {
  std::ifstream f(PGRIG_SOURCE_DIR "/data/prices.toml", std::ios::binary);
  std::string file((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(file.empty());
  EXPECT_EQ(ShippedCatalogText(), file);
  Catalog c;
  auto st = c.Merge(ShippedCatalogText(), kShippedCatalogName);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_GT(st->added, 50);
  EXPECT_TRUE(c.FindInstance("r8g.16xlarge").ok());
}

}  // namespace
}  // namespace pgrig::cost
