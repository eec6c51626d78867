#!/usr/bin/env bash
# pgrig init vs pgbench -i, on the same server, same scale and options, for
# each wal_level asked for.
#
# For each wal_level, scale and layout (not partitioned, --partitions N) it
# runs interleaved pairs (pgbench and pgrig take turns going first), with a
# CHECKPOINT before every run so that no run pays for the previous one's
# dirty buffers, prints every wall time, then the median of the per-pair
# ratios (pgrig / pgbench; below 1.0 means pgrig is faster) with their range,
# and the key strategy pgrig chose (its "note: the primary keys ..." line).
# Before the pairs of each configuration, --warmup runs (default 1) of each
# tool are made and not counted: on a throwaway cluster the first load
# creates the WAL segment files that later loads recycle, and whichever tool
# ran first paid for that (session 6 saw it as the one slow pair per series).
# --strategies also runs pgrig with each forced key strategy
# (PGRIG_INIT_KEYS), each in the same pairs as the automatic choice.
#
# Servers: the embedded cluster (PGRIG_HOME, default
# /tmp/pgrig-bench-<uid>; started if needed and left running) serves its own
# wal_level (minimal).  Any other wal_level gets a throwaway cluster: initdb
# into a private directory under /tmp, the embedded cluster's settings
# copied (so the servers differ in wal_level and max_wal_senders only),
# Unix socket only, run as the embedded cluster's account when started by
# root; it is stopped and removed on exit, whatever happens.
#
# Usage: bench/init_vs_pgbench.sh [--wal-levels "minimal replica"] [--scales "10 50"]
#          [--layouts "plain partitioned"] [--partitions 8] [--pairs 3] [--warmup 1]
#          [--strategies "auto"]   (or e.g. "auto during-load after-each-load separate-step")
#          [--pgrig PATH] [--extra "pgbench -i options for both"]
set -euo pipefail

wal_levels="minimal replica"
scales="10 50"
layouts="plain partitioned"
partitions=8
pairs=3
warmup=1
strategies="auto"
extra=""
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
pgrig="${here}/../build/pgrig"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --wal-levels) wal_levels="$2"; shift 2 ;;
    --scales) scales="$2"; shift 2 ;;
    --layouts) layouts="$2"; shift 2 ;;
    --partitions) partitions="$2"; shift 2 ;;
    --pairs) pairs="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --strategies) strategies="$2"; shift 2 ;;
    --pgrig) pgrig="$2"; shift 2 ;;
    --extra) extra="$2"; shift 2 ;;
    -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
    *) echo "init_vs_pgbench.sh: unknown argument $1 (try --help)" >&2; exit 1 ;;
  esac
done
[[ -x "$pgrig" ]] || { echo "init_vs_pgbench.sh: no pgrig executable at $pgrig (build first, or --pgrig PATH)" >&2; exit 1; }
[[ "$pairs" =~ ^[1-9][0-9]*$ ]] || { echo "init_vs_pgbench.sh: --pairs takes a whole number of at least 1, not $pairs" >&2; exit 1; }
[[ "$warmup" =~ ^[0-9]+$ ]] || { echo "init_vs_pgbench.sh: --warmup takes a whole number (0 for none), not $warmup" >&2; exit 1; }
for l in $layouts; do
  [[ "$l" == plain || "$l" == partitioned ]] || { echo "init_vs_pgbench.sh: --layouts takes plain and/or partitioned, not $l" >&2; exit 1; }
done
for k in $strategies; do
  case "$k" in auto|during-load|after-each-load|separate-step) ;;
    *) echo "init_vs_pgbench.sh: unknown strategy $k (auto, during-load, after-each-load, separate-step)" >&2; exit 1 ;;
  esac
done
for w in $wal_levels; do
  case "$w" in minimal|replica|logical) ;;
    *) echo "init_vs_pgbench.sh: unknown wal_level $w (minimal, replica, logical)" >&2; exit 1 ;;
  esac
done

