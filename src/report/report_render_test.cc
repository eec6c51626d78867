// The renderers: every format carries the figures analysis/compare computed,
// verdict words follow the intervals, mismatches come first, and the HTML is
// self-contained with the charts' series and points in the markup.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "report/render.h"
#include "report/test_suites.h"
#include "results/reader.h"

namespace pgrig::report {
namespace {

using testing::FixtureSuite;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::StandardCells;

struct Pair {
  results::Suite a, b;
  SuiteStats sa, sb;
  Comparison c;
};

std::unique_ptr<Pair> MakePair(FixtureSuite fb, FixtureSuite fa) {
  auto p = std::make_unique<Pair>();
  p->b = *results::ParseSuiteJson(testing::MakeSuiteJson(fb).dump(), fb.label + "/suite.json");
  p->a = *results::ParseSuiteJson(testing::MakeSuiteJson(fa).dump(), fa.label + "/suite.json");
  p->sb = *Analyze(p->b);
  p->sa = *Analyze(p->a);
  p->c = *Compare({&p->sb, &p->sa});
  return p;
}

std::unique_ptr<Pair> StandardPair() {
  return MakePair({.label = "xeon",
                   .host = "intel-sapphire-rapids",
                   .usd_per_hour = 0.85,
                   .iterations = 5,
                   .seed = 51,
                   .cells = StandardCells(20000, 4000, 6000)},
                  {.label = "graviton",
                   .host = "graviton3",
                   .usd_per_hour = 0.68,
                   .iterations = 5,
                   .seed = 52,
                   .cells = StandardCells(27600, 4000, 6000)});
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

TEST(RenderTest, FormatsParse) {
  EXPECT_EQ(*ParseFormat("md"), Format::kMarkdown);
  EXPECT_EQ(*ParseFormat("html"), Format::kHtml);
  auto bad = ParseFormat("pdf");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("text, markdown, csv, json or html"));
}

TEST(RenderTest, TextComparisonPutsMismatchesFirstAndUsesTheVerdicts) {
  auto p = MakePair(
      {.label = "base", .scale = 10, .seed = 3, .cells = StandardCells(20000, 4000, 6000)},
      {.label = "other", .scale = 100, .seed = 4, .cells = StandardCells(27600, 4000, 6000)});
  const std::string text = RenderComparison({&p->c, {}}, Format::kText);
  const size_t mismatch = text.find("MISMATCHES");
  const size_t decision = text.find("Decision table");
  ASSERT_NE(mismatch, std::string::npos) << text;
  EXPECT_LT(mismatch, decision);
  EXPECT_THAT(text, HasSubstr("scale differs"));
  // Each row's verdict matches its interval.
  for (const CellComparison& cc : p->c.cells[0]) {
    const std::string row_start = cc.key;
    const size_t at = text.find(row_start + " ");
    ASSERT_NE(at, std::string::npos) << cc.key;
    const std::string line = text.substr(at, text.find('\n', at) - at);
    EXPECT_THAT(line, HasSubstr(SpeedName(cc.speed))) << line;
  }
  EXPECT_THAT(text, HasSubstr("faster"));
  EXPECT_THAT(text, HasSubstr("no significant difference"));
}

// The decision table's p99 is the best read-write cell's, else the best
// read-only one's, and it names the cell it comes from in every format.
TEST(RenderTest, DecisionP99NamesItsCell) {
  auto both = StandardPair();
  const std::string text = RenderComparison({&both->c, {}}, Format::kText);
  const size_t row = text.find("p99 ms");
  ASSERT_NE(row, std::string::npos) << text;
  const std::string line = text.substr(row, text.find('\n', row) - row);
  EXPECT_THAT(line, HasSubstr("(tpcb-like/")) << line;
  EXPECT_THAT(line, Not(HasSubstr("select-only"))) << line;

  auto read_only = MakePair(
      {.label = "base", .cells = {{"select-only", 2, 2, 20000}, {"select-only", 4, 2, 26000}}},
      {.label = "other", .cells = {{"select-only", 2, 2, 21000}, {"select-only", 4, 2, 27000}}});
  const std::string ro = RenderComparison({&read_only->c, {}}, Format::kText);
  const size_t at = ro.find("p99 ms");
  ASSERT_NE(at, std::string::npos) << ro;
  const std::string ro_line = ro.substr(at, ro.find('\n', at) - at);
  EXPECT_THAT(ro_line, HasSubstr("(select-only/simple/default/c4/j2)")) << ro_line;
  EXPECT_THAT(ro, Not(HasSubstr("p99 ms (read-write)")));
  // Neither side has a price: no per-dollar rows, the price row says so.
  EXPECT_THAT(ro, Not(HasSubstr("txn per USD")));
  EXPECT_THAT(ro, HasSubstr("price USD/hour"));
  EXPECT_THAT(RenderComparison({&both->c, {}}, Format::kText), HasSubstr("read-only txn per USD"));
  const auto j = nlohmann::json::parse(RenderComparison({&read_only->c, {}}, Format::kJson));
  EXPECT_EQ(j["decision"][0]["read_write_cell"], nullptr);
  EXPECT_EQ(j["decision"][0]["p99_cell"], "select-only/simple/default/c4/j2");
  EXPECT_DOUBLE_EQ(j["decision"][0]["p99_ms"].get<double>(), *read_only->c.decision[0].p99_ms);
  // Unpriced: the report's cell table has no per-dollar column, and its note
  // does not explain one.
  const std::string report = RenderReport({&read_only->sa, {}, {}}, Format::kText);
  EXPECT_THAT(report, HasSubstr("latency from the merged histograms of the cell's runs."));
  EXPECT_THAT(report, Not(HasSubstr("USD"))) << report;
  auto priced = StandardPair();
  EXPECT_THAT(RenderReport({&priced->sa, {}, {}}, Format::kText),
              HasSubstr("; txn per USD = tps x 3,600 / USD per hour."));
}

TEST(RenderTest, CsvAndJsonCarryTheComputedFigures) {
  auto p = StandardPair();
  const std::string csv = RenderComparison({&p->c, {}}, Format::kCsv);
  EXPECT_EQ(Count(csv, "\n"), 1 + p->c.cells[0].size());
  EXPECT_THAT(csv, HasSubstr(fmt::format("{}", *p->c.cells[0][0].tps.ratio)));
  const auto j = nlohmann::json::parse(RenderComparison({&p->c, {}}, Format::kJson));
  EXPECT_EQ(j["schema"], "pgrig.compare/1");
  EXPECT_DOUBLE_EQ(j["comparisons"][0]["cells"][0]["tps_ratio"].get<double>(),
                   *p->c.cells[0][0].tps.ratio);
  EXPECT_DOUBLE_EQ(j["comparisons"][0]["cells"][0]["tps_ratio_ci95"][0].get<double>(),
                   p->c.cells[0][0].tps.interval->low);
  EXPECT_EQ(j["comparisons"][0]["cells"][0]["verdict"], "faster");
  EXPECT_EQ(j["decision"].size(), 2u);

  const std::string rcsv = RenderReport({&p->sa, {}, {}}, Format::kCsv);
  EXPECT_EQ(Count(rcsv, "\n"), 7u);
  const auto rj = nlohmann::json::parse(RenderReport({&p->sa, {}, {}}, Format::kJson));
  EXPECT_DOUBLE_EQ(rj["suite"]["cells"][1]["tps_median"].get<double>(),
                   p->sa.cells[1].tps_summary.median);
  const std::string md = RenderReport({&p->sa, {}, {}}, Format::kMarkdown);
  EXPECT_THAT(md, HasSubstr("| select-only/simple/default/c2/j2 |"));
  EXPECT_THAT(md, HasSubstr("txn per USD [95% interval]"));
}

TEST(RenderTest, HtmlIsSelfContainedWithChartsAndTables) {
  auto p = StandardPair();
  const std::string html = RenderComparison({&p->c, {}}, Format::kHtml);
  // Nothing that could make a request.
  EXPECT_THAT(html, Not(HasSubstr("http:")));
  EXPECT_THAT(html, Not(HasSubstr("https:")));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("<link")));
  EXPECT_THAT(html, Not(HasSubstr("url(")));
  EXPECT_THAT(html, HasSubstr("prefers-color-scheme:dark"));
  EXPECT_THAT(html, HasSubstr("@media print"));
  // Three workloads: throughput, latency and over-time charts each, plus
  // price and bottleneck.
  EXPECT_EQ(Count(html, "data-chart=\"throughput-vs-clients\""), 3u);
  EXPECT_EQ(Count(html, "data-chart=\"latency-percentiles\""), 3u);
  EXPECT_EQ(Count(html, "data-chart=\"throughput-over-time\""), 3u);
  // Every run drawn over time has its checkpoint marked (one per fixture run,
  // counted in the sample at 4 s), and the markers are listed in words too.
  EXPECT_GT(Count(html, "<line class=\"marker\""), 0u);
  EXPECT_EQ(Count(html, "<line class=\"marker\""), Count(html, "data-marker=\"checkpoint, "));
  EXPECT_THAT(html, HasSubstr("data-x=\"4\"><title>checkpoint, "));
  EXPECT_EQ(Count(html, "<p class=\"markers\">"), 3u);
  EXPECT_EQ(Count(html, "data-chart=\"price-performance\""), 1u);
  EXPECT_EQ(Count(html, "data-chart=\"bottleneck\""), 1u);
  // Its evidence table goes under the chart at full width (readable at 1400 px).
  EXPECT_EQ(Count(html, "data-chart=\"bottleneck\" data-layout=\"wide\""), 1u);
  EXPECT_THAT(html, HasSubstr("figure.chart[data-layout=wide] table.data{grid-column:1"));
  // Every chart has its table.
  EXPECT_EQ(Count(html, "<figure class=\"chart\""), Count(html, "<table class=\"data\">"));
  // The throughput point carries the median and the interval computed by stats.
  const CellStats& c = p->sa.cells[0];
  EXPECT_THAT(html, HasSubstr(fmt::format(
                        "data-x=\"2\" data-y=\"{:.6g}\" data-low=\"{:.6g}\" data-high=\"{:.6g}\"",
                        c.tps_summary.median, c.tps_ci->low, c.tps_ci->high)));
  // Mismatch section before the charts even when empty.
  EXPECT_LT(html.find("id=\"mismatches\""), html.find("data-chart"));
}

