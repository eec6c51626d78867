// Named places where a test can hold a pgrig process still, to end it
// there in a chosen way (the fault matrix in docs/testing.md).
//
// PausePoint("load") does nothing unless the environment names that point:
// PGRIG_PAUSE_AT=load and PGRIG_PAUSE_FILE=/some/path.  Then, the first time
// the process reaches the point, it writes the file (the point's name and
// the process id, one line) and waits until the file is removed, a signal
// has arrived (InterruptScope::flag()) or 120 s have passed, whichever comes
// first; later passes do nothing.  The test reads the file to know where
// pgrig is, does what it wants (signals pgrig, kills the postmaster, fills
// the disk) and removes the file to let it go on.
//
// The points (each named where it is called):
//   load      runner: pgbench's tables are created and filled, not yet
//             vacuumed or keyed (the start of the loader's step v)
//   settings  runner/server_settings: a cell's settings are written and
//             reloaded, and a restart they need is about to happen
//   warmup    runner: a cell's warm-up is about to start
//   measure   runner: a cell's measured window is about to start
//   restore   runner/server_settings: the original values are written back
//             and reloaded, and the restart they need is about to happen
//
// Nothing else reads these variables; an unset or unknown name costs one
// getenv per pass.
#ifndef PGRIG_COMMON_PAUSE_POINT_H_
#define PGRIG_COMMON_PAUSE_POINT_H_

#include <string_view>

namespace pgrig {

void PausePoint(std::string_view name);

}  // namespace pgrig

#endif  // PGRIG_COMMON_PAUSE_POINT_H_
