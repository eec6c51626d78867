#!/usr/bin/env bash
# Rotates pgbench, pgrig bench and the two loops of bench/wire_probe (raw
# protocol over epoll, raw protocol over io_uring) on the same server with
# select-only, the same clients, threads and duration, and reports medians
# of throughput and client CPU per transaction (user+sys from getrusage of
# the child), each as a ratio to pgbench's, then each tool's ratios to the
# pgbench run of the same round: median (range).  The experiment behind
# docs/performance.md's "What it would take to halve it".
#
# Usage: bench/wire_probe.sh [ROUNDS] [DURATION_S]
# Environment as bench/bench_vs_pgbench.sh (PGRIG, PGBENCH, PGRIG_HOME,
# CLIENTS, THREADS, MODES); PROBE: the wire_probe executable (default
# build/bench/wire_probe).
set -euo pipefail
ROUNDS=${1:-5}
DURATION=${2:-8}
source "$(dirname "$0")/common.sh"
PROBE=${PROBE:-$here/build/bench/wire_probe}

bench_start_server

python3 - "$ROUNDS" "$DURATION" "$PGRIG" "$PGBENCH" "$PROBE" "$SOCK" "$CLIENTS" "$THREADS" "$MODES" \
  "$here/bench" <<'PY'
import statistics, sys
rounds, duration, pgrig, pgbench, probe, sock, clients, threads, modes, bench_dir = sys.argv[1:]
rounds, duration = int(rounds), int(duration)
sys.path.insert(0, bench_dir)
import measure

print("rounds=%d duration=%ds clients=%s threads=%s select-only" % (rounds, duration, clients, threads))
conninfo = "host=%s user=postgres dbname=pgrig" % sock
for mode in modes.split():
    common = ["-S", "-c", clients, "-j", threads, "-T", str(duration), "-M", mode, "-n",
              "-h", sock, "-U", "postgres", "pgrig"]
    tools = [("pgbench", [pgbench] + common), ("pgrig", [pgrig, "bench"] + common),
             ("raw-epoll", [probe, "epoll", mode, clients, threads, str(duration), conninfo]),
             ("raw-uring", [probe, "uring", mode, clients, threads, str(duration), conninfo])]
    res = {name: [] for name, _ in tools}
    for i in range(rounds):
        # every tool once per round, the order rotating so none always goes first
        k = i % len(tools)
        for name, cmd in tools[k:] + tools[:k]:
            res[name].append(measure.measure(cmd))
    med = {k: [statistics.median(x[j] for x in v) for j in range(4)] for k, v in res.items()}
    base = med["pgbench"]
    print("mode=%s" % mode)
    for name, _ in tools:
        m = med[name]
        print("  %-9s median tps %9.1f (x%.3f)  client CPU/txn %6.2f us (x%.3f; user %5.2f, sys %5.2f)"
              % (name, m[0], m[0] / base[0], m[1], m[1] / base[1], m[2], m[3]))
    # Ratios within a round (each tool against the pgbench run of the same
    # round): the machine's drift between rounds moves them less than it
    # moves the medians.
    for name, _ in tools[1:]:
        tps = [a[0] / b[0] for a, b in zip(res[name], res["pgbench"])]
        cpu = [a[1] / b[1] for a, b in zip(res[name], res["pgbench"])]
        print("  %-9s round ratios to pgbench: tps %.2f (%.2f-%.2f), client CPU/txn %.2f (%.2f-%.2f)"
              % (name, statistics.median(tps), min(tps), max(tps),
                 statistics.median(cpu), min(cpu), max(cpu)))
PY