TEST(RenderTest, UnpricedComparisonHasNoPerDollarColumnsAndSaysWhich) {
  auto p = MakePair(
      {.label = "base", .usd_per_hour = 0.85, .seed = 3, .cells = StandardCells(20000, 4000, 6000)},
      {.label = "other", .seed = 4, .cells = StandardCells(27600, 4000, 6000)});
  const std::string text = RenderComparison({&p->c, {}}, Format::kText);
  const size_t table = text.find("other against base");
  ASSERT_NE(table, std::string::npos) << text;
  const std::string cells = text.substr(table, text.find("Facts that differ", table) - table);
  EXPECT_THAT(cells, HasSubstr("p99 ratio [95% interval]"));  // latency stays
  EXPECT_THAT(cells, Not(HasSubstr("txn per USD ratio")));
  EXPECT_THAT(cells, Not(HasSubstr("per dollar")));
  EXPECT_THAT(cells, HasSubstr("No per-dollar ratio: other has no price"));
  EXPECT_THAT(cells, Not(HasSubstr("base has no price")));
  // Priced on both sides: the columns are there and the note is not.
  auto priced = StandardPair();
  const std::string both = RenderComparison({&priced->c, {}}, Format::kText);
  EXPECT_THAT(both, HasSubstr("txn per USD ratio [95%]"));
  EXPECT_THAT(both, Not(HasSubstr("No per-dollar ratio")));
  // Neither priced: said once, of both.
  auto none = MakePair({.label = "base", .seed = 3, .cells = StandardCells(20000, 4000, 6000)},
                       {.label = "other", .seed = 4, .cells = StandardCells(27600, 4000, 6000)});
  EXPECT_THAT(RenderComparison({&none->c, {}}, Format::kText),
              HasSubstr("No per-dollar ratio: neither base nor other has a price"));
}

