// TPC-C's random inputs, as the TPC-C specification (revision 5.11) defines
// them: uniform draws, NURand and its constants (clause 2.1.6), the
// alphanumeric and numeric strings, customer last names, zip codes and the
// "ORIGINAL" marker of item and stock data (clause 4.3.2, 4.3.3.1).
//
// Every draw goes through a script::Prng (pg_prng's xoroshiro128**), the one
// generator pgrig has, so a loader or a terminal seeded the same way draws
// the same values: `pgrig tpcc init` is deterministic for a seed.  Prng is
// not thread-safe; each thread or terminal keeps its own.
//
// NURand's constant C is one per field for a whole run: every terminal uses
// the same three (NURandConstants).  The C_LAST constant of a run must be
// 65 to 119 away from the one the load used, and neither 96 nor 112 away
// (clause 2.1.6.1), so that a run does not look up last names with the load's
// skew; NURandConstants::ForRun draws one that is.
//
// The strings are appended to a caller's buffer: the loader builds COPY rows
// without a temporary string per column.
#ifndef PGRIG_TPCC_RANDOM_H_
#define PGRIG_TPCC_RANDOM_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "script/prng.h"

namespace pgrig::tpcc {

using script::Prng;

// NURand's A and range per field (clause 2.1.6).
inline constexpr int64_t kLastNameA = 255;   // C_LAST's number, [0, 999]
inline constexpr int64_t kCustomerA = 1023;  // C_ID, [1, 3000]
inline constexpr int64_t kItemA = 8191;      // OL_I_ID, [1, 100000]

inline constexpr int kCustomersPerDistrict = 3000;
inline constexpr int kItems = 100000;

struct NURandConstants {
  int64_t c_last = 0;   // [0, kLastNameA]
  int64_t c_id = 0;     // [0, kCustomerA]
  int64_t ol_i_id = 0;  // [0, kItemA]

  // The three constants of a load, each uniform in its range.
  static NURandConstants ForLoad(Prng& rng);
  // The constants of a run over data loaded with `load`: c_id and ol_i_id
  // uniform, c_last uniform among the values ValidLastNameDelta accepts.
  static NURandConstants ForRun(const NURandConstants& load, Prng& rng);
};

// Clause 2.1.6.1: |load_c - run_c| in [65, 119] and neither 96 nor 112.
bool ValidLastNameDelta(int64_t load_c, int64_t run_c);

// Uniform in [lo, hi], both included.  REQUIRES: lo <= hi.
int64_t Uniform(Prng& rng, int64_t lo, int64_t hi);

// NURand(A, x, y) = (((r1 | r2) + C) % (y - x + 1)) + x, with r1 uniform in
// [0, A] and r2 in [x, y]: the formula alone, for tests and for NURand().
int64_t NURandOf(int64_t r1, int64_t r2, int64_t c, int64_t x, int64_t y);
int64_t NURand(Prng& rng, int64_t a, int64_t x, int64_t y, int64_t c);

// The three uses of NURand in the transactions' inputs.
int64_t CustomerId(Prng& rng, const NURandConstants& k);      // NURand(1023, 1, 3000)
int64_t ItemId(Prng& rng, const NURandConstants& k);          // NURand(8191, 1, 100000)
int64_t LastNameNumber(Prng& rng, const NURandConstants& k);  // NURand(255, 0, 999)

// The last name of `number` in [0, 999]: its three decimal digits (with
// leading zeros), each one syllable of BAR OUGHT ABLE PRI PRES ESE ANTI
// CALLY ATION EING.  371 is PRICALLYOUGHT, 40 is BARPRESBAR.
void AppendLastName(int64_t number, std::string* out);
std::string LastName(int64_t number);

// An a-string: a length uniform in [min_len, max_len], each character
// uniform among 0-9, A-Z and a-z.  An n-string: digits only.
void AppendAString(Prng& rng, int min_len, int max_len, std::string* out);
void AppendNString(Prng& rng, int min_len, int max_len, std::string* out);

// A zip code: four random digits, then "11111".
void AppendZip(Prng& rng, std::string* out);

// I_DATA and S_DATA: an a-string of 26 to 50 characters, and in one row of
// ten (at random) the eight characters ORIGINAL at a random position in it.
// Returns whether it put ORIGINAL in.
bool AppendItemData(Prng& rng, std::string* out);

// The values 1..n in a random order, each once (O_C_ID of a district's
// orders).
std::vector<int32_t> Permutation(Prng& rng, int32_t n);

}  // namespace pgrig::tpcc

#endif  // PGRIG_TPCC_RANDOM_H_
