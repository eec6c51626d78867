// Rendering a TuneReport: a readable table with the diff against the current
// settings, a postgresql.conf fragment, ALTER SYSTEM statements, or JSON.
//
// Renderers only format; they compute nothing.  Each returns the whole text.
// Pure functions; thread-safe.
#ifndef PGRIG_TUNE_RENDER_H_
#define PGRIG_TUNE_RENDER_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/status.h"
#include "tune/recommend.h"

namespace pgrig::tune {

enum class Format { kTable, kConf, kAlterSystem, kJson };
Result<Format> ParseFormat(std::string_view name);

struct RenderOptions {
  bool show_unchanged = false;  // table: also list settings already within 5%
};

std::string RenderTable(const TuneReport& r, const RenderOptions& o = {});
std::string RenderConf(const TuneReport& r);
std::string RenderAlterSystem(const TuneReport& r);
nlohmann::json ToJson(const TuneReport& r);
std::string Render(const TuneReport& r, Format f, const RenderOptions& o = {});

}  // namespace pgrig::tune

#endif  // PGRIG_TUNE_RENDER_H_
