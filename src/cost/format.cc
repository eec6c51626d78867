#include "cost/format.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

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

std::optional<double> ParseDecimal(std::string_view text) {
  // Surrounding blanks are tolerated, as the other number options do.
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    return i - start;
  };
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  size_t mantissa = digits();
  if (i < text.size() && text[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (digits() == 0) return std::nullopt;
  }
  if (i != text.size()) return std::nullopt;
  std::string s(text);
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v) || (errno == ERANGE && v != 0)) {
    return std::nullopt;
  }
  return v;
}

}  // namespace pgrig::cost
