// Reading a TOML document for pgrig's own files (plans, fleet files), with
// syntax errors reported as "<file>:<line>: not valid TOML: <what> (column N)".
//
// toml++ may be built with or without exceptions; this hides which.  Pure
// function, thread-safe.
#ifndef PGRIG_PLAN_TOML_TEXT_H_
#define PGRIG_PLAN_TOML_TEXT_H_

#include <toml++/toml.h>

#include <string>
#include <string_view>

#include "common/status.h"

namespace pgrig::plan {

// `file` names the document in messages and in toml++'s source positions.
Result<toml::table> ParseTomlText(std::string_view text, const std::string& file);

}  // namespace pgrig::plan

#endif  // PGRIG_PLAN_TOML_TEXT_H_
