#include "workload/bench_options.h"

#include <getopt.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <iterator>
#include <optional>
#include <string_view>

#include "common/fs.h"
#include "engine/config.h"
#include "workload/pgbench_init_options.h"
#include "workload/pgbench_options.h"

namespace pgrig::workload {

namespace {
// Inside a named namespace: pgbench_init_options.cc, compiled in the same
// unity translation unit, has option tables and enumerators of the same names.
namespace bench_args {

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
  kProfile = 1002,
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
    {"profile", no_argument, nullptr, kProfile},
    {"db", required_argument, nullptr, kDbLongOption},
    {nullptr, 0, nullptr, 0},
};

constexpr char kShortOptions[] = "iI:h:nvp:dqb:SNc:j:Crs:t:T:U:lf:D:F:M:P:R:L:V?";

// pgbench's MAX_SCRIPTS.
constexpr size_t kMaxScripts = 128;

std::string Hint() {
  return std::string(kBenchProgram) + ": hint: Try \"" + kBenchProgram +
         " --help\" for more information.\n";
}

// What ParseBenchArgs() knows while it reads the options.
struct ParseState {
  BenchParse p;
  ConnectionArgs conn;  // -h -p -U --db, then the database operand
  bool initialization_option_set = false;
};

// What an option group did with an option.
enum class Took {
  kNotMine,  // not one of this group's options
  kTaken,    // read; go on
  kStop,     // the command stops here: s->p says with what
};

using OptionGroup = Took (*)(int c, const char* arg, ParseState* s);

Took Stop(ParseState* s, int code) {
  s->p.action = BenchParse::Action::kExit;
  s->p.exit_code = code;
  return Took::kStop;
}

// An error line (plus nothing else) and exit code 1.
Took Refuse(ParseState* s, const std::string& message) {
  s->p.err += BenchError(message);
  return Stop(s, 1);
}

// pgbench's integer option values (ParsePgbenchInt).
Took TakeInt(ParseState* s, const char* arg, std::string_view name, int min, int max, int* out) {
  auto v = ParsePgbenchInt(arg, name, min, max);
  if (!v.ok()) return Refuse(s, v.status().message());
  *out = *v;
  return Took::kTaken;
}

// pgbench's addScript() limit, checked as each script is added.
bool RoomForScript(ParseState* s) {
  if (s->p.options.scripts.size() < kMaxScripts) return true;
  s->p.err += BenchError("at most " + std::to_string(kMaxScripts) + " SQL scripts are allowed");
  return false;
}

bool AddBuiltin(ParseState* s, std::string_view name, int weight) {
  auto found = script::FindBuiltin(name);
  if (!found.ok()) {
    s->p.err += BenchError(found.status().message());
    s->p.err += script::ListAvailableScripts();
    return false;
  }
  if (!RoomForScript(s)) return false;
  s->p.options.scripts.push_back(
      {.kind = ScriptSpec::Kind::kBuiltin, .name = std::string((*found)->name), .weight = weight});
  s->p.options.internal_script_used = true;
  return true;
}

// pgbench's checkInitSteps(), run on -I while parsing (workload's check;
// its second line is pgbench's detail).
Took TakeInitSteps(const char* steps, ParseState* s) {
  Status valid = CheckInitSteps(steps);
  if (valid.ok()) return Took::kTaken;
  const std::string& m = valid.message();
  const size_t nl = m.find('\n');
  s->p.err += BenchError(m.substr(0, nl));
  if (nl != std::string::npos) {
    s->p.err += std::string(kBenchProgram) + ": detail: " + m.substr(nl + 1) + "\n";
  }
  return Stop(s, 1);
}

BenchParse TakeHelpOrVersion(int c, ParseState* s) {
  s->p.out = c == kHelp ? BenchUsage() : "pgrig bench (pgrig) 0.1.0\n";
  Stop(s, 0);
  return std::move(s->p);
}

// pgbench -i's options: "pgrig init"'s.  They are refused after parsing,
// but pgbench checks their values while parsing, so a bad value is
// reported first ("-F/--fillfactor must be in range 10..100").
Took TakeInitializationOption(int c, const char* arg, ParseState* s) {
  int unused = 0;
  switch (c) {
    case 'i':
      return Refuse(s,
                    "pgrig bench does not initialize databases; run \"pgrig init\" (it takes "
                    "pgbench's -i options: -s, -F, -I, --partitions, ...)");
    case 'F':
      s->initialization_option_set = true;
      return TakeInt(s, arg, "-F/--fillfactor", 10, 100, &unused);
    case kPartitions:
      s->initialization_option_set = true;
      return TakeInt(s, arg, "--partitions", 0, INT_MAX, &unused);
    case kPartitionMethod:
      s->initialization_option_set = true;
      if (strcasecmp(arg, "range") != 0 && strcasecmp(arg, "hash") != 0) {
        return Refuse(s, std::string("invalid partition method, expecting \"range\" or \"hash\", "
                                     "got: \"") +
                             arg + "\"");
      }
      return Took::kTaken;
    case 'I':
      s->initialization_option_set = true;
      return TakeInitSteps(arg, s);
    case 'q':
    case kUnloggedTables:
    case kTablespace:
    case kIndexTablespace:
    case kForeignKeys:
      s->initialization_option_set = true;
      return Took::kTaken;
    default:
      return Took::kNotMine;
  }
}

// -h -p -U --db (ConnectionArgs, shared with "pgrig init").
Took TakeConnectionOption(int c, const char* arg, ParseState* s) {
  return s->conn.Take(c, arg) ? Took::kTaken : Took::kNotMine;
}

// pgbench's check of -c against the open-file limit, after raising the soft
// limit as far as allowed.
Took CheckOpenFileLimit(ParseState* s) {
  const int clients = s->p.options.clients;
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return Took::kTaken;
  if (rl.rlim_cur < rl.rlim_max) {
    rlimit raised = rl;
    raised.rlim_cur = rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) rl = raised;
  }
  if (rl.rlim_cur >= static_cast<rlim_t>(clients) + 3) return Took::kTaken;
  s->p.err += BenchError("need at least " + std::to_string(int64_t{clients} + 3) +
                         " open files, but system limit is " +
                         std::to_string(static_cast<long>(rl.rlim_cur)));
  s->p.err += std::string(kBenchProgram) +
              ": hint: Reduce number of clients, or use limit/ulimit to increase the "
              "system limit.\n";
  return Stop(s, 1);
}

// How much load, for how long, over which protocol: -c -j -t -T -R -C -M
// -s -n -v.
Took TakeLoadShapeOption(int c, const char* arg, ParseState* s) {
  BenchOptions& o = s->p.options;
  switch (c) {
    case 'c':
      if (TakeInt(s, arg, "-c/--clients", 1, INT_MAX, &o.clients) == Took::kStop)
        return Took::kStop;
      return CheckOpenFileLimit(s);
    case 'j':
      return TakeInt(s, arg, "-j/--jobs", 1, INT_MAX, &o.threads);
    case 't':
      return TakeInt(s, arg, "-t/--transactions", 1, INT_MAX, &o.transactions);
    case 'T':
      return TakeInt(s, arg, "-T/--time", 1, INT_MAX, &o.duration_s);
    case 's':
      o.scale_given = true;
      return TakeInt(s, arg, "-s/--scale", 1, INT_MAX, &o.scale);
    case 'R': {
      // pgbench takes any positive atof(); "inf" and "nan" too, whose delays
      // it then converts with undefined results.
      const double v = std::atof(arg);
      if (!(v > 0.0) || !std::isfinite(v)) {
        return Refuse(s, std::string("invalid rate limit: \"") + arg + "\"");
      }
      o.rate_tps = v;
      return Took::kTaken;
    }
    case 'C':
      o.connect_per_transaction = true;
      return Took::kTaken;
    case 'M':
      if (std::optional<script::QueryMode> mode = script::ParseQueryMode(arg)) {
        o.mode = *mode;
        return Took::kTaken;
      }
      return Refuse(s, std::string("invalid query mode (-M): \"") + arg + "\"");
    case 'n':
      o.no_vacuum = true;
      return Took::kTaken;
    case 'v':
      o.vacuum_accounts = true;
      return Took::kTaken;
    default:
      return Took::kNotMine;
  }
}

// What the clients run: -b -S -N -f -D --random-seed --show-script.
Took TakeScriptOption(int c, const char* arg, ParseState* s) {
  BenchOptions& o = s->p.options;
  switch (c) {
    case 'b': {
      if (std::strcmp(arg, "list") == 0) {
        s->p.err += script::ListAvailableScripts();
        return Stop(s, 0);
      }
      auto w = script::ParseScriptWeight(arg);
      if (!w.ok()) return Refuse(s, w.status().message());
      return AddBuiltin(s, w->name, w->weight) ? Took::kTaken : Stop(s, 1);
    }
    case 'S':
      return AddBuiltin(s, "select-only", 1) ? Took::kTaken : Stop(s, 1);
    case 'N':
      return AddBuiltin(s, "simple-update", 1) ? Took::kTaken : Stop(s, 1);
    case 'f': {
      auto w = script::ParseScriptWeight(arg);
      if (!w.ok()) return Refuse(s, w.status().message());
      if (!RoomForScript(s)) return Stop(s, 1);
      o.scripts.push_back({.kind = ScriptSpec::Kind::kFile, .name = w->name, .weight = w->weight});
      return Took::kTaken;
    }
    case 'D': {
      const char* eq = std::strchr(arg, '=');
      if (eq == nullptr || eq == arg || eq[1] == '\0') {
        return Refuse(s, std::string("invalid variable definition: \"") + arg + "\"");
      }
      o.defines.emplace_back(std::string(arg, static_cast<size_t>(eq - arg)), std::string(eq + 1));
      return Took::kTaken;
    }
    case kRandomSeed:
      if (!script::ParseRandomSeed(arg).ok()) {
        s->p.err += BenchError(std::string("unrecognized random seed option \"") + arg + "\"");
        s->p.err += std::string(kBenchProgram) +
                    ": detail: Expecting an unsigned integer, \"time\" or \"rand\".\n";
        return Refuse(s, "error while setting random seed from --random-seed option");
      }
      o.random_seed = arg;
      return Took::kTaken;
    case kShowScript: {
      auto found = script::FindBuiltin(arg);
      if (!found.ok()) {
        s->p.err += BenchError(found.status().message());
        s->p.err += script::ListAvailableScripts();
        return Stop(s, 1);
      }
      s->p.err += script::ShowScriptText(**found);
      return Stop(s, 0);
    }
    default:
      return Took::kNotMine;
  }
}

// What is reported and logged: -l --log-prefix --sampling-rate
// --aggregate-interval -P --progress-timestamp -r -d --json --profile.
Took TakeReportingOption(int c, const char* arg, ParseState* s) {
  BenchOptions& o = s->p.options;
  switch (c) {
    case 'l':
      o.log = true;
      return Took::kTaken;
    case kLogPrefix:
      o.log_prefix = arg;
      return Took::kTaken;
    case kSamplingRate:
      o.sampling_rate = std::atof(arg);
      if (!(o.sampling_rate > 0.0 && o.sampling_rate <= 1.0)) {  // refuses NaN as well
        return Refuse(s, std::string("invalid sampling rate: \"") + arg + "\"");
      }
      return Took::kTaken;
    case kAggregateInterval:
      return TakeInt(s, arg, "--aggregate-interval", 1, INT_MAX, &o.aggregate_interval_s);
    case 'P':
      return TakeInt(s, arg, "-P/--progress", 1, INT_MAX, &o.progress_s);
    case kProgressTimestamp:
      o.progress_timestamp = true;
      return Took::kTaken;
    case 'r':
      o.report_per_command = true;
      return Took::kTaken;
    case 'd':
      ++o.debug;
      return Took::kTaken;
    case kJson:
      o.json_path = arg;
      return Took::kTaken;
    case kProfile:
      o.profile = true;
      return Took::kTaken;
    default:
      return Took::kNotMine;
  }
}

// Failures, retries and lateness: -L --max-tries --failures-detailed
// --verbose-errors.
Took TakeRetryOption(int c, const char* arg, ParseState* s) {
  BenchOptions& o = s->p.options;
  switch (c) {
    case 'L': {
      // Beyond engine::kMaxLatencyLimitMs (and "inf", "nan") the engine's
      // nanoseconds would not fit an int64: refused, where pgbench converts
      // such values with undefined results.
      const double ms = std::atof(arg);
      if (!(ms > 0.0 && ms <= engine::kMaxLatencyLimitMs)) {
        return Refuse(s, std::string("invalid latency limit: \"") + arg + "\"");
      }
      o.latency_limit_us = static_cast<int64_t>(ms * 1000);
      return Took::kTaken;
    }
    case kMaxTries: {
      const int v = std::atoi(arg);
      if (v < 0) {
        return Refuse(s, std::string("invalid number of maximum tries: \"") + arg + "\"");
      }
      o.max_tries = static_cast<uint32_t>(v);
      return Took::kTaken;
    }
    case kFailuresDetailed:
      o.failures_detailed = true;
      return Took::kTaken;
    case kVerboseErrors:
      o.verbose_errors = true;
      return Took::kTaken;
    default:
      return Took::kNotMine;
  }
}

// The default script (tpcb-like) and pgbench's check of the weights.
Took FinishScripts(ParseState* s) {
  BenchOptions& o = s->p.options;
  if (o.scripts.empty() && !AddBuiltin(s, "tpcb-like", 1)) return Stop(s, 1);
  int64_t total_weight = 0;
  for (const auto& script : o.scripts) total_weight += script.weight;
  if (total_weight == 0) return Refuse(s, "total script weight must not be zero");
  return Took::kTaken;
}

// The operands, read from `args`, which getopt_long has permuted so that
// they follow the options ("pgrig bench DB -n ..." names DB).
Took TakeOperands(int argc, char** args, ParseState* s) {
  Status db = s->conn.TakeDatabase(argc, args, &optind);
  if (!db.ok()) return Refuse(s, db.message());
  s->p.options.conn = s->conn.params;
  if (optind < argc) {
    s->p.err += BenchError(TooManyArguments(args[optind]).message());
    s->p.err += Hint();
    return Stop(s, 1);
  }
  return Took::kTaken;
}

// pgbench's checks of options against each other, in pgbench's order.
Took CheckCombinations(ParseState* s) {
  BenchOptions& o = s->p.options;
  if (s->initialization_option_set) {
    return Refuse(s, "some of the specified options cannot be used in benchmarking mode");
  }
  if (o.transactions > 0 && o.duration_s > 0) {
    return Refuse(s, "specify either a number of transactions (-t) or a duration (-T), not both");
  }
  if (o.transactions <= 0 && o.duration_s <= 0) o.transactions = 10;
  if (o.sampling_rate > 0.0 && !o.log) {
    return Refuse(s,
                  "log sampling (--sampling-rate) is allowed only when logging transactions (-l)");
  }
  if (o.sampling_rate > 0.0 && o.aggregate_interval_s > 0) {
    return Refuse(s,
                  "log sampling (--sampling-rate) and aggregation (--aggregate-interval) cannot "
                  "be used at the same time");
  }
  if (o.aggregate_interval_s > 0 && !o.log) {
    return Refuse(s, "log aggregation is allowed only when actually logging transactions");
  }
  if (!o.log && !o.log_prefix.empty()) {
    return Refuse(s,
                  "log file prefix (--log-prefix) is allowed only when logging transactions (-l)");
  }
  if (o.duration_s > 0 && o.aggregate_interval_s > o.duration_s) {
    return Refuse(
        s, "number of seconds for aggregation (" + std::to_string(o.aggregate_interval_s) +
               ") must not be higher than test duration (" + std::to_string(o.duration_s) + ")");
  }
  if (o.duration_s > 0 && o.aggregate_interval_s > 0 &&
      o.duration_s % o.aggregate_interval_s != 0) {
    return Refuse(s, "duration (" + std::to_string(o.duration_s) +
                         ") must be a multiple of aggregation interval (" +
                         std::to_string(o.aggregate_interval_s) + ")");
  }
  if (o.progress_timestamp && o.progress_s == 0) {
    return Refuse(s, "--progress-timestamp is allowed only under --progress");
  }
  if (o.max_tries == 0 && o.latency_limit_us == 0 && o.duration_s <= 0) {
    return Refuse(s,
                  "an unlimited number of transaction tries can only be used with "
                  "--latency-limit or a duration (-T)");
  }
  return Took::kTaken;
}

}  // namespace bench_args
}  // namespace

