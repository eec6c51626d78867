#!/usr/bin/env bash
# pgrig tpcc run on the embedded cluster: NOPM, and pgrig's client CPU per
# transaction against the server's, over several runs of each variant.
#
# Loads WAREHOUSES (default 2) into the database tpcc_bench once (when it
# holds no load of that size), then runs RUNS rounds (default 3); each round
# runs every variant once, in turn (VARIANTS, default "sql": client-side SQL;
# "procedures" adds --procedures, which needs `tpcc init --procedures`), each
# `tpcc run -c CLIENTS -j THREADS -T DURATION --warmup WARMUP --json`, and a
# CHECKPOINT before every run.  Prints each run's NOPM, client and server CPU
# per transaction and their ratio, then per variant the median and range of
# each, and with two variants the median and range of the per-round NOPM
# ratio (second / first).
#
# Environment: PGRIG, CLIENTS (8), THREADS (2), PGRIG_HOME (as
# bench/common.sh), WAREHOUSES (2), RUNS (3), DURATION (30), WARMUP (5),
# VARIANTS ("sql").
set -euo pipefail
source "$(dirname "$0")/common.sh"
WAREHOUSES=${WAREHOUSES:-2}
RUNS=${RUNS:-3}
DURATION=${DURATION:-30}
WARMUP=${WARMUP:-5}
VARIANTS=${VARIANTS:-sql}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$PGRIG" cluster start >/dev/null
SOCK="$PGRIG_HOME/run"
psql -h "$SOCK" -U postgres -d postgres -Atc "CREATE DATABASE tpcc_bench" >/dev/null 2>&1 || true
loaded=$(psql -h "$SOCK" -U postgres -d tpcc_bench -Atc "SELECT warehouses FROM tpcc_load" 2>/dev/null || true)
if [ "$loaded" != "$WAREHOUSES" ] || { [[ " $VARIANTS " == *" procedures "* ]] &&
  ! psql -h "$SOCK" -U postgres -d tpcc_bench -Atc "SELECT 'tpcc_new_order'::regproc" >/dev/null 2>&1; }; then
  extra=()
  [[ " $VARIANTS " == *" procedures "* ]] && extra=(--procedures)
  "$PGRIG" tpcc init -w "$WAREHOUSES" "${extra[@]}" -h "$SOCK" -U postgres -d tpcc_bench >/dev/null
fi

echo "tpcc run: $WAREHOUSES warehouses, -c $CLIENTS -j $THREADS -T $DURATION --warmup $WARMUP, $RUNS rounds of: $VARIANTS"
echo "$(date -u +%FT%TZ) $(uname -m) $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
printf '%-6s %-11s %9s %14s %14s %7s\n' round variant NOPM "client us/txn" "server us/txn" ratio
for ((i = 1; i <= RUNS; i++)); do
  for v in $VARIANTS; do
    extra=()
    [ "$v" = procedures ] && extra=(--procedures)
    psql -h "$SOCK" -U postgres -d tpcc_bench -Atc CHECKPOINT >/dev/null
    "$PGRIG" tpcc run -c "$CLIENTS" -j "$THREADS" -T "$DURATION" --warmup "$WARMUP" "${extra[@]}" \
      --json "$out/$v-$i.json" -h "$SOCK" -U postgres -d tpcc_bench >/dev/null 2>&1 ||
      echo "round $i, $v: tpcc run failed (exit $?)"
    python3 - "$out/$v-$i.json" "$i" "$v" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1]))["tpcc"]
c, s = t["client_cpu_us_per_transaction"], t["server_cpu_us_per_transaction"]
nopm = t["nopm"] or 0
print(f"{sys.argv[2]:<6} {sys.argv[3]:<11} {nopm:9.0f} {c:14.1f} {s or 0:14.1f} {c / s if s else 0:7.3f}")
EOF
  done
done
python3 - "$out" "$RUNS" $VARIANTS <<'EOF'
import json, statistics, sys
d, runs, variants = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def load(v, i):
    return json.load(open(f"{d}/{v}-{i}.json"))["tpcc"]
def show(name, xs, f="{:.1f}"):
    xs = [x for x in xs if x]
    if xs:
        print(f"  {name}: median " + f.format(statistics.median(xs)) +
              " [" + f.format(min(xs)) + ".." + f.format(max(xs)) + f"] of {len(xs)}")
for v in variants:
    rs = [load(v, i) for i in range(1, runs + 1)]
    print(v)
    show("NOPM", [r["nopm"] for r in rs], "{:.0f}")
    show("client CPU us/txn", [r["client_cpu_us_per_transaction"] for r in rs])
    show("server CPU us/txn", [r["server_cpu_us_per_transaction"] for r in rs])
    show("client / server", [r["client_cpu_us_per_transaction"] / r["server_cpu_us_per_transaction"]
                             for r in rs if r["server_cpu_us_per_transaction"]], "{:.3f}")
if len(variants) == 2:
    a, b = variants
    show(f"NOPM {b} / {a}", [load(b, i)["nopm"] / load(a, i)["nopm"] for i in range(1, runs + 1)
                             if load(a, i)["nopm"] and load(b, i)["nopm"]], "{:.2f}")
EOF
