// EscapeMarkup: text made safe inside an HTML or SVG (XML 1.0) document,
// in element content and in double-quoted attributes: & < > " become
// entities, and control characters other than tab, newline and carriage
// return (which XML 1.0 forbids, and which a report's labels never mean)
// become spaces.  The one escape both report renderers (render_html.cc,
// flame_graph.cc) use.
#ifndef PGRIG_REPORT_MARKUP_H_
#define PGRIG_REPORT_MARKUP_H_

#include <string>
#include <string_view>

namespace pgrig::report {

inline std::string EscapeMarkup(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\t':
      case '\n':
      case '\r':
        out += c;
        break;
      default:
        out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
    }
  }
  return out;
}

}  // namespace pgrig::report

#endif  // PGRIG_REPORT_MARKUP_H_
