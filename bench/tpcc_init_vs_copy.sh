#!/usr/bin/env bash
# pgrig tpcc init's load rate against the machine's single-backend COPY rate
# of the same rows (issue 31, point 1).
#
# Once: `tpcc init -w WAREHOUSES` into the database tpcc_copy of the embedded
# cluster, and the nine tables' rows written out as COPY text files (psql
# \copy ... TO, client side).  Then PAIRS interleaved pairs (the order
# alternates), a CHECKPOINT before each half:
#   init: `tpcc init -w WAREHOUSES -j JOBS`; its COPY phase's rate, from the
#         MB of COPY text it reports over its COPY seconds (the keys, indexes
#         and VACUUM after the load are not in it), and its whole wall time;
#   copy: one psql session (one backend) loading the same files with \copy
#         ... FROM into empty tables of the same columns, created beforehand
#         in a transaction of their own (as the loader's are), timed whole.
# Prints each pair, then the median and range of the per-pair ratio of COPY
# rates (init / single backend; above 1.0: the parallel load moves more per
# second than one backend does) and of init's whole time over the single
# backend's COPY time.
#
# Environment: PGRIG, PGRIG_HOME (as bench/common.sh), WAREHOUSES (2), JOBS
# (the online CPUs), PAIRS (10).
set -euo pipefail
source "$(dirname "$0")/common.sh"
WAREHOUSES=${WAREHOUSES:-2}
JOBS=${JOBS:-$(nproc)}
PAIRS=${PAIRS:-10}
out=$(mktemp -d)
chmod 755 "$out"
trap 'rm -rf "$out"' EXIT
tables="item warehouse district customer history orders new_order order_line stock"

"$PGRIG" cluster start >/dev/null
SOCK="$PGRIG_HOME/run"
q() { PGOPTIONS="-c client_min_messages=warning" psql -h "$SOCK" -U postgres -X -q -v ON_ERROR_STOP=1 "$@"; }
q -d postgres -c "DROP DATABASE IF EXISTS tpcc_copy" -c "CREATE DATABASE tpcc_copy" >/dev/null
"$PGRIG" tpcc init -w "$WAREHOUSES" -j "$JOBS" -h "$SOCK" -U postgres -d tpcc_copy >/dev/null 2>&1
for t in $tables; do q -d tpcc_copy -c "\\copy $t TO '$out/$t.copy'"; done
bytes=$(cat "$out"/*.copy | wc -c)

run_init() {
  q -d tpcc_copy -c CHECKPOINT
  local line
  line=$("$PGRIG" tpcc init -w "$WAREHOUSES" -j "$JOBS" -h "$SOCK" -U postgres -d tpcc_copy 2>/dev/null)
  # "loaded W warehouses (seed S) in T s: R warehouses per minute of COPY, N rows, M MB of COPY text"
  python3 - "$line" "$WAREHOUSES" <<'EOF'
import re, sys
m = re.search(r"in ([0-9.]+) s: ([0-9.]+) warehouses per minute of COPY, \d+ rows, ([0-9.]+) MB", sys.argv[1])
total, wpm, mb = float(m.group(1)), float(m.group(2)), float(m.group(3))
copy_s = int(sys.argv[2]) / (wpm / 60.0)
print(f"{mb / copy_s:.2f} {total:.2f} {copy_s:.2f}")
EOF
}

run_copy() {
  local create="BEGIN;"
  for t in $tables; do create+=" CREATE TABLE c_$t (LIKE $t);"; done
  create+=" COMMIT;"
  q -d tpcc_copy -c "DROP TABLE IF EXISTS $(for t in $tables; do printf 'c_%s,' "$t"; done | sed 's/,$//')" \
    -c "$create" -c CHECKPOINT
  local script="$out/copy.sql"
  : >"$script"
  for t in $tables; do echo "\\copy c_$t FROM '$out/$t.copy'" >>"$script"; done
  local t0 t1
  t0=$(date +%s.%N)
  q -d tpcc_copy -f "$script"
  t1=$(date +%s.%N)
  python3 -c "b=$bytes/1048576; s=$t1-$t0; print(f'{b / s:.2f} {s:.2f}')"
}

echo "tpcc init -w $WAREHOUSES -j $JOBS against one backend's \\copy of the same $((bytes / 1048576)) MB, $PAIRS pairs"
echo "$(date -u +%FT%TZ) $(uname -m) $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
printf '%-5s %14s %14s %12s %12s %8s %8s\n' pair "init MB/s" "1-backend MB/s" "init total s" "1-backend s" rate "time"
ratios=() times=()
for ((i = 1; i <= PAIRS; i++)); do
  if ((i % 2)); then
    read -r init_rate init_total _ < <(run_init)
    read -r copy_rate copy_s < <(run_copy)
  else
    read -r copy_rate copy_s < <(run_copy)
    read -r init_rate init_total _ < <(run_init)
  fi
  r=$(python3 -c "print(f'{$init_rate / $copy_rate:.3f}')")
  tr=$(python3 -c "print(f'{$init_total / $copy_s:.3f}')")
  ratios+=("$r") times+=("$tr")
  printf '%-5s %14s %14s %12s %12s %8s %8s\n' "$i" "$init_rate" "$copy_rate" "$init_total" "$copy_s" "$r" "$tr"
done
python3 - "${ratios[*]}" "${times[*]}" <<'EOF'
import statistics, sys
for name, xs in (("COPY rate, init / one backend", sys.argv[1]), ("init's whole time / one backend's COPY time", sys.argv[2])):
    v = [float(x) for x in xs.split()]
    print(f"{name}: median {statistics.median(v):.2f} [{min(v):.2f}..{max(v):.2f}] of {len(v)}")
EOF
q -d postgres -c "DROP DATABASE tpcc_copy" >/dev/null