export PGRIG_HOME="${PGRIG_HOME:-/tmp/pgrig-bench-$(id -u)}"
"$pgrig" cluster start >/dev/null
status="$("$pgrig" cluster status)"
conn="$(sed -n 's/^connect with: *psql //p' <<<"$status")"   # -h DIR -p PORT -U USER DB
read -r _ emb_host _ emb_port _ emb_user _ <<<"$conn"
bindir="$(sed -n 's/^binaries: *//p' <<<"$status")"
account="$(sed -n 's/^runs as: *//p' <<<"$status")"
pgbench="${bindir}/pgbench"
err="/tmp/init_vs_pgbench.$$.err"

# The throwaway cluster, if one is started; removed on any exit.
scratch=""
cleanup() {
  if [[ -n "$scratch" && -d "$scratch" ]]; then
    as_account "${bindir}/pg_ctl" -D "$scratch/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$scratch"
  fi
  rm -f "$err"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
as_account() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u "$account" -- "$@"; else "$@"; fi
}

# Starts a throwaway cluster with the embedded cluster's settings and
# wal_level $1; sets host/port/user.
start_throwaway() {
  local level="$1"
  scratch="$(mktemp -d /tmp/init_vs_pgbench.XXXXXX)"
  mkdir -p "$scratch/run"
  [[ $(id -u) -eq 0 ]] && chown -R "$account" "$scratch"
  as_account "${bindir}/initdb" -D "$scratch/data" -U "$emb_user" -A trust --no-sync >/dev/null
  {
    echo "# copied from the embedded cluster by init_vs_pgbench.sh"
    "${bindir}/psql" -X -At -h "$emb_host" -p "$emb_port" -U "$emb_user" -d postgres -c \
      "select format('%s = %L', name, setting) from pg_settings
       where source = 'configuration file' and name not in ('port', 'unix_socket_directories',
         'listen_addresses', 'wal_level', 'max_wal_senders', 'unix_socket_permissions')
       order by name"
    echo "listen_addresses = ''"
    echo "unix_socket_directories = '$scratch/run'"
    echo "port = 5432"
    echo "wal_level = $level"
    [[ "$level" == minimal ]] && echo "max_wal_senders = 0"
  } >>"$scratch/data/postgresql.conf"
  as_account "${bindir}/pg_ctl" -D "$scratch/data" -l "$scratch/log" -w start >/dev/null
  host="$scratch/run"; port=5432; user="$emb_user"
}

