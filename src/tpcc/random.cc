#include "tpcc/random.h"

#include <array>
#include <utility>

namespace pgrig::tpcc {

namespace {

constexpr std::string_view kAlphanumeric =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

constexpr std::array<std::string_view, 10> kSyllables = {"BAR", "OUGHT", "ABLE",  "PRI",   "PRES",
                                                         "ESE", "ANTI",  "CALLY", "ATION", "EING"};

void AppendChars(Prng& rng, std::string_view alphabet, int64_t length, std::string* out) {
  const auto last = static_cast<int64_t>(alphabet.size()) - 1;
  for (int64_t i = 0; i < length; ++i) {
    out->push_back(alphabet[static_cast<size_t>(Uniform(rng, 0, last))]);
  }
}

}  // namespace

NURandConstants NURandConstants::ForLoad(Prng& rng) {
  return {.c_last = Uniform(rng, 0, kLastNameA),
          .c_id = Uniform(rng, 0, kCustomerA),
          .ol_i_id = Uniform(rng, 0, kItemA)};
}

NURandConstants NURandConstants::ForRun(const NURandConstants& load, Prng& rng) {
  std::vector<int64_t> allowed;
  for (int64_t c = 0; c <= kLastNameA; ++c) {
    if (ValidLastNameDelta(load.c_last, c)) allowed.push_back(c);
  }
  // Never empty: for any load constant in [0, 255] one side has room for
  // the whole [65, 119] band.
  const auto pick = Uniform(rng, 0, static_cast<int64_t>(allowed.size()) - 1);
  return {.c_last = allowed[static_cast<size_t>(pick)],
          .c_id = Uniform(rng, 0, kCustomerA),
          .ol_i_id = Uniform(rng, 0, kItemA)};
}

bool ValidLastNameDelta(int64_t load_c, int64_t run_c) {
  const int64_t delta = load_c > run_c ? load_c - run_c : run_c - load_c;
  return delta >= 65 && delta <= 119 && delta != 96 && delta != 112;
}

int64_t Uniform(Prng& rng, int64_t lo, int64_t hi) { return rng.Int64Range(lo, hi); }

int64_t NURandOf(int64_t r1, int64_t r2, int64_t c, int64_t x, int64_t y) {
  return (((r1 | r2) + c) % (y - x + 1)) + x;
}

int64_t NURand(Prng& rng, int64_t a, int64_t x, int64_t y, int64_t c) {
  const int64_t r1 = Uniform(rng, 0, a);
  const int64_t r2 = Uniform(rng, x, y);
  return NURandOf(r1, r2, c, x, y);
}

int64_t CustomerId(Prng& rng, const NURandConstants& k) {
  return NURand(rng, kCustomerA, 1, kCustomersPerDistrict, k.c_id);
}

int64_t ItemId(Prng& rng, const NURandConstants& k) {
  return NURand(rng, kItemA, 1, kItems, k.ol_i_id);
}

int64_t LastNameNumber(Prng& rng, const NURandConstants& k) {
  return NURand(rng, kLastNameA, 0, 999, k.c_last);
}

void AppendLastName(int64_t number, std::string* out) {
  out->append(kSyllables[static_cast<size_t>(number / 100 % 10)]);
  out->append(kSyllables[static_cast<size_t>(number / 10 % 10)]);
  out->append(kSyllables[static_cast<size_t>(number % 10)]);
}

std::string LastName(int64_t number) {
  std::string name;
  AppendLastName(number, &name);
  return name;
}

void AppendAString(Prng& rng, int min_len, int max_len, std::string* out) {
  AppendChars(rng, kAlphanumeric, Uniform(rng, min_len, max_len), out);
}

void AppendNString(Prng& rng, int min_len, int max_len, std::string* out) {
  AppendChars(rng, kAlphanumeric.substr(0, 10), Uniform(rng, min_len, max_len), out);
}

void AppendZip(Prng& rng, std::string* out) {
  AppendNString(rng, 4, 4, out);
  out->append("11111");
}

bool AppendItemData(Prng& rng, std::string* out) {
  constexpr std::string_view kOriginal = "ORIGINAL";
  const size_t start = out->size();
  AppendAString(rng, 26, 50, out);
  if (Uniform(rng, 1, 10) != 1) return false;
  const auto length = static_cast<int64_t>(out->size() - start);
  const auto at = Uniform(rng, 0, length - static_cast<int64_t>(kOriginal.size()));
  out->replace(start + static_cast<size_t>(at), kOriginal.size(), kOriginal);
  return true;
}

std::vector<int32_t> Permutation(Prng& rng, int32_t n) {
  std::vector<int32_t> values(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = i + 1;
  // Fisher-Yates: each order equally likely.
  for (int32_t i = n - 1; i > 0; --i) {
    const auto j = static_cast<size_t>(Uniform(rng, 0, i));
    std::swap(values[static_cast<size_t>(i)], values[j]);
  }
  return values;
}

}  // namespace pgrig::tpcc
