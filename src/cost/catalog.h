// The price catalog: dated, sourced on-demand prices for cloud instances,
// flexible shapes (price per OCPU and per GB of memory) and block storage.
//
// The catalog is read from TOML (the shipped data/prices.toml, compiled into
// the binary and replaced by a file on the search path when one exists, then
// any number of user overlays given with --catalog).  Every entry is keyed by
// provider + region + name (instance type, shape or storage type); an overlay
// entry with an existing key replaces the earlier one and may leave out the
// hardware fields (arch, vCPUs, memory), which it then inherits, but it must
// always say its price, date and source: a price without provenance is what
// this catalog exists to avoid.  The file format is documented in
// docs/cost.md.
//
// A Catalog is a plain value: build it with Merge()/MergeFile() on one thread,
// then share it read-only.  Merge is all-or-nothing: on error the catalog is
// unchanged, and the error names the file and line.
#ifndef PGRIG_COST_CATALOG_H_
#define PGRIG_COST_CATALOG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace pgrig::cost {

enum class Arch { kArm64, kX86_64 };
enum class VcpuKind { kCore, kHyperthread };  // what one vCPU is on this machine

const char* ArchName(Arch arch);          // "arm64", "x86_64"
const char* VcpuKindName(VcpuKind kind);  // "core", "hyperthread"

// Where an entry came from, so every figure pgrig prints can be traced.
struct Provenance {
  std::string date;    // YYYY-MM-DD: when the price was recorded
  std::string source;  // the public source (page, API, article)
  std::string file;    // the catalog file it was read from
  int line = 0;        // 1-based line of the entry in that file
};

// One machine at one price.  Catalog instances are these; flexible shapes
// resolve to one of these for a given size.
struct InstancePrice {
  std::string provider;       // "aws", "oci", ...
  std::string region;         // "us-east-1"; "all" when the provider has one price everywhere
  std::string instance_type;  // "r8g.16xlarge", "VM.Standard.A1.Flex:4:24"
  Arch arch = Arch::kX86_64;
  int vcpus = 0;
  VcpuKind vcpu_is = VcpuKind::kHyperthread;
  double memory_gib = 0;
  double usd_per_hour = 0;  // on-demand, per instance
  Provenance provenance;
  // For a sized flexible shape, how the price was computed; empty otherwise.
  std::string sizing;
};

// A shape sized by the user: price = OCPUs x usd_per_ocpu_hour + GB x usd_per_gb_hour.
struct FlexShapePrice {
  std::string provider;
  std::string region;
  std::string shape;  // "VM.Standard.A1.Flex"
  Arch arch = Arch::kX86_64;
  int vcpus_per_ocpu = 1;
  VcpuKind vcpu_is = VcpuKind::kCore;
  double usd_per_ocpu_hour = 0;
  double usd_per_gb_hour = 0;
  Provenance provenance;
};

// Block storage billed per GB-month, plus provisioned IOPS and throughput
// above what the volume includes (AWS EBS gp3 style).
struct StoragePrice {
  std::string provider;
  std::string region;
  std::string name;  // "gp3"
  double usd_per_gb_month = 0;
  double included_iops = 0;
  double usd_per_iops_month = 0;  // per provisioned IOPS above included_iops
  double included_mbps = 0;
  double usd_per_mbps_month = 0;  // per provisioned MB/s above included_mbps
  Provenance provenance;
};

// What a Merge did, for telling the user.
struct MergeStats {
  int added = 0;
  int replaced = 0;
};

// Narrows a lookup when an instance type exists in several regions/providers.
struct LookupOptions {
  std::string region;    // empty: any
  std::string provider;  // empty: any
  // What the caller can do about an unknown instance, ending the refusal;
  // empty: the command line's ("add yours with --catalog FILE, or give the
  // price with --usd-per-hour").
  std::string hint;
};

class Catalog {
 public:
  Catalog() = default;

  // Parses TOML text and merges its entries into this catalog.  `file_name`
  // is used in error messages and provenance.
  Result<MergeStats> Merge(std::string_view toml_text, const std::string& file_name);
  Result<MergeStats> MergeFile(const std::string& path);

