#include "cli/bench_options.h"

#include <getopt.h>
#include <strings.h>
#include <sys/resource.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>

namespace pgrig::cli {

namespace {

// Long-only options, numbered as in pgbench where pgbench has them.
enum LongOnly {
  kUnloggedTables = 1,
  kTablespace = 2,
  kIndexTablespace = 3,
  kSamplingRate = 4,
  kAggregateInterval = 5,
  kProgressTimestamp = 6,
  kLogPrefix = 7,
  kForeignKeys = 8,
  kRandomSeed = 9,
  kShowScript = 10,
  kPartitions = 11,
  kPartitionMethod = 12,
  kFailuresDetailed = 13,
  kMaxTries = 14,
  kVerboseErrors = 15,
  kJson = 1000,  // above every option letter
  kHelp = 1001,
  kDb = 1002,
};

const option kLongOptions[] = {
    {"builtin", required_argument, nullptr, 'b'},
    {"client", required_argument, nullptr, 'c'},
    {"connect", no_argument, nullptr, 'C'},
    {"debug", no_argument, nullptr, 'd'},
    {"define", required_argument, nullptr, 'D'},
    {"file", required_argument, nullptr, 'f'},
    {"fillfactor", required_argument, nullptr, 'F'},
    {"host", required_argument, nullptr, 'h'},
    {"initialize", no_argument, nullptr, 'i'},
    {"init-steps", required_argument, nullptr, 'I'},
    {"jobs", required_argument, nullptr, 'j'},
    {"log", no_argument, nullptr, 'l'},
    {"latency-limit", required_argument, nullptr, 'L'},
    {"no-vacuum", no_argument, nullptr, 'n'},
    {"port", required_argument, nullptr, 'p'},
    {"progress", required_argument, nullptr, 'P'},
    {"protocol", required_argument, nullptr, 'M'},
    {"quiet", no_argument, nullptr, 'q'},
    {"report-per-command", no_argument, nullptr, 'r'},
    {"rate", required_argument, nullptr, 'R'},
    {"scale", required_argument, nullptr, 's'},
    {"select-only", no_argument, nullptr, 'S'},
    {"skip-some-updates", no_argument, nullptr, 'N'},
    {"time", required_argument, nullptr, 'T'},
    {"transactions", required_argument, nullptr, 't'},
    {"username", required_argument, nullptr, 'U'},
    {"vacuum-all", no_argument, nullptr, 'v'},
    {"version", no_argument, nullptr, 'V'},
    {"help", no_argument, nullptr, kHelp},
    {"unlogged-tables", no_argument, nullptr, kUnloggedTables},
    {"tablespace", required_argument, nullptr, kTablespace},
    {"index-tablespace", required_argument, nullptr, kIndexTablespace},
    {"sampling-rate", required_argument, nullptr, kSamplingRate},
    {"aggregate-interval", required_argument, nullptr, kAggregateInterval},
    {"progress-timestamp", no_argument, nullptr, kProgressTimestamp},
    {"log-prefix", required_argument, nullptr, kLogPrefix},
    {"foreign-keys", no_argument, nullptr, kForeignKeys},
    {"random-seed", required_argument, nullptr, kRandomSeed},
    {"show-script", required_argument, nullptr, kShowScript},
    {"partitions", required_argument, nullptr, kPartitions},
    {"partition-method", required_argument, nullptr, kPartitionMethod},
    {"failures-detailed", no_argument, nullptr, kFailuresDetailed},
    {"max-tries", required_argument, nullptr, kMaxTries},
    {"verbose-errors", no_argument, nullptr, kVerboseErrors},
    {"json", required_argument, nullptr, kJson},
    {"db", required_argument, nullptr, kDb},
    {nullptr, 0, nullptr, 0},
};

constexpr char kShortOptions[] = "iI:h:nvp:dqb:SNc:j:Crs:t:T:U:lf:D:F:M:P:R:L:V?";

// pgbench's MAX_SCRIPTS.
constexpr size_t kMaxScripts = 128;

std::string Hint() {
  return std::string(kBenchProgram) + ": hint: Try \"" + kBenchProgram +
         " --help\" for more information.\n";
}

// fe_utils' option_parse_int(): whole int, trailing blanks allowed.
bool ParseIntOption(const char* arg, const char* optname, int min, int max, int* out,
                    std::string* err) {
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(arg, &end, 10);
  while (*end != '\0' && std::isspace(static_cast<unsigned char>(*end))) ++end;
  if (*end != '\0') {
    *err += BenchError(std::string("invalid value \"") + arg + "\" for option " + optname);
    return false;
  }
  if (errno == ERANGE || v < INT_MIN || v > INT_MAX || v < min || v > max) {
    *err += BenchError(std::string(optname) + " must be in range " + std::to_string(min) + ".." +
                       std::to_string(max));
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

// pgbench's checkInitSteps(), run on -I while parsing: a known step letter
// (or a blank) in every position.
bool CheckInitSteps(const char* steps, std::string* err) {
  constexpr std::string_view kAllInitSteps = "dtgGvpf";
  if (*steps == '\0') {
    *err += BenchError("no initialization steps specified");
    return false;
  }
  for (const char* c = steps; *c != '\0'; ++c) {
    if (*c != ' ' && kAllInitSteps.find(*c) == std::string_view::npos) {
      *err += BenchError(std::string("unrecognized initialization step \"") + *c + "\"");
      *err += std::string(kBenchProgram) + ": detail: Allowed step characters are: \"" +
              std::string(kAllInitSteps) + "\".\n";
      return false;
    }
  }
  return true;
}

BenchParse Exit(BenchParse p, int code) {
  p.action = BenchParse::Action::kExit;
  p.exit_code = code;
  return p;
}

// pgbench's addScript() limit, checked as each script is added.
bool RoomForScript(BenchParse* p) {
  if (p->options.scripts.size() < kMaxScripts) return true;
  p->err += BenchError("at most " + std::to_string(kMaxScripts) + " SQL scripts are allowed");
  return false;
}

bool AddBuiltin(BenchParse* p, std::string_view name, int weight) {
  auto found = script::FindBuiltin(name);
  if (!found.ok()) {
    p->err += BenchError(found.status().message());
    p->err += script::ListAvailableScripts();
    return false;
  }
  if (!RoomForScript(p)) return false;
  p->options.scripts.push_back(
      {.kind = ScriptSpec::Kind::kBuiltin, .name = std::string((*found)->name), .weight = weight});
  p->options.internal_script_used = true;
  return true;
}

}  // namespace

std::string BenchError(const std::string& message) {
  return std::string(kBenchProgram) + ": error: " + message + "\n";
}

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
         "  -I, --init-steps=[dtgGvpf]+ (default \"dtgvp\")\n"
         "                           run selected initialization steps\n"
         "  -F, --fillfactor=NUM     set fill factor\n"
         "  -n, --no-vacuum          do not run VACUUM during initialization\n"
         "  -q, --quiet              quiet logging (one message each 5 seconds)\n"
         "  -s, --scale=NUM          scaling factor\n"
         "  --foreign-keys           create foreign key constraints between tables\n"
         "  --index-tablespace=TABLESPACE\n"
         "                           create indexes in the specified tablespace\n"
         "  --partition-method=(range|hash)\n"
         "                           partition pgbench_accounts with this method (default: range)\n"
         "  --partitions=NUM         partition pgbench_accounts into NUM parts (default: 0)\n"
         "  --tablespace=TABLESPACE  create tables in the specified tablespace\n"
         "  --unlogged-tables        create tables as unlogged tables\n\n"
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
         "                           checked writable before the run)\n\n"
         "Common options:\n"
         "  -d, --debug              print debugging output\n"
         "  -h, --host=HOSTNAME      database server host or socket directory\n"
         "  -p, --port=PORT          database server port number\n"
         "  -U, --username=USERNAME  connect as specified database user\n"
         "  --db=CONNINFO            database name, conninfo string or postgresql:// URI\n"
         "                           (pgrig's; the same as DBNAME)\n"
         "  -V, --version            output version information, then exit\n"
         "  -?, --help               show this help, then exit\n\n"
         "With no server named (-h/-p/-U, DBNAME, --db or PG* variables) the embedded cluster is\n"
         "used, started on demand; nothing starts or connects for a refused command line.\n"
         "Exit status: 0 success, 1 bad invocation or setup, 2 failure during the run.\n";
}

bool IsPgbenchInitMode(int argc, char** argv) {
  // getopt_long permutes its argv: scan a copy, quietly.
  std::vector<char*> args(argv, argv + argc);
  args.push_back(nullptr);
  optind = 0;
  opterr = 0;
  bool init = false;
  int c = 0;
  int optindex = 0;
  while ((c = getopt_long(argc, args.data(), kShortOptions, kLongOptions, &optindex)) != -1) {
    if (c == 'i') init = true;
  }
  optind = 0;
  opterr = 1;
  return init;
}

BenchParse ParseBenchArgs(int argc, char** argv) {
  BenchParse p;
  BenchOptions& o = p.options;
  for (int i = 0; i < argc; ++i) o.argv.emplace_back(argv[i]);


  // getopt_long names the program from argv[0] in its own complaints.
  std::vector<char*> args(argv, argv + argc);
  std::string prog = kBenchProgram;
  args[0] = prog.data();
  args.push_back(nullptr);
  optind = 0;  // GNU: full reinitialisation, so the parser can run twice
  opterr = 1;

  // "--help" and "-V" are honoured only as the first option, like pgbench.
  if (argc > 1) {
    std::string_view first = argv[1];
    if (first == "--help" || first == "-?") {
      p.out = BenchUsage();
      return Exit(std::move(p), 0);
    }
    if (first == "--version" || first == "-V") {
      p.out = "pgrig bench (pgrig) 0.1.0\n";
      return Exit(std::move(p), 0);
    }
  }

  bool initialization_option_set = false;
  std::optional<std::string> db_option;  // --db
  int c = 0;
  int optindex = 0;
  while ((c = getopt_long(argc, args.data(), kShortOptions, kLongOptions, &optindex)) != -1) {
    switch (c) {
      case 'i':
        p.err += BenchError("pgrig bench does not initialize databases; run \"pgrig init\" (it takes "
                            "pgbench's -i options: -s, -F, -I, --partitions, ...)");
        return Exit(std::move(p), 1);
      // Initialization options are refused after parsing, but pgbench
      // checks their values while parsing, so a bad value is reported first
      // ("-F/--fillfactor must be in range 10..100").
      case 'F': {
        initialization_option_set = true;
        int fillfactor = 0;
        if (!ParseIntOption(optarg, "-F/--fillfactor", 10, 100, &fillfactor, &p.err)) {
          return Exit(std::move(p), 1);
        }
        break;
      }
      case kPartitions: {
        initialization_option_set = true;
        int partitions = 0;
        if (!ParseIntOption(optarg, "--partitions", 0, INT_MAX, &partitions, &p.err)) {
          return Exit(std::move(p), 1);
        }
        break;
      }
      case kPartitionMethod:
        initialization_option_set = true;
        if (strcasecmp(optarg, "range") != 0 && strcasecmp(optarg, "hash") != 0) {
          p.err += BenchError(
              std::string("invalid partition method, expecting \"range\" or \"hash\", got: \"") +
              optarg + "\"");
          return Exit(std::move(p), 1);
        }
        break;
      case 'I':
        initialization_option_set = true;
        if (!CheckInitSteps(optarg, &p.err)) return Exit(std::move(p), 1);
        break;
      case 'q':
      case kUnloggedTables:
      case kTablespace:
      case kIndexTablespace:
      case kForeignKeys:
        initialization_option_set = true;
        break;
      case 'h':
        o.conn.host = optarg;
        break;
      case 'n':
        o.no_vacuum = true;
        break;
      case 'v':
        o.vacuum_accounts = true;
        break;
      case 'p':
        o.conn.port = optarg;
        break;
      case 'd':
        ++o.debug;
        break;
      case 'c': {
        if (!ParseIntOption(optarg, "-c/--clients", 1, INT_MAX, &o.clients, &p.err)) {
          return Exit(std::move(p), 1);
        }
        // pgbench's check, after raising the soft limit as far as allowed.
        rlimit rl{};
        if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
          if (rl.rlim_cur < rl.rlim_max) {
            rlimit raised = rl;
            raised.rlim_cur = rl.rlim_max;
            if (setrlimit(RLIMIT_NOFILE, &raised) == 0) rl = raised;
          }
          if (rl.rlim_cur < static_cast<rlim_t>(o.clients) + 3) {
            p.err += BenchError("need at least " + std::to_string(o.clients + 3) +
                                " open files, but system limit is " +
                                std::to_string(static_cast<long>(rl.rlim_cur)));
            p.err += std::string(kBenchProgram) +
                     ": hint: Reduce number of clients, or use limit/ulimit to increase the "
                     "system limit.\n";
            return Exit(std::move(p), 1);
          }
        }
        break;
      }
      case 'j':
        if (!ParseIntOption(optarg, "-j/--jobs", 1, INT_MAX, &o.threads, &p.err)) {
          return Exit(std::move(p), 1);
        }
        break;
      case 'C':
        o.connect_per_transaction = true;
        break;
      case 'r':
        o.report_per_command = true;
        break;
      case 's':
        o.scale_given = true;
        if (!ParseIntOption(optarg, "-s/--scale", 1, INT_MAX, &o.scale, &p.err)) {
          return Exit(std::move(p), 1);
        }
        break;
      case 't':
        if (!ParseIntOption(optarg, "-t/--transactions", 1, INT_MAX, &o.transactions, &p.err)) {
          return Exit(std::move(p), 1);
        }
        break;
      case 'T':
        if (!ParseIntOption(optarg, "-T/--time", 1, INT_MAX, &o.duration_s, &p.err)) {
          return Exit(std::move(p), 1);
        }
        break;
      case 'U':
        o.conn.user = optarg;
        break;
      case 'l':
        o.log = true;
        break;
      case 'b': {
        if (std::strcmp(optarg, "list") == 0) {
          p.err += script::ListAvailableScripts();
          return Exit(std::move(p), 0);
        }
        auto w = script::ParseScriptWeight(optarg);
        if (!w.ok()) {
          p.err += BenchError(w.status().message());
          return Exit(std::move(p), 1);
        }
        if (!AddBuiltin(&p, w->name, w->weight)) return Exit(std::move(p), 1);
        break;
      }
      case 'S':
        if (!AddBuiltin(&p, "select-only", 1)) return Exit(std::move(p), 1);
        break;
      case 'N':
        if (!AddBuiltin(&p, "simple-update", 1)) return Exit(std::move(p), 1);
        break;
      case 'f': {
        auto w = script::ParseScriptWeight(optarg);
        if (!w.ok()) {
          p.err += BenchError(w.status().message());
          return Exit(std::move(p), 1);
        }
        if (!RoomForScript(&p)) return Exit(std::move(p), 1);
        o.scripts.push_back({.kind = ScriptSpec::Kind::kFile, .name = w->name, .weight = w->weight});
        break;
      }
      case 'D': {
        const char* eq = std::strchr(optarg, '=');
        if (eq == nullptr || eq == optarg || eq[1] == '\0') {
          p.err += BenchError(std::string("invalid variable definition: \"") + optarg + "\"");
          return Exit(std::move(p), 1);
        }
        o.defines.emplace_back(std::string(optarg, static_cast<size_t>(eq - optarg)),
                               std::string(eq + 1));
        break;
      }
      case 'M':
        if (std::strcmp(optarg, "simple") == 0) {
          o.mode = script::QueryMode::kSimple;
        } else if (std::strcmp(optarg, "extended") == 0) {
          o.mode = script::QueryMode::kExtended;
        } else if (std::strcmp(optarg, "prepared") == 0) {
          o.mode = script::QueryMode::kPrepared;
        } else {
          p.err += BenchError(std::string("invalid query mode (-M): \"") + optarg + "\"");
          return Exit(std::move(p), 1);
        }
        break;
      case 'P':
        if (!ParseIntOption(optarg, "-P/--progress", 1, INT_MAX, &o.progress_s, &p.err)) {
          return Exit(std::move(p), 1);
        }
        break;
      case 'R': {
        const double v = std::atof(optarg);
        if (v <= 0.0) {
          p.err += BenchError(std::string("invalid rate limit: \"") + optarg + "\"");
          return Exit(std::move(p), 1);
        }
        o.rate_tps = v;
        break;
      }
      case 'L': {
        const double ms = std::atof(optarg);
        if (ms <= 0.0) {
          p.err += BenchError(std::string("invalid latency limit: \"") + optarg + "\"");
          return Exit(std::move(p), 1);
        }
        o.latency_limit_us = static_cast<int64_t>(ms * 1000);
        break;
      }
      case kSamplingRate:
        o.sampling_rate = std::atof(optarg);
        if (o.sampling_rate <= 0.0 || o.sampling_rate > 1.0) {
          p.err += BenchError(std::string("invalid sampling rate: \"") + optarg + "\"");
          return Exit(std::move(p), 1);
        }
        break;
      case kAggregateInterval:
        if (!ParseIntOption(optarg, "--aggregate-interval", 1, INT_MAX, &o.aggregate_interval_s,
                            &p.err)) {
          return Exit(std::move(p), 1);
        }
        break;
      case kProgressTimestamp:
        o.progress_timestamp = true;
        break;
      case kLogPrefix:
        o.log_prefix = optarg;
        break;
      case kRandomSeed: {
        auto seed = script::ParseRandomSeed(optarg);
        if (!seed.ok()) {
          p.err += BenchError(std::string("unrecognized random seed option \"") + optarg + "\"");
          p.err += std::string(kBenchProgram) +
                   ": detail: Expecting an unsigned integer, \"time\" or \"rand\".\n";
          p.err += BenchError("error while setting random seed from --random-seed option");
          return Exit(std::move(p), 1);
        }
        o.random_seed = optarg;
        break;
      }
      case kShowScript: {
        auto found = script::FindBuiltin(optarg);
        if (!found.ok()) {
          p.err += BenchError(found.status().message());
          p.err += script::ListAvailableScripts();
          return Exit(std::move(p), 1);
        }
        p.err += script::ShowScriptText(**found);
        return Exit(std::move(p), 0);
      }
      case kFailuresDetailed:
        o.failures_detailed = true;
        break;
      case kMaxTries: {
        const int v = std::atoi(optarg);
        if (v < 0) {
          p.err += BenchError(std::string("invalid number of maximum tries: \"") + optarg + "\"");
          return Exit(std::move(p), 1);
        }
        o.max_tries = static_cast<uint32_t>(v);
        break;
      }
      case kVerboseErrors:
        o.verbose_errors = true;
        break;
      case kJson:
        o.json_path = optarg;
        break;
      case kDb:
        db_option = optarg;
        break;
      case kHelp:
        p.out = BenchUsage();
        return Exit(std::move(p), 0);
      case 'V':
        p.out = "pgrig bench (pgrig) 0.1.0\n";
        return Exit(std::move(p), 0);
      default:
        // getopt_long has already complained.
        p.err += Hint();
        return Exit(std::move(p), 1);
    }
  }

