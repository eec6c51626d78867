#include "report/render_html.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "common/fs.h"
#include "cost/per_dollar.h"
#include "report/flame_graph.h"
#include "report/markup.h"
#include "results/metrics.h"

namespace pgrig::report {
namespace {

constexpr double kW = 640, kH = 300;
constexpr double kLeft = 72, kRight = 16, kTop = 16, kBottom = 44;
constexpr int kColors = 8;

std::string F(double v) { return fmt::format("{:.6g}", v); }
std::string Px(double v) { return fmt::format("{:.1f}", v); }

struct Point {
  double x = 0;
  double y = 0;
  std::optional<double> low, high;
  std::string label;  // x label for categorical axes
};

struct Series {
  std::string name;
  std::vector<Point> points;
};

enum class Axis { kLinear, kLog };

struct ChartSpec {
  std::string kind;  // data-chart
  std::string title;
  std::string x_label, y_label;
  Axis y_axis = Axis::kLinear;
  bool categorical_x = false;  // x values are 0..n-1, labels from the points
  bool lines = true;
  // Vertical lines at these x values (e.g. checkpoints), with their labels;
  // listed under the data table too.
  std::vector<std::pair<double, std::string>> markers;
};

// "Nice" tick step for a range: 1, 2 or 5 times a power of ten.
double NiceStep(double range, int target) {
  const double raw = range / target;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (raw <= m * p) return m * p;
  }
  return 10 * p;
}

std::string TickText(double v) {
  if (std::fabs(v) >= 1e6) return F(v / 1e6) + "M";
  if (std::fabs(v) >= 1e4) return F(v / 1e3) + "k";
  return F(v);
}

std::string Legend(const std::vector<Series>& series) {
  std::string out = "<ul class=\"legend\">";
  for (size_t i = 0; i < series.size(); ++i) {
    out += fmt::format("<li><span class=\"sw c{}\"></span>{}</li>", i % kColors,
                       EscapeMarkup(series[i].name));
  }
  return out + "</ul>";
}

// A line/point chart with optional interval whiskers, and its data table.
std::string Chart(const ChartSpec& spec, const std::vector<Series>& series,
                  const std::map<std::string, std::string>& attrs = {}) {
  double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
  size_t points = 0;
  for (const Series& s : series) {
    for (const Point& p : s.points) {
      x0 = std::min(x0, p.x);
      x1 = std::max(x1, p.x);
      y0 = std::min(y0, p.low.value_or(p.y));
      y1 = std::max(y1, p.high.value_or(p.y));
      ++points;
    }
  }
  std::string extra;
  for (const auto& [k, v] : attrs) extra += fmt::format(" data-{}=\"{}\"", k, EscapeMarkup(v));
  std::string out =
      fmt::format("<figure class=\"chart\" data-chart=\"{}\"{}><figcaption>{}</figcaption>",
                  EscapeMarkup(spec.kind), extra, EscapeMarkup(spec.title));
  if (points == 0) return out + "<p class=\"empty\">no data</p></figure>";
  const bool log = spec.y_axis == Axis::kLog;
  if (log) {
    y0 = std::pow(10.0, std::floor(std::log10(std::max(y0, 1e-9))));
    y1 = std::pow(10.0, std::ceil(std::log10(std::max(y1, y0 * 10))));
  } else {
    y0 = 0;
    const double step = NiceStep(y1 > 0 ? y1 : 1, 5);
    y1 = std::ceil((y1 > 0 ? y1 : 1) / step) * step;
  }
  if (spec.categorical_x) {
    x0 -= 0.5;
    x1 += 0.5;
  } else if (x1 == x0) {
    x0 -= 1;
    x1 += 1;
  }
  const double pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  auto sx = [&](double x) { return kLeft + (x - x0) / (x1 - x0) * pw; };
  auto sy = [&](double y) {
    const double f = log ? (std::log10(y) - std::log10(y0)) / (std::log10(y1) - std::log10(y0))
                         : (y - y0) / (y1 - y0);
    return kTop + ph * (1 - f);
  };
  out += fmt::format("<svg class=\"plot\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">",
                     kW, kH, EscapeMarkup(spec.title));
  // Axes and grid.
  out += "<g class=\"axis\">";
  if (log) {
    for (double t = y0; t <= y1 * 1.0001; t *= 10) {
      out += fmt::format("<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>",
                         Px(kLeft), Px(kW - kRight), Px(sy(t)), Px(sy(t)));
      out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", Px(kLeft - 6),
                         Px(sy(t) + 4), TickText(t));
    }
  } else {
    const double step = NiceStep(y1 - y0, 5);
    for (double t = y0; t <= y1 + step / 2; t += step) {
      out += fmt::format("<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>",
                         Px(kLeft), Px(kW - kRight), Px(sy(t)), Px(sy(t)));
      out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", Px(kLeft - 6),
                         Px(sy(t) + 4), TickText(t));
    }
  }
  std::map<double, std::string> xticks;
  for (const Series& s : series) {
    for (const Point& p : s.points) xticks[p.x] = spec.categorical_x ? p.label : TickText(p.x);
  }
  if (!spec.categorical_x && xticks.size() > 12) {
    xticks.clear();
    const double step = NiceStep(x1 - x0, 8);
    for (double t = std::ceil(x0 / step) * step; t <= x1; t += step) xticks[t] = TickText(t);
  }
  for (const auto& [x, label] : xticks) {
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", Px(sx(x)),
                       Px(kH - kBottom + 16), EscapeMarkup(label));
  }
  out += fmt::format("<line class=\"frame\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>",
                     Px(kLeft), Px(kTop), Px(kH - kBottom));
  out += fmt::format("<line class=\"frame\" x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/>",
                     Px(kLeft), Px(kW - kRight), Px(kH - kBottom));
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", Px(kLeft + pw / 2),
                     Px(kH - 6), EscapeMarkup(spec.x_label));
  out += fmt::format(
      "<text transform=\"translate(14 {}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
      Px(kTop + ph / 2), EscapeMarkup(spec.y_label));
  out += "</g>";
  for (const auto& [x, label] : spec.markers) {
    if (x < x0 || x > x1) continue;
    out += fmt::format(
        "<line class=\"marker\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" data-marker=\"{3}\" "
        "data-x=\"{4}\"><title>{3} at {4}</title></line>",
        Px(sx(x)), Px(kTop), Px(kH - kBottom), EscapeMarkup(label), F(x));
  }
  for (size_t i = 0; i < series.size(); ++i) {
    const Series& s = series[i];
    out += fmt::format("<g class=\"series c{}\" data-series=\"{}\">", i % kColors,
                       EscapeMarkup(s.name));
    if (spec.lines && s.points.size() > 1) {
      std::string d;
      for (const Point& p : s.points)
        d += fmt::format("{}{},{} ", d.empty() ? "M" : "L", Px(sx(p.x)), Px(sy(p.y)));
      out += "<path class=\"line\" d=\"" + d + "\"/>";
    }
    for (const Point& p : s.points) {
      if (p.low && p.high) {
        out += fmt::format(
            "<path class=\"whisker\" d=\"M{0},{1} L{0},{2} M{3},{1} L{4},{1} M{3},{2} L{4},{2}\"/>",
            Px(sx(p.x)), Px(sy(*p.low)), Px(sy(*p.high)), Px(sx(p.x) - 4), Px(sx(p.x) + 4));
      }
      std::string interval =
          p.low && p.high ? fmt::format(" data-low=\"{}\" data-high=\"{}\"", F(*p.low), F(*p.high))
                          : "";
      out += fmt::format(
          "<circle class=\"point\" cx=\"{}\" cy=\"{}\" r=\"3.5\" data-x=\"{}\" data-y=\"{}\"{}>"
          "<title>{}: {} = {}</title></circle>",
          Px(sx(p.x)), Px(sy(p.y)), spec.categorical_x ? EscapeMarkup(p.label) : F(p.x), F(p.y),
          interval, EscapeMarkup(s.name), spec.categorical_x ? EscapeMarkup(p.label) : F(p.x),
          F(p.y));
    }
    out += "</g>";
  }
  out += "</svg>" + Legend(series);
  // The same data as a table, for screen readers and for print.
  out += "<table class=\"data\"><thead><tr><th>series</th><th>" + EscapeMarkup(spec.x_label) +
         "</th><th>" + EscapeMarkup(spec.y_label) +
         "</th><th>95% interval</th></tr></thead><tbody>";
  for (const Series& s : series) {
    for (const Point& p : s.points) {
      out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                         EscapeMarkup(s.name), spec.categorical_x ? EscapeMarkup(p.label) : F(p.x),
                         F(p.y), p.low && p.high ? F(*p.low) + " - " + F(*p.high) : "-");
    }
  }
  out += "</tbody></table>";
  if (!spec.markers.empty()) {
    out += "<p class=\"markers\">Marked (dashed lines): ";
    for (size_t i = 0; i < spec.markers.size(); ++i) {
      out += fmt::format("{}{} at {} {}", i ? "; " : "", EscapeMarkup(spec.markers[i].second),
                         F(spec.markers[i].first), EscapeMarkup(spec.x_label));
    }
    out += "</p>";
  }
  return out + "</figure>";
}