  const std::vector<InstancePrice>& instances() const { return instances_; }
  const std::vector<FlexShapePrice>& flex_shapes() const { return flex_shapes_; }
  const std::vector<StoragePrice>& storage() const { return storage_; }
  // Files merged so far, in order.
  const std::vector<std::string>& files() const { return files_; }
  size_t size() const { return instances_.size() + flex_shapes_.size() + storage_.size(); }

  // Finds an instance type, or sizes a flexible shape written
  // SHAPE:OCPUS:MEMORY_GB (e.g. "VM.Standard.A1.Flex:4:24").  Names compare
  // case-insensitively.  Unknown names give NotFound with the closest names;
  // a name in several regions without a region chosen gives InvalidArgument.
  Result<InstancePrice> FindInstance(std::string_view spec, const LookupOptions& opts = {}) const;

  // The storage entry called `name` (empty: the only one for provider+region).
  Result<StoragePrice> FindStorage(std::string_view name, std::string_view provider,
                                   std::string_view region) const;

  // Up to `max` instance types / shapes closest to `name` by edit distance
  // (case-insensitive), closest first; names that start with `name` first.
  std::vector<std::string> Suggest(std::string_view name, size_t max = 3) const;

 private:
  std::vector<InstancePrice> instances_;
  std::vector<FlexShapePrice> flex_shapes_;
  std::vector<StoragePrice> storage_;
  std::vector<std::string> files_;
};

// True when `pattern` selects `text`: a shell glob (*, ?, [...]) when it
// contains one of those characters, otherwise a substring; both ignore case.
bool MatchesPattern(std::string_view pattern, std::string_view text);

// Checks a YYYY-MM-DD calendar date.
bool IsValidDate(std::string_view date);

// Where to look for the shipped catalog.
struct CatalogSearch {
  std::optional<std::string> data_dir;  // $PGRIG_DATA_DIR, when set
  std::string exe_dir;                  // directory of the running executable; empty if unknown
};

struct CatalogLocation {
  std::string path;  // the file that exists
  std::string how;   // why this one, e.g. "$PGRIG_DATA_DIR/prices.toml"
};

// The text of data/prices.toml as it was when pgrig was built (compiled in
// by src/cost/embed_catalog.cmake): the default catalog when no file is found.
std::string_view ShippedCatalogText();
inline constexpr char kShippedCatalogName[] = "<built-in data/prices.toml>";

// The first existing file of: $PGRIG_DATA_DIR/prices.toml (when the variable
// is set, only that one: a set but wrong variable is an error, not a reason
// to silently use another catalog), <exe>/../data/prices.toml (source tree
// build), <exe>/../share/pgrig/prices.toml (installed), and
// <exe>/../../data/prices.toml (nested build directory).  NotFound lists the
// paths tried.
Result<CatalogLocation> LocateCatalog(const CatalogSearch& search);

// The search every command uses: $PGRIG_DATA_DIR when it is set and not
// empty, and `exe_dir` (common/fs.h's ExecutableDir()).
CatalogSearch CatalogSearchFromEnvironment(std::string exe_dir);

// One file, or the compiled-in text, that went into a loaded catalog.
struct CatalogSource {
  std::string path;      // the file, or kShippedCatalogName
  std::string found_as;  // LocateCatalog's `how`, "built in" or "--catalog"
  int added = 0;
  int replaced = 0;
};

struct LoadedCatalog {
  Catalog catalog;
  std::vector<CatalogSource> sources;  // in the order they were merged
};

// pgrig's one way to load prices (cost, run, fleet): the shipped catalog
// (the file LocateCatalog finds, else the text compiled in), then `overlays`
// in order.  A PGRIG_DATA_DIR that names no catalog is an error, never a
// silent fall back to the built-in one: the user asked for a specific file.
// Errors name the file and line.
Result<LoadedCatalog> LoadCatalog(const CatalogSearch& search,
                                  const std::vector<std::string>& overlays = {});

}  // namespace pgrig::cost

#endif  // PGRIG_COST_CATALOG_H_
