// pgrig bench --help: pgbench's headings and options, with pgrig's notes.
#include <string>

#include "workload/bench_options.h"
#include "workload/pgbench_init_options.h"

namespace pgrig::workload {

std::string BenchUsage() {
  return std::string(kBenchProgram) +
         " runs a pgbench-compatible benchmark against PostgreSQL.\n\n"
         "Usage:\n"
         "  pgrig bench [OPTION]... [DBNAME]\n"
         "  pgbench [-i] [OPTION]... [DBNAME]   (pgrig installed or linked as \"pgbench\")\n\n"
         "Initialization options:\n"
         "  These are \"pgrig init\"'s (it loads the tables over several connections);\n"
         "  pgrig bench refuses them. Run as \"pgbench\", pgrig gives -i command lines to\n"
         "  \"pgrig init\" and the others to \"pgrig bench\".\n"
         "  -i, --initialize         initialization mode (\"pgrig init\")\n"
         "  -i, --initialize         initialization mode (\"pgrig init\")\n" +
         kInitOptionsHelp +
         "\n"
         "Options to select what to run:\n"
         "  -b, --builtin=NAME[@W]   add builtin script NAME weighted at W (default: 1)\n"
         "                           (use \"-b list\" to list available scripts)\n"
         "  -f, --file=FILENAME[@W]  add script FILENAME weighted at W (default: 1)\n"
         "  -N, --skip-some-updates  skip updates of pgbench_tellers and pgbench_branches\n"
         "                           (same as \"-b simple-update\")\n"
         "  -S, --select-only        perform SELECT-only transactions\n"
         "                           (same as \"-b select-only\")\n\n"
         "Benchmarking options:\n"
         "  -c, --client=NUM         number of concurrent database clients (default: 1)\n"
         "  -C, --connect            establish new connection for each transaction\n"
         "  -D, --define=VARNAME=VALUE\n"
         "                           define variable for use by custom script\n"
         "  -j, --jobs=NUM           number of threads (default: 1)\n"
         "  -l, --log                write transaction times to log file\n"
         "  -L, --latency-limit=NUM  count transactions lasting more than NUM ms as late\n"
         "  -M, --protocol=simple|extended|prepared\n"
         "                           protocol for submitting queries (default: simple)\n"
         "  -n, --no-vacuum          do not run VACUUM before tests\n"
         "  -P, --progress=NUM       show thread progress report every NUM seconds\n"
         "  -r, --report-per-command report latencies, failures, and retries per command\n"
         "  -R, --rate=NUM           target rate in transactions per second\n"
         "  -s, --scale=NUM          report this scale factor in output\n"
         "  -t, --transactions=NUM   number of transactions each client runs (default: 10)\n"
         "  -T, --time=NUM           duration of benchmark test in seconds\n"
         "  -v, --vacuum-all         vacuum all four standard tables before tests\n"
         "  --aggregate-interval=NUM aggregate data over NUM seconds\n"
         "  --failures-detailed      report the failures grouped by basic types\n"
         "  --log-prefix=PREFIX      prefix for transaction time log file\n"
         "                           (default: \"pgbench_log\")\n"
         "  --max-tries=NUM          max number of tries to run transaction (default: 1)\n"
         "  --progress-timestamp     use Unix epoch timestamps for progress\n"
         "  --random-seed=SEED       set random seed (\"time\", \"rand\", integer)\n"
         "  --sampling-rate=NUM      fraction of transactions to log (e.g., 0.01 for 1%)\n"
         "  --show-script=NAME       show builtin script code, then exit\n"
         "  --verbose-errors         print messages of all errors\n"
         "  --json=FILE              write the results (pgrig.result/1) to FILE (pgrig's;\n"
         "                           checked writable before the run)\n"
         "  --profile                sample the server's CPU with perf during the run (a local\n"
         "                           server; pgrig's; the folded stacks go beside --json)\n\n"
         "Common options:\n"
         "  -d, --debug              print debugging output\n" +
         kConnectionOptionsHelp +
         "\n"
         "With no server named (-h/-p/-U, DBNAME, --db or PG* variables) the embedded cluster is\n"
         "used, started on demand; nothing starts or connects for a refused command line.\n"
         "Exit status: 0 success, 1 bad invocation or setup, 2 failure during the run.\n";
}

}  // namespace pgrig::workload
