// `pgrig tpcc run`: the five TPC-C transactions (tpcc/transactions.h) on
// pgrig's engine over data `pgrig tpcc init` loaded, and the figures of
// tpcc/run.h.
//
// Order of work: the options were checked by the caller (cmd_tpcc.cc); the
// results file is probed; one setup connection reads the load (tpcc_load)
// and, for --json, the facts; a warm-up run when asked for (not measured);
// the database's New-Order count; the measured run, with the server's CPU
// over its window; the count again; conditions 1 to 4 over the warehouses
// (all, or --check-warehouses of them).  A run whose conditions fail, whose
// counts disagree, that aborted or was interrupted prints what happened and
// no NOPM, writes its JSON with null figures and exits 2.
#ifndef PGRIG_CLI_TPCC_RUN_H_
#define PGRIG_CLI_TPCC_RUN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "tpcc/run_args.h"

namespace pgrig::cli {

using TpccRunOptions = tpcc::RunArgs;

// The process exit code.  REQUIRES: o was validated (ValidateTpccRun).
int RunTpccRun(const TpccRunOptions& o);

// Everything RunTpccRun needs checked before it connects
// (tpcc::ValidateRunArgs, and that --json can be written): an error naming
// the option, or OK.
Status ValidateTpccRun(TpccRunOptions* o);

}  // namespace pgrig::cli

#endif  // PGRIG_CLI_TPCC_RUN_H_
