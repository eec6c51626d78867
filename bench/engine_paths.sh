#!/usr/bin/env bash
# Rotates pgbench and pgrig bench's three client paths — the lean protocol
# path over io_uring (the default), the lean path over epoll
# (PGRIG_ENGINE_URING=0) and libpq (PGRIG_ENGINE_LIBPQ=1) — on the same server
# with the same options, and reports medians of throughput and client CPU
# per transaction (user+sys from getrusage of the child), each as a ratio to
# pgbench's.  It shows what each layer of the engine's design is worth.
# When the server is the local embedded cluster it also reports the server's
# CPU per transaction (all its processes, from /proc; bench/server_cpu.py).
#
# Usage: bench/engine_paths.sh [ROUNDS] [DURATION_S]
# Environment as bench/bench_vs_pgbench.sh (PGRIG, PGBENCH, PGRIG_HOME,
# CLIENTS, THREADS, MODES, SCRIPT_OPT).
set -euo pipefail
ROUNDS=${1:-5}
DURATION=${2:-8}
source "$(dirname "$0")/common.sh"
SCRIPT_OPT=${SCRIPT_OPT:--S}

bench_start_server

python3 - "$ROUNDS" "$DURATION" "$PGRIG" "$PGBENCH" "$SOCK" "$CLIENTS" "$THREADS" "$MODES" "$SCRIPT_OPT" \
  "$here/bench" "$PGRIG_HOME/data" <<'PY'
import statistics, sys
rounds, duration, pgrig, pgbench, sock, clients, threads, modes, script_opt, bench_dir, data_dir = sys.argv[1:]
rounds = int(rounds)
sys.path.insert(0, bench_dir)
import measure, server_cpu
server = server_cpu.open_or_none(data_dir)

print("rounds=%d duration=%ss clients=%s threads=%s script=%s server CPU: %s" % (
    rounds, duration, clients, threads, script_opt,
    "postmaster %d" % server.pid if server else "n/a (no local cluster at %s)" % data_dir))
for mode in modes.split():
    common = [script_opt, "-c", clients, "-j", threads, "-T", duration, "-M", mode, "-n",
              "-h", sock, "-U", "postgres", "pgrig"]
    tools = [("pgbench", [pgbench] + common, {}),
             ("io_uring", [pgrig, "bench"] + common, {}),
             ("epoll", [pgrig, "bench"] + common, {"PGRIG_ENGINE_URING": "0"}),
             ("libpq", [pgrig, "bench"] + common, {"PGRIG_ENGINE_LIBPQ": "1"})]
    res = {name: [] for name, _, _ in tools}
    for i in range(rounds):
        k = i % len(tools)  # the order rotates so that none always goes first
        for name, cmd, env in tools[k:] + tools[:k]:
            res[name].append(measure.measure(cmd, server, env))
    med = {k: [statistics.median(x[j] for x in v) if j < 4 or server else None for j in range(5)]
           for k, v in res.items()}
    base = med["pgbench"]
    print("mode=%s" % mode)
    for name, _, _ in tools:
        m = med[name]
        srv = (" server CPU/txn %6.2f us (x%.3f)" % (m[4], m[4] / base[4])) if server else ""
        print("  %-8s median tps %9.1f (x%.3f)  client CPU/txn %6.2f us (x%.3f; user %5.2f, sys %5.2f)%s"
              % (name, m[0], m[0] / base[0], m[1], m[1] / base[1], m[2], m[3], srv))
        print("           runs (us/txn): " + ", ".join("%.2f" % r[1] for r in res[name]))
PY
