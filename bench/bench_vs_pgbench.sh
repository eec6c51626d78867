#!/usr/bin/env bash
# Alternates `pgrig bench` and `pgbench` on the same server with the same
# script, clients, threads and duration, and reports medians of throughput
# and of client CPU (user+sys of the client process, from getrusage of the
# child) per transaction, and their ratios (pgrig / pgbench).
#
# Usage: bench/bench_vs_pgbench.sh [PAIRS] [DURATION_S]
# Environment: PGRIG (pgrig executable, default build/pgrig), PGBENCH
# (default /usr/lib/postgresql/15/bin/pgbench), PGRIG_HOME (embedded cluster;
# it is started and initialised at scale 10 when needed), CLIENTS (8),
# THREADS (2), MODES ("prepared simple"), SCRIPT_OPT ("-S").
set -euo pipefail
PAIRS=${1:-5}
DURATION=${2:-10}
here=$(cd "$(dirname "$0")/.." && pwd)
PGRIG=${PGRIG:-$here/build/pgrig}
PGBENCH=${PGBENCH:-/usr/lib/postgresql/15/bin/pgbench}
CLIENTS=${CLIENTS:-8}
THREADS=${THREADS:-2}
MODES=${MODES:-"prepared simple"}
SCRIPT_OPT=${SCRIPT_OPT:--S}
export PGRIG_HOME=${PGRIG_HOME:-/tmp/pgrig-bench-vs}

"$PGRIG" cluster start >/dev/null
SOCK="$PGRIG_HOME/run"
if ! psql -h "$SOCK" -U postgres -d pgrig -Atc "select count(*) from pgbench_branches" >/dev/null 2>&1; then
  "$PGBENCH" -i -q -s 10 -h "$SOCK" -U postgres pgrig >/dev/null 2>&1
fi

python3 - "$PAIRS" "$DURATION" "$PGRIG" "$PGBENCH" "$SOCK" "$CLIENTS" "$THREADS" "$MODES" "$SCRIPT_OPT" <<'PY'
import re, resource, statistics, subprocess, sys
pairs, duration, pgrig, pgbench, sock, clients, threads, modes, script_opt = sys.argv[1:]
pairs, duration = int(pairs), int(duration)

def run(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), out.stderr))
    tps = float(re.search(r"^tps = ([0-9.]+) \(without", out.stdout, re.M).group(1))
    n = int(re.search(r"^number of transactions actually processed: (\d+)", out.stdout, re.M).group(1))
    user = after.ru_utime - before.ru_utime
    sys_ = after.ru_stime - before.ru_stime
    return tps, (user + sys_) * 1e6 / n, user * 1e6 / n, sys_ * 1e6 / n

print("pairs=%d duration=%ds clients=%s threads=%s script=%s" % (pairs, duration, clients, threads, script_opt))
for mode in modes.split():
    common = [script_opt, "-c", clients, "-j", threads, "-T", str(duration), "-M", mode, "-n",
              "-h", sock, "-U", "postgres", "pgrig"]
    res = {"pgrig": [], "pgbench": []}
    for i in range(pairs):
        # interleaved, and the order alternates so neither always goes first
        order = [("pgrig", [pgrig, "bench"] + common), ("pgbench", [pgbench] + common)]
        if i % 2: order.reverse()
        for name, cmd in order:
            res[name].append(run(cmd))
    med = {k: [statistics.median(x[j] for x in v) for j in range(4)] for k, v in res.items()}
    print("mode=%s" % mode)
    for k in ("pgrig", "pgbench"):
        m = med[k]
        print("  %-8s median tps %10.1f  client CPU/txn %6.2f us (user %5.2f, sys %5.2f)" % (k, *m))
        print("           runs: " + ", ".join("%.0f tps/%.2f us" % (r[0], r[1]) for r in res[k]))
    print("  ratio pgrig/pgbench: tps %.3f, CPU per txn %.3f" % (med["pgrig"][0] / med["pgbench"][0],
                                                                med["pgrig"][1] / med["pgbench"][1]))
PY
