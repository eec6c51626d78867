#include "cli/fleet_gate.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/clock.h"
#include "fleet/client_mode.h"

namespace pgrig::cli {

std::optional<int> FleetGateFromEnvironment() {
  const char* gate = std::getenv(fleet::kFleetStartGateEnv);
  if (gate == nullptr || *gate == '\0') return std::nullopt;
  return std::atoi(gate);
}

Status WaitForFleetGo(int timeout_s) {
  std::printf("%s\n", fleet::kFleetReadyLine);
  std::fflush(stdout);
  const int64_t deadline = MonotonicNanos() + int64_t{std::max(1, timeout_s)} * 1'000'000'000;
  std::string line;
  while (line.size() < 64) {
    const int64_t left_ms = (deadline - MonotonicNanos()) / 1'000'000;
    if (left_ms <= 0) break;
    struct pollfd p {
      0, POLLIN, 0
    };
    if (::poll(&p, 1, static_cast<int>(std::min<int64_t>(left_ms, 1000))) <= 0) continue;
    char c = 0;
    if (::read(0, &c, 1) != 1)
      return Unavailable("the fleet controller went away before the start");
    if (c == '\n') {
      if (line == "go") return Status::Ok();
      return InvalidArgument("the fleet controller said \"" + line + "\" instead of go");
    }
    line += c;
  }
  return Unavailable("no start signal from the fleet controller within " +
                     std::to_string(timeout_s) + " s");
}

}  // namespace pgrig::cli