std::string BenchError(const std::string& message) {
  return std::string(kBenchProgram) + ": error: " + message + "\n";
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
  while ((c = getopt_long(argc, args.data(), bench_args::kShortOptions, bench_args::kLongOptions,
                          &optindex)) != -1) {
    if (c == 'i') init = true;
  }
  optind = 0;
  opterr = 1;
  return init;
}

namespace {
namespace bench_args {

BenchParse Parse(int argc, char** argv, bool quiet) {
  ParseState s;
  for (int i = 0; i < argc; ++i) s.p.options.argv.emplace_back(argv[i]);

  // getopt_long names the program from argv[0] in its own complaints.
  std::vector<char*> args(argv, argv + argc);
  std::string prog = kBenchProgram;
  args[0] = prog.data();
  args.push_back(nullptr);
  optind = 0;  // GNU: full reinitialisation, so the parser can run twice
  opterr = quiet ? 0 : 1;
  struct ComplaintsBackOn {
    ~ComplaintsBackOn() { opterr = 1; }
  } complaints_back_on;

  // "--help" and "-V" are honoured only as the first option, like pgbench.
  if (argc > 1) {
    std::string_view first = argv[1];
    if (first == "--help" || first == "-?") return TakeHelpOrVersion(kHelp, &s);
    if (first == "--version" || first == "-V") return TakeHelpOrVersion('V', &s);
  }

  // Each option belongs to one group; the first group that knows it takes it.
  constexpr OptionGroup kGroups[] = {TakeInitializationOption, TakeConnectionOption,
                                     TakeLoadShapeOption,      TakeScriptOption,
                                     TakeReportingOption,      TakeRetryOption};
  int c = 0;
  int optindex = 0;
  while ((c = getopt_long(argc, args.data(), kShortOptions, kLongOptions, &optindex)) != -1) {
    if (c == kHelp || c == 'V') return TakeHelpOrVersion(c, &s);
    Took took = Took::kNotMine;
    for (OptionGroup take : kGroups) {
      took = take(c, optarg, &s);
      if (took != Took::kNotMine) break;
    }
    if (took == Took::kStop) return std::move(s.p);
    if (took == Took::kNotMine) {
      if (quiet) {
        const int at = std::clamp(optind - 1, 1, argc - 1);
        Refuse(&s, "unknown option or missing value at \"" + std::string(argv[at]) + "\"");
        return std::move(s.p);
      }
      // getopt_long has already complained.
      s.p.err += Hint();
      Stop(&s, 1);
      return std::move(s.p);
    }
  }

  if (FinishScripts(&s) == Took::kStop) return std::move(s.p);
  s.p.options.threads = engine::WorkerThreads(s.p.options.threads, s.p.options.clients);
  if (TakeOperands(argc, args.data(), &s) == Took::kStop) return std::move(s.p);
  if (CheckCombinations(&s) == Took::kStop) return std::move(s.p);
  return std::move(s.p);
}

}  // namespace bench_args
}  // namespace

