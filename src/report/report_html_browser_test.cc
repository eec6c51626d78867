// The HTML report in a real browser (Debian's chromium, headless): the page
// loads with no console errors and requests nothing over the network, every
// chart has the expected series and points in the DOM the browser built, and
// a screenshot is written under the build directory
// (report-html/compare.png) for people to look at.
//
// Chromium runs in its own empty network namespace (unshare -n), so neither
// the page nor the browser's own background services can reach any network;
// the browser's log (--v=1) is then checked for every URL request it tried.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "common/fs.h"
#include "common/process.h"
#include "report/render.h"
#include "report/test_suites.h"
#include "results/reader.h"

namespace pgrig::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::StandardCells;

// The browser's own component updater still asks update.googleapis.com once
// at start-up whatever the flags; inside the empty namespace it fails at once.
bool BrowserServiceRequest(const std::string& url) {
  return url.rfind("https://update.googleapis.com/", 0) == 0 ||
         url.rfind("http://update.googleapis.com/", 0) == 0;
}

ProcessResult RunChromium(const std::string& profile, std::vector<std::string> extra) {
  std::vector<std::string> argv = {
      "unshare",
      getuid() == 0 ? "-n" : "-rn",
      "chromium",
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-extensions",
      "--disable-default-apps",
      "--no-pings",
      "--disable-domain-reliability",
      "--host-resolver-rules=MAP * ~NOTFOUND",
      "--proxy-server=127.0.0.1:9",
      "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,Translate,MediaRouter",
      "--enable-logging=stderr",
      "--v=1",
      "--user-data-dir=" + profile};
  argv.insert(argv.end(), extra.begin(), extra.end());
  RealProcessRunner runner;
  auto r = runner.Run({.argv = argv, .timeout = std::chrono::seconds(180)});
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : ProcessResult{};
}

size_t Occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

// The markup of the first figure with data-chart=kind and data-workload=workload.
std::string Figure(const std::string& dom, const std::string& kind, const std::string& workload) {
  std::string open = "data-chart=\"" + kind + "\"";
  if (!workload.empty()) open += " data-workload=\"" + workload + "\"";
  const size_t at = dom.find(open);
  if (at == std::string::npos) return "";
  return dom.substr(at, dom.find("</figure>", at) - at);
}