// Horizontal stacked bars (shares that add up to 1), with a table.
struct StackRow {
  std::string name;
  std::vector<std::optional<double>> parts;
  std::string note;
};

std::string StackChart(const std::string& kind, const std::string& title,
                       const std::vector<std::string>& part_names,
                       const std::vector<StackRow>& rows) {
  // Its table (the evidence in words) goes under the chart, at full width.
  std::string out = fmt::format(
      "<figure class=\"chart\" data-chart=\"{}\" data-layout=\"wide\"><figcaption>{}</figcaption>",
      EscapeMarkup(kind), EscapeMarkup(title));
  if (rows.empty()) return out + "<p class=\"empty\">no data</p></figure>";
  const double row_h = 22, label_w = 250, bar_w = kW - label_w - kRight;
  const double h = kTop + row_h * static_cast<double>(rows.size()) + 8;
  out += fmt::format("<svg class=\"plot\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">",
                     kW, Px(h), EscapeMarkup(title));
  // One series per part, so that tests and readers see each share.
  for (size_t p = 0; p < part_names.size(); ++p) {
    out += fmt::format("<g class=\"series c{}\" data-series=\"{}\">", p % kColors,
                       EscapeMarkup(part_names[p]));
    for (size_t r = 0; r < rows.size(); ++r) {
      double x = 0;
      for (size_t q = 0; q < p; ++q) x += rows[r].parts[q].value_or(0);
      if (!rows[r].parts[p]) continue;
      const double v = *rows[r].parts[p];
      out += fmt::format(
          "<rect class=\"point\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" data-x=\"{}\" "
          "data-y=\"{}\"><title>{}: {} {:.1f}%</title></rect>",
          Px(label_w + x * bar_w), Px(kTop + row_h * static_cast<double>(r)),
          Px(std::max(0.0, v * bar_w)), Px(row_h - 6), EscapeMarkup(rows[r].name), F(v),
          EscapeMarkup(rows[r].name), EscapeMarkup(part_names[p]), v * 100);
    }
    out += "</g>";
  }
  out += "<g class=\"axis\">";
  for (size_t r = 0; r < rows.size(); ++r) {
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", Px(label_w - 6),
                       Px(kTop + row_h * static_cast<double>(r) + row_h / 2 + 1),
                       EscapeMarkup(rows[r].name));
  }
  out += "</g></svg><ul class=\"legend\">";
  for (size_t p = 0; p < part_names.size(); ++p) {
    out += fmt::format("<li><span class=\"sw c{}\"></span>{}</li>", p % kColors,
                       EscapeMarkup(part_names[p]));
  }
  out += "</ul><table class=\"data\"><thead><tr><th>cell</th>";
  for (const auto& n : part_names) out += "<th>" + EscapeMarkup(n) + " %</th>";
  out += "<th>evidence</th></tr></thead><tbody>";
  for (const StackRow& r : rows) {
    out += "<tr><td>" + EscapeMarkup(r.name) + "</td>";
    for (const auto& v : r.parts)
      out += "<td>" + (v ? fmt::format("{:.1f}", *v * 100) : "-") + "</td>";
    out += "<td>" + EscapeMarkup(r.note) + "</td></tr>";
  }
  return out + "</tbody></table></figure>";
}

