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

#include "pg/connection.h"
#include "script/script.h"

namespace pgrig::cli {

struct TpccRunOptions {
  pg::ConnectionParams conn;
  int clients = 10;
  int threads = 1;
  int duration_s = 60;
  int warmup_s = 0;
  int progress_s = 0;
  double rate_tps = 0;  // -R: transactions of all types per second; 0: as fast as possible
  uint32_t max_tries = 10;
  bool spec_timing = false;
  bool procedures = false;  // one function call per transaction (tpcc/procedures.h)  // keying and
                            // think times (tpcc/transactions.h)
  script::QueryMode mode = script::QueryMode::kPrepared;
  std::optional<std::string> random_seed;  // --random-seed text; nullopt: time
  std::string json_path;
  int check_warehouses = 0;       // conditions 1-4 on this many (first, last, random); 0: all
  std::vector<std::string> argv;  // the command line, for the results
};

// The process exit code.  REQUIRES: o was validated (ValidateTpccRun).
int RunTpccRun(const TpccRunOptions& o);

// Everything RunTpccRun needs checked before it connects: an error naming
// the option, or OK.
Status ValidateTpccRun(const TpccRunOptions& o);

}  // namespace pgrig::cli

#endif  // PGRIG_CLI_TPCC_RUN_H_
