// The HTML rendering (internal to the report module): one self-contained
// page (inline CSS and SVG, no script, no external reference of any kind),
// readable in light and dark mode and printable, with a table beside every
// chart.  Charts: throughput vs clients with 95% interval whiskers, latency
// percentiles on a log axis, throughput over time per run, price/performance
// bars, bottleneck evidence (CPU split, I/O, wait events) per cell (its
// table, with the evidence in words, goes under the chart at full width).
//
// Every chart is a <figure data-chart="KIND"> whose SVG holds one
// <g class="series" data-series="NAME"> per series and one element with
// class "point" per data point carrying data-x and data-y (and data-low /
// data-high for intervals), so tests can check the DOM.  The figures come
// from the finished analysis; nothing here computes statistics.  Pure
// functions; thread-safe.
#ifndef PGRIG_REPORT_RENDER_HTML_H_
#define PGRIG_REPORT_RENDER_HTML_H_

#include <string>
#include <vector>

#include "report/render.h"
#include "report/tables.h"

namespace pgrig::report {

std::string RenderReportHtml(const ReportInput& in, const std::vector<Table>& tables);
std::string RenderComparisonHtml(const CompareInput& in, const std::vector<Table>& tables);

}  // namespace pgrig::report

#endif  // PGRIG_REPORT_RENDER_HTML_H_
