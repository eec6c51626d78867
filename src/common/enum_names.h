// Names for the values of an enum, one table per enum.
//
// Every enum pgrig prints or writes into a document has a function
// `const char* XName(X)` that reads a table, and a reader that turns a name
// back into the value searches the same table, so the two directions cannot
// drift apart.  Two kinds of table:
//
//   - For an enum whose values are the default 0, 1, ..., N-1 (nearly all),
//     the names in declaration order, checked at compile time to be one per
//     value (the last enumerator is named in the call):
//
//       const char* SpeedName(Speed s) {
//         static constexpr const char* kNames[] = {"faster", "slower", ...};
//         return NameAt<Speed::kNotDecidable>(s, kNames);
//       }
//
//     Adding a value without a name, or a name without a value, does not
//     compile; the tests and goldens that print the names catch a reordering.
//
//   - For an enum with chosen values, {value, name} pairs read by NameOf.
//
// A value outside the table reads as the fallback ("?" unless the caller gives
// another), never as another value's name.
#ifndef PGRIG_COMMON_ENUM_NAMES_H_
#define PGRIG_COMMON_ENUM_NAMES_H_

#include <cstddef>
#include <optional>
#include <string_view>
#include <type_traits>

namespace pgrig {

// The name of `value`, an enum of kLast + 1 values 0..kLast, whose names
// `names` lists in declaration order.
template <auto kLast, typename E, size_t N>
constexpr const char* NameAt(E value, const char* const (&names)[N], const char* fallback = "?") {
  static_assert(std::is_enum_v<E> && std::is_same_v<decltype(kLast), E>);
  static_assert(N == static_cast<size_t>(kLast) + 1, "one name for each value, in declared order");
  auto i = static_cast<size_t>(value);
  return i < N ? names[i] : fallback;
}

// The value named `name` (exact, case-sensitive) in a NameAt table.
template <auto kLast, size_t N>
constexpr std::optional<decltype(kLast)> ValueAt(std::string_view name,
                                                 const char* const (&names)[N]) {
  static_assert(N == static_cast<size_t>(kLast) + 1, "one name for each value, in declared order");
  for (size_t i = 0; i < N; ++i) {
    if (name == names[i]) return static_cast<decltype(kLast)>(i);
  }
  return std::nullopt;
}

template <typename E>
struct EnumName {
  E value;
  const char* name;
};

// The name of `value` in `names`; `fallback` when the table has no row for it.
template <typename E, size_t N>
constexpr const char* NameOf(E value, const EnumName<E> (&names)[N], const char* fallback = "?") {
  for (const EnumName<E>& n : names) {
    if (n.value == value) return n.name;
  }
  return fallback;
}

}  // namespace pgrig

#endif  // PGRIG_COMMON_ENUM_NAMES_H_
