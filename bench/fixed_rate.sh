#!/usr/bin/env bash
# The fixed-rate comparison (issue 32): `pgrig bench` and `pgbench` with the
# same options at a fixed offered rate (-R), and, for select-only, the floor
# at the same rate: bench/wire_probe's paced loops (raw protocol, pgbench's
# Poisson schedule, one sleep until the next start or the next reply,
# whichever comes first), over epoll and over io_uring.  At a fixed rate the
# server does the same work whichever client drives it, so client CPU per
# transaction is a fair figure even where client and server share 2 cores.
#
# For every mode and rate, PAIRS rounds; each round runs every tool once,
# the order rotating so that none always goes first.  Reported per tool:
# medians of throughput, of client CPU per transaction (user+sys of the
# child, from getrusage) and of the latency percentiles (from the scheduled
# start, as both tools count under -R), each with its range; then the
# per-round ratios to pgbench: median (range).
#
# Latency: pgrig bench prints its percentiles; wire_probe prints its own;
# pgbench prints none, so it logs a sample of its transactions (-l
# --sampling-rate=LAT_SAMPLE, default 0.1, into a temporary directory) and
# the percentiles come from that log.  Writing 10% of the transactions costs
# pgbench well under 1% of its client CPU; the sample size is printed.
#
# Usage: bench/fixed_rate.sh [PAIRS] [DURATION_S]
# Environment: as bench/bench_vs_pgbench.sh (PGRIG, PGBENCH, PGRIG_HOME,
# CLIENTS, THREADS, MODES, SCRIPT_OPT: "-S" or empty for tpcb-like), and
#   RATES       offered rates in tps, space-separated (default "3000 9000");
#               choose them as fractions of the saturated rate measured here
#   LAT_SAMPLE  pgbench's log sampling rate (default 0.1)
#   PROBE       the wire_probe executable (default build/bench/wire_probe)
#   FLOORS      the floor loops to run with -S (default "epoll uring"; empty:
#               none)
#   VARIANTS    more pgrig runs in every round, each NAME:VAR=VALUE (pgrig
#               bench with that environment), e.g. "uring:PGRIG_ENGINE_URING=paced"
#               (the io_uring loop, which a paced run otherwise leaves out)
set -euo pipefail
PAIRS=${1:-10}
DURATION=${2:-10}
if [[ ! $PAIRS =~ ^[1-9][0-9]*$ || ! $DURATION =~ ^[1-9][0-9]*$ ]]; then
  echo "fixed_rate.sh: usage: fixed_rate.sh [PAIRS] [DURATION_S] (positive integers; got '$PAIRS' '$DURATION')" >&2
  exit 1
fi
source "$(dirname "$0")/common.sh"
PROBE=${PROBE:-$here/build/bench/wire_probe}
SCRIPT_OPT=${SCRIPT_OPT--S}
RATES=${RATES:-"3000 9000"}
LAT_SAMPLE=${LAT_SAMPLE:-0.1}
FLOORS=${FLOORS-"epoll uring"}
if [[ $SCRIPT_OPT != -S ]]; then FLOORS=""; fi
if [[ -n $FLOORS && ! -x $PROBE ]]; then
  echo "fixed_rate.sh: $PROBE is missing; build it: cmake --build build --target wire_probe" >&2
  exit 1
fi
for r in $RATES; do
  [[ $r =~ ^[0-9]+$ && $r -gt 0 ]] || { echo "fixed_rate.sh: RATES takes whole tps above 0, not $r" >&2; exit 1; }
done
for f in $FLOORS; do
  [[ $f == epoll || $f == uring ]] || { echo "fixed_rate.sh: FLOORS takes epoll and uring, not $f" >&2; exit 1; }
done
# Checked here, before the cluster starts: NAME:VAR=VALUE, each part non-empty.
for v in ${VARIANTS:-}; do
  [[ $v =~ ^[^:]+:[A-Za-z_][A-Za-z0-9_]*=.*$ ]] || { echo "fixed_rate.sh: VARIANTS takes NAME:VAR=VALUE, not $v" >&2; exit 1; }
done

bench_start_server

python3 - "$PAIRS" "$DURATION" "$PGRIG" "$PGBENCH" "$PROBE" "$SOCK" "$CLIENTS" "$THREADS" "$MODES" \
  "$SCRIPT_OPT" "$RATES" "$LAT_SAMPLE" "$FLOORS" "${VARIANTS:-}" "$here/bench" <<'PY'
import glob, os, re, resource, shutil, statistics, sys, tempfile
(pairs, duration, pgrig, pgbench, probe, sock, clients, threads, modes, script_opt, rates,
 lat_sample, floors, variants, bench_dir) = sys.argv[1:]
pairs, duration = int(pairs), int(duration)
sys.path.insert(0, bench_dir)
import measure

QS = ("p50", "p90", "p99")

