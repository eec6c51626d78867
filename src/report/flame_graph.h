// A flame graph of folded stacks as a self-contained SVG (issue 30, point
// 2): no script, no external font or style; hovering a frame shows its
// <title> (name, samples, share), which every browser does without code.
//
// Layout: the root ("all") at the bottom, each frame above its caller,
// widths proportional to samples, children in name order (so the same
// stacks always draw the same picture).  Frames narrower than
// `min_width_px` are merged into their parent's space (counted, not drawn:
// the caption says how many samples that left out of view).  Colours are
// the profile categories of profile/categories.h, so the picture and the
// category table agree; unnamed frames ("[postgres]") are grey.
//
// Malformed folded text is an error naming `source` and the line.  Pure.
#ifndef PGRIG_REPORT_FLAME_GRAPH_H_
#define PGRIG_REPORT_FLAME_GRAPH_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace pgrig::report {

struct FlameOptions {
  double width_px = 1100;
  double row_px = 16;
  double min_width_px = 0.3;
  int max_depth = 80;  // deeper frames are cut (counted in `frames_cut`)
};

struct FlameGraph {
  std::string svg;
  int64_t samples = 0;
  int64_t frames_drawn = 0;
  int64_t samples_hidden = 0;  // in frames too narrow or too deep to draw
};

Result<FlameGraph> FlameGraphSvg(std::string_view folded, std::string_view source,
                                 const FlameOptions& options = {});

}  // namespace pgrig::report

#endif  // PGRIG_REPORT_FLAME_GRAPH_H_
