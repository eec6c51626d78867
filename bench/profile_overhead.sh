#!/usr/bin/env bash
# profile_overhead.sh: what profiling the server costs (issue 30, point 4).
# `pgrig bench` with and without --profile, side by side in interleaved
# pairs (the order alternates from pair to pair), on the embedded cluster of
# common.sh at scale 10: per workload the median ratio (profiled /
# unprofiled) of tps and of the server's CPU per transaction, with their
# ranges.  docs/performance.md and docs/profiles.md have the figures.
#
# Usage: bench/profile_overhead.sh [PAIRS]     (default 10)
# Environment: as common.sh (PGRIG, CLIENTS, THREADS, PGRIG_HOME), DURATION
#   (seconds per run, 8), WORKLOADS ("select-only tpcb-like"), MODE (prepared).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
PAIRS=${1:-10}
DURATION=${DURATION:-8}
WORKLOADS=${WORKLOADS:-"select-only tpcb-like"}
MODE=${MODE:-prepared}
if ! [[ $PAIRS =~ ^[0-9]+$ ]] || ((PAIRS < 1)); then
  echo "profile_overhead.sh: PAIRS must be a positive whole number" >&2
  exit 1
fi
command -v perf >/dev/null || { echo "profile_overhead.sh: perf is missing (apt-get install linux-perf)" >&2; exit 1; }
[[ -x $PGRIG ]] || { echo "profile_overhead.sh: $PGRIG is missing (make native-build)" >&2; exit 1; }
bench_start_server
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One run: prints "tps server_us_per_txn".
one() {
  local builtin=$1 flag=$2 out
  out=$("$PGRIG" bench -b "$builtin" -M "$MODE" -c "$CLIENTS" -j "$THREADS" -T "$DURATION" \
    $flag --json "$work/r.json" -h "$SOCK" -U postgres pgrig 2>&1) || { echo "$out" >&2; exit 1; }
  awk '/^tps = /{t=$3} /^server CPU per transaction = /{s=$6} END{print t, s}' <<<"$out"
}

echo "profile_overhead.sh: $PAIRS pairs, -b WORKLOAD -M $MODE -c $CLIENTS -j $THREADS -T $DURATION, $(date -u +%F)"
for wl in $WORKLOADS; do
  : >"$work/$wl.txt"
  for ((i = 0; i < PAIRS; i++)); do
    if ((i % 2 == 0)); then
      a=$(one "$wl" ""); b=$(one "$wl" --profile)
    else
      b=$(one "$wl" --profile); a=$(one "$wl" "")
    fi
    echo "$a $b" >>"$work/$wl.txt"
  done
  python3 - "$wl" "$work/$wl.txt" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[2]) if l.strip()]
tps = [b / a for a, _, b, _ in rows]
cpu = [bs / as_ for _, as_, _, bs in rows]
med = lambda v: statistics.median(v)
print("%-12s tps profiled/unprofiled %.3f [%.3f-%.3f]; server CPU/txn %.3f [%.3f-%.3f]; "
      "unprofiled tps median %.0f" % (sys.argv[1], med(tps), min(tps), max(tps),
                                      med(cpu), min(cpu), max(cpu), med([r[0] for r in rows])))
PY
done