now() { date +%s.%N; }
# Runs a command (with environment assignments first, via env) after a
# CHECKPOINT; prints its wall time in seconds.  The command's stderr is kept
# in $err.
timed() {
  "${psql[@]}" -d postgres -c checkpoint >/dev/null
  local t0 t1
  t0=$(now)
  env "$@" >/dev/null 2>"$err" || {
    echo "init_vs_pgbench.sh: failed: $*" >&2; cat "$err" >&2; exit 1; }
  t1=$(now)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
range() { tr ' ' '\n' | grep -v '^$' | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s–%s", lo, hi }'; }

cores=$(nproc)
# The binary's source: HEAD, and whether src/ differed from it when the run
# started (a binary built from uncommitted changes is not HEAD's).
source_label="$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')"
if ! git -C "$here" diff --quiet HEAD -- ../src ../CMakeLists.txt 2>/dev/null; then
  source_label+=" with uncommitted changes to src/"
fi
echo "# pgrig init vs pgbench -i — $(date -u +%Y-%m-%dT%H:%M:%SZ), pgrig $source_label, binary built $(date -u -r "$pgrig" +%Y-%m-%dT%H:%M:%SZ)"
echo "# machine: $cores cores ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), kernel $(uname -r), $(systemd-detect-virt 2>/dev/null || echo 'virt ?'), $(. /etc/os-release && echo "$PRETTY_NAME"), $("$pgbench" --version)"
echo "# options for both: -q ${extra}; pgrig's -j: default (cores); pairs alternate which runs first; ${warmup} uncounted warm-up run(s) of each before every configuration"
echo

for level in $wal_levels; do
  emb_level="$("${bindir}/psql" -X -At -h "$emb_host" -p "$emb_port" -U "$emb_user" -d postgres -c 'show wal_level')"
  if [[ "$level" == "$emb_level" ]]; then
    host="$emb_host"; port="$emb_port"; user="$emb_user"
    where="embedded cluster in $PGRIG_HOME"
  else
    start_throwaway "$level"
    where="throwaway cluster in $scratch (embedded cluster's settings)"
  fi
  psql=("${bindir}/psql" -X -q -h "$host" -p "$port" -U "$user")
  server_args=(-h "$host" -p "$port" -U "$user")
  for db in bench_pgrig bench_pgbench; do
    "${psql[@]}" -d postgres -c "drop database if exists $db with (force)" -c "create database $db" >/dev/null 2>&1
  done
  echo "# wal_level = $level: $where; max_parallel_maintenance_workers = $("${psql[@]}" -At -d postgres -c 'show max_parallel_maintenance_workers')"
  for s in $scales; do
    for layout in $layouts; do
      lopts=""; [[ "$layout" == partitioned ]] && lopts="--partitions $partitions"
      echo "## wal_level $level, scale $s, ${lopts:-not partitioned} (${pairs} interleaved pairs)"
      declare -A ratios=() times=()
      b_all=""; chose=""
      for _ in $(seq 1 "$warmup"); do
        # shellcheck disable=SC2086
        timed "$pgbench" -i -q -s "$s" $lopts $extra "${server_args[@]}" bench_pgbench >/dev/null
        # shellcheck disable=SC2086
        timed "PGRIG_INIT_KEYS=" "$pgrig" init -q -s "$s" $lopts $extra "${server_args[@]}" bench_pgrig >/dev/null
      done
      for i in $(seq 1 "$pairs"); do
        line=""
        run_pgbench() {
          # shellcheck disable=SC2086
          b=$(timed "$pgbench" -i -q -s "$s" $lopts $extra "${server_args[@]}" bench_pgbench)
        }
        (( i % 2 == 0 )) && run_pgbench
        declare -A t=()
        for k in $strategies; do
          envset="PGRIG_INIT_KEYS="; [[ "$k" != auto ]] && envset="PGRIG_INIT_KEYS=$k"
          # shellcheck disable=SC2086
          t[$k]=$(timed "$envset" "$pgrig" init -q -s "$s" $lopts $extra "${server_args[@]}" bench_pgrig)
          [[ "$k" == auto ]] && chose="$(grep -o 'note: the primary keys.*' "$err" || echo 'no key note')"
        done
        (( i % 2 == 1 )) && run_pgbench
        b_all+=" $b"
        for k in $strategies; do
          r=$(awk -v a="${t[$k]}" -v b="$b" 'BEGIN { printf "%.3f", a / b }')
          ratios[$k]+=" $r"; times[$k]+=" ${t[$k]}"
          line+=$(printf "   pgrig[%s] %6.2f s (%s)" "$k" "${t[$k]}" "$r")
        done
        printf "pair %d: pgbench -i %6.2f s%s\n" "$i" "$b" "$line"
      done
      printf "pgbench -i: median %.2f s (%s)\n" "$(median <<<"$b_all")" "$(range <<<"$b_all")"
      for k in $strategies; do
        printf "pgrig init [%s]: median %.2f s (%s), ratio median %s (%s)\n" "$k" \
          "$(median <<<"${times[$k]}")" "$(range <<<"${times[$k]}")" \
          "$(median <<<"${ratios[$k]}")" "$(range <<<"${ratios[$k]}")"
      done
      echo "pgrig's choice: $chose"
      echo
      unset ratios times
    done
  done
  if [[ -n "$scratch" ]]; then
    as_account "${bindir}/pg_ctl" -D "$scratch/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$scratch"; scratch=""
  else
    for db in bench_pgrig bench_pgbench; do
      "${psql[@]}" -d postgres -c "drop database if exists $db with (force)" >/dev/null 2>&1
    done
  fi
done
