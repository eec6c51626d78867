// FlameGraphSvg (report/flame_graph.h) and EscapeMarkup (report/markup.h).
#include "report/flame_graph.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "report/markup.h"

namespace pgrig::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

size_t FlameCount(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(FlameGraph, WidthsFollowTheSamplesAndEveryFrameHasItsTitle) {
  auto g = FlameGraphSvg(
      "postgres;main;ExecScan 3\npostgres;main;s_lock 1\npostgres;main;[postgres] 4\n", "x.folded",
      {.width_px = 800, .row_px = 16, .min_width_px = 0.3, .max_depth = 80});
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->samples, 8);
  EXPECT_EQ(g->frames_drawn, 6);  // all, postgres, main and three leaves
  EXPECT_EQ(g->samples_hidden, 0);
  const std::string& s = g->svg;
  EXPECT_THAT(s, HasSubstr("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"flame\""));
  EXPECT_THAT(s, HasSubstr("height=\"64\""));  // four rows
  EXPECT_EQ(FlameCount(s, "<rect"), 6u);
  // The root spans the width at the bottom; the leaves are on the top row
  // in byte order (ExecScan, [postgres], s_lock), 3/8, 4/8 and 1/8 of it.
  EXPECT_THAT(s, HasSubstr("<title>all (8 samples, 100.00%)</title><rect x=\"0.00\" y=\"48.0\" "
                           "width=\"800.00\""));
  EXPECT_THAT(s, HasSubstr("<title>ExecScan (3 samples, 37.50%)</title><rect x=\"0.00\" "
                           "y=\"0.0\" width=\"300.00\""));
  EXPECT_THAT(s, HasSubstr("<title>[postgres] (4 samples, 50.00%)</title><rect x=\"300.00\""));
  EXPECT_THAT(s, HasSubstr("<title>s_lock (1 samples, 12.50%)</title><rect x=\"700.00\""));
  // Colours by category: locks red, executor yellow, unnamed grey.
  EXPECT_THAT(s, HasSubstr("width=\"100.00\" height=\"15.0\" fill=\"#e05050\""));
  EXPECT_THAT(s, HasSubstr("width=\"300.00\" height=\"15.0\" fill=\"#f0d050\""));
  EXPECT_THAT(s, HasSubstr("width=\"400.00\" height=\"15.0\" fill=\"#c8c8c8\""));
  EXPECT_THAT(s, Not(HasSubstr("<script")));
}

TEST(FlameGraph, NarrowFramesAreCountedNotDrawnAndNamesAreEscaped) {
  std::string folded = "a;b<c> 1000000\n";
  folded += "a;tiny 1\n";
  auto g = FlameGraphSvg(folded, "x.folded", {.width_px = 100, .row_px = 10, .min_width_px = 1});
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->samples_hidden, 1);
  EXPECT_THAT(g->svg, HasSubstr("b&lt;c&gt;"));
  EXPECT_THAT(g->svg, Not(HasSubstr("tiny")));
}

TEST(Markup, EscapesTheFiveSpecialsAndBlanksForbiddenControlCharacters) {
  EXPECT_EQ(EscapeMarkup("a<b>&\"c\""), "a&lt;b&gt;&amp;&quot;c&quot;");
  EXPECT_EQ(EscapeMarkup(std::string("x\x01y\x1fz", 5)), "x y z");
  EXPECT_EQ(EscapeMarkup("tab\tline\ncr\r"), "tab\tline\ncr\r");  // XML 1.0 allows these
  EXPECT_EQ(EscapeMarkup("\xc3\xa9t\xc3\xa9 'quoted'"),
            "\xc3\xa9t\xc3\xa9 'quoted'");  // UTF-8, ' untouched
  EXPECT_EQ(EscapeMarkup(""), "");
}

TEST(FlameGraph, MalformedFoldedTextNamesTheLine) {
  for (const auto& [text, want] : std::vector<std::pair<std::string, std::string>>{
           {"a;b 1\nno-count\n", "x.folded:2: a folded stack must read STACK COUNT"},
           {"a;b x\n", "x.folded:1: bad sample count \"x\""},
           {"a;b -3\n", "x.folded:1: bad sample count \"-3\""},
           {"a;b 0\n", "x.folded:1: bad sample count \"0\""},
           {"\n\n", "x.folded: no samples to draw"},
       }) {
    auto g = FlameGraphSvg(text, "x.folded");
    ASSERT_FALSE(g.ok()) << text;
    EXPECT_THAT(g.status().message(), HasSubstr(want)) << text;
  }
}

}  // namespace
}  // namespace pgrig::report
