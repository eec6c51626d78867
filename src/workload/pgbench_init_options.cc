#include "workload/pgbench_init_options.h"

#include <getopt.h>

#include <climits>
#include <cstring>

#include "common/enum_names.h"
#include "workload/pgbench_options.h"

namespace pgrig::workload {

namespace {

// Long-only options get values above the char range.
enum LongOnly : int {
  kForeignKeys = 1000,
  kIndexTablespace,
  kPartitionMethod,
  kPartitions,
  kTablespace,
  kUnloggedTables,
  kHelp,
  // pgbench's benchmarking options: recognised so that `pgbench -i` with
  // one of them gets pgbench's complaint, not "invalid option".
  kBenchOnly,
  kBenchOnlyWithArgument,
};

// pgbench's letters that take an argument in benchmarking mode only.
constexpr std::string_view kBenchOnlyWithArg = "ctTbfDMPRL";
constexpr std::string_view kBenchOnlyNoArg = "vCrlSN";

constexpr char kShortOptions[] = ":iI:F:nqs:h:p:U:dj:V?vCrlSNc:t:T:b:f:D:M:P:R:L:";

const struct option kLongOptions[] = {
    {"initialize", no_argument, nullptr, 'i'},
    {"init-steps", required_argument, nullptr, 'I'},
    {"fillfactor", required_argument, nullptr, 'F'},
    {"no-vacuum", no_argument, nullptr, 'n'},
    {"quiet", no_argument, nullptr, 'q'},
    {"scale", required_argument, nullptr, 's'},
    {"host", required_argument, nullptr, 'h'},
    {"port", required_argument, nullptr, 'p'},
    {"username", required_argument, nullptr, 'U'},
    {"debug", no_argument, nullptr, 'd'},
    {"jobs", required_argument, nullptr, 'j'},
    {"version", no_argument, nullptr, 'V'},
    {"foreign-keys", no_argument, nullptr, kForeignKeys},
    {"index-tablespace", required_argument, nullptr, kIndexTablespace},
    {"partition-method", required_argument, nullptr, kPartitionMethod},
    {"partitions", required_argument, nullptr, kPartitions},
    {"tablespace", required_argument, nullptr, kTablespace},
    {"unlogged-tables", no_argument, nullptr, kUnloggedTables},
    {"db", required_argument, nullptr, kDbLongOption},
    {"help", no_argument, nullptr, kHelp},
    // Benchmarking mode's long options (see kBenchOnly).
    {"builtin", required_argument, nullptr, 'b'},
    {"client", required_argument, nullptr, 'c'},
    {"connect", no_argument, nullptr, 'C'},
    {"define", required_argument, nullptr, 'D'},
    {"file", required_argument, nullptr, 'f'},
    {"log", no_argument, nullptr, 'l'},
    {"latency-limit", required_argument, nullptr, 'L'},
    {"progress", required_argument, nullptr, 'P'},
    {"protocol", required_argument, nullptr, 'M'},
    {"report-per-command", no_argument, nullptr, 'r'},
    {"rate", required_argument, nullptr, 'R'},
    {"select-only", no_argument, nullptr, 'S'},
    {"skip-some-updates", no_argument, nullptr, 'N'},
    {"time", required_argument, nullptr, 'T'},
    {"transactions", required_argument, nullptr, 't'},
    {"vacuum-all", no_argument, nullptr, 'v'},
    {"sampling-rate", required_argument, nullptr, kBenchOnlyWithArgument},
    {"aggregate-interval", required_argument, nullptr, kBenchOnlyWithArgument},
    {"progress-timestamp", no_argument, nullptr, kBenchOnly},
    {"log-prefix", required_argument, nullptr, kBenchOnlyWithArgument},
    {"random-seed", required_argument, nullptr, kBenchOnlyWithArgument},
    {"failures-detailed", no_argument, nullptr, kBenchOnly},
    {"max-tries", required_argument, nullptr, kBenchOnlyWithArgument},
    {"verbose-errors", no_argument, nullptr, kBenchOnly},
    {nullptr, 0, nullptr, 0},
};

// The option text as the user typed it, for error messages.
std::string OffendingOption(int opt, int optopt_value, const std::vector<char*>& argv, int index) {
  if (optopt_value > 0 && optopt_value < 256)
    return std::string("-") + static_cast<char>(optopt_value);
  if (index > 0 && index <= static_cast<int>(argv.size()) && argv[static_cast<size_t>(index - 1)]) {
    return argv[static_cast<size_t>(index - 1)];
  }
  return std::string(1, static_cast<char>(opt));
}

}  // namespace

const char* PartitionMethodName(PartitionMethod m) {
  static constexpr const char* kNames[] = {"none", "range", "hash"};
  return NameAt<PartitionMethod::kHash>(m, kNames, "none");
}

Status CheckInitSteps(std::string_view steps) {
  if (steps.empty()) return InvalidArgument("no initialization steps specified");
  for (char c : steps) {
    if (c != ' ' && kAllInitSteps.find(c) == std::string_view::npos) {
      return InvalidArgument(std::string("unrecognized initialization step \"") + c + "\"\n" +
                             "Allowed step characters are: \"" + std::string(kAllInitSteps) +
                             "\".");
    }
  }
  return Status::Ok();
}

Result<InitCommandLine> ParseInitCommandLine(const std::vector<std::string>& args) {
  InitCommandLine out;
  InitOptions& o = out.options;
  // getopt_long permutes argv, so it gets its own copy.
  std::vector<std::string> storage = args;
  if (storage.empty()) storage.push_back("init");
  std::vector<char*> argv;
  for (auto& a : storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int argc = static_cast<int>(storage.size());

  std::optional<std::string> steps;
  bool no_vacuum = false;
  bool foreign_keys = false;
  ConnectionArgs conn;
  bool benchmarking_option_set = false;

  // optind = 0 makes glibc's getopt start afresh (also resetting its
  // internal scan position), which a second call in one process needs.
  optind = 0;
  opterr = 0;
  int opt;
  int long_index = 0;
  while ((opt = getopt_long(argc, argv.data(), kShortOptions, kLongOptions, &long_index)) != -1) {
    if (conn.Take(opt, optarg)) continue;  // -h -p -U --db
    switch (opt) {
      case 'i':
        break;  // `pgbench -i` spelled out: init is what we do anyway
      case 'I':
        // Checked here, as pgbench does, so that a bad step is reported
        // before any other complaint about the command line.
        PGRIG_RETURN_IF_ERROR(CheckInitSteps(optarg));
        steps = optarg;
        break;
      case 'F': {
        PGRIG_ASSIGN_OR_RETURN(o.fillfactor, ParsePgbenchInt(optarg, "-F/--fillfactor", 10, 100));
        break;
      }
      case 'n':
        no_vacuum = true;
        break;
      case 'q':
        o.quiet = true;
        break;
      case 's': {
        PGRIG_ASSIGN_OR_RETURN(o.scale, ParsePgbenchInt(optarg, "-s/--scale", 1, INT_MAX));
        break;
      }
      case 'd':
        o.debug = true;
        break;
      case 'j': {
        PGRIG_ASSIGN_OR_RETURN(o.jobs, ParsePgbenchInt(optarg, "-j/--jobs", 1, kMaxJobs));
        break;
      }
      case 'V':
        out.version = true;
        break;
      case kForeignKeys:
        foreign_keys = true;
        break;
      case kIndexTablespace:
        o.index_tablespace = optarg;
        break;
      case kPartitionMethod:
        if (std::strcmp(optarg, "range") == 0) {
          o.partition_method = PartitionMethod::kRange;
        } else if (std::strcmp(optarg, "hash") == 0) {
          o.partition_method = PartitionMethod::kHash;
        } else {
          return InvalidArgument(
              std::string("invalid partition method, expecting \"range\" or \"hash\", got: \"") +
              optarg + "\"");
        }
        break;
      case kPartitions: {
        PGRIG_ASSIGN_OR_RETURN(o.partitions, ParsePgbenchInt(optarg, "--partitions", 0, INT_MAX));
        break;
      }
      case kTablespace:
        o.tablespace = optarg;
        break;
      case kUnloggedTables:
        o.unlogged_tables = true;
        break;
      case kBenchOnly:
      case kBenchOnlyWithArgument:
        benchmarking_option_set = true;
        break;
      case kHelp:
        out.help = true;
        break;
      case ':':
        return InvalidArgument("option " + OffendingOption(opt, optopt, argv, optind) +
                               " requires an argument");
      case '?':
        // '?' is both "-?" (pgbench's help) and "unknown option"; glibc
        // leaves optopt stale for a valid "-?", so look at the word itself.
        if (optind > 0 && optind <= argc &&
            std::strcmp(argv[static_cast<size_t>(optind - 1)], "-?") == 0) {
          out.help = true;
          break;
        }
        return InvalidArgument(
            (optopt > 0 && optopt < 256 ? "invalid option " : "unrecognized option ") +
            OffendingOption(opt, optopt, argv, optind));
      default:
        if (opt > 0 && opt < 256 &&
            (kBenchOnlyWithArg.find(static_cast<char>(opt)) != std::string_view::npos ||
             kBenchOnlyNoArg.find(static_cast<char>(opt)) != std::string_view::npos)) {
          benchmarking_option_set = true;
          break;
        }
        return Internal("unexpected option code " + std::to_string(opt));
    }
  }
  out.connection = conn.params;
  if (out.help || out.version) return out;

  PGRIG_RETURN_IF_ERROR(conn.TakeDatabase(argc, argv.data(), &optind));
  if (optind < argc) return TooManyArguments(argv[static_cast<size_t>(optind)]);
  out.connection = conn.params;

  if (benchmarking_option_set) {
    return InvalidArgument(
        "some of the specified options cannot be used in initialization (-i) mode");
  }

  if (o.partitions == 0 && o.partition_method != PartitionMethod::kNone) {
    return InvalidArgument("--partition-method requires greater than zero --partitions");
  }
  if (o.partitions > 0 && o.partition_method == PartitionMethod::kNone) {
    o.partition_method = PartitionMethod::kRange;
  }
  if (steps) o.steps = *steps;
  if (no_vacuum) {
    for (char& c : o.steps) {
      if (c == 'v') c = ' ';
    }
  }
  if (foreign_keys && o.steps.find('f') == std::string::npos) o.steps += 'f';
  out.connection.application_name = "pgrig init";
  return out;
}

}  // namespace pgrig::workload