TEST(ReportHtmlBrowserTest, LoadsOfflineWithoutErrorsAndShowsEverySeries) {
  testing::FixtureSuite fb{.label = "xeon",
                           .host = "intel-sapphire-rapids",
                           .usd_per_hour = 0.85,
                           .iterations = 3,
                           .seed = 61,
                           .cells = StandardCells(20000, 4000, 6000)};
  testing::FixtureSuite fa{.label = "graviton",
                           .host = "graviton3",
                           .usd_per_hour = 0.68,
                           .iterations = 3,
                           .seed = 62,
                           .cells = StandardCells(27600, 4000, 6000)};
  const results::Suite b =
      *results::ParseSuiteJson(testing::MakeSuiteJson(fb).dump(), "xeon/suite.json");
  const results::Suite a =
      *results::ParseSuiteJson(testing::MakeSuiteJson(fa).dump(), "graviton/suite.json");
  const SuiteStats sb = *Analyze(b), sa = *Analyze(a);
  const Comparison c = *Compare({&sb, &sa});
  auto claim = CheckClaim("B is 1.38x A on read-only", {&sb, &sa});
  ASSERT_TRUE(claim.ok());
  const std::string html = RenderComparison({&c, {*claim}}, Format::kHtml);

  const std::string dir = std::string(PGRIG_BINARY_DIR) + "/report-html";
  ASSERT_TRUE(MakeDirs(dir).ok());
  const std::string page = dir + "/compare.html";
  const std::string png = dir + "/compare.png";
  ASSERT_TRUE(WriteFileAtomically(page, html).ok());
  std::filesystem::remove(png);
  const std::string profile = dir + "/profile";
  std::filesystem::remove_all(profile);

  const ProcessResult dom = RunChromium(profile, {"--dump-dom", "file://" + page});
  ASSERT_EQ(dom.exit_code, 0) << dom.err.substr(0, 2000);
  const std::string& d = dom.out;
  ASSERT_THAT(d, HasSubstr("pgrig compare: xeon vs graviton"));

  // No console messages at all (the page has no script; an error would be a
  // parse or resource error), and no request other than the browser's own.
  for (const std::string& line : {std::string(":CONSOLE("), std::string("Uncaught")}) {
    EXPECT_EQ(dom.err.find(line), std::string::npos) << "console output in the browser log";
  }
  static const std::regex kRequest(R"(NotifyBeforeURLRequest: (\S+))");
  int page_requests = 0;
  for (std::sregex_iterator it(dom.err.begin(), dom.err.end(), kRequest), end; it != end; ++it) {
    const std::string url = (*it)[1].str();
    if (BrowserServiceRequest(url)) continue;
    if (url.rfind("file://", 0) == 0) continue;
    ++page_requests;
    ADD_FAILURE() << "the page requested " << url;
  }
  EXPECT_EQ(page_requests, 0);
  // And nothing in the DOM could make one.
  EXPECT_THAT(d, Not(HasSubstr("http:")));
  EXPECT_THAT(d, Not(HasSubstr("https:")));
  EXPECT_THAT(d, Not(HasSubstr(" src=")));
  EXPECT_THAT(d, Not(HasSubstr(" href=")));

  // Throughput vs clients, select-only: one series per machine, one point per
  // client count (2 and 4), each with its interval.
  const std::string tvc = Figure(d, "throughput-vs-clients", "select-only");
  ASSERT_FALSE(tvc.empty());
  EXPECT_EQ(Occurrences(tvc, "<g class=\"series"), 2u);
  EXPECT_THAT(tvc, HasSubstr("data-series=\"xeon select-only simple/default/j2\""));
  EXPECT_THAT(tvc, HasSubstr("data-series=\"graviton select-only simple/default/j2\""));
  EXPECT_EQ(Occurrences(tvc, "<circle class=\"point\""), 4u);
  EXPECT_EQ(Occurrences(tvc, "data-low="), 4u);
  EXPECT_THAT(tvc, HasSubstr(fmt::format("data-x=\"4\" data-y=\"{:.6g}\"",
                                         sa.cells[1].tps_summary.median)));
  // Latency: 5 percentiles per machine on a log axis.
  const std::string lat = Figure(d, "latency-percentiles", "tpcb-like");
  EXPECT_EQ(Occurrences(lat, "<circle class=\"point\""), 10u);
  EXPECT_THAT(lat, HasSubstr("data-x=\"p99.9\""));
  // Throughput over time: 3 runs per machine, 10 seconds each.
  const std::string ot = Figure(d, "throughput-over-time", "simple-update");
  EXPECT_EQ(Occurrences(ot, "<g class=\"series"), 6u);
  EXPECT_EQ(Occurrences(ot, "<circle class=\"point\""), 60u);
  // Price/performance: both machines, the decision table's two rows
  // (read-only; read-write, which stands for write-only when there is one),
  // with the intervals widened for the choice of cell.
  const std::string price = Figure(d, "price-performance", "");
  EXPECT_EQ(Occurrences(price, "<circle class=\"point\""), 4u);
  EXPECT_THAT(price, HasSubstr("(1 - 0.05/m)"));
  EXPECT_THAT(price, Not(HasSubstr("write-only:")));
  const DecisionColumn& base = c.decision[0];
  ASSERT_TRUE(base.read_only && base.read_only_ci && sb.suite->usd_per_hour);
  EXPECT_GT(base.read_only_among, 1);
  const double per_usd = 3600 / *sb.suite->usd_per_hour;
  EXPECT_THAT(price,
              HasSubstr(fmt::format("data-low=\"{:.6g}\"", base.read_only_ci->low * per_usd)));
  // Bottleneck evidence: 5 CPU shares for 12 cells.
  const std::string bn = Figure(d, "bottleneck", "");
  EXPECT_EQ(Occurrences(bn, "<g class=\"series"), 5u);
  EXPECT_EQ(Occurrences(bn, "<rect class=\"point\""), 60u);
  // Every chart has its table.
  EXPECT_EQ(Occurrences(d, "<figure class=\"chart\""), Occurrences(d, "<table class=\"data\">"));

  std::filesystem::remove_all(profile);
  const ProcessResult shot = RunChromium(profile, {"--window-size=1280,4000", "--hide-scrollbars",
                                                   "--screenshot=" + png, "file://" + page});
  ASSERT_EQ(shot.exit_code, 0) << shot.err.substr(0, 2000);
  std::ifstream f(png, std::ios::binary);
  char sig[8] = {};
  f.read(sig, 8);
  EXPECT_EQ(std::string(sig + 1, 3), "PNG");
  EXPECT_GT(std::filesystem::file_size(png), 20000u);
  std::filesystem::remove_all(profile);
}

