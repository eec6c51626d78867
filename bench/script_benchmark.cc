// Cost of the script interpreter per transaction: the tpcb-like script's four
// \set lines, the whole tpcb-like script (\set lines plus binding the SQL
// parameters, no server), and a custom script with 20 \set lines.
//
//   cmake --build build --target script_benchmark && ./build/bench/script_benchmark
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "script/runner.h"
#include "script/script.h"

namespace pgrig::script {
namespace {

// One client: a parsed script, its variables (scale set) and a runner.
struct Client {
  Client(std::string_view text, QueryMode mode) {
    auto table = std::make_shared<NameTable>();
    const int scale = table->Intern("scale");
    script = std::move(*ParseScript(text, "bench", *table));
    vars = std::make_unique<Variables>(table);
    vars->Set(scale, Value::Int(100));
    runner = std::make_unique<ScriptRunner>(ScriptRunner::Options{.mode = mode}, vars.get(), &rng);
  }
  // Runs one transaction's worth of steps; returns the number of SQL steps.
  int RunOnce() {
    runner->Start(script, 0);
    int sql = 0;
    for (StepKind k = runner->Advance(); k != StepKind::kEndOfScript; k = runner->Advance()) {
      if (k == StepKind::kSql) {
        benchmark::DoNotOptimize(runner->sql().data());
        benchmark::DoNotOptimize(runner->params());
        sql++;
      } else if (k == StepKind::kError) {
        std::abort();
      }
    }
    return sql;
  }
  Script script;
  std::unique_ptr<Variables> vars;
  Prng rng{5432};
  std::unique_ptr<ScriptRunner> runner;
};

std::string TpcbSetLines() {
  std::string text(BuiltinScripts()[0].text);
  return text.substr(0, text.find("BEGIN;"));  // the four \set lines only
}

void BM_TpcbFourSets(benchmark::State& state) {
  Client c(TpcbSetLines(), QueryMode::kPrepared);
  for (auto _ : state) benchmark::DoNotOptimize(c.RunOnce());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TpcbFourSets);

void BM_TpcbTransaction(benchmark::State& state) {
  const QueryMode mode = static_cast<QueryMode>(state.range(0));
  Client c(BuiltinScripts()[0].text, mode);
  for (auto _ : state) benchmark::DoNotOptimize(c.RunOnce());
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(mode == QueryMode::kSimple ? "simple" : "prepared");
}
BENCHMARK(BM_TpcbTransaction)
    ->Arg(static_cast<int>(QueryMode::kSimple))
    ->Arg(static_cast<int>(QueryMode::kPrepared));

void BM_TwentySets(benchmark::State& state) {
  std::string text;
  for (int i = 0; i < 20; i++) {
    text += "\\set v" + std::to_string(i) + " random(1, 100000 * :scale) + " + std::to_string(i) +
            " * 2\n";
  }
  text += "SELECT :v0, :v19;\n";
  Client c(text, QueryMode::kPrepared);
  for (auto _ : state) benchmark::DoNotOptimize(c.RunOnce());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TwentySets);

}  // namespace
}  // namespace pgrig::script

BENCHMARK_MAIN();
