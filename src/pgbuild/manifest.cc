// pgrig-build.json (pgbuild/manifest.h).
#include "pgbuild/manifest.h"

#include "host/facts_json.h"

namespace pgrig::pgbuild {
namespace {

Status ManifestBad(const std::string& where, const std::string& key, const std::string& what) {
  return InvalidArgument(where + ": " + key + " " + what);
}

Status ManifestString(const nlohmann::json& j, const char* key, const std::string& where,
                      std::string& out) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return ManifestBad(where, key, "must be a string");
  out = it->get<std::string>();
  return Status();
}

}  // namespace

nlohmann::json ManifestToJson(const Manifest& m) {
  return {{"schema", kManifestSchema},
          {"name", m.name},
          {"version", m.version},
          {"source", m.source},
          {"profile", m.profile},
          {"compiler", m.compiler},
          {"cflags", m.cflags},
          {"configure_args", m.configure_args},
          {"pg_config_cflags", m.pg_config_cflags},
          {"ccache", m.ccache},
          {"build_seconds", m.build_seconds},
          {"size_bytes", m.size_bytes},
          {"built_at", m.built_at},
          {"binary", host::ToJson(m.binary)}};
}

Result<Manifest> ManifestFromJson(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) return InvalidArgument(where + ": a build manifest must be a JSON object");
  Manifest m;
  std::string schema;
  PGRIG_RETURN_IF_ERROR(ManifestString(j, "schema", where, schema));
  if (schema != kManifestSchema) {
    return ManifestBad(where, "schema", "is \"" + schema + "\", not " + kManifestSchema);
  }
  PGRIG_RETURN_IF_ERROR(ManifestString(j, "name", where, m.name));
  PGRIG_RETURN_IF_ERROR(ManifestString(j, "version", where, m.version));
  PGRIG_RETURN_IF_ERROR(ManifestString(j, "source", where, m.source));
  PGRIG_RETURN_IF_ERROR(ManifestString(j, "profile", where, m.profile));
  PGRIG_RETURN_IF_ERROR(ManifestString(j, "compiler", where, m.compiler));
  PGRIG_RETURN_IF_ERROR(ManifestString(j, "cflags", where, m.cflags));
  PGRIG_RETURN_IF_ERROR(ManifestString(j, "pg_config_cflags", where, m.pg_config_cflags));
  PGRIG_RETURN_IF_ERROR(ManifestString(j, "built_at", where, m.built_at));
  auto args = j.find("configure_args");
  if (args == j.end() || !args->is_array()) {
    return ManifestBad(where, "configure_args", "must be an array of strings");
  }
  for (const auto& a : *args) {
    if (!a.is_string()) return ManifestBad(where, "configure_args", "must be an array of strings");
    m.configure_args.push_back(a.get<std::string>());
  }
  if (auto c = j.find("ccache"); c != j.end() && c->is_boolean()) m.ccache = c->get<bool>();
  auto secs = j.find("build_seconds");
  if (secs == j.end() || !secs->is_number() || secs->get<double>() < 0) {
    return ManifestBad(where, "build_seconds", "must be a non-negative number");
  }
  m.build_seconds = secs->get<double>();
  auto size = j.find("size_bytes");
  if (size == j.end() || !size->is_number_unsigned()) {
    return ManifestBad(where, "size_bytes", "must be a non-negative integer");
  }
  m.size_bytes = size->get<uint64_t>();
  auto bin = j.find("binary");
  if (bin == j.end()) return ManifestBad(where, "binary", "is missing");
  PGRIG_ASSIGN_OR_RETURN(m.binary, host::ServerBinaryFromJson(*bin, where + ": binary"));
  return m;
}

}  // namespace pgrig::pgbuild
