#include "cost/catalog.h"

#include <fmt/format.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <tuple>
#include <utility>

#include "common/fs.h"
#include "common/strings.h"

namespace pgrig::cost {

const char* ArchName(Arch arch) { return arch == Arch::kArm64 ? "arm64" : "x86_64"; }

const char* VcpuKindName(VcpuKind kind) { return kind == VcpuKind::kCore ? "core" : "hyperthread"; }

namespace {

constexpr std::string_view kSchemaPrefix = "pgrig.prices/";
constexpr std::string_view kSchema = "pgrig.prices/1";

// Reads the fields of one [[instance]] / [[flex_shape]] / [[storage]] table,
// turning every problem into a message that names file, line and key.
class EntryReader {
 public:
  EntryReader(const toml::table& table, const std::string& file, std::string_view kind)
      : table_(table), file_(file), kind_(kind) {}

  int line() const { return static_cast<int>(table_.source().begin.line); }

  Status Error(const toml::node* node, const std::string& message) const {
    int line_no = node != nullptr ? static_cast<int>(node->source().begin.line) : line();
    if (line_no <= 0) line_no = line();
    return InvalidArgument(fmt::format("{}:{}: [[{}]] entry: {}", file_, line_no, kind_, message));
  }

  // Rejects keys outside `known`, so that a typo ("usd_per_hr") is an error
  // instead of a silently missing price.
  Status CheckKeys(const std::vector<std::string_view>& known) const {
    for (auto&& [key, node] : table_) {
      if (std::find(known.begin(), known.end(), key.str()) == known.end()) {
        std::vector<std::string> names(known.begin(), known.end());
        return Error(&node, fmt::format("unknown key \"{}\" (known keys: {})", key.str(),
                                        Join(names, ", ")));
      }
    }
    return Status::Ok();
  }

  Result<std::optional<std::string>> String(std::string_view key) const {
    const toml::node* node = table_.get(key);
    if (node == nullptr) return std::optional<std::string>();
    const auto* s = node->as_string();
    if (s == nullptr) return Error(node, fmt::format("\"{}\" must be a string", key));
    std::string v(Trim(s->get()));
    if (v.empty()) return Error(node, fmt::format("\"{}\" must not be empty", key));
    return std::optional<std::string>(std::move(v));
  }

  // A finite number >= `min` (> `min` when `strict`); integers are accepted.
  Result<std::optional<double>> Number(std::string_view key, double min, bool strict) const {
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

  Result<std::optional<int>> PositiveInt(std::string_view key) const {
    const toml::node* node = table_.get(key);
    if (node == nullptr) return std::optional<int>();
    const auto* i = node->as_integer();
    if (i == nullptr || i->get() <= 0 || i->get() > 1'000'000) {
      return Error(node, fmt::format("\"{}\" must be a positive whole number", key));
    }
    return std::optional<int>(static_cast<int>(i->get()));
  }

  // A TOML date (2026-01-31) or a string "2026-01-31".
  Result<std::optional<std::string>> Date(std::string_view key) const {
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
      return Error(node,
                   fmt::format("\"{}\" must be a date written YYYY-MM-DD, got \"{}\"", key, v));
    }
    return std::optional<std::string>(std::move(v));
  }

  Result<std::optional<Arch>> ArchField(std::string_view key) const {
    PGRIG_ASSIGN_OR_RETURN(auto s, String(key));
    if (!s) return std::optional<Arch>();
    std::string v = ToLower(*s);
    if (v == "arm64" || v == "aarch64") return std::optional<Arch>(Arch::kArm64);
    if (v == "x86_64" || v == "amd64") return std::optional<Arch>(Arch::kX86_64);
    return Error(table_.get(key),
                 fmt::format("\"{}\" must be \"arm64\" or \"x86_64\", got \"{}\"", key, *s));
  }

