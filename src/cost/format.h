// Number formatting shared by the cost module's text output: thousands
// separators and a fixed number of decimals, independent of the C locale so
// that output is the same on every machine.  Pure functions; thread-safe.
#ifndef PGRIG_COST_FORMAT_H_
#define PGRIG_COST_FORMAT_H_

#include <optional>
#include <string>
#include <string_view>

namespace pgrig::cost {

// 1234567.891 with 2 decimals -> "1,234,567.89"; -0.004 -> "0.00".
std::string FormatNumber(double v, int decimals);

// A number with up to `max_decimals` decimals and trailing zeros dropped,
// without separators: 0.1178 -> "0.1178", 3.77 -> "3.77", 2.0 -> "2".
std::string FormatPlain(double v, int max_decimals = 6);

// A decimal number as a user types it: optional sign, digits with at most
// one point, optional exponent ("12", "0.5", ".5", "1e3").  Hexadecimal
// ("0x10"), "inf", "nan", blanks inside and results that overflow to
// infinity give nullopt.
std::optional<double> ParseDecimal(std::string_view text);

}  // namespace pgrig::cost

#endif  // PGRIG_COST_FORMAT_H_
