// How Catalog::Merge reads one kind of catalog entry ([[instance]],
// [[flex_shape]], [[storage]]): each kind is a table of field descriptions
// (TOML key, how the value is checked, whether an overriding entry may leave
// it out, where it is stored), and one loop, MergeEntries(), reads, checks and
// merges any kind.  Adding a field to a kind is adding a row to its table.
//
// This is the catalog's implementation, in a header so that its tests can
// merge a kind of their own; other code uses catalog.h.  Values and pure
// functions; thread-safe.
#ifndef PGRIG_COST_CATALOG_ENTRIES_H_
#define PGRIG_COST_CATALOG_ENTRIES_H_

#include <toml++/toml.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/status.h"
#include "cost/catalog.h"

namespace pgrig::cost {

// How a field's value is read and checked.
enum class FieldCheck {
  kText,         // a non-empty string
  kName,         // a non-empty string without ':' or blanks (an entry's name)
  kDate,         // a TOML date or a "YYYY-MM-DD" string
  kArch,         // "arm64"/"aarch64" or "x86_64"/"amd64"
  kVcpuKind,     // "core" or "hyperthread"
  kPositiveInt,  // a whole number 1 to 1,000,000
  kPositive,     // a finite number > 0
  kNonNegative,  // a finite number >= 0
};

// What a field is to the entry.
enum class FieldRole {
  kIdentity,  // provider, region and name: always required, the entry's key
  kHardware,  // may be left out when the entry overrides an existing one (kept from it)
  kRequired,  // always required (prices, date, source)
};

using FieldValue = std::variant<std::string, int, double, Arch, VcpuKind>;
using FieldSlot = std::variant<std::string*, int*, double*, Arch*, VcpuKind*>;

template <typename Entry>
struct FieldSpec {
  std::string_view key;
  FieldCheck check;
  FieldRole role;
  // Where the value lives in an entry; its type must be the check's
  // (kText/kName/kDate: string, kPositiveInt: int, kPositive/kNonNegative:
  // double, kArch: Arch, kVcpuKind: VcpuKind).
  FieldSlot (*slot)(Entry&);
};

// One kind of entry.  The identity fields come first, the name last of them.
template <typename Entry>
struct EntryKind {
  std::string_view name;  // "instance": the [[instance]] tables
  std::vector<FieldSpec<Entry>> fields;
};

// Reads the fields of one entry table, turning every problem into a message
// that names file, line and key.
class EntryReader {
 public:
  EntryReader(const toml::table& table, const std::string& file, std::string_view kind)
      : table_(table), file_(file), kind_(kind) {}

  int line() const { return static_cast<int>(table_.source().begin.line); }
  Status Error(const toml::node* node, const std::string& message) const;
  // Rejects keys outside `known`, so that a typo ("usd_per_hr") is an error
  // instead of a silently missing price.
  Status CheckKeys(const std::vector<std::string_view>& known) const;
  // The value of `key` checked by `check`; nullopt when the key is absent.
  Result<std::optional<FieldValue>> Read(std::string_view key, FieldCheck check) const;
  Status Missing(const std::vector<std::string>& missing, bool could_inherit) const;

 private:
  Result<std::optional<std::string>> String(std::string_view key) const;
  Result<std::optional<double>> Number(std::string_view key, double min, bool strict) const;
  Result<std::optional<int>> PositiveInt(std::string_view key) const;
  Result<std::optional<std::string>> Date(std::string_view key) const;
  Result<std::optional<Arch>> ArchField(std::string_view key) const;
  Result<std::optional<VcpuKind>> VcpuKindField(std::string_view key) const;

  const toml::table& table_;
  const std::string& file_;
  std::string_view kind_;
};

// Keys seen in one file, so that a duplicate names both lines.
class SeenKeys {
 public:
  Status Add(const std::string& key, const EntryReader& reader, const std::string& what);

 private:
  std::map<std::string, int> lines_;
};

// The lookup key of provider, region and name (case-insensitive).
std::string EntryKey(const std::vector<std::string>& identity);

// Stores `value` in `slot`.  REQUIRES: the types agree (see FieldSpec).
void StoreField(const FieldValue& value, const FieldSlot& slot);
// Copies the value `from` points at into `to`.  REQUIRES: the same type.
void CopyField(const FieldSlot& from, const FieldSlot& to);

// Reads `tables` (the [[kind]] array of one file) and merges each entry into
// `entries`: a new key is added, an existing one replaced (keeping the
// hardware fields the new one leaves out).  On error `entries` may be
// partly changed: the caller works on a copy.
template <typename Entry>
Status MergeEntries(const toml::array& tables, const EntryKind<Entry>& kind,
                    const std::string& file_name, std::vector<Entry>& entries, SeenKeys& seen,
                    MergeStats& stats) {
  std::vector<std::string_view> known;
  for (const auto& f : kind.fields) known.push_back(f.key);
  for (const auto& el : tables) {
    EntryReader r(*el.as_table(), file_name, kind.name);
    PGRIG_RETURN_IF_ERROR(r.CheckKeys(known));
    // Every value is read and checked before anything is missing.
    std::vector<std::optional<FieldValue>> values;
    for (const auto& f : kind.fields) {
      PGRIG_ASSIGN_OR_RETURN(std::optional<FieldValue> v, r.Read(f.key, f.check));
      values.push_back(std::move(v));
    }
    std::vector<std::string> missing, identity;
    for (size_t i = 0; i < kind.fields.size(); ++i) {
      if (kind.fields[i].role != FieldRole::kIdentity) continue;
      if (values[i])
        identity.push_back(std::get<std::string>(*values[i]));
      else
        missing.emplace_back(kind.fields[i].key);
    }
    if (!missing.empty()) return r.Missing(missing, false);
    const std::string key = EntryKey(identity);
    std::string what;
    for (const auto& part : identity) what += (what.empty() ? "" : " ") + part;
    PGRIG_RETURN_IF_ERROR(seen.Add(key, r, what));

    Entry* old = nullptr;
    for (auto& e : entries) {
      std::vector<std::string> other;
      for (const auto& f : kind.fields) {
        if (f.role == FieldRole::kIdentity) other.push_back(*std::get<std::string*>(f.slot(e)));
      }
      if (EntryKey(other) == key) {
        old = &e;
        break;
      }
    }
    Entry e;
    for (size_t i = 0; i < kind.fields.size(); ++i) {
      const FieldSpec<Entry>& f = kind.fields[i];
      if (values[i]) {
        StoreField(*values[i], f.slot(e));
      } else if (f.role == FieldRole::kHardware && old != nullptr) {
        CopyField(f.slot(*old), f.slot(e));
      } else {
        missing.emplace_back(f.key);
      }
    }
    if (!missing.empty()) return r.Missing(missing, old != nullptr);
    e.provenance.file = file_name;
    e.provenance.line = r.line();
    if (old != nullptr) {
      *old = std::move(e);
      ++stats.replaced;
    } else {
      entries.push_back(std::move(e));
      ++stats.added;
    }
  }
  return Status::Ok();
}

// The three kinds of the catalog format pgrig.prices/1 (docs/cost.md).
const EntryKind<InstancePrice>& InstanceKind();
const EntryKind<FlexShapePrice>& FlexShapeKind();
const EntryKind<StoragePrice>& StorageKind();

}  // namespace pgrig::cost

#endif  // PGRIG_COST_CATALOG_ENTRIES_H_
