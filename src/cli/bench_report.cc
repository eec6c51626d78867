#include "cli/bench_report.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "script/pg_format.h"

namespace pgrig::cli {

using workload::BenchOptions;

namespace {

// printf into a std::string, with PostgreSQL's snprintf spelling of
// non-finite doubles as pgbench prints them: "0 (NaN%)" when nothing was
// processed, where glibc would say "(-nan%)".
__attribute__((format(printf, 2, 3))) void Appendf(std::string* out, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  script::PgVAppendf(out, fmt, ap);
  va_end(ap);
}

// pgbench's printSimpleStats() from sums in nanoseconds.
void SimpleStats(std::string* out, const char* prefix, const stats::IntervalStats& s) {
  if (s.transactions <= 0) return;
  const double n = static_cast<double>(s.transactions);
  const double mean_us = static_cast<double>(s.latency_sum_ns) / 1000.0 / n;
  const double sum2_us = s.latency_sum_squares_ns2 / 1e6;
  const double var = sum2_us / n - mean_us * mean_us;
  const double stddev_us = var > 0 ? std::sqrt(var) : 0.0;
  Appendf(out, "%s average = %.3f ms\n", prefix, 0.001 * mean_us);
  Appendf(out, "%s stddev = %.3f ms\n", prefix, 0.001 * stddev_us);
}

double Pct(int64_t part, int64_t whole) {
  return 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

}  // namespace

std::string FormatPgbenchSummary(const BenchOptions& o, const RunInfo& info,
                                 const engine::RunResult& r) {
  std::string out;
  const stats::IntervalStats& t = r.totals;
  const int64_t failures = t.failures();
  const int64_t total_cnt = t.transactions + t.skipped + failures;
  const double bench_duration_s = static_cast<double>(r.bench_duration_ns) / 1e9;
  const double tps =
      bench_duration_s > 0 ? static_cast<double>(t.transactions) / bench_duration_s : 0;

  Appendf(&out, "transaction type: %s\n",
          info.scripts.size() == 1 ? info.scripts[0].desc.c_str() : "multiple scripts");
  Appendf(&out, "scaling factor: %d\n", info.scale);
  Appendf(&out, "query mode: %s\n", script::QueryModeName(o.mode));
  Appendf(&out, "number of clients: %d\n", o.clients);
  Appendf(&out, "number of threads: %d\n", info.threads);
  if (o.max_tries) Appendf(&out, "maximum number of tries: %u\n", o.max_tries);
  if (o.duration_s <= 0) {
    Appendf(&out, "number of transactions per client: %d\n", o.transactions);
    Appendf(&out, "number of transactions actually processed: %" PRId64 "/%d\n", t.transactions,
            o.transactions * o.clients);
  } else {
    Appendf(&out, "duration: %d s\n", o.duration_s);
    Appendf(&out, "number of transactions actually processed: %" PRId64 "\n", t.transactions);
  }
  Appendf(&out, "number of failed transactions: %" PRId64 " (%.3f%%)\n", failures,
          Pct(failures, total_cnt));
  if (o.failures_detailed) {
    Appendf(&out, "number of serialization failures: %" PRId64 " (%.3f%%)\n",
            t.serialization_failures, Pct(t.serialization_failures, total_cnt));
    Appendf(&out, "number of deadlock failures: %" PRId64 " (%.3f%%)\n", t.deadlock_failures,
            Pct(t.deadlock_failures, total_cnt));
  }
  if (o.max_tries != 1) {
    Appendf(&out, "number of transactions retried: %" PRId64 " (%.3f%%)\n", t.retried,
            Pct(t.retried, total_cnt));
    Appendf(&out, "total number of retries: %" PRId64 "\n", t.retries);
  }
  if (t.transactions + t.skipped <= 0) return out;

  if (o.rate_tps > 0 && o.latency_limit_us > 0) {
    Appendf(&out, "number of transactions skipped: %" PRId64 " (%.3f%%)\n", t.skipped,
            Pct(t.skipped, total_cnt));
  }
  if (o.latency_limit_us > 0) {
    Appendf(&out,
            "number of transactions above the %.1f ms latency limit: %" PRId64 "/%" PRId64
            " (%.3f%%)\n",
            static_cast<double>(o.latency_limit_us) / 1000.0, r.latency_late, t.transactions,
            t.transactions > 0 ? Pct(r.latency_late, t.transactions) : 0.0);
  }
  if (o.rate_tps > 0 || o.progress_s > 0 || o.latency_limit_us > 0) {
    SimpleStats(&out, "latency", t);
  } else {
    const double total_duration_us = static_cast<double>(r.bench_duration_ns) / 1000.0;
    Appendf(&out, "latency average = %.3f ms%s\n",
            0.001 * total_duration_us * o.clients / static_cast<double>(total_cnt),
            failures > 0 ? " (including failures)" : "");
  }
  if (o.rate_tps > 0) {
    Appendf(&out, "rate limit schedule lag: avg %.3f (max %.3f) ms\n",
            t.transactions > 0 ? 0.001 * static_cast<double>(t.lag_sum_ns) / 1000.0 /
                                     static_cast<double>(t.transactions)
                               : 0.0,
            0.001 * static_cast<double>(t.lag_max_ns) / 1000.0);
  }
  if (o.connect_per_transaction) {
    const int64_t n = t.transactions + failures;
    Appendf(&out, "average connection time = %.3f ms\n",
            n > 0 ? static_cast<double>(r.conn_total_ns) / 1e6 / static_cast<double>(n) : 0.0);
    Appendf(&out, "tps = %f (including reconnection times)\n", tps);
  } else {
    Appendf(&out, "initial connection time = %.3f ms\n",
            static_cast<double>(r.conn_elapsed_ns) / 1e6);
    Appendf(&out, "tps = %f (without initial connection time)\n", tps);
  }

  const bool per_script = info.scripts.size() > 1;
  if (per_script || o.report_per_command) {
    int64_t total_weight = 0;
    for (const auto& s : info.scripts) total_weight += s.weight;
    for (size_t i = 0; i < info.scripts.size() && i < r.scripts.size(); ++i) {
      const ScriptInfo& si = info.scripts[i];
      const engine::ScriptStats& ss = r.scripts[i];
      if (per_script) {
        const stats::IntervalStats& st = ss.totals;
        const int64_t sf = st.failures();
        const int64_t stotal = st.transactions + st.skipped + sf;
        Appendf(&out,
                "SQL script %zu: %s\n - weight: %d (targets %.1f%% of total)\n - %" PRId64
                " transactions (%.1f%% of total, tps = %f)\n",
                i + 1, si.desc.c_str(), si.weight, Pct(si.weight, total_weight), st.transactions,
                Pct(st.transactions, t.transactions),
                bench_duration_s > 0 ? static_cast<double>(st.transactions) / bench_duration_s : 0);
        Appendf(&out, " - number of failed transactions: %" PRId64 " (%.3f%%)\n", sf,
                Pct(sf, stotal));
        if (o.failures_detailed) {
          Appendf(&out, " - number of serialization failures: %" PRId64 " (%.3f%%)\n",
                  st.serialization_failures, Pct(st.serialization_failures, stotal));
          Appendf(&out, " - number of deadlock failures: %" PRId64 " (%.3f%%)\n",
                  st.deadlock_failures, Pct(st.deadlock_failures, stotal));
        }
        if (o.max_tries != 1) {
          Appendf(&out, " - number of transactions retried: %" PRId64 " (%.3f%%)\n", st.retried,
                  Pct(st.retried, stotal));
          Appendf(&out, " - total number of retries: %" PRId64 "\n", st.retries);
        }
        if (o.rate_tps > 0 && o.latency_limit_us > 0 && stotal > 0) {
          Appendf(&out, " - number of transactions skipped: %" PRId64 " (%.3f%%)\n", st.skipped,
                  Pct(st.skipped, stotal));
        }
        SimpleStats(&out, " - latency", st);
      }
      if (o.report_per_command) {
        Appendf(&out, "%sstatement latencies in milliseconds%s:\n", per_script ? " - " : "",
                o.max_tries == 1 ? " and failures" : ", failures and retries");
        for (size_t j = 0; j < si.command_lines.size() && j < ss.commands.size(); ++j) {
          const engine::CommandStats& cs = ss.commands[j];
          const double avg_ms =
              cs.count > 0 ? static_cast<double>(cs.sum_ns) / 1e6 / static_cast<double>(cs.count)
                           : 0.0;
          if (o.max_tries == 1) {
            Appendf(&out, "   %11.3f  %10" PRId64 "  %s\n", avg_ms, cs.failures,
                    si.command_lines[j].c_str());
          } else {
            Appendf(&out, "   %11.3f  %10" PRId64 "  %10" PRId64 "  %s\n", avg_ms, cs.failures,
                    cs.retries, si.command_lines[j].c_str());
          }
        }
      }
    }
  }
  return out;
}

double ClientBusyFraction(const RunInfo& info, const engine::RunResult& r) {
  return r.ClientBusyFraction(info.threads, info.cpus);
}

std::string FormatPgrigExtras(const BenchOptions& o, const RunInfo& info,
                              const engine::RunResult& r,
                              const host::ServerCpuMeasure& server_cpu) {
  std::string out;
  const stats::IntervalStats& t = r.totals;
  if (r.latency.count() > 0) {
    static constexpr double kPs[] = {50, 90, 95, 99, 99.9};
    const std::vector<int64_t> v = r.latency.ValuesAtPercentiles(kPs);
    Appendf(&out,
            "latency percentiles: p50 = %.3f ms, p90 = %.3f ms, p95 = %.3f ms, p99 = %.3f ms, "
            "p99.9 = %.3f ms, max = %.3f ms\n",
            static_cast<double>(v[0]) / 1e6, static_cast<double>(v[1]) / 1e6,
            static_cast<double>(v[2]) / 1e6, static_cast<double>(v[3]) / 1e6,
            static_cast<double>(v[4]) / 1e6, static_cast<double>(r.latency.max()) / 1e6);
  }
  if (o.max_tries == 1) {
    Appendf(&out, "transactions retried = %" PRId64 ", total retries = %" PRId64 "\n", t.retried,
            t.retries);
  }
  const double per_txn_us = r.ClientCpuUsPerTransaction();
  const int64_t ended = t.transactions + t.failures();
  const double busy = ClientBusyFraction(info, r);
  if (ended > 0) {
    Appendf(&out,
            "client CPU per transaction = %.2f us (user %.2f us, system %.2f us); client busy "
            "%.0f%% of %d thread%s\n",
            per_txn_us, r.client_user_cpu_s * 1e6 / static_cast<double>(ended),
            r.client_sys_cpu_s * 1e6 / static_cast<double>(ended), busy * 100.0,
            engine::UsableClientCpus(info.threads, info.cpus),
            engine::UsableClientCpus(info.threads, info.cpus) == 1 ? "" : "s");
  }
  if (server_cpu.usage && ended > 0) {
    const double n = static_cast<double>(ended);
    Appendf(&out, "server CPU per transaction = %.2f us (user %.2f us, system %.2f us)%s%s\n",
            server_cpu.usage->Total() * 1e6 / n, server_cpu.usage->user_s * 1e6 / n,
            server_cpu.usage->sys_s * 1e6 / n,
            server_cpu.usage->settled ? "" : "; some backends had not exited yet",
            o.connect_per_transaction ? "; with -C that includes starting a backend for each" : "");
  } else if (!server_cpu.unavailable.empty()) {
    Appendf(&out, "server CPU per transaction: not measured (%s)\n",
            server_cpu.unavailable.c_str());
  }
  if (busy >= 0.9) {
    Appendf(&out,
            "warning: the client, not the server, was the bottleneck: its threads were busy %.0f%% "
            "of the time; use more threads (-j) or run the client on another machine\n",
            busy * 100.0);
  }
  return out;
}

std::string FormatProgress(const BenchOptions& o, const stats::IntervalStats& interval,
                           double duration_s, double elapsed_s, double start_wall_s) {
  const double shown = o.progress_timestamp ? start_wall_s + elapsed_s : elapsed_s;
  stats::ProgressFields f = stats::ComputeProgress(interval, duration_s, shown);
  stats::ProgressLineOptions lo{.time = o.progress_timestamp ? stats::ProgressTime::kTimestamp
                                                             : stats::ProgressTime::kElapsed,
                                .rate_limited = o.rate_tps > 0,
                                .latency_limit = o.latency_limit_us > 0,
                                .show_retries = o.max_tries != 1};
  return stats::FormatProgressLine(f, lo) + "\n";
}

}  // namespace pgrig::cli
