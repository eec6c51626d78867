// FlameGraphSvg (report/flame_graph.h).
#include "report/flame_graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <memory>
#include <vector>

#include "profile/categories.h"
#include "report/markup.h"

namespace pgrig::report {
namespace {

struct Node {
  int64_t count = 0;
  std::map<std::string, std::unique_ptr<Node>, std::less<>> children;
};

const char* ColourOf(std::string_view name) {
  if (name.starts_with("[")) return "#c8c8c8";  // unnamed: grey
  profile::Category c;
  const profile::Frame f{name, ""};
  if (!profile::CategoryOfFrame(f, c)) return "#f0b070";
  switch (c) {
    case profile::Category::kLocks:
      return "#e05050";
    case profile::Category::kAtomics:
      return "#e07090";
    case profile::Category::kWal:
      return "#c080e0";
    case profile::Category::kBuffers:
      return "#60a0e0";
    case profile::Category::kExecutor:
      return "#f0d050";
    case profile::Category::kPlanner:
      return "#a0d060";
    case profile::Category::kJit:
      return "#40c0b0";
    case profile::Category::kMemory:
      return "#f09040";
    case profile::Category::kNetworkKernel:
      return "#90b0c0";
    case profile::Category::kIdleWait:
      return "#d0d0a0";
    case profile::Category::kOther:
      break;
  }
  return "#f0b070";
}

struct Drawer {
  const FlameOptions& o;
  double px_per_sample;
  int depth_rows;
  int64_t total;
  std::string body;
  int64_t drawn = 0;
  int64_t hidden = 0;

  void Draw(const std::string& name, const Node& n, double x, int depth) {
    const double w = static_cast<double>(n.count) * px_per_sample;
    if (w < o.min_width_px || depth >= o.max_depth) {
      hidden += n.count;
      return;
    }
    const double y = static_cast<double>(depth_rows - 1 - depth) * o.row_px;
    const double pct = 100.0 * static_cast<double>(n.count) / static_cast<double>(total);
    body += fmt::format(
        "<g><title>{} ({} samples, {:.2f}%)</title><rect x=\"{:.2f}\" y=\"{:.1f}\" "
        "width=\"{:.2f}\" height=\"{:.1f}\" fill=\"{}\" rx=\"1\"/>",
        EscapeMarkup(name), n.count, pct, x, y, w, o.row_px - 1, ColourOf(name));
    // A label when at least a few characters fit (about 6.5 px each).
    const auto fit = static_cast<size_t>((w - 4) / 6.5);
    if (fit >= 3) {
      std::string label = name.size() <= fit ? name : name.substr(0, fit - 2) + "..";
      body += fmt::format("<text x=\"{:.2f}\" y=\"{:.1f}\">{}</text>", x + 2, y + o.row_px - 4.5,
                          EscapeMarkup(label));
    }
    body += "</g>";
    ++drawn;
    double cx = x;
    for (const auto& [child_name, child] : n.children) {
      Draw(child_name, *child, cx, depth + 1);
      cx += static_cast<double>(child->count) * px_per_sample;
    }
  }
};

int Depth(const Node& n) {
  int d = 0;
  for (const auto& [k, c] : n.children) d = std::max(d, Depth(*c));
  return d + 1;
}

}  // namespace

Result<FlameGraph> FlameGraphSvg(std::string_view folded, std::string_view source,
                                 const FlameOptions& options) {
  Node root;
  size_t line_no = 0;
  size_t pos = 0;
  while (pos < folded.size()) {
    size_t nl = folded.find('\n', pos);
    if (nl == std::string_view::npos) nl = folded.size();
    std::string_view line = folded.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const size_t sp = line.rfind(' ');
    int64_t n = 0;
    if (sp == std::string_view::npos || sp == 0) {
      return InvalidArgument(
          fmt::format("{}:{}: a folded stack must read STACK COUNT", source, line_no));
    }
    const std::string_view count = line.substr(sp + 1);
    const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), n);
    if (ec != std::errc() || end != count.data() + count.size() || n <= 0 ||
        n > (int64_t{1} << 40)) {
      return InvalidArgument(
          fmt::format("{}:{}: bad sample count \"{}\"", source, line_no, std::string(count)));
    }
    root.count += n;
    Node* at = &root;
    std::string_view stack = line.substr(0, sp);
    int depth = 0;
    while (!stack.empty() && depth < 4096) {
      const size_t semi = stack.find(';');
      const std::string_view frame = stack.substr(0, semi);
      stack = semi == std::string_view::npos ? std::string_view() : stack.substr(semi + 1);
      auto it = at->children.find(frame);
      if (it == at->children.end()) {
        it = at->children.emplace(std::string(frame), std::make_unique<Node>()).first;
      }
      at = it->second.get();
      at->count += n;
      ++depth;
    }
  }
  FlameGraph g;
  g.samples = root.count;
  if (root.count == 0) {
    return InvalidArgument(std::string(source) + ": no samples to draw");
  }
  const int rows = std::min(Depth(root), options.max_depth);
  Drawer d{.o = options,
           .px_per_sample = options.width_px / static_cast<double>(root.count),
           .depth_rows = rows,
           .total = root.count,
           .body = {}};
  d.Draw("all", root, 0, 0);
  const double height = static_cast<double>(rows) * options.row_px;
  g.svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"flame\" width=\"{:.0f}\" "
      "height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\" font-family=\"monospace\" "
      "font-size=\"11\" role=\"img\">{}</svg>",
      options.width_px, height, options.width_px, height, d.body);
  g.frames_drawn = d.drawn;
  g.samples_hidden = d.hidden;
  return g;
}

}  // namespace pgrig::report