def pgbench_percentiles(log_dir):
    """Percentiles (ms) of the latencies pgbench logged, and the sample size."""
    lat = []
    for path in glob.glob(os.path.join(log_dir, "*")):
        with open(path) as f:
            for lineno, line in enumerate(f, 1):
                cols = line.split()
                # client_id transaction_no time script_no time_epoch time_us [schedule_lag]
                if len(cols) < 6 or not cols[2].isdigit():
                    sys.exit("%s:%d: not a pgbench transaction log line: %r" % (path, lineno, line))
                lat.append(int(cols[2]) / 1000.0)
        os.remove(path)
    if not lat:
        sys.exit("pgbench logged no transactions in %s" % log_dir)
    lat.sort()
    at = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]
    return {"p50": at(0.50), "p90": at(0.90), "p99": at(0.99)}, len(lat)

def parsed_percentiles(out):
    got = {}
    for q in QS:
        m = re.search(r"^latency percentiles:.*\b%s =? ?([0-9.]+) ms" % q, out, re.M)
        if not m:
            sys.exit("no %s latency in the client's output:\n%s" % (q, out))
        got[q] = float(m.group(1))
    return got

def run(name, cmd, env, log_dir):
    """(tps, client us/txn, user, sys, percentiles, samples)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    stdout = measure.run_checked(cmd, env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    tps = measure.summary_figure(stdout, r"^tps = ([0-9.]+) \(without")
    n = measure.summary_figure(stdout, r"^number of transactions actually processed: (\d+)", int)
    user = (after.ru_utime - before.ru_utime) * 1e6 / n
    sys_ = (after.ru_stime - before.ru_stime) * 1e6 / n
    if name == "pgbench":
        pct, samples = pgbench_percentiles(log_dir)
    else:
        pct, samples = parsed_percentiles(stdout), n
    return tps, user + sys_, user, sys_, pct, samples

def rng(vals, spec="%.2f"):
    return (spec + " [" + spec + "-" + spec + "]") % (statistics.median(vals), min(vals), max(vals))

log_dir = tempfile.mkdtemp(prefix="pgrig-fixed-rate-")
conninfo = "host=%s user=postgres dbname=pgrig" % sock
print("pairs=%d duration=%ds clients=%s threads=%s script=%s rates=%s pgbench log sampling %s"
      % (pairs, duration, clients, threads, script_opt or "tpcb-like", rates, lat_sample))
try:
    for mode in modes.split():
        for rate in rates.split():
            common = script_opt.split() + ["-c", clients, "-j", threads, "-T", str(duration),
                                           "-M", mode, "-R", rate, "-n", "-h", sock, "-U",
                                           "postgres", "pgrig"]
            tools = [("pgrig", [pgrig, "bench"] + common, None),
                     ("pgbench", [pgbench] + common + ["-l", "--sampling-rate", lat_sample,
                                                       "--log-prefix", os.path.join(log_dir, "log")],
                      None)]
            for v in variants.split():
                name, _, assignment = v.partition(":")  # checked before the cluster started
                var, _, value = assignment.partition("=")
                tools.append(("pgrig-" + name, [pgrig, "bench"] + common, {var: value}))
            for loop in floors.split():
                tools.append(("floor-" + loop, [probe, loop, mode, clients, threads, str(duration),
                                                conninfo, rate], None))
            res = {name: [] for name, _, _ in tools}
            for i in range(pairs):
                k = i % len(tools)
                for name, cmd, env in tools[k:] + tools[:k]:
                    res[name].append(run(name, cmd, env, log_dir))
            print("mode=%s rate=%s" % (mode, rate))
            for name, _, _ in tools:
                rs = res[name]
                print("  %-12s tps %s  client CPU/txn %s us (user %.2f, sys %.2f)"
                      % (name, rng([r[0] for r in rs], "%.0f"), rng([r[1] for r in rs]),
                         statistics.median(r[2] for r in rs), statistics.median(r[3] for r in rs)))
                print("  %-12s latency ms: %s; samples per run %d"
                      % ("", ", ".join("%s %s" % (q, rng([r[4][q] for r in rs], "%.3f")) for q in QS),
                         min(r[5] for r in rs)))
            base = res["pgbench"]
            for name, _, _ in tools:
                if name == "pgbench":
                    continue
                rs = res[name]
                cpu = [a[1] / b[1] for a, b in zip(rs, base)]
                tps = [a[0] / b[0] for a, b in zip(rs, base)]
                lat = ["%s %s" % (q, rng([a[4][q] / b[4][q] for a, b in zip(rs, base)], "%.3f"))
                       for q in QS]
                print("  %-12s / pgbench per round: client CPU/txn %s, tps %s, latency %s"
                      % (name, rng(cpu, "%.3f"), rng(tps, "%.3f"), ", ".join(lat)))
finally:
    shutil.rmtree(log_dir, ignore_errors=True)
PY
