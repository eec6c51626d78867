#!/usr/bin/env bash
# pgrig init vs pgbench -i, on the same embedded server, same scale and steps.
#
# Runs interleaved pairs (pgrig, pgbench, pgrig, pgbench, ...) at each scale,
# with a CHECKPOINT before every run so that no run pays for the previous
# one's dirty buffers, prints every wall time and the median of the per-pair
# ratios (pgrig / pgbench; below 1.0 means pgrig is faster).  Then compares
# pgrig -j 1 with -j N (N = cores), plain and with --partitions.
#
# Usage: bench/init_vs_pgbench.sh [--scales "10 50"] [--pairs 3] [--pgrig PATH]
#                                 [--extra "pgbench -i options for both"]
# Environment: PGRIG_HOME (default /tmp/pgrig-bench-<uid>) selects the
# embedded cluster, which is started if needed and left running.
set -euo pipefail

scales="10 50"
pairs=3
extra=""
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
pgrig="${here}/../build/pgrig"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --scales) scales="$2"; shift 2 ;;
    --pairs) pairs="$2"; shift 2 ;;
    --pgrig) pgrig="$2"; shift 2 ;;
    --extra) extra="$2"; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "init_vs_pgbench.sh: unknown argument $1 (try --help)" >&2; exit 1 ;;
  esac
done
[[ -x "$pgrig" ]] || { echo "init_vs_pgbench.sh: no pgrig executable at $pgrig (build first, or --pgrig PATH)" >&2; exit 1; }

export PGRIG_HOME="${PGRIG_HOME:-/tmp/pgrig-bench-$(id -u)}"
"$pgrig" cluster start >/dev/null
status="$("$pgrig" cluster status)"
conn="$(sed -n 's/^connect with: *psql //p' <<<"$status")"   # -h DIR -p PORT -U USER DB
read -r _ host _ port _ user _ <<<"$conn"
bindir="$(sed -n 's/^binaries: *//p' <<<"$status")"
pgbench="${bindir}/pgbench"
psql=("${bindir}/psql" -X -q -h "$host" -p "$port" -U "$user")
server_args=(-h "$host" -p "$port" -U "$user")

for db in bench_pgrig bench_pgbench; do
  "${psql[@]}" -d postgres -c "drop database if exists $db with (force)" -c "create database $db" >/dev/null 2>&1
done

now() { date +%s.%N; }
# Runs a command after a CHECKPOINT; prints its wall time in seconds.
timed() {
  "${psql[@]}" -d postgres -c checkpoint >/dev/null
  local t0 t1
  t0=$(now)
  "$@" >/dev/null 2>"/tmp/init_vs_pgbench.$$.err" || {
    echo "init_vs_pgbench.sh: failed: $*" >&2; cat "/tmp/init_vs_pgbench.$$.err" >&2; exit 1; }
  t1=$(now)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

cores=$(nproc)
echo "# pgrig init vs pgbench -i — $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "# machine: $cores cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(. /etc/os-release && echo "$PRETTY_NAME"), $("$pgbench" --version)"
echo "# server: embedded cluster in $PGRIG_HOME; options for both: -q ${extra}"
echo

for s in $scales; do
  echo "## scale $s (${pairs} interleaved pairs)"
  ratios=""; a_all=""; b_all=""
  for i in $(seq 1 "$pairs"); do
    # shellcheck disable=SC2086
    a=$(timed "$pgrig" init -q -s "$s" $extra "${server_args[@]}" bench_pgrig)
    # shellcheck disable=SC2086
    b=$(timed "$pgbench" -i -q -s "$s" $extra "${server_args[@]}" bench_pgbench)
    r=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }')
    printf "pair %d: pgrig init %6.2f s   pgbench -i %6.2f s   ratio %s\n" "$i" "$a" "$b" "$r"
    ratios+=" $r"; a_all+=" $a"; b_all+=" $b"
  done
  printf "scale %s: median pgrig %.2f s, median pgbench %.2f s, median ratio %s\n\n" "$s" \
    "$(median <<<"$a_all")" "$(median <<<"$b_all")" "$(median <<<"$ratios")"
done

# Scaling with connections: -j 1 vs -j <cores>, plain and partitioned.
jscale=$(awk '{ print $NF }' <<<"$scales")
for layout in "" "--partitions $((cores * 4))"; do
  echo "## pgrig -j 1 vs -j $cores, scale $jscale ${layout:-(not partitioned)}"
  ratios=""; one=""; many=""
  for i in $(seq 1 "$pairs"); do
    # shellcheck disable=SC2086
    a=$(timed "$pgrig" init -q -s "$jscale" -j 1 $layout $extra "${server_args[@]}" bench_pgrig)
    # shellcheck disable=SC2086
    b=$(timed "$pgrig" init -q -s "$jscale" -j "$cores" $layout $extra "${server_args[@]}" bench_pgrig)
    r=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b / a }')
    printf "pair %d: -j 1 %6.2f s   -j %d %6.2f s   ratio %s\n" "$i" "$a" "$cores" "$b" "$r"
    ratios+=" $r"; one+=" $a"; many+=" $b"
  done
  printf "median -j 1 %.2f s, median -j %d %.2f s, median ratio %s\n\n" \
    "$(median <<<"$one")" "$cores" "$(median <<<"$many")" "$(median <<<"$ratios")"
done
rm -f "/tmp/init_vs_pgbench.$$.err"
