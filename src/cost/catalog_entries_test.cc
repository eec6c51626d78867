// The table-driven entry merge on a kind of entry of the test's own: a field
// added to a kind's table is read, checked, merged and inherited by the one
// loop, with no other code.
#include "cost/catalog_entries.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pgrig::cost {
namespace {

using ::testing::HasSubstr;

struct GadgetPrice {
  std::string provider;
  std::string region;
  std::string name;
  double usd_per_month = 0;
  int widgets = 0;   // the added field: kept by an override that leaves it out
  double gloss = 0;  // another added field: always required
  Provenance provenance;
};

const EntryKind<GadgetPrice>& GadgetKind() {
  using E = GadgetPrice;
  static const EntryKind<E> kind{"gadget",
                                 {
                                     {"provider", FieldCheck::kText, FieldRole::kIdentity,
                                      [](E& e) -> FieldSlot { return &e.provider; }},
                                     {"region", FieldCheck::kText, FieldRole::kIdentity,
                                      [](E& e) -> FieldSlot { return &e.region; }},
                                     {"name", FieldCheck::kName, FieldRole::kIdentity,
                                      [](E& e) -> FieldSlot { return &e.name; }},
                                     {"usd_per_month", FieldCheck::kPositive, FieldRole::kRequired,
                                      [](E& e) -> FieldSlot { return &e.usd_per_month; }},
                                     {"widgets", FieldCheck::kPositiveInt, FieldRole::kHardware,
                                      [](E& e) -> FieldSlot { return &e.widgets; }},
                                     {"gloss", FieldCheck::kNonNegative, FieldRole::kRequired,
                                      [](E& e) -> FieldSlot { return &e.gloss; }},
                                     {"date", FieldCheck::kDate, FieldRole::kRequired,
                                      [](E& e) -> FieldSlot { return &e.provenance.date; }},
                                     {"source", FieldCheck::kText, FieldRole::kRequired,
                                      [](E& e) -> FieldSlot { return &e.provenance.source; }},
                                 }};
  return kind;
}

Status MergeGadgets(const std::string& text, const std::string& file,
                    std::vector<GadgetPrice>& gadgets, MergeStats& stats) {
  toml::table root = toml::parse(text);
  SeenKeys seen;
  return MergeEntries(*root["gadget"].as_array(), GadgetKind(), file, gadgets, seen, stats);
}

TEST(CatalogEntries, AddedFieldIsReadMergedAndInherited) {
  std::vector<GadgetPrice> gadgets;
  MergeStats stats;
  ASSERT_TRUE(MergeGadgets(R"(
[[gadget]]
provider = "acme"
region = "eu"
name = "g1"
usd_per_month = 2.5
widgets = 7
gloss = 0.5
date = 2026-11-30
source = "test"
)",
                           "a.toml", gadgets, stats)
                  .ok());
  ASSERT_EQ(gadgets.size(), 1u);
  EXPECT_EQ(stats.added, 1);
  EXPECT_EQ(gadgets[0].widgets, 7);
  EXPECT_EQ(gadgets[0].gloss, 0.5);
  EXPECT_EQ(gadgets[0].provenance.file, "a.toml");
  EXPECT_EQ(gadgets[0].provenance.line, 2);

  // An override (same key, any case) may leave out the hardware field: it
  // is kept; the required one is replaced.
  Status s = MergeGadgets(R"(
[[gadget]]
provider = "ACME"
region = "eu"
name = "g1"
usd_per_month = 3
gloss = 0.25
date = 2026-12-01
source = "newer"
)",
                          "b.toml", gadgets, stats);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(gadgets.size(), 1u);
  EXPECT_EQ(stats.replaced, 1);
  EXPECT_EQ(gadgets[0].widgets, 7);
  EXPECT_EQ(gadgets[0].gloss, 0.25);
  EXPECT_EQ(gadgets[0].usd_per_month, 3);
  EXPECT_EQ(gadgets[0].provenance.file, "b.toml");
}

TEST(CatalogEntries, AddedFieldIsCheckedAndRequired) {
  std::vector<GadgetPrice> gadgets;
  MergeStats stats;
  const std::string base =
      "[[gadget]]\nprovider = \"acme\"\nregion = \"eu\"\nname = \"g2\"\nusd_per_month = 1\n"
      "date = 2026-11-30\nsource = \"test\"\n";
  Status bad = MergeGadgets(base + "widgets = 0\ngloss = 1\n", "c.toml", gadgets, stats);
  EXPECT_THAT(bad.message(), HasSubstr("\"widgets\" must be a positive whole number"));
  Status missing = MergeGadgets(base, "c.toml", gadgets, stats);
  EXPECT_THAT(missing.message(), HasSubstr("c.toml:1: [[gadget]] entry: missing widgets, gloss"));
  Status unknown =
      MergeGadgets(base + "widgets = 1\ngloss = 1\nshine = 2\n", "c.toml", gadgets, stats);
  EXPECT_THAT(unknown.message(), HasSubstr("unknown key \"shine\""));
  EXPECT_THAT(unknown.message(), HasSubstr("widgets, gloss, date"));
  EXPECT_TRUE(gadgets.empty());
}

}  // namespace
}  // namespace pgrig::cost
