// args_fuzzer: libFuzzer target over the command lines pgrig reads as
// pgbench does: `pgrig bench`'s (workload/bench_options.h, also what a fleet
// file's `bench` holds) and `pgrig init`'s (workload/pgbench_init_options.h).
// (`pgrig tpcc run`'s, tpcc/run_args.h, is reached through fleet_fuzzer: a
// fleet file's `tpcc = [...]`.)
//
// Input: the arguments, separated by NUL bytes (at most 64; the command's
// own name is added in front where a parser wants one).  Every parser gets
// the same arguments.
//
// Checked invariants (abort = crash report): nothing a parser calls throws
// out of it or crashes on any argument; a refused bench command line exits
// non-zero with an error to print, a stopped one (--help, -b list) with
// something to print; a bench command line it accepts has clients and
// threads of at least 1, threads no more than clients (as the engine runs
// them), non-negative counts and rate, and not both -t and -T; an init
// command line it accepts has a scale and fillfactor in pgbench's ranges
// and only pgbench's step letters.
//
// Not thread-safe (getopt_long); one input at a time.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "workload/bench_options.h"
#include "workload/pgbench_init_options.h"

namespace {

std::vector<std::string> Args(std::string_view text) {
  std::vector<std::string> args;
  while (!text.empty() && args.size() < 64) {
    const size_t nul = text.find('\0');
    args.emplace_back(text.substr(0, nul));
    if (nul == std::string_view::npos) break;
    text.remove_prefix(nul + 1);
  }
  return args;
}

void Bench(const std::vector<std::string>& args) {
  const pgrig::workload::BenchParse p = pgrig::workload::ParseBenchArgsQuietly(args);
  if (p.action == pgrig::workload::BenchParse::Action::kExit) {
    if (p.exit_code != 0) FUZZ_CHECK(!p.err.empty());
    FUZZ_CHECK(!p.out.empty() || !p.err.empty());
    return;
  }
  const pgrig::workload::BenchOptions& o = p.options;
  FUZZ_CHECK(o.clients >= 1);
  FUZZ_CHECK(o.threads >= 1 && o.threads <= o.clients);
  FUZZ_CHECK(o.transactions >= 0 && o.duration_s >= 0);
  FUZZ_CHECK(o.transactions == 0 || o.duration_s == 0);
  FUZZ_CHECK(o.rate_tps >= 0);
  FUZZ_CHECK(o.latency_limit_us >= 0);
  for (const pgrig::workload::ScriptSpec& s : o.scripts) FUZZ_CHECK(s.weight >= 0);
}

void Init(const std::vector<std::string>& args) {
  std::vector<std::string> with_name = {"init"};
  with_name.insert(with_name.end(), args.begin(), args.end());
  auto c = pgrig::workload::ParseInitCommandLine(with_name);
  if (!c.ok()) {
    FUZZ_CHECK(!c.status().message().empty());
    return;
  }
  const pgrig::workload::InitOptions& o = c->options;
  FUZZ_CHECK(o.scale >= 1);
  FUZZ_CHECK(o.fillfactor >= 10 && o.fillfactor <= 100);
  FUZZ_CHECK(o.partitions >= 0 && o.jobs >= 0);
  FUZZ_CHECK(o.steps.find_first_not_of("dtgGvpf ") == std::string::npos);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::string> args =
      Args(std::string_view(reinterpret_cast<const char*>(data), size));
  Bench(args);
  Init(args);
  return 0;
}
