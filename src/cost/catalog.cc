#include "cost/catalog.h"

#include <fmt/format.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <tuple>
#include <utility>

#include "common/fs.h"
#include "common/strings.h"
#include "cost/catalog_entries.h"

namespace pgrig::cost {

const char* ArchName(Arch arch) { return arch == Arch::kArm64 ? "arm64" : "x86_64"; }

const char* VcpuKindName(VcpuKind kind) { return kind == VcpuKind::kCore ? "core" : "hyperthread"; }

namespace {

constexpr std::string_view kSchemaPrefix = "pgrig.prices/";
constexpr std::string_view kSchema = "pgrig.prices/1";

std::string Describe(std::string_view provider, std::string_view region, std::string_view name) {
  return fmt::format("{} {} {}", provider, region, name);
}

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
    if (key.str() == "instance") {
      PGRIG_RETURN_IF_ERROR(MergeEntries(*arr, InstanceKind(), file_name, instances, seen, stats));
    } else if (key.str() == "flex_shape") {
      PGRIG_RETURN_IF_ERROR(MergeEntries(*arr, FlexShapeKind(), file_name, shapes, seen, stats));
    } else {
      PGRIG_RETURN_IF_ERROR(MergeEntries(*arr, StorageKind(), file_name, storage, seen, stats));
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

std::string NotFoundMessage(const Catalog& catalog, std::string_view spec,
                            const LookupOptions& opts) {
  std::string msg =
      fmt::format("unknown instance type \"{}\" in the price catalog ({})", spec,
                  catalog.files().empty() ? "no catalog loaded" : Join(catalog.files(), ", "));
  std::vector<std::string> close = catalog.Suggest(spec);
  // Never suggest the name that was just refused.
  close.erase(
      std::remove_if(close.begin(), close.end(),
                     [&](const std::string& c) { return ToLower(c) == ToLower(Trim(spec)); }),
      close.end());
  if (!close.empty()) msg += fmt::format("; did you mean {}?", Join(close, ", "));
  msg += " List entries with \"pgrig cost --list PATTERN\", ";
  msg += opts.hint.empty() ? "add yours with --catalog FILE, or give the price with --usd-per-hour."
                           : opts.hint;
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
        return NotFound(
            fmt::format("\"{}\" is in the price catalog only for provider(s) {}, not --provider {}",
                        trimmed, Join(other_providers, ", "), opts.provider));
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
      return NotFound(NotFoundMessage(*this, trimmed, opts));
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
  if (hits.empty()) return NotFound(NotFoundMessage(*this, parts[0], opts));
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
  for (size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u}) {
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

CatalogSearch CatalogSearchFromEnvironment(std::string exe_dir) {
  CatalogSearch search;
  if (const char* d = std::getenv("PGRIG_DATA_DIR"); d != nullptr && *d != '\0') {
    search.data_dir = d;
  }
  search.exe_dir = std::move(exe_dir);
  return search;
}

Result<LoadedCatalog> LoadCatalog(const CatalogSearch& search,
                                  const std::vector<std::string>& overlays) {
  LoadedCatalog out;
  auto located = LocateCatalog(search);
  if (located.ok()) {
    PGRIG_ASSIGN_OR_RETURN(MergeStats st, out.catalog.MergeFile(located->path));
    out.sources.push_back({located->path, located->how, st.added, st.replaced});
  } else if (search.data_dir) {
    return located.status();
  } else {
    PGRIG_ASSIGN_OR_RETURN(MergeStats st,
                           out.catalog.Merge(ShippedCatalogText(), kShippedCatalogName));
    out.sources.push_back({kShippedCatalogName, "built in", st.added, st.replaced});
  }
  for (const auto& path : overlays) {
    PGRIG_ASSIGN_OR_RETURN(MergeStats st, out.catalog.MergeFile(path));
    out.sources.push_back({path, "--catalog", st.added, st.replaced});
  }
  return out;
}

}  // namespace pgrig::cost
