# common.sh: what the load benchmarks (bench_vs_pgbench.sh, engine_paths.sh,
# wire_probe.sh) share.  Sourced, not run.  It sets `here` (the source tree)
# and the defaults of the environment those scripts document: PGRIG
# (build/pgrig), PGBENCH (PostgreSQL 15's), CLIENTS (8), THREADS (2), MODES
# ("prepared simple") and PGRIG_HOME (/tmp/pgrig-bench-vs, exported).
# bench_start_server starts that embedded cluster, loads pgbench's tables at
# scale 10 when they are missing, and sets SOCK to its socket directory.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PGRIG=${PGRIG:-$here/build/pgrig}
PGBENCH=${PGBENCH:-/usr/lib/postgresql/15/bin/pgbench}
CLIENTS=${CLIENTS:-8}
THREADS=${THREADS:-2}
MODES=${MODES:-"prepared simple"}
export PGRIG_HOME=${PGRIG_HOME:-/tmp/pgrig-bench-vs}

bench_start_server() {
  "$PGRIG" cluster start >/dev/null
  SOCK="$PGRIG_HOME/run"
  if ! psql -h "$SOCK" -U postgres -d pgrig -Atc "select count(*) from pgbench_branches" >/dev/null 2>&1; then
    "$PGBENCH" -i -q -s 10 -h "$SOCK" -U postgres pgrig >/dev/null 2>&1
  fi
}