  Result<std::optional<VcpuKind>> VcpuKindField(std::string_view key) const {
    PGRIG_ASSIGN_OR_RETURN(auto s, String(key));
    if (!s) return std::optional<VcpuKind>();
    std::string v = ToLower(*s);
    if (v == "core") return std::optional<VcpuKind>(VcpuKind::kCore);
    if (v == "hyperthread") return std::optional<VcpuKind>(VcpuKind::kHyperthread);
    return Error(table_.get(key),
                 fmt::format("\"{}\" must be \"core\" or \"hyperthread\", got \"{}\"", key, *s));
  }

  Status Missing(const std::vector<std::string>& missing, bool could_inherit) const {
    std::string msg = fmt::format("missing {}", Join(missing, ", "));
    if (could_inherit) {
      msg +=
          " (an entry that overrides an existing one may leave out only the hardware "
          "fields; prices, date and source are always required)";
    }
    return Error(nullptr, msg);
  }

 private:
  const toml::table& table_;
  const std::string& file_;
  std::string_view kind_;
};

std::string Key(std::string_view provider, std::string_view region, std::string_view name) {
  return ToLower(provider) + "\n" + ToLower(region) + "\n" + ToLower(name);
}

std::string Describe(std::string_view provider, std::string_view region, std::string_view name) {
  return fmt::format("{} {} {}", provider, region, name);
}

// Fills `out` from `have` (this file) or `old` (the entry being overridden),
// noting a missing field when neither has it.
template <typename T>
void Take(const std::optional<T>& have, const T* old, T& out, const char* name,
          std::vector<std::string>& missing) {
  if (have) {
    out = *have;
  } else if (old != nullptr) {
    out = *old;
  } else {
    missing.emplace_back(name);
  }
}

template <typename T>
void Require(const std::optional<T>& have, T& out, const char* name,
             std::vector<std::string>& missing) {
  if (have) {
    out = *have;
  } else {
    missing.emplace_back(name);
  }
}

// Tracks keys seen in one file so a duplicate names both lines.
class SeenKeys {
 public:
  Status Add(const std::string& key, const EntryReader& reader, const std::string& what) {
    auto [it, inserted] = lines_.emplace(key, reader.line());
    if (!inserted) {
      return reader.Error(
          nullptr, fmt::format("duplicate entry for {} (first at line {})", what, it->second));
    }
    return Status::Ok();
  }

