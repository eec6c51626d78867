// Small string helpers shared by every module.  All are pure functions.
#ifndef PGRIG_COMMON_STRINGS_H_
#define PGRIG_COMMON_STRINGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pgrig {

std::string_view Trim(std::string_view s);
std::vector<std::string> Split(std::string_view s, char sep);
// Splits on runs of blanks (spaces and tabs), dropping empty pieces.
std::vector<std::string> SplitWords(std::string_view s);
std::string Join(const std::vector<std::string>& parts, std::string_view sep);
std::string ToLower(std::string_view s);

// Whole-string parses; std::nullopt on any junk, overflow or empty input.
std::optional<int64_t> ParseInt64(std::string_view s);
std::optional<double> ParseDouble(std::string_view s);

// "1.5 GB", "512 MB", "12 kB" with 1024 steps, as PostgreSQL prints sizes.
std::string HumanBytes(uint64_t bytes);

// "0x41": an identifier (a CPU implementer or part number) in hex.
std::string HexId(uint64_t v);

// Quotes a word for a POSIX shell when needed (for printing commands).
std::string ShellQuote(std::string_view s);

// One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line
// break, with quotes doubled.
std::string CsvField(const std::string& s);

// Levenshtein distance (insert, delete, substitute all cost 1).
size_t EditDistance(std::string_view a, std::string_view b);

// Up to `max` of `candidates` closest to `name` for "did you mean" messages,
// closest first, compared case-insensitively: candidates that extend what was
// typed first (shortest first), then those within a small edit distance
// (max(2, length/3)), so a wild guess gets no suggestions rather than random
// ones.  Duplicates in `candidates` are reported once.
std::vector<std::string> ClosestNames(std::string_view name,
                                      const std::vector<std::string>& candidates, size_t max = 3);

}  // namespace pgrig

#endif  // PGRIG_COMMON_STRINGS_H_
