#include "cost/format.h"

#include <fmt/format.h>

#include <cmath>

namespace pgrig::cost {

std::string FormatNumber(double v, int decimals) {
  if (!std::isfinite(v)) return fmt::format("{}", v);
  std::string s = fmt::format("{:.{}f}", std::fabs(v), decimals);
  // A value that rounds to zero prints without a minus sign.
  bool negative = v < 0 && s.find_first_not_of("0.") != std::string::npos;
  size_t dot = s.find('.');
  size_t int_end = dot == std::string::npos ? s.size() : dot;
  std::string out;
  for (size_t i = 0; i < int_end; ++i) {
    if (i > 0 && (int_end - i) % 3 == 0) out.push_back(',');
    out.push_back(s[i]);
  }
  out.append(s, int_end, std::string::npos);
  return negative ? "-" + out : out;
}

std::string FormatPlain(double v, int max_decimals) {
  if (!std::isfinite(v)) return fmt::format("{}", v);
  std::string s = fmt::format("{:.{}f}", v, max_decimals);
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

}  // namespace pgrig::cost
