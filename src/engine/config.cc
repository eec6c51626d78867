#include "engine/config.h"

#include <cstdlib>
#include <string_view>

namespace pgrig::engine {

void ApplyEnvironmentKnobs(EngineConfig& cfg) {
  if (const char* y = std::getenv("PGRIG_ENGINE_YIELD")) cfg.yield_rounds = std::atoi(y);
  if (const char* l = std::getenv("PGRIG_ENGINE_LIBPQ")) cfg.lean_wire = std::string_view(l) != "1";
  if (const char* u = std::getenv("PGRIG_ENGINE_URING")) {
    cfg.io_uring = std::string_view(u) != "0";
    cfg.io_uring_paced = std::string_view(u) == "paced";
  }
}

}  // namespace pgrig::engine