TEST(RenderTest, IdenticalFactsAreSaidToBeIdenticalInEveryFormat) {
  auto p = MakePair({.label = "first", .seed = 3, .cells = StandardCells(20000, 4000, 6000)},
                    {.label = "second", .seed = 4, .cells = StandardCells(20000, 4000, 6000)});
  ASSERT_TRUE(p->c.facts_diff[0].empty());
  for (Format f : {Format::kText, Format::kMarkdown, Format::kHtml}) {
    const std::string out = RenderComparison({&p->c, {}}, f);
    const size_t at = out.find("Facts that differ: second and first");
    ASSERT_NE(at, std::string::npos) << out;
    EXPECT_THAT(out.substr(at), HasSubstr("none: the host and server facts are the same in both"));
  }
  // Different hosts: the differences are listed, and "none" is not said.
  auto d = StandardPair();
  ASSERT_FALSE(d->c.facts_diff[0].empty());
  EXPECT_THAT(RenderComparison({&d->c, {}}, Format::kText), Not(HasSubstr("none: the host")));
}

TEST(RenderTest, ReportHtmlWithoutPriceSaysSo) {
  FixtureSuite f{.label = "solo", .seed = 5, .cells = StandardCells(20000, 4000, 6000)};
  results::Suite s = *results::ParseSuiteJson(testing::MakeSuiteJson(f).dump(), "solo/suite.json");
  SuiteStats st = *Analyze(s);
  const std::string html = RenderReport({&st, SuiteWarnings(st), {}}, Format::kHtml);
  EXPECT_THAT(html, HasSubstr("no price: give --usd-per-hour"));
  EXPECT_THAT(html, HasSubstr("data-series=\"solo select-only simple/default/j2\""));
}

}  // namespace
}  // namespace pgrig::report
