// Cost of pgrig's latency histogram on the engine's hot path (Record) and at
// interval/run boundaries (Add, percentiles, export).
//
// Build with -DCMAKE_BUILD_TYPE=RelWithDebInfo and run, e.g.:
//   build/bench/histogram_benchmark --benchmark_min_time=1
// The "per_value" counter of the Record benchmarks is the time per recorded
// value; the requirement is at most 10 ns.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "stats/histogram.h"

namespace {

using pgrig::stats::Histogram;

constexpr size_t kValues = size_t{1} << 16;  // pre-generated, reused round-robin

enum Shape : int64_t {
  kLogNormal1ms = 0,    // OLTP-like: median 1 ms, clamped to 100 us .. 10 ms
  kUniform100usTo10ms,  // every bucket of the band equally likely (worst cache spread)
  kLogUniform1usTo1s,   // very wide spread across 20 powers of two
  kNarrow,              // 200 us +- 2 us: nearly always the same few buckets
};

std::vector<int64_t> MakeValues(Shape shape) {
  std::mt19937_64 rng(42);
  std::vector<int64_t> v(kValues);
  switch (shape) {
    case kLogNormal1ms: {
      std::lognormal_distribution<double> d(std::log(1e6), 0.7);
      for (auto& x : v) x = std::clamp<int64_t>(static_cast<int64_t>(d(rng)), 100'000, 10'000'000);
      break;
    }
    case kUniform100usTo10ms: {
      std::uniform_int_distribution<int64_t> d(100'000, 10'000'000);
      for (auto& x : v) x = d(rng);
      break;
    }
    case kLogUniform1usTo1s: {
      std::uniform_real_distribution<double> d(std::log(1e3), std::log(1e9));
      for (auto& x : v) x = static_cast<int64_t>(std::exp(d(rng)));
      break;
    }
    case kNarrow: {
      std::uniform_int_distribution<int64_t> d(198'000, 202'000);
      for (auto& x : v) x = d(rng);
      break;
    }
  }
  return v;
}

const char* ShapeName(int64_t shape) {
  switch (shape) {
    case kLogNormal1ms:
      return "lognormal_1ms";
    case kUniform100usTo10ms:
      return "uniform_100us_10ms";
    case kLogUniform1usTo1s:
      return "loguniform_1us_1s";
    default:
      return "narrow_200us";
  }
}

void BM_Record(benchmark::State& state) {
  const std::vector<int64_t> values = MakeValues(static_cast<Shape>(state.range(0)));
  Histogram h;
  for (auto _ : state) {
    for (int64_t v : values) h.Record(v);
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(h.count());
  const auto n = static_cast<double>(state.iterations()) * static_cast<double>(values.size());
  state.SetItemsProcessed(static_cast<int64_t>(n));
  state.counters["per_value"] =
      benchmark::Counter(n, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetLabel(ShapeName(state.range(0)));
}
BENCHMARK(BM_Record)->DenseRange(kLogNormal1ms, kNarrow);

// The engine's pattern: one value per completed transaction, interleaved with
// other work, so each Record is not pipelined with the next.  Approximated by
// recording through a non-inlined call.
[[gnu::noinline]] void RecordOne(Histogram& h, int64_t v) { h.Record(v); }

void BM_RecordNotInlined(benchmark::State& state) {
  const std::vector<int64_t> values = MakeValues(kLogNormal1ms);
  Histogram h;
  for (auto _ : state) {
    for (int64_t v : values) RecordOne(h, v);
    benchmark::ClobberMemory();
  }
  const auto n = static_cast<double>(state.iterations()) * static_cast<double>(values.size());
  state.SetItemsProcessed(static_cast<int64_t>(n));
  state.counters["per_value"] =
      benchmark::Counter(n, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_RecordNotInlined);

Histogram Filled(Shape shape, uint64_t count) {
  const std::vector<int64_t> values = MakeValues(shape);
  Histogram h;
  for (uint64_t i = 0; i < count; ++i) h.Record(values[i % values.size()]);
  return h;
}

// Merging one worker's histogram into the run's (at each interval boundary).
void BM_Merge(benchmark::State& state) {
  const Histogram worker = Filled(static_cast<Shape>(state.range(0)), 1'000'000);
  Histogram total;
  for (auto _ : state) {
    total.Add(worker);
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(total.count());
  state.SetLabel(ShapeName(state.range(0)));
}
BENCHMARK(BM_Merge)->Arg(kLogNormal1ms)->Arg(kLogUniform1usTo1s);

void BM_ValueAtPercentile(benchmark::State& state) {
  const Histogram h = Filled(static_cast<Shape>(state.range(0)), 1'000'000);
  for (auto _ : state) benchmark::DoNotOptimize(h.ValueAtPercentile(99.9));
  state.SetLabel(ShapeName(state.range(0)));
}
BENCHMARK(BM_ValueAtPercentile)->Arg(kLogNormal1ms)->Arg(kLogUniform1usTo1s);

// The report's six percentiles in one pass.
void BM_ValuesAtPercentiles(benchmark::State& state) {
  const Histogram h = Filled(kLogNormal1ms, 1'000'000);
  const std::vector<double> ps = {50, 90, 95, 99, 99.9, 100};
  for (auto _ : state) benchmark::DoNotOptimize(h.ValuesAtPercentiles(ps));
}
BENCHMARK(BM_ValuesAtPercentiles);

void BM_Export(benchmark::State& state) {
  const Histogram h = Filled(kLogNormal1ms, 1'000'000);
  for (auto _ : state) benchmark::DoNotOptimize(h.Export());
}
BENCHMARK(BM_Export);

}  // namespace

BENCHMARK_MAIN();