 private:
  std::map<std::string, int> lines_;
};

template <typename T, typename KeyFn>
T* FindByKey(std::vector<T>& v, const std::string& key, KeyFn key_of) {
  for (auto& e : v) {
    if (key_of(e) == key) return &e;
  }
  return nullptr;
}

std::string InstanceKey(const InstancePrice& e) {
  return Key(e.provider, e.region, e.instance_type);
}
std::string ShapeKey(const FlexShapePrice& e) { return Key(e.provider, e.region, e.shape); }
std::string StorageKey(const StoragePrice& e) { return Key(e.provider, e.region, e.name); }

const toml::array* ArrayOfTables(const toml::node& node) {
  const toml::array* arr = node.as_array();
  if (arr == nullptr) return nullptr;
  for (const auto& el : *arr) {
    if (!el.is_table()) return nullptr;
  }
  return arr;
}

Result<toml::table> ParseToml(std::string_view text, const std::string& file_name) {
#if TOML_EXCEPTIONS
  try {
    return toml::parse(text, std::string_view(file_name));
  } catch (const toml::parse_error& e) {
    return InvalidArgument(fmt::format("{}:{}:{}: not valid TOML: {}", file_name,
                                       e.source().begin.line, e.source().begin.column,
                                       e.description()));
  }
#else
  toml::parse_result r = toml::parse(text, std::string_view(file_name));
  if (!r) {
    return InvalidArgument(fmt::format("{}:{}:{}: not valid TOML: {}", file_name,
                                       r.error().source().begin.line,
                                       r.error().source().begin.column, r.error().description()));
  }
  return std::move(r).table();
#endif
}

Status CheckName(const EntryReader& r, const std::optional<std::string>& name, const char* key) {
  if (name && name->find_first_of(": \t") != std::string::npos) {
    return r.Error(nullptr,
                   fmt::format("\"{}\" must not contain ':' or blanks, got \"{}\"", key, *name));
  }
  return Status::Ok();
}

}  // namespace

Result<MergeStats> Catalog::Merge(std::string_view toml_text, const std::string& file_name) {
  PGRIG_ASSIGN_OR_RETURN(toml::table root, ParseToml(toml_text, file_name));

  // Work on copies so that a bad file leaves the catalog as it was.
  std::vector<InstancePrice> instances = instances_;
  std::vector<FlexShapePrice> shapes = flex_shapes_;
  std::vector<StoragePrice> storage = storage_;
  MergeStats stats;
  SeenKeys seen;

  for (auto&& [key, node] : root) {
    const int line = static_cast<int>(node.source().begin.line);
    if (key.str() == "schema") {
      const auto* s = node.as_string();
      if (s == nullptr || !s->get().starts_with(kSchemaPrefix)) {
        return InvalidArgument(fmt::format(
            "{}:{}: \"schema\" must be a string starting with \"{}\" (e.g. \"pgrig.prices/1\")",
            file_name, line, kSchemaPrefix));
      }
      if (s->get() != kSchema) {
        return InvalidArgument(fmt::format(
            "{}:{}: schema \"{}\" is a version of the price catalog format this pgrig does not "
            "read; it reads \"{}\" (see docs/cost.md)",
            file_name, line, s->get(), kSchema));
      }
      continue;
    }
    if (key.str() != "instance" && key.str() != "flex_shape" && key.str() != "storage") {
      return InvalidArgument(
          fmt::format("{}:{}: unknown top-level key \"{}\" (expected [[instance]], [[flex_shape]], "
                      "[[storage]] or schema)",
                      file_name, line, key.str()));
    }
    const toml::array* arr = ArrayOfTables(node);
    if (arr == nullptr) {
      return InvalidArgument(fmt::format("{}:{}: \"{}\" must be written as [[{}]] tables",
                                         file_name, line, key.str(), key.str()));
    }
    for (const auto& el : *arr) {
      const toml::table& t = *el.as_table();
      EntryReader r(t, file_name, key.str());
      std::vector<std::string> missing;
      if (key.str() == "instance") {
        PGRIG_RETURN_IF_ERROR(
            r.CheckKeys({"provider", "region", "instance_type", "arch", "vcpus", "vcpu_is",
                         "memory_gib", "usd_per_hour", "date", "source"}));
        PGRIG_ASSIGN_OR_RETURN(auto provider, r.String("provider"));
        PGRIG_ASSIGN_OR_RETURN(auto region, r.String("region"));
        PGRIG_ASSIGN_OR_RETURN(auto type, r.String("instance_type"));
        PGRIG_RETURN_IF_ERROR(CheckName(r, type, "instance_type"));
        PGRIG_ASSIGN_OR_RETURN(auto arch, r.ArchField("arch"));
        PGRIG_ASSIGN_OR_RETURN(auto vcpus, r.PositiveInt("vcpus"));
        PGRIG_ASSIGN_OR_RETURN(auto vcpu_is, r.VcpuKindField("vcpu_is"));
        PGRIG_ASSIGN_OR_RETURN(auto memory, r.Number("memory_gib", 0, true));
        PGRIG_ASSIGN_OR_RETURN(auto price, r.Number("usd_per_hour", 0, true));
        PGRIG_ASSIGN_OR_RETURN(auto date, r.Date("date"));
        PGRIG_ASSIGN_OR_RETURN(auto source, r.String("source"));
        if (!provider || !region || !type) {
          if (!provider) missing.emplace_back("provider");
          if (!region) missing.emplace_back("region");
          if (!type) missing.emplace_back("instance_type");
          return r.Missing(missing, false);
        }
        const std::string k = Key(*provider, *region, *type);
        PGRIG_RETURN_IF_ERROR(seen.Add(k, r, Describe(*provider, *region, *type)));
        InstancePrice* old = FindByKey(instances, k, InstanceKey);
        InstancePrice e;
        e.provider = *provider;
        e.region = *region;
        e.instance_type = *type;
        Take(arch, old ? &old->arch : nullptr, e.arch, "arch", missing);
        Take(vcpus, old ? &old->vcpus : nullptr, e.vcpus, "vcpus", missing);
        Take(vcpu_is, old ? &old->vcpu_is : nullptr, e.vcpu_is, "vcpu_is", missing);
        Take(memory, old ? &old->memory_gib : nullptr, e.memory_gib, "memory_gib", missing);
        Require(price, e.usd_per_hour, "usd_per_hour", missing);
        Require(date, e.provenance.date, "date", missing);
        Require(source, e.provenance.source, "source", missing);
        if (!missing.empty()) return r.Missing(missing, old != nullptr);
        e.provenance.file = file_name;
        e.provenance.line = r.line();
        if (old != nullptr) {
          *old = std::move(e);
          ++stats.replaced;
        } else {
          instances.push_back(std::move(e));
          ++stats.added;
        }
      } else if (key.str() == "flex_shape") {
        PGRIG_RETURN_IF_ERROR(
            r.CheckKeys({"provider", "region", "shape", "arch", "vcpus_per_ocpu", "vcpu_is",
                         "usd_per_ocpu_hour", "usd_per_gb_hour", "date", "source"}));
        PGRIG_ASSIGN_OR_RETURN(auto provider, r.String("provider"));
        PGRIG_ASSIGN_OR_RETURN(auto region, r.String("region"));
        PGRIG_ASSIGN_OR_RETURN(auto shape, r.String("shape"));
        PGRIG_RETURN_IF_ERROR(CheckName(r, shape, "shape"));
        PGRIG_ASSIGN_OR_RETURN(auto arch, r.ArchField("arch"));
        PGRIG_ASSIGN_OR_RETURN(auto per_ocpu, r.PositiveInt("vcpus_per_ocpu"));
        PGRIG_ASSIGN_OR_RETURN(auto vcpu_is, r.VcpuKindField("vcpu_is"));
        PGRIG_ASSIGN_OR_RETURN(auto ocpu_price, r.Number("usd_per_ocpu_hour", 0, true));
        PGRIG_ASSIGN_OR_RETURN(auto gb_price, r.Number("usd_per_gb_hour", 0, false));
        PGRIG_ASSIGN_OR_RETURN(auto date, r.Date("date"));
        PGRIG_ASSIGN_OR_RETURN(auto source, r.String("source"));
        if (!provider || !region || !shape) {
          if (!provider) missing.emplace_back("provider");
          if (!region) missing.emplace_back("region");
          if (!shape) missing.emplace_back("shape");
          return r.Missing(missing, false);
        }
        const std::string k = Key(*provider, *region, *shape);
        PGRIG_RETURN_IF_ERROR(seen.Add(k, r, Describe(*provider, *region, *shape)));
        FlexShapePrice* old = FindByKey(shapes, k, ShapeKey);
        FlexShapePrice e;
        e.provider = *provider;
        e.region = *region;
        e.shape = *shape;
        Take(arch, old ? &old->arch : nullptr, e.arch, "arch", missing);
        Take(per_ocpu, old ? &old->vcpus_per_ocpu : nullptr, e.vcpus_per_ocpu, "vcpus_per_ocpu",
             missing);
        Take(vcpu_is, old ? &old->vcpu_is : nullptr, e.vcpu_is, "vcpu_is", missing);
        Require(ocpu_price, e.usd_per_ocpu_hour, "usd_per_ocpu_hour", missing);
        Require(gb_price, e.usd_per_gb_hour, "usd_per_gb_hour", missing);
        Require(date, e.provenance.date, "date", missing);
        Require(source, e.provenance.source, "source", missing);
        if (!missing.empty()) return r.Missing(missing, old != nullptr);
        e.provenance.file = file_name;
        e.provenance.line = r.line();
        if (old != nullptr) {
          *old = std::move(e);
          ++stats.replaced;
        } else {
          shapes.push_back(std::move(e));
          ++stats.added;
        }
      } else {
        PGRIG_RETURN_IF_ERROR(r.CheckKeys({"provider", "region", "name", "usd_per_gb_month",
                                           "included_iops", "usd_per_iops_month", "included_mbps",
                                           "usd_per_mbps_month", "date", "source"}));
        PGRIG_ASSIGN_OR_RETURN(auto provider, r.String("provider"));
        PGRIG_ASSIGN_OR_RETURN(auto region, r.String("region"));
        PGRIG_ASSIGN_OR_RETURN(auto name, r.String("name"));
        PGRIG_RETURN_IF_ERROR(CheckName(r, name, "name"));
        PGRIG_ASSIGN_OR_RETURN(auto gb, r.Number("usd_per_gb_month", 0, true));
        PGRIG_ASSIGN_OR_RETURN(auto inc_iops, r.Number("included_iops", 0, false));
        PGRIG_ASSIGN_OR_RETURN(auto iops, r.Number("usd_per_iops_month", 0, false));
        PGRIG_ASSIGN_OR_RETURN(auto inc_mbps, r.Number("included_mbps", 0, false));
        PGRIG_ASSIGN_OR_RETURN(auto mbps, r.Number("usd_per_mbps_month", 0, false));
        PGRIG_ASSIGN_OR_RETURN(auto date, r.Date("date"));
        PGRIG_ASSIGN_OR_RETURN(auto source, r.String("source"));
        if (!provider || !region || !name) {
          if (!provider) missing.emplace_back("provider");
          if (!region) missing.emplace_back("region");
          if (!name) missing.emplace_back("name");
          return r.Missing(missing, false);
        }
        const std::string k = Key(*provider, *region, *name);
        PGRIG_RETURN_IF_ERROR(seen.Add(k, r, Describe(*provider, *region, *name)));
        StoragePrice* old = FindByKey(storage, k, StorageKey);
        StoragePrice e;
        e.provider = *provider;
        e.region = *region;
        e.name = *name;
        Require(gb, e.usd_per_gb_month, "usd_per_gb_month", missing);
        Take(inc_iops, old ? &old->included_iops : nullptr, e.included_iops, "included_iops",
             missing);
        Require(iops, e.usd_per_iops_month, "usd_per_iops_month", missing);
        Take(inc_mbps, old ? &old->included_mbps : nullptr, e.included_mbps, "included_mbps",
             missing);
        Require(mbps, e.usd_per_mbps_month, "usd_per_mbps_month", missing);
        Require(date, e.provenance.date, "date", missing);
        Require(source, e.provenance.source, "source", missing);
        if (!missing.empty()) return r.Missing(missing, old != nullptr);
        e.provenance.file = file_name;
        e.provenance.line = r.line();
        if (old != nullptr) {
          *old = std::move(e);
          ++stats.replaced;
        } else {
          storage.push_back(std::move(e));
          ++stats.added;
        }
      }
    }
  }

  if (stats.added + stats.replaced == 0) {
    return InvalidArgument(fmt::format(
        "{}: the price catalog has no entries; it needs at least one [[instance]], [[flex_shape]] "
        "or [[storage]] table (see docs/cost.md)",
        file_name));
  }
  instances_ = std::move(instances);
  flex_shapes_ = std::move(shapes);
  storage_ = std::move(storage);
  files_.push_back(file_name);
  return stats;
}

Result<MergeStats> Catalog::MergeFile(const std::string& path) {
  auto text = ReadWholeFile(path);
  if (!text.ok()) {
    return NotFound(fmt::format("cannot read price catalog {}: {}", path, text.status().message()));
  }
  return Merge(*text, path);
}

namespace {

bool RegionMatches(std::string_view entry_region, std::string_view wanted) {
  if (wanted.empty()) return true;
  std::string e = ToLower(entry_region);
  return e == "all" || e == ToLower(wanted);
}

bool ProviderMatches(std::string_view entry_provider, std::string_view wanted) {
  return wanted.empty() || ToLower(entry_provider) == ToLower(wanted);
}

std::string NotFoundMessage(const Catalog& catalog, std::string_view spec) {
  std::string msg =
      fmt::format("unknown instance type \"{}\" in the price catalog ({})", spec,
                  catalog.files().empty() ? "no catalog loaded" : Join(catalog.files(), ", "));
  std::vector<std::string> close = catalog.Suggest(spec);
  // Never suggest the name that was just refused.
  close.erase(std::remove_if(close.begin(), close.end(),
                             [&](const std::string& c) { return ToLower(c) == ToLower(Trim(spec)); }),
              close.end());
  if (!close.empty()) msg += fmt::format("; did you mean {}?", Join(close, ", "));
  msg +=
      " List entries with \"pgrig cost --list PATTERN\", add yours with --catalog FILE, or "
      "give the price with --usd-per-hour.";
  return msg;
}

// Picks one of several entries matching a name, or explains the ambiguity.
template <typename T, typename RegionOf>
Result<const T*> PickOne(const std::vector<const T*>& hits, std::string_view spec,
                         const LookupOptions& opts, RegionOf region_of) {
  if (hits.size() == 1) return hits[0];
  std::vector<std::string> where;
  for (const T* h : hits) where.push_back(region_of(*h));
  return InvalidArgument(fmt::format(
      "instance type \"{}\" is in the catalog for several {}: {}; choose one with --region{}", spec,
      opts.region.empty() ? "regions" : "providers", Join(where, ", "),
      opts.region.empty() ? "" : " and --provider"));
}

}  // namespace

Result<InstancePrice> Catalog::FindInstance(std::string_view spec,
                                            const LookupOptions& opts) const {
  std::string_view trimmed = Trim(spec);
  if (trimmed.empty()) return InvalidArgument("empty instance type");

  if (trimmed.find(':') == std::string_view::npos) {
    const std::string want = ToLower(trimmed);
    std::vector<const InstancePrice*> hits;
    std::vector<std::string> other_regions, other_providers;
    for (const auto& e : instances_) {
      if (ToLower(e.instance_type) != want) continue;
      if (!ProviderMatches(e.provider, opts.provider)) {
        if (std::find(other_providers.begin(), other_providers.end(), e.provider) ==
            other_providers.end()) {
          other_providers.push_back(e.provider);
        }
        continue;
      }
      if (RegionMatches(e.region, opts.region)) {
        hits.push_back(&e);
      } else {
        other_regions.push_back(e.region);
      }
    }
    if (hits.empty()) {
      for (const auto& s : flex_shapes_) {
        if (ToLower(s.shape) == want) {
          return InvalidArgument(fmt::format(
              "\"{}\" is a flexible shape: give its size as {}:OCPUS:MEMORY_GB, e.g. {}:4:24",
              trimmed, s.shape, s.shape));
        }
      }
      if (!other_regions.empty()) {
        return NotFound(fmt::format("\"{}\" is in the price catalog only for region(s) {}, not {}",
                                    trimmed, Join(other_regions, ", "), opts.region));
      }
      if (!other_providers.empty()) {
        return NotFound(fmt::format(
            "\"{}\" is in the price catalog only for provider(s) {}, not --provider {}", trimmed,
            Join(other_providers, ", "), opts.provider));
      }
      if (!opts.provider.empty()) {
        std::vector<std::string> providers;
        for (const auto& e : instances_) providers.push_back(ToLower(e.provider));
        for (const auto& e : flex_shapes_) providers.push_back(ToLower(e.provider));
        std::sort(providers.begin(), providers.end());
        providers.erase(std::unique(providers.begin(), providers.end()), providers.end());
        if (std::find(providers.begin(), providers.end(), ToLower(opts.provider)) ==
            providers.end()) {
          return NotFound(fmt::format(
              "the price catalog has no instances of provider \"{}\"; it has {} (add yours with "
              "--catalog FILE, or give the price with --usd-per-hour)",
              opts.provider, providers.empty() ? "none" : Join(providers, ", ")));
        }
      }
      return NotFound(NotFoundMessage(*this, trimmed));
    }
    PGRIG_ASSIGN_OR_RETURN(const InstancePrice* one,
                           PickOne(hits, trimmed, opts, [](const InstancePrice& e) {
                             return e.provider + " " + e.region;
                           }));
    return *one;
  }

  // SHAPE:OCPUS:MEMORY_GB
  std::vector<std::string> parts = Split(trimmed, ':');
  if (parts.size() != 3) {
    return InvalidArgument(
        fmt::format("cannot read \"{}\": a flexible shape is written SHAPE:OCPUS:MEMORY_GB, e.g. "
                    "VM.Standard.A1.Flex:4:24 (4 OCPUs, 24 GB)",
                    trimmed));
  }
  const std::string want = ToLower(Trim(parts[0]));
  std::vector<const FlexShapePrice*> hits;
  for (const auto& s : flex_shapes_) {
    if (ToLower(s.shape) == want && ProviderMatches(s.provider, opts.provider) &&
        RegionMatches(s.region, opts.region)) {
      hits.push_back(&s);
    }
  }
  if (hits.empty()) return NotFound(NotFoundMessage(*this, parts[0]));
  PGRIG_ASSIGN_OR_RETURN(const FlexShapePrice* shape,
                         PickOne(hits, parts[0], opts, [](const FlexShapePrice& e) {
                           return e.provider + " " + e.region;
                         }));
  std::optional<int64_t> ocpus = ParseInt64(parts[1]);
  if (!ocpus || *ocpus <= 0 || *ocpus > 100000) {
    return InvalidArgument(
        fmt::format("in \"{}\": the OCPU count must be a whole number of at least 1, got \"{}\"",
                    trimmed, parts[1]));
  }
  std::optional<double> gb = ParseDouble(parts[2]);
  if (!gb || !std::isfinite(*gb) || *gb <= 0) {
    return InvalidArgument(
        fmt::format("in \"{}\": the memory must be a number of GB greater than 0, got \"{}\"",
                    trimmed, parts[2]));
  }
  InstancePrice e;
  e.provider = shape->provider;
  e.region = shape->region;
  e.instance_type = fmt::format("{}:{}:{}", shape->shape, *ocpus, Trim(parts[2]));
  e.arch = shape->arch;
  e.vcpus = static_cast<int>(*ocpus) * shape->vcpus_per_ocpu;
  e.vcpu_is = shape->vcpu_is;
  e.memory_gib = *gb;
  e.usd_per_hour =
      static_cast<double>(*ocpus) * shape->usd_per_ocpu_hour + *gb * shape->usd_per_gb_hour;
  e.provenance = shape->provenance;
  e.sizing = fmt::format("{} OCPUs x {} USD per OCPU-hour + {} GB x {} USD per GB-hour", *ocpus,
                         shape->usd_per_ocpu_hour, Trim(parts[2]), shape->usd_per_gb_hour);
  return e;
}

Result<StoragePrice> Catalog::FindStorage(std::string_view name, std::string_view provider,
                                          std::string_view region) const {
  std::vector<const StoragePrice*> hits;
  for (const auto& s : storage_) {
    if (!name.empty() && ToLower(s.name) != ToLower(name)) continue;
    if (!ProviderMatches(s.provider, provider) || !RegionMatches(s.region, region)) continue;
    hits.push_back(&s);
  }
  std::string where = provider.empty() && region.empty()
                          ? std::string("any provider")
                          : fmt::format("{} {}", provider.empty() ? "any provider" : provider,
                                        region.empty() ? "any region" : region);
  if (hits.empty()) {
    std::vector<std::string> known;
    for (const auto& s : storage_) known.push_back(Describe(s.provider, s.region, s.name));
    return NotFound(fmt::format(
        "no storage price {}for {} in the catalog (known: {}); add a [[storage]] entry with "
        "--catalog FILE or choose one with --storage-type",
        name.empty() ? "" : fmt::format("\"{}\" ", name), where,
        known.empty() ? "none" : Join(known, "; ")));
  }
  if (hits.size() > 1) {
    std::vector<std::string> names;
    for (const auto* s : hits) names.push_back(Describe(s->provider, s->region, s->name));
    return InvalidArgument(
        fmt::format("several storage prices match for {}: {}; choose one with "
                    "--storage-type (and --region)",
                    where, Join(names, "; ")));
  }
  return *hits[0];
}

std::vector<std::string> Catalog::Suggest(std::string_view name, size_t max) const {
  std::vector<std::string> names;
  for (const auto& e : instances_) names.push_back(e.instance_type);
  for (const auto& s : flex_shapes_) names.push_back(s.shape);
  return ClosestNames(name, names, max);
}

bool MatchesPattern(std::string_view pattern, std::string_view text) {
  if (pattern.find_first_of("*?[") != std::string_view::npos) {
    return fnmatch(std::string(pattern).c_str(), std::string(text).c_str(), FNM_CASEFOLD) == 0;
  }
  return ToLower(text).find(ToLower(pattern)) != std::string::npos;
}

bool IsValidDate(std::string_view date) {
  if (date.size() != 10 || date[4] != '-' || date[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (date[i] < '0' || date[i] > '9') return false;
  }
  auto num = [&](size_t pos, size_t len) {
    int v = 0;
    for (size_t i = pos; i < pos + len; ++i) v = v * 10 + (date[i] - '0');
    return v;
  };
  const int y = num(0, 4), m = num(5, 2), d = num(8, 2);
  if (y < 1900 || m < 1 || m > 12 || d < 1) return false;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  const int max_day = (m == 2 && leap) ? 29 : kDays[m - 1];
  return d <= max_day;
}

Result<CatalogLocation> LocateCatalog(const CatalogSearch& search) {
  namespace fs = std::filesystem;
  auto is_file = [](const std::string& p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  };
  if (search.data_dir) {
    std::string p = (fs::path(*search.data_dir) / "prices.toml").lexically_normal().string();
    if (is_file(p)) return CatalogLocation{p, "$PGRIG_DATA_DIR/prices.toml"};
    return NotFound(fmt::format(
        "PGRIG_DATA_DIR is set to \"{}\" but {} does not exist; point it at the directory that "
        "holds prices.toml (the project's data/ directory) or unset it",
        *search.data_dir, p));
  }
  std::vector<std::string> tried;
  if (!search.exe_dir.empty()) {
    const std::pair<const char*, const char*> candidates[] = {
        {"../data/prices.toml", "<executable dir>/../data/prices.toml (source tree)"},
        {"../share/pgrig/prices.toml", "<executable dir>/../share/pgrig/prices.toml (installed)"},
        {"../../data/prices.toml", "<executable dir>/../../data/prices.toml (source tree)"},
    };
    for (const auto& [rel, how] : candidates) {
      std::string p = (fs::path(search.exe_dir) / rel).lexically_normal().string();
      if (is_file(p)) return CatalogLocation{p, how};
      tried.push_back(p);
    }
  }
  return NotFound(fmt::format(
      "cannot find the price catalog prices.toml (tried: {}); set PGRIG_DATA_DIR to the "
      "directory that holds it, or give one with --catalog FILE",
      tried.empty() ? "nothing: the executable's location is unknown" : Join(tried, ", ")));
}

}  // namespace pgrig::cost