std::string HtmlTable(const Table& t) {
  std::string out = fmt::format("<section class=\"table\" id=\"{}\"><h2>{}</h2>",
                                EscapeMarkup(t.id), EscapeMarkup(t.title));
  if (!t.rows.empty()) {
    out += "<table><thead><tr>";
    for (const auto& h : t.headers) out += "<th>" + EscapeMarkup(h) + "</th>";
    out += "</tr></thead><tbody>";
    for (const auto& row : t.rows) {
      out += "<tr>";
      for (size_t i = 0; i < row.size(); ++i) {
        const bool right = i < t.right.size() && t.right[i];
        std::string cls = right ? " class=\"num\"" : "";
        if (row[i] == "faster" || row[i] == "supported") cls = " class=\"good\"";
        if (row[i] == "slower" || row[i] == "contradicted") cls = " class=\"bad\"";
        out += "<td" + cls + ">" + EscapeMarkup(row[i]) + "</td>";
      }
      out += "</tr>";
    }
    out += "</tbody></table>";
  }
  if (!t.note.empty()) out += "<p class=\"note\">" + EscapeMarkup(t.note) + "</p>";
  return out + "</section>";
}

constexpr const char* kCss = R"css(
:root{--bg:#fff;--fg:#1b1b1f;--muted:#5c5f66;--grid:#e3e5e8;--warn-bg:#fff3cd;--warn-fg:#5c4400;
--c0:#1f77b4;--c1:#d62728;--c2:#2ca02c;--c3:#9467bd;--c4:#ff7f0e;--c5:#17becf;--c6:#8c564b;--c7:#7f7f7f}
@media (prefers-color-scheme:dark){:root{--bg:#16171a;--fg:#e6e6e6;--muted:#a0a4ab;--grid:#34363b;
--warn-bg:#3d3200;--warn-fg:#ffe08a;--c0:#6cb4ff;--c1:#ff7a7a;--c2:#6fdc6f;--c3:#c7a3ff;--c4:#ffb060;
--c5:#5fe3f0;--c6:#d9a38f;--c7:#bdbdbd}}
body{background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:1100px;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.6em}
table{border-collapse:collapse;margin:.5em 0;font-size:.92em}
th,td{border-bottom:1px solid var(--grid);padding:.25em .6em;text-align:left;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums}td.good{color:var(--c2);font-weight:600}
td.bad{color:var(--c1);font-weight:600}.note,.meta{color:var(--muted);font-size:.9em}
#mismatches{background:var(--warn-bg);color:var(--warn-fg);padding:.2em 1em 1em;border-radius:6px}
figure.chart{margin:1.2em 0;display:grid;grid-template-columns:minmax(0,640px) minmax(0,1fr);gap:1em;align-items:start}
figure.chart figcaption{grid-column:1/-1;font-weight:600}
figure.chart table.data{grid-column:2;grid-row:2/4;max-height:320px;overflow:auto;display:block}
figure.chart[data-layout=wide]{grid-template-columns:minmax(0,1fr)}
figure.chart[data-layout=wide] svg.plot{max-width:640px}
figure.chart[data-layout=wide] table.data{grid-column:1;grid-row:auto;max-height:none}
figure.chart[data-layout=wide] td:first-child{white-space:nowrap}
svg.plot{width:100%;height:auto}svg text{fill:var(--muted);font-size:11px}
.grid{stroke:var(--grid)}.frame{stroke:var(--muted)}
line.marker{stroke:currentColor;stroke-dasharray:4 3;opacity:.6}.series path.line{fill:none;stroke-width:1.8}.series path.whisker{stroke-width:1.2}
.legend{list-style:none;padding:0;margin:0;display:flex;flex-wrap:wrap;gap:.3em 1em;font-size:.88em}
.sw{display:inline-block;width:.9em;height:.9em;margin-right:.35em;vertical-align:-.1em;border-radius:2px}
.c0{--c:var(--c0)}.c1{--c:var(--c1)}.c2{--c:var(--c2)}.c3{--c:var(--c3)}.c4{--c:var(--c4)}
.c5{--c:var(--c5)}.c6{--c:var(--c6)}.c7{--c:var(--c7)}
.sw{background:var(--c)}.series .line,.series .whisker{stroke:var(--c)}.series .point{fill:var(--c)}
figure.flame{margin:1.2em 0}figure.flame figcaption{font-weight:600}
svg.flame{width:100%;height:auto;max-width:1100px}svg.flame text{fill:#222;font-size:11px}
@media print{body{max-width:none;margin:0;font-size:11px}figure.chart{break-inside:avoid;grid-template-columns:1fr}
figure.chart table.data{grid-column:1;grid-row:auto;max-height:none}section.table{break-inside:avoid}}
)css";

std::string Page(const std::string& title, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
         "<meta name=\"color-scheme\" content=\"light dark\">"
         "<title>" +
         EscapeMarkup(title) + "</title><style>" + kCss + "</style></head><body>" + body +
         "<p class=\"meta\">Written by pgrig. Every figure was computed by pgrig's stats module "
         "before rendering" +
         (body.find("<figure class=\"chart\"") != std::string::npos
              ? "; each chart's data is in the table beside it."
              : ".") +
         "</p></body></html>\n";
}

// ---- chart data: selections of finished figures -------------------------

struct Labeled {
  std::string label;
  const SuiteStats* stats;
};

std::vector<std::string> Workloads(const std::vector<Labeled>& suites) {
  std::vector<std::string> out;
  for (const Labeled& s : suites) {
    for (const CellStats& c : s.stats->cells) {
      if (std::find(out.begin(), out.end(), c.workload) == out.end()) out.push_back(c.workload);
    }
  }
  return out;
}

// The y axis of a workload's throughput charts: "lio/s" when its cells are
// lio cells, "tps" otherwise (or "tps or lio/s" if suites disagree).
std::string WorkloadMetric(const std::vector<Labeled>& suites, const std::string& workload) {
  std::vector<const CellStats*> cells;
  for (const Labeled& s : suites) {
    for (const CellStats& c : s.stats->cells) {
      if (c.workload == workload) cells.push_back(&c);
    }
  }
  return MetricHeader(cells);
}

std::string ThroughputVsClients(const std::vector<Labeled>& suites, const std::string& workload) {
  std::vector<Series> series;
  for (const Labeled& s : suites) {
    std::map<std::string, Series> groups;  // protocol/variant/threads -> series
    std::vector<std::string> order;
    for (const CellStats& c : s.stats->cells) {
      if (c.workload != workload || c.runs_ok == 0) continue;
      const std::string key = fmt::format("{}/{}/j{}", c.protocol, c.variant, c.threads);
      if (!groups.count(key)) {
        order.push_back(key);
        groups[key].name = s.label + " " + workload + " " + key;
      }
      groups[key].points.push_back({static_cast<double>(c.clients), c.tps_summary.median,
                                    c.tps_ci ? std::optional(c.tps_ci->low) : std::nullopt,
                                    c.tps_ci ? std::optional(c.tps_ci->high) : std::nullopt, ""});
    }
    for (const auto& k : order) {
      Series& g = groups[k];
      std::sort(g.points.begin(), g.points.end(),
                [](const Point& a, const Point& b) { return a.x < b.x; });
      series.push_back(std::move(g));
    }
  }
  return Chart(
      {"throughput-vs-clients", "Throughput vs clients: " + workload + " (median, 95% interval)",
       "clients", WorkloadMetric(suites, workload), Axis::kLinear, false, true},
      series, {{"workload", workload}});
}

// The cell of `workload` with the most clients (then threads) in a suite.
const CellStats* TopCell(const SuiteStats& s, const std::string& workload) {
  const CellStats* best = nullptr;
  for (const CellStats& c : s.cells) {
    if (c.workload != workload || c.runs_ok == 0) continue;
    if (!best || c.clients > best->clients ||
        (c.clients == best->clients && c.threads > best->threads))
      best = &c;
  }
  return best;
}

std::string LatencyChart(const std::vector<Labeled>& suites, const std::string& workload) {
  std::vector<Series> series;
  for (const Labeled& s : suites) {
    const CellStats* c = TopCell(*s.stats, workload);
    if (!c || c->latency_ms.empty()) continue;
    Series sr{s.label + " " + c->id, {}};
    for (size_t p = 0; p < kPercentileCount; ++p) {
      if (c->latency_ms[p] > 0) {
        sr.points.push_back({static_cast<double>(p), c->latency_ms[p], std::nullopt, std::nullopt,
                             "p" + F(kPercentiles[p])});
      }
    }
    series.push_back(std::move(sr));
  }
  return Chart(
      {"latency-percentiles", "Latency percentiles: " + workload + " (merged histograms, log axis)",
       "percentile", "latency ms", Axis::kLog, true, true},
      series, {{"workload", workload}});
}

std::string OverTimeChart(const std::vector<Labeled>& suites, const std::string& workload) {
  std::vector<Series> series;
  std::vector<std::pair<double, std::string>> markers;
  for (const Labeled& s : suites) {
    const CellStats* c = TopCell(*s.stats, workload);
    if (!c) continue;
    for (size_t r = 0; r < c->tps_series.size(); ++r) {
      Series sr{fmt::format("{} {} run {}", s.label, c->id, r + 1), {}};
      for (size_t i = 0; i < c->tps_series[r].size(); ++i) {
        sr.points.push_back({static_cast<double>(i + 1) * c->series_interval_s, c->tps_series[r][i],
                             std::nullopt, std::nullopt, ""});
      }
      if (r < c->checkpoint_times_s.size()) {
        for (double t : c->checkpoint_times_s[r]) {
          markers.emplace_back(t, fmt::format("checkpoint, {} run {}", s.label, r + 1));
        }
      }
      series.push_back(std::move(sr));
    }
  }
  // A run without a per-second series (a lio window, a result written
  // without one) has nothing to draw: no frame rather than "no data".
  if (std::none_of(series.begin(), series.end(),
                   [](const Series& sr) { return !sr.points.empty(); })) {
    return "";
  }
  ChartSpec spec{"throughput-over-time",
                 "Throughput over time per run: " + workload +
                     " (dashed lines: checkpoints the server counted; other dips are stalls)",
                 "seconds",
                 WorkloadMetric(suites, workload),
                 Axis::kLinear,
                 false,
                 true};
  spec.markers = std::move(markers);
  return Chart(spec, series, {{"workload", workload}});
}

// `decision` holds the decision table's columns, one per suite: the chart
// reads the same cells (one common cell id per kind, or with --best-each
// each suite's best) with the same intervals, widened for the choice among
// their candidates, so that no bar is a best-of-many read at 95%.
std::string PriceChart(const std::vector<Labeled>& suites,
                       const std::vector<DecisionColumn>& decision, bool best_each) {
  bool priced = false;
  for (const Labeled& s : suites) priced = priced || s.stats->suite->usd_per_hour.has_value();
  if (!priced) {
    return "<figure class=\"chart\" data-chart=\"price-performance\"><figcaption>Price/performance"
           "</figcaption><p class=\"empty\">no price: give --usd-per-hour or --instance to "
           "`pgrig run` or to this command</p></figure>";
  }
  const WorkloadKind kinds[] = {WorkloadKind::kReadOnly, WorkloadKind::kReadWrite,
                                WorkloadKind::kWriteOnly};
  std::vector<Series> series;
  for (size_t i = 0; i < suites.size() && i < decision.size(); ++i) {
    const DecisionColumn& d = decision[i];
    Series sr{suites[i].label, {}};
    const std::optional<double> usd = suites[i].stats->suite->usd_per_hour;
    const std::pair<const CellStats*, std::optional<stats::Interval>> read[] = {
        {d.read_only, d.read_only_ci}, {d.read_write, d.read_write_ci}};
    for (const auto& [c, ci] : read) {
      if (!c || !c->transactions_per_usd || !usd) continue;
      const double k = cost::kSecondsPerHour / *usd;
      const size_t x = static_cast<size_t>(std::find(std::begin(kinds), std::end(kinds), c->kind) -
                                           std::begin(kinds));
      sr.points.push_back({static_cast<double>(x), *c->transactions_per_usd,
                           ci ? std::optional(ci->low * k) : std::nullopt,
                           ci ? std::optional(ci->high * k) : std::nullopt,
                           std::string(WorkloadKindName(c->kind)) + ": " + c->id});
    }
    series.push_back(std::move(sr));
  }
  return Chart({"price-performance",
                std::string("Transactions per USD (tps x 3,600 / USD per hour) of the decision "
                            "table's cells: ") +
                    (best_each ? "each suite's best cell of each kind"
                               : "per kind, the one cell all suites measured where they are "
                                 "highest together") +
                    "; the interval allows for that choice among m cells (1 - 0.05/m)",
                "workload kind", "transactions per USD", Axis::kLinear, true, false},
               series);
}

std::string BottleneckChart(const std::vector<Labeled>& suites) {
  std::vector<StackRow> rows;
  for (const Labeled& s : suites) {
    for (const CellStats& c : s.stats->cells) {
      if (c.runs_ok == 0) continue;
      std::string note = Pretty(c.bottleneck);
      if (!c.bottleneck_evidence.empty()) note += ": " + c.bottleneck_evidence;
      if (c.read_bytes_per_s || c.write_bytes_per_s) {
        note += fmt::format("; disk read {:.1f} MB/s, write {:.1f} MB/s",
                            c.read_bytes_per_s.value_or(0) / 1e6,
                            c.write_bytes_per_s.value_or(0) / 1e6);
      }
      std::vector<std::pair<int64_t, std::string>> waits;
      for (const auto& [k, v] : c.wait_events) waits.emplace_back(v, k);
      std::sort(waits.rbegin(), waits.rend());
      for (size_t i = 0; i < waits.size() && i < 3; ++i) {
        note +=
            fmt::format("{}{} {}", i == 0 ? "; waits: " : ", ", waits[i].second, waits[i].first);
      }
      const std::vector<std::optional<double>> parts = {c.cpu_user, c.cpu_system, c.cpu_iowait,
                                                        c.cpu_steal, c.cpu_idle};
      // A cell whose host was not observed and which names no bottleneck
      // has no evidence to show.
      const bool observed =
          std::any_of(parts.begin(), parts.end(), [](const auto& v) { return v.has_value(); });
      if (!observed && c.bottleneck.empty() && c.wait_events.empty()) continue;
      rows.push_back({(suites.size() > 1 ? s.label + " " : "") + c.id, parts, note});
    }
  }
  if (rows.empty()) return "";  // nothing was observed: no empty frame
  return StackChart("bottleneck", "Bottleneck evidence per cell: host CPU split (mean over runs)",
                    {"user", "system", "iowait", "steal", "idle"}, rows);
}

std::string Charts(const std::vector<Labeled>& suites, const std::vector<DecisionColumn>& decision,
                   bool best_each) {
  // A suite of WAL flush tests only (a `pgrig fsync` file) has no cells:
  // no chart applies, and empty frames ("no price", "no data") would only
  // suggest that something is missing.  Transactions per USD apply only to
  // cells counted in transactions.
  bool any_cell = false, any_tps = false;
  for (const Labeled& s : suites) {
    for (const CellStats& c : s.stats->cells) {
      any_cell = true;
      any_tps = any_tps || c.metric == results::kMetricTps;
    }
  }
  if (!any_cell) return "";
  std::string out = "<h2>Charts</h2>";
  const auto workloads = Workloads(suites);
  for (const auto& w : workloads) out += ThroughputVsClients(suites, w);
  for (const auto& w : workloads) out += LatencyChart(suites, w);
  for (const auto& w : workloads) out += OverTimeChart(suites, w);
  if (any_tps) out += PriceChart(suites, decision, best_each);
  out += BottleneckChart(suites);
  return out;
}

}  // namespace

// The flame graphs of a suite's profiled cells, each with its top functions
// in a table beside it (docs/profiles.md).  Folded stacks that cannot be
// read or drawn are said so in place of the graph.
std::string FlameGraphs(const std::string& label, const SuiteStats& s) {
  std::string out;
  for (const CellStats& c : s.cells) {
    if (!c.profiled) continue;
    const CellStats::Profiled& pr = *c.profiled;
    const std::string caption = fmt::format(
        "Server CPU flame graph: {}{}, iteration {} ({} samples; hover a frame for "
        "its share)",
        label.empty() ? "" : label + ", ", c.id, pr.iteration + 1,
        Num(static_cast<double>(pr.profile.samples), 0));
    out += "<figure class=\"flame\" data-flame=\"" + EscapeMarkup(c.id) + "\"><figcaption>" +
           EscapeMarkup(caption) + "</figcaption>";
    if (pr.folded_path.empty()) {
      out += "<p class=\"note\">no folded stacks were kept for this run</p>";
    } else if (auto text = ReadWholeFile(pr.folded_path); !text.ok()) {
      out +=
          "<p class=\"note\">folded stacks not readable: " + EscapeMarkup(text.status().message()) +
          "</p>";
    } else if (auto g = FlameGraphSvg(*text, pr.folded_path); !g.ok()) {
      out += "<p class=\"note\">" + EscapeMarkup(g.status().message()) + "</p>";
    } else {
      out += g->svg;
      if (g->samples_hidden > 0) {
        out +=
            fmt::format("<p class=\"note\">{} of {} samples are in frames too narrow to draw</p>",
                        g->samples_hidden, g->samples);
      }
    }
    Table t;
    t.id = "flame-top-" + c.id;
    t.title = "Top functions (self, total %)";
    t.headers = {"function", "object", "self %", "total %"};
    t.right = {false, false, true, true};
    for (size_t i = 0; i < pr.profile.top_functions.size() && i < 10; ++i) {
      const profile::FunctionShare& f = pr.profile.top_functions[i];
      t.rows.push_back({f.function, f.object, Num(pr.profile.Pct(f.self_samples), 1),
                        Num(pr.profile.Pct(f.total_samples), 1)});
    }
    out += HtmlTable(t) + "</figure>";
  }
  return out;
}

std::string RenderReportHtml(const ReportInput& in, const std::vector<Table>& tables) {
  const results::Suite& s = *in.suite->suite;
  std::string body = "<h1>pgrig report: " + EscapeMarkup(s.label) + "</h1><p class=\"meta\">" +
                     EscapeMarkup(s.source);
  if (!s.plan_name.empty()) body += ", plan " + EscapeMarkup(s.plan_name);
  if (s.scale) body += fmt::format(", scale {}", *s.scale);
  if (s.tpcc_warehouses) body += fmt::format(", {} TPC-C-like warehouses", *s.tpcc_warehouses);
  if (!s.pg_version.empty()) body += ", PostgreSQL " + EscapeMarkup(s.pg_version);
  body += "</p>";
  for (const Table& t : tables) body += HtmlTable(t);
  body += FlameGraphs("", *in.suite);
  body += Charts({{s.label, in.suite}}, DecisionColumns({in.suite}, false, nullptr), false);
  return Page("pgrig report: " + s.label, body);
}

std::string RenderComparisonHtml(const CompareInput& in, const std::vector<Table>& tables) {
  const Comparison& c = *in.comparison;
  std::vector<Labeled> suites;
  std::string names;
  for (const SuiteStats* s : c.suites) {
    suites.push_back({s->suite->label, s});
    names += (names.empty() ? "" : " vs ") + s->suite->label;
  }
  std::string body = "<h1>pgrig compare: " + EscapeMarkup(names) + "</h1>";
  for (const Table& t : tables) body += HtmlTable(t);
  for (const SuiteStats* s : c.suites) body += FlameGraphs(s->suite->label, *s);
  body += Charts(suites, c.decision, c.decision_choice.best_each);
  return Page("pgrig compare: " + names, body);
}

}  // namespace pgrig::report
