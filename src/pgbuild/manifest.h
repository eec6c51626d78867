// What a build under PGRIG_HOME/pg/NAME was made from and with: its
// pgrig-build.json, written by `pgrig pg build` and read by `pgrig pg list`
// (and, later, by suites that record the build they ran on).  The one place
// its keys are spelled.  Plain value types and pure functions.
#ifndef PGRIG_PGBUILD_MANIFEST_H_
#define PGRIG_PGBUILD_MANIFEST_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/status.h"
#include "host/server_facts.h"

namespace pgrig::pgbuild {

inline constexpr const char* kManifestSchema = "pgrig.pg-build/1";
inline constexpr const char* kManifestFile = "pgrig-build.json";

struct Manifest {
  std::string name;
  std::string version;                      // "15.18"
  std::string source;                       // the tarball or tree it was built from
  std::string profile;                      // recipe.h's ProfileName
  std::string compiler;                     // `gcc --version`'s first line
  std::string cflags;                       // CFLAGS given to configure ("" : configure's own)
  std::vector<std::string> configure_args;  // as given, --prefix included
  std::string pg_config_cflags;             // the build's own `pg_config --cflags`
  bool ccache = false;
  double build_seconds = 0;
  uint64_t size_bytes = 0;
  std::string built_at;            // UTC, ISO 8601
  host::ServerBinaryFacts binary;  // atomics and frame pointers of bin/postgres
};

nlohmann::json ManifestToJson(const Manifest& m);
// Malformed input is an error naming `where` and the key.
Result<Manifest> ManifestFromJson(const nlohmann::json& j, const std::string& where);

}  // namespace pgrig::pgbuild

#endif  // PGRIG_PGBUILD_MANIFEST_H_
