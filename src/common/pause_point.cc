#include "common/pause_point.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "common/interrupt.h"

namespace pgrig {

void PausePoint(std::string_view name) {
  static std::atomic<bool> paused{false};
  const char* at = std::getenv("PGRIG_PAUSE_AT");
  const char* file = std::getenv("PGRIG_PAUSE_FILE");
  if (at == nullptr || file == nullptr || name != at || paused.exchange(true)) return;
  const std::string tmp = std::string(file) + ".tmp";
  {
    std::ofstream out(tmp);
    out << name << " " << ::getpid() << "\n";
    if (!out) return;
  }
  if (std::rename(tmp.c_str(), file) != 0) return;
  const std::atomic<bool>* stop = InterruptScope::flag();
  for (int i = 0; i < 120 * 100; ++i) {
    if (::access(file, F_OK) != 0 || stop->load()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace pgrig
