#include "script/pg_format.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace pgrig::script {

namespace {

// snprintf of one conversion (spec holds exactly one) appended to *out.
template <typename T>
void AppendOne(std::string* out, const std::string& spec, T value) {
  char buf[128];
  const int n = std::snprintf(buf, sizeof buf, spec.c_str(), value);
  if (n < 0) return;
  if (static_cast<size_t>(n) < sizeof buf) {
    out->append(buf, static_cast<size_t>(n));
    return;
  }
  std::string big(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(big.data(), big.size(), spec.c_str(), value);
  big.pop_back();
  out->append(big);
}

struct Spec {
  bool left = false;   // "-"
  bool plus = false;   // "+"
  bool space = false;  // " "
  int width = -1;
};

// PostgreSQL's fmtfloat() for a non-finite value: the sign (infinity only),
// the word, then padding to the field width with blanks.
void AppendNonFinite(std::string* out, const Spec& s, double d) {
  std::string text;
  if (std::isnan(d)) {
    text = "NaN";
  } else {
    if (d < 0) {
      text = "-";
    } else if (s.plus) {
      text = "+";
    } else if (s.space) {
      text = " ";
    }
    text += "Infinity";
  }
  const size_t pad =
      s.width > static_cast<int>(text.size()) ? static_cast<size_t>(s.width) - text.size() : 0;
  if (!s.left) out->append(pad, ' ');
  out->append(text);
  if (s.left) out->append(pad, ' ');
}

}  // namespace

const char* PgNonFiniteText(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d < 0 ? "-Infinity" : "Infinity";
  return nullptr;
}

void PgVAppendf(std::string* out, const char* fmt, va_list ap) {
  const char* p = fmt;
  while (*p != '\0') {
    if (*p != '%') {
      const char* next = std::strchr(p, '%');
      const size_t len = next == nullptr ? std::strlen(p) : static_cast<size_t>(next - p);
      out->append(p, len);
      p += len;
      continue;
    }
    ++p;
    if (*p == '%') {
      out->push_back('%');
      ++p;
      continue;
    }
    // Rebuild the conversion with "*" arguments written out, so that each
    // one can be handed to snprintf alone.
    Spec s;
    std::string spec = "%";
    while (*p != '\0' && std::strchr("-+ #0'", *p) != nullptr) {
      if (*p == '-') s.left = true;
      if (*p == '+') s.plus = true;
      if (*p == ' ') s.space = true;
      spec.push_back(*p++);
    }
    if (*p == '*') {
      s.width = va_arg(ap, int);
      if (s.width < 0) {  // C: a negative "*" width means "-" and its magnitude
        s.left = true;
        s.width = -s.width;
        spec.push_back('-');
      }
      spec += std::to_string(s.width);
      ++p;
    } else if (*p >= '0' && *p <= '9') {
      s.width = 0;
      while (*p >= '0' && *p <= '9') {
        s.width = s.width * 10 + (*p - '0');
        spec.push_back(*p++);
      }
    }
    if (*p == '.') {
      spec.push_back(*p++);
      if (*p == '*') {
        const int precision = va_arg(ap, int);
        // A negative "*" precision is taken as if omitted.
        if (precision >= 0) {
          spec += std::to_string(precision);
        } else {
          spec.pop_back();
        }
        ++p;
      } else {
        while (*p >= '0' && *p <= '9') spec.push_back(*p++);
      }
    }
    std::string length;
    while (*p != '\0' && std::strchr("hlLqjzt", *p) != nullptr) length.push_back(*p++);
    const char conv = *p;
    if (conv == '\0') break;  // a truncated conversion: print nothing of it
    ++p;
    spec += length;
    spec.push_back(conv);
    switch (conv) {
      case 'd':
      case 'i':
      case 'o':
      case 'u':
      case 'x':
      case 'X':
        if (length == "l") {
          AppendOne(out, spec, va_arg(ap, long));
        } else if (length == "ll" || length == "q") {
          AppendOne(out, spec, va_arg(ap, long long));
        } else if (length == "j") {
          AppendOne(out, spec, va_arg(ap, intmax_t));
        } else if (length == "z") {
          AppendOne(out, spec, va_arg(ap, size_t));
        } else if (length == "t") {
          AppendOne(out, spec, va_arg(ap, ptrdiff_t));
        } else {  // int, and the promoted short / char of "h" / "hh"
          AppendOne(out, spec, va_arg(ap, int));
        }
        break;
      case 'c':
        AppendOne(out, spec, va_arg(ap, int));
        break;
      case 'e':
      case 'E':
      case 'f':
      case 'F':
      case 'g':
      case 'G':
      case 'a':
      case 'A': {
        if (length == "L") {
          const long double v = va_arg(ap, long double);
          if (std::isfinite(v)) {
            AppendOne(out, spec, v);
          } else {
            AppendNonFinite(out, s, static_cast<double>(v));
          }
        } else {
          const double v = va_arg(ap, double);
          if (std::isfinite(v)) {
            AppendOne(out, spec, v);
          } else {
            AppendNonFinite(out, s, v);
          }
        }
        break;
      }
      case 's':
        AppendOne(out, spec, va_arg(ap, const char*));
        break;
      case 'p':
        AppendOne(out, spec, va_arg(ap, void*));
        break;
      case 'n':
        (void)va_arg(ap, void*);
        break;
      default:  // not a conversion: print it as written, like glibc
        out->append(spec);
        break;
    }
  }
}

void PgAppendf(std::string* out, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  PgVAppendf(out, fmt, ap);
  va_end(ap);
}

std::string PgFormat(const char* fmt, ...) {
  std::string out;
  va_list ap;
  va_start(ap, fmt);
  PgVAppendf(&out, fmt, ap);
  va_end(ap);
  return out;
}

}  // namespace pgrig::script
