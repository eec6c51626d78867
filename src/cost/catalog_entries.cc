#include "cost/catalog_entries.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "common/strings.h"

namespace pgrig::cost {

Status EntryReader::Error(const toml::node* node, const std::string& message) const {
  int line_no = node != nullptr ? static_cast<int>(node->source().begin.line) : line();
  if (line_no <= 0) line_no = line();
  return InvalidArgument(fmt::format("{}:{}: [[{}]] entry: {}", file_, line_no, kind_, message));
}

Status EntryReader::CheckKeys(const std::vector<std::string_view>& known) const {
  for (auto&& [key, node] : table_) {
    if (std::find(known.begin(), known.end(), key.str()) == known.end()) {
      std::vector<std::string> names(known.begin(), known.end());
      return Error(
          &node, fmt::format("unknown key \"{}\" (known keys: {})", key.str(), Join(names, ", ")));
    }
  }
  return Status::Ok();
}

Result<std::optional<std::string>> EntryReader::String(std::string_view key) const {
  const toml::node* node = table_.get(key);
  if (node == nullptr) return std::optional<std::string>();
  const auto* s = node->as_string();
  if (s == nullptr) return Error(node, fmt::format("\"{}\" must be a string", key));
  std::string v(Trim(s->get()));
  if (v.empty()) return Error(node, fmt::format("\"{}\" must not be empty", key));
  return std::optional<std::string>(std::move(v));
}

// A finite number >= `min` (> `min` when `strict`); integers are accepted.
Result<std::optional<double>> EntryReader::Number(std::string_view key, double min,
                                                  bool strict) const {
  const toml::node* node = table_.get(key);
  if (node == nullptr) return std::optional<double>();
  double v = 0;
  if (const auto* f = node->as_floating_point()) {
    v = f->get();
  } else if (const auto* i = node->as_integer()) {
    v = static_cast<double>(i->get());
  } else {
    return Error(node, fmt::format("\"{}\" must be a number", key));
  }
  if (!std::isfinite(v) || v < min || (strict && v == min)) {
    return Error(node, fmt::format("\"{}\" must be {} {}, got {}", key,
                                   strict ? "greater than" : "at least", min, v));
  }
  return std::optional<double>(v);
}

Result<std::optional<int>> EntryReader::PositiveInt(std::string_view key) const {
  const toml::node* node = table_.get(key);
  if (node == nullptr) return std::optional<int>();
  const auto* i = node->as_integer();
  if (i == nullptr || i->get() <= 0 || i->get() > 1'000'000) {
    return Error(node, fmt::format("\"{}\" must be a positive whole number", key));
  }
  return std::optional<int>(static_cast<int>(i->get()));
}

// A TOML date (2026-01-31) or a string "2026-01-31".
Result<std::optional<std::string>> EntryReader::Date(std::string_view key) const {
  const toml::node* node = table_.get(key);
  if (node == nullptr) return std::optional<std::string>();
  std::string v;
  if (const auto* d = node->as_date()) {
    const toml::date& date = d->get();
    v = fmt::format("{:04}-{:02}-{:02}", date.year, date.month, date.day);
  } else if (const auto* s = node->as_string()) {
    v = std::string(Trim(s->get()));
  } else {
    return Error(node, fmt::format("\"{}\" must be a date written YYYY-MM-DD", key));
  }
  if (!IsValidDate(v)) {
    return Error(node, fmt::format("\"{}\" must be a date written YYYY-MM-DD, got \"{}\"", key, v));
  }
  return std::optional<std::string>(std::move(v));
}

Result<std::optional<Arch>> EntryReader::ArchField(std::string_view key) const {
  PGRIG_ASSIGN_OR_RETURN(auto s, String(key));
  if (!s) return std::optional<Arch>();
  std::string v = ToLower(*s);
  if (v == "arm64" || v == "aarch64") return std::optional<Arch>(Arch::kArm64);
  if (v == "x86_64" || v == "amd64") return std::optional<Arch>(Arch::kX86_64);
  return Error(table_.get(key),
               fmt::format("\"{}\" must be \"arm64\" or \"x86_64\", got \"{}\"", key, *s));
}

Result<std::optional<VcpuKind>> EntryReader::VcpuKindField(std::string_view key) const {
  PGRIG_ASSIGN_OR_RETURN(auto s, String(key));
  if (!s) return std::optional<VcpuKind>();
  std::string v = ToLower(*s);
  if (v == "core") return std::optional<VcpuKind>(VcpuKind::kCore);
  if (v == "hyperthread") return std::optional<VcpuKind>(VcpuKind::kHyperthread);
  return Error(table_.get(key),
               fmt::format("\"{}\" must be \"core\" or \"hyperthread\", got \"{}\"", key, *s));
}

Status EntryReader::Missing(const std::vector<std::string>& missing, bool could_inherit) const {
  std::string msg = fmt::format("missing {}", Join(missing, ", "));
  if (could_inherit) {
    msg +=
        " (an entry that overrides an existing one may leave out only the hardware "
        "fields; prices, date and source are always required)";
  }
  return Error(nullptr, msg);
}

Result<std::optional<FieldValue>> EntryReader::Read(std::string_view key, FieldCheck check) const {
  auto wrap = [](auto r) -> Result<std::optional<FieldValue>> {
    if (!r.ok()) return r.status();
    if (!*r) return std::optional<FieldValue>();
    return std::optional<FieldValue>(FieldValue(std::move(**r)));
  };
  switch (check) {
    case FieldCheck::kText:
      return wrap(String(key));
    case FieldCheck::kName: {
      PGRIG_ASSIGN_OR_RETURN(auto name, String(key));
      if (name && name->find_first_of(": \t") != std::string::npos) {
        return Error(nullptr,
                     fmt::format("\"{}\" must not contain ':' or blanks, got \"{}\"", key, *name));
      }
      return wrap(Result<std::optional<std::string>>(std::move(name)));
    }
    case FieldCheck::kDate:
      return wrap(Date(key));
    case FieldCheck::kArch:
      return wrap(ArchField(key));
    case FieldCheck::kVcpuKind:
      return wrap(VcpuKindField(key));
    case FieldCheck::kPositiveInt:
      return wrap(PositiveInt(key));
    case FieldCheck::kPositive:
      return wrap(Number(key, 0, true));
    case FieldCheck::kNonNegative:
      return wrap(Number(key, 0, false));
  }
  return Error(table_.get(key), fmt::format("\"{}\": unknown check", key));
}

Status SeenKeys::Add(const std::string& key, const EntryReader& reader, const std::string& what) {
  auto [it, inserted] = lines_.emplace(key, reader.line());
  if (!inserted) {
    return reader.Error(nullptr,
                        fmt::format("duplicate entry for {} (first at line {})", what, it->second));
  }
  return Status::Ok();
}

std::string EntryKey(const std::vector<std::string>& identity) {
  std::string key;
  for (const auto& part : identity) key += ToLower(part) + "\n";
  return key;
}

void StoreField(const FieldValue& value, const FieldSlot& slot) {
  std::visit([&](auto* to) { *to = std::get<std::remove_pointer_t<decltype(to)>>(value); }, slot);
}

void CopyField(const FieldSlot& from, const FieldSlot& to) {
  std::visit([&](auto* dst) { *dst = *std::get<decltype(dst)>(from); }, to);
}

// The tables: one row per key of docs/cost.md, in the order the keys are
// listed in errors and checked.
const EntryKind<InstancePrice>& InstanceKind() {
  using E = InstancePrice;
  static const EntryKind<E> kind{"instance",
                                 {
                                     {"provider", FieldCheck::kText, FieldRole::kIdentity,
                                      [](E& e) -> FieldSlot { return &e.provider; }},
                                     {"region", FieldCheck::kText, FieldRole::kIdentity,
                                      [](E& e) -> FieldSlot { return &e.region; }},
                                     {"instance_type", FieldCheck::kName, FieldRole::kIdentity,
                                      [](E& e) -> FieldSlot { return &e.instance_type; }},
                                     {"arch", FieldCheck::kArch, FieldRole::kHardware,
                                      [](E& e) -> FieldSlot { return &e.arch; }},
                                     {"vcpus", FieldCheck::kPositiveInt, FieldRole::kHardware,
                                      [](E& e) -> FieldSlot { return &e.vcpus; }},
                                     {"vcpu_is", FieldCheck::kVcpuKind, FieldRole::kHardware,
                                      [](E& e) -> FieldSlot { return &e.vcpu_is; }},
                                     {"memory_gib", FieldCheck::kPositive, FieldRole::kHardware,
                                      [](E& e) -> FieldSlot { return &e.memory_gib; }},
                                     {"usd_per_hour", FieldCheck::kPositive, FieldRole::kRequired,
                                      [](E& e) -> FieldSlot { return &e.usd_per_hour; }},
                                     {"date", FieldCheck::kDate, FieldRole::kRequired,
                                      [](E& e) -> FieldSlot { return &e.provenance.date; }},
                                     {"source", FieldCheck::kText, FieldRole::kRequired,
                                      [](E& e) -> FieldSlot { return &e.provenance.source; }},
                                 }};
  return kind;
}

const EntryKind<FlexShapePrice>& FlexShapeKind() {
  using E = FlexShapePrice;
  static const EntryKind<E> kind{
      "flex_shape",
      {
          {"provider", FieldCheck::kText, FieldRole::kIdentity,
           [](E& e) -> FieldSlot { return &e.provider; }},
          {"region", FieldCheck::kText, FieldRole::kIdentity,
           [](E& e) -> FieldSlot { return &e.region; }},
          {"shape", FieldCheck::kName, FieldRole::kIdentity,
           [](E& e) -> FieldSlot { return &e.shape; }},
          {"arch", FieldCheck::kArch, FieldRole::kHardware,
           [](E& e) -> FieldSlot { return &e.arch; }},
          {"vcpus_per_ocpu", FieldCheck::kPositiveInt, FieldRole::kHardware,
           [](E& e) -> FieldSlot { return &e.vcpus_per_ocpu; }},
          {"vcpu_is", FieldCheck::kVcpuKind, FieldRole::kHardware,
           [](E& e) -> FieldSlot { return &e.vcpu_is; }},
          {"usd_per_ocpu_hour", FieldCheck::kPositive, FieldRole::kRequired,
           [](E& e) -> FieldSlot { return &e.usd_per_ocpu_hour; }},
          {"usd_per_gb_hour", FieldCheck::kNonNegative, FieldRole::kRequired,
           [](E& e) -> FieldSlot { return &e.usd_per_gb_hour; }},
          {"date", FieldCheck::kDate, FieldRole::kRequired,
           [](E& e) -> FieldSlot { return &e.provenance.date; }},
          {"source", FieldCheck::kText, FieldRole::kRequired,
           [](E& e) -> FieldSlot { return &e.provenance.source; }},
      }};
  return kind;
}

const EntryKind<StoragePrice>& StorageKind() {
  using E = StoragePrice;
  static const EntryKind<E> kind{
      "storage",
      {
          {"provider", FieldCheck::kText, FieldRole::kIdentity,
           [](E& e) -> FieldSlot { return &e.provider; }},
          {"region", FieldCheck::kText, FieldRole::kIdentity,
           [](E& e) -> FieldSlot { return &e.region; }},
          {"name", FieldCheck::kName, FieldRole::kIdentity,
           [](E& e) -> FieldSlot { return &e.name; }},
          {"usd_per_gb_month", FieldCheck::kPositive, FieldRole::kRequired,
           [](E& e) -> FieldSlot { return &e.usd_per_gb_month; }},
          {"included_iops", FieldCheck::kNonNegative, FieldRole::kHardware,
           [](E& e) -> FieldSlot { return &e.included_iops; }},
          {"usd_per_iops_month", FieldCheck::kNonNegative, FieldRole::kRequired,
           [](E& e) -> FieldSlot { return &e.usd_per_iops_month; }},
          {"included_mbps", FieldCheck::kNonNegative, FieldRole::kHardware,
           [](E& e) -> FieldSlot { return &e.included_mbps; }},
          {"usd_per_mbps_month", FieldCheck::kNonNegative, FieldRole::kRequired,
           [](E& e) -> FieldSlot { return &e.usd_per_mbps_month; }},
          {"date", FieldCheck::kDate, FieldRole::kRequired,
           [](E& e) -> FieldSlot { return &e.provenance.date; }},
          {"source", FieldCheck::kText, FieldRole::kRequired,
           [](E& e) -> FieldSlot { return &e.provenance.source; }},
      }};
  return kind;
}

}  // namespace pgrig::cost