// Profiled suites (tests/data/suites/profiled-r1, -r2: real runs with their
// folded stacks): the comparison page draws a flame graph per profiled cell
// and suite, each with its top-functions table, offline and without errors.
TEST(ReportHtmlBrowserTest, FlameGraphsOfProfiledSuitesRender) {
  const std::string data = std::string(PGRIG_SOURCE_DIR) + "/tests/data/suites/";
  auto a = results::LoadSuite(data + "profiled-r1");
  auto b = results::LoadSuite(data + "profiled-r2");
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(b.ok()) << b.status().message();
  const SuiteStats sa = *Analyze(*a), sb = *Analyze(*b);
  const Comparison c = *Compare({&sa, &sb});
  const std::string html = RenderComparison({&c, {}}, Format::kHtml);
  EXPECT_EQ(Occurrences(html, "<figure class=\"flame\""), 4u);
  EXPECT_THAT(html, Not(HasSubstr("folded stacks not readable")));

  const std::string dir = std::string(PGRIG_BINARY_DIR) + "/report-html";
  ASSERT_TRUE(MakeDirs(dir).ok());
  const std::string page = dir + "/flame.html";
  const std::string png = dir + "/flame.png";
  ASSERT_TRUE(WriteFileAtomically(page, html).ok());
  std::filesystem::remove(png);
  const std::string profile = dir + "/profile-flame";
  std::filesystem::remove_all(profile);
  const ProcessResult dom = RunChromium(profile, {"--dump-dom", "file://" + page});
  ASSERT_EQ(dom.exit_code, 0) << dom.err.substr(0, 2000);
  const std::string& d = dom.out;
  EXPECT_EQ(dom.err.find(":CONSOLE("), std::string::npos) << "console output in the browser log";
  EXPECT_THAT(d, HasSubstr("Where the server's CPU differs: select-only/prepared/default/c2/j2"));
  // The browser built four SVG flame graphs, each with many frames, each
  // frame with its title, and a table beside each.
  EXPECT_EQ(Occurrences(d, "class=\"flame\""), 8u);  // 4 figures, 4 svgs
  const std::string fig = d.substr(d.find("data-flame=\"select-only/prepared/default/c2/j2\""));
  const std::string one = fig.substr(0, fig.find("</figure>"));
  EXPECT_GT(Occurrences(one, "<rect"), 30u);
  EXPECT_EQ(Occurrences(one, "<rect"), Occurrences(one, "<title>"));
  EXPECT_THAT(one, HasSubstr("<title>PostgresMain ("));
  EXPECT_THAT(one, HasSubstr("Top functions (self, total %)"));

  std::filesystem::remove_all(profile);
  const ProcessResult shot = RunChromium(profile, {"--window-size=1280,3000", "--hide-scrollbars",
                                                   "--screenshot=" + png, "file://" + page});
  ASSERT_EQ(shot.exit_code, 0) << shot.err.substr(0, 2000);
  EXPECT_GT(std::filesystem::file_size(png), 20000u);
  std::filesystem::remove_all(profile);
}

}  // namespace
}  // namespace pgrig::report