BenchParse ParseBenchArgs(int argc, char** argv) {
  return bench_args::Parse(argc, argv, /*quiet=*/false);
}

BenchParse ParseBenchArgsQuietly(const std::vector<std::string>& args) {
  std::vector<std::string> copy = args;
  std::string name = "bench";
  std::vector<char*> argv = {name.data()};
  for (std::string& a : copy) argv.push_back(a.data());
  return bench_args::Parse(static_cast<int>(argv.size()), argv.data(), /*quiet=*/true);
}

engine::EngineConfig EngineConfigFor(const BenchOptions& o, EngineInputs in) {
  engine::EngineConfig cfg;
  cfg.target = std::move(in.target);
  cfg.scripts = std::move(in.scripts);
  cfg.names = std::move(in.names);
  cfg.base_variables = std::move(in.base_variables);
  cfg.scale = in.scale;
  cfg.clients = o.clients;
  cfg.threads = engine::WorkerThreads(o.threads, o.clients);
  cfg.transactions_per_client = o.duration_s > 0 ? 0 : o.transactions;
  cfg.duration_s = o.duration_s;
  cfg.mode = o.mode;
  cfg.rate_tps = o.rate_tps;
  cfg.latency_limit_us = o.latency_limit_us;
  cfg.max_tries = o.max_tries;
  cfg.connect_per_transaction = o.connect_per_transaction;
  cfg.report_per_command = o.report_per_command;
  cfg.verbose_errors = o.verbose_errors;
  cfg.random_seed = in.random_seed;
  cfg.progress_s = o.progress_s;
  cfg.series_interval_s = o.progress_s > 0 ? o.progress_s : 1;
  cfg.log.enabled = o.log;
  if (!o.log_prefix.empty()) cfg.log.prefix = o.log_prefix;
  cfg.log.aggregate_interval_s = o.aggregate_interval_s;
  cfg.log.sampling_rate = o.sampling_rate;
  cfg.log.pid = static_cast<int>(getpid());
  cfg.log.failures_detailed = o.failures_detailed;
  cfg.debug = o.debug > 0;
  engine::ApplyEnvironmentKnobs(cfg);  // knobs for measurements (bench/*.sh), not options
  return cfg;
}