  if (o.scripts.empty()) {
    if (!AddBuiltin(&p, "tpcb-like", 1)) return Exit(std::move(p), 1);
  }
  int64_t total_weight = 0;
  for (const auto& s : o.scripts) total_weight += s.weight;
  if (total_weight == 0) {
    p.err += BenchError("total script weight must not be zero");
    return Exit(std::move(p), 1);
  }
  if (o.threads > o.clients) o.threads = o.clients;

  // The operands are read from `args`, which getopt_long has permuted so
  // that they follow the options ("pgrig bench DB -n ..." names DB).
  if (optind < argc && !db_option) o.conn.dbname = args[static_cast<size_t>(optind++)];
  if (optind < argc && db_option) {
    p.err += BenchError(std::string("both --db and a database name (\"") +
                        args[static_cast<size_t>(optind)] + "\") were given; use one of them");
    return Exit(std::move(p), 1);
  }
  if (db_option) o.conn.dbname = *db_option;
  if (optind < argc) {
    p.err += BenchError(std::string("too many command-line arguments (first is \"") +
                        args[static_cast<size_t>(optind)] + "\")");
    p.err += Hint();
    return Exit(std::move(p), 1);
  }
  if (initialization_option_set) {
    p.err += BenchError("some of the specified options cannot be used in benchmarking mode");
    return Exit(std::move(p), 1);
  }
  if (o.transactions > 0 && o.duration_s > 0) {
    p.err += BenchError("specify either a number of transactions (-t) or a duration (-T), not both");
    return Exit(std::move(p), 1);
  }
  if (o.transactions <= 0 && o.duration_s <= 0) o.transactions = 10;
  if (o.sampling_rate > 0.0 && !o.log) {
    p.err += BenchError(
        "log sampling (--sampling-rate) is allowed only when logging transactions (-l)");
    return Exit(std::move(p), 1);
  }
  if (o.sampling_rate > 0.0 && o.aggregate_interval_s > 0) {
    p.err += BenchError(
        "log sampling (--sampling-rate) and aggregation (--aggregate-interval) cannot be used at "
        "the same time");
    return Exit(std::move(p), 1);
  }
  if (o.aggregate_interval_s > 0 && !o.log) {
    p.err += BenchError("log aggregation is allowed only when actually logging transactions");
    return Exit(std::move(p), 1);
  }
  if (!o.log && !o.log_prefix.empty()) {
    p.err += BenchError(
        "log file prefix (--log-prefix) is allowed only when logging transactions (-l)");
    return Exit(std::move(p), 1);
  }
  if (o.duration_s > 0 && o.aggregate_interval_s > o.duration_s) {
    p.err += BenchError("number of seconds for aggregation (" +
                        std::to_string(o.aggregate_interval_s) +
                        ") must not be higher than test duration (" +
                        std::to_string(o.duration_s) + ")");
    return Exit(std::move(p), 1);
  }
  if (o.duration_s > 0 && o.aggregate_interval_s > 0 &&
      o.duration_s % o.aggregate_interval_s != 0) {
    p.err += BenchError("duration (" + std::to_string(o.duration_s) +
                        ") must be a multiple of aggregation interval (" +
                        std::to_string(o.aggregate_interval_s) + ")");
    return Exit(std::move(p), 1);
  }
  if (o.progress_timestamp && o.progress_s == 0) {
    p.err += BenchError("--progress-timestamp is allowed only under --progress");
    return Exit(std::move(p), 1);
  }
  if (o.max_tries == 0 && o.latency_limit_us == 0 && o.duration_s <= 0) {
    p.err += BenchError(
        "an unlimited number of transaction tries can only be used with --latency-limit or a "
        "duration (-T)");
    return Exit(std::move(p), 1);
  }
  return p;
}

}  // namespace pgrig::cli