namespace {

Result<std::string> ReadScriptFile(const std::string& path) {
  if (path == "-") {
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    return text;
  }
  auto r = ReadWholeFile(path);
  if (!r.ok()) {
    return InvalidArgument("could not open file \"" + path + "\": " + std::strerror(errno));
  }
  return r;
}

}  // namespace

Result<PreparedScripts> PrepareScripts(
    const std::vector<ScriptSpec>& specs,
    const std::vector<std::pair<std::string, std::string>>& defines) {
  auto names = std::make_shared<script::NameTable>();
  auto scripts = std::make_shared<std::vector<script::Script>>();
  for (const ScriptSpec& spec : specs) {
    std::string text;
    std::string source;
    if (spec.kind == ScriptSpec::Kind::kBuiltin) {
      PGRIG_ASSIGN_OR_RETURN(const script::BuiltinScript* b, script::FindBuiltin(spec.name));
      text = std::string(b->text);
      source = std::string(b->desc);
    } else {
      PGRIG_ASSIGN_OR_RETURN(text, ReadScriptFile(spec.name));
      source = spec.name;
    }
    PGRIG_ASSIGN_OR_RETURN(script::Script s, script::ParseScript(text, source, *names));
    s.weight = spec.weight;
    scripts->push_back(std::move(s));
  }
  // The automatic variables need slots before any Variables exists.
  for (const char* n : {"client_id", "scale", "default_seed", "random_seed"}) names->Intern(n);
  for (const auto& [k, v] : defines) names->Intern(k);
  std::shared_ptr<const script::NameTable> frozen = names;
  auto vars = std::make_shared<script::Variables>(frozen);
  for (const auto& [k, v] : defines) PGRIG_RETURN_IF_ERROR(vars->SetStringByName("option", k, v));
  return PreparedScripts{.scripts = scripts, .names = frozen, .base_variables = vars};
}

}  // namespace pgrig::workload
