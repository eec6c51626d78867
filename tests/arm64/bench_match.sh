#!/usr/bin/env bash
# CTest "arm64_bench_matches_native": the arm64 pgrig, run under qemu-user,
# against a real server (an embedded cluster the native pgrig starts, reached
# over its Unix socket), gives the same results as the native pgrig:
#
#   1. `init -s 1`: the same tables, row for row (counts, balance sums and an
#      md5 over every row of each table).
#   2. `bench -c 2 -j 2 -t 150 --random-seed=…` (tpcb-like) on a fresh init:
#      the same transaction count, and the same data afterwards (each
#      client's draws depend only on the seed, so the balances and the
#      multiset of pgbench_history rows must agree whatever the interleaving).
#   3. A script of \set random values, hashes, permute and arithmetic that it
#      INSERTs: the same rows natively, as arm64 pgrig and as Debian's arm64
#      pgbench (the reference for the arm64 build).
#   4. The out-of-range conversions (random_gaussian/exponential with NaN
#      products), which differ between x86 and Arm by design: arm64 pgrig
#      gives what Debian's arm64 pgbench gives.
#
# Usage: bench_match.sh NATIVE_PGRIG ARM64_PGRIG SYSROOT EMULATOR [ARGS...]
set -euo pipefail
native=$1 arm=$2 sysroot=$3
shift 3
emu=("$@")
arm_pgbench=$sysroot/usr/lib/postgresql/15/bin/pgbench

fail() { echo "FAIL: $*" >&2; exit 1; }
[[ -x $native ]] || fail "no native pgrig at $native (build the native tree first)"
[[ -x $arm_pgbench ]] || fail "no arm64 pgbench at $arm_pgbench (run scripts/arm64-sysroot.sh)"
command -v psql >/dev/null || fail "psql is missing (scripts/setup.sh installs postgresql-client-15)"

# The cluster's home must be reachable by the server account when run as root,
# so it is not under a private mktemp directory.
export PGRIG_HOME=/tmp/pgrig-arm64-check-$$
scratch=$(mktemp -d /tmp/pgrig-arm64-bench.XXXXXX)
cleanup() {
  "$native" cluster destroy >/dev/null 2>&1 || true
  rm -rf "$scratch"
}
trap cleanup EXIT
"$native" cluster start >"$scratch/start.log" 2>&1 || { cat "$scratch/start.log" >&2; fail "native pgrig cluster start"; }
conn=(-h "$PGRIG_HOME/run" -p 5432 -U postgres)
db=pgrig
sql() { PGOPTIONS="-c client_min_messages=warning" psql "${conn[@]}" -d "$db" -X -q -A -t -v ON_ERROR_STOP=1 -c "$1"; }

# Row-for-row fingerprint of the pgbench tables (history as a multiset: its
# mtime column is the only one that may differ).
fingerprint() {
  sql "SELECT 'accounts', count(*), sum(abalance),
              md5(string_agg(aid || ':' || bid || ':' || abalance || ':' || filler, ',' ORDER BY aid))
         FROM pgbench_accounts
       UNION ALL SELECT 'branches', count(*), sum(bbalance),
              md5(string_agg(bid || ':' || bbalance || ':' || coalesce(filler, ''), ',' ORDER BY bid))
         FROM pgbench_branches
       UNION ALL SELECT 'tellers', count(*), sum(tbalance),
              md5(string_agg(tid || ':' || bid || ':' || tbalance || ':' || coalesce(filler, ''), ',' ORDER BY tid))
         FROM pgbench_tellers
       UNION ALL SELECT 'history', count(*), sum(delta),
              md5(coalesce(string_agg(tid || ':' || bid || ':' || aid || ':' || delta, ','
                                      ORDER BY tid, bid, aid, delta), ''))
         FROM pgbench_history"
}
same() {  # same WHAT FILE_A FILE_B
  if ! diff -u "$2" "$3" >&2; then fail "$1: native and arm64 differ (above)"; fi
  echo "ok: $1 ($(wc -l <"$2") lines equal)"
}
arm_pgrig() { "${emu[@]}" "$arm" "$@"; }
arm_pgbench() { "${emu[@]}" "$arm_pgbench" "$@"; }
txcount() { grep -E '^number of transactions actually processed' "$1" || fail "no transaction count in $1"; }

# 1. init
arm_pgrig init -s 1 "${conn[@]}" "$db" >"$scratch/init.arm64.log" 2>&1 ||
  { cat "$scratch/init.arm64.log" >&2; fail "arm64 pgrig init"; }
fingerprint >"$scratch/init.arm64"
"$native" init -s 1 "${conn[@]}" "$db" >"$scratch/init.native.log" 2>&1 ||
  { cat "$scratch/init.native.log" >&2; fail "native pgrig init"; }
fingerprint >"$scratch/init.native"
grep -q '^accounts|100000|0|' "$scratch/init.native" || fail "unexpected init result: $(cat "$scratch/init.native")"
same "init -s 1 tables" "$scratch/init.native" "$scratch/init.arm64"

# 2. bench, each build on freshly initialised tables
bench=(-c 2 -j 2 -t 150 --random-seed=20261201 "${conn[@]}" "$db")
"$native" bench "${bench[@]}" >"$scratch/bench.native.log" 2>&1 ||
  { cat "$scratch/bench.native.log" >&2; fail "native pgrig bench"; }
fingerprint >"$scratch/bench.native"
"$native" init -s 1 "${conn[@]}" "$db" >/dev/null 2>&1 || fail "native pgrig init (again)"
arm_pgrig bench "${bench[@]}" >"$scratch/bench.arm64.log" 2>&1 ||
  { cat "$scratch/bench.arm64.log" >&2; fail "arm64 pgrig bench"; }
fingerprint >"$scratch/bench.arm64"
txcount "$scratch/bench.native.log" >"$scratch/tx.native"
txcount "$scratch/bench.arm64.log" >"$scratch/tx.arm64"
grep -q 'processed: 300/300' "$scratch/tx.native" || fail "native: $(cat "$scratch/tx.native")"
same "bench -t transaction count" "$scratch/tx.native" "$scratch/tx.arm64"
grep -q '^history|300|' "$scratch/bench.native" || fail "unexpected history: $(cat "$scratch/bench.native")"
same "tables after bench --random-seed" "$scratch/bench.native" "$scratch/bench.arm64"

# 3. script values
cat >"$scratch/values.sql" <<'SQL'
\set u random(1, 1000000000)
\set g random_gaussian(1, 1000000, 2.5)
\set e random_exponential(1, 1000000, 3.0)
\set z random_zipfian(1, 1000000, 1.07)
\set h hash(:u, 7)
\set f hash_fnv1a(:u, 11)
\set m hash_murmur2(:g)
\set p permute(:u, 1000000000, 5)
\set d sqrt(:u) * pi() / 3.0
\set i (:u * 7 + :e) % 1000003 - abs(:z - 500)
INSERT INTO rig_values VALUES (:client_id, :u, :g, :e, :z, :h, :f, :m, :p, :d, :i);
SQL
values_run() {  # values_run OUT RUNNER...
  local out=$1
  shift
  sql "DROP TABLE IF EXISTS rig_values;
       CREATE TABLE rig_values (client int, u bigint, g bigint, e bigint, z bigint, h bigint,
                                f bigint, m bigint, p bigint, d double precision, i bigint)"
  "$@" -n -c 3 -j 1 -t 40 --random-seed=777 -f "$scratch/values.sql" "${conn[@]}" "$db" \
    >"$out.log" 2>&1 || { cat "$out.log" >&2; fail "$* -f values.sql"; }
  sql "SELECT client, u, g, e, z, h, f, m, p, d, i FROM rig_values
        ORDER BY client, u, g, e, z, h, f, m, p, d, i" >"$out"
  [[ $(wc -l <"$out") == 120 ]] || fail "$*: expected 120 rows, got $(wc -l <"$out")"
}
values_run "$scratch/values.native" "$native" bench
values_run "$scratch/values.arm64" arm_pgrig bench
values_run "$scratch/values.pgbench-arm64" arm_pgbench
same "script values, native pgrig vs arm64 pgrig" "$scratch/values.native" "$scratch/values.arm64"
same "script values, arm64 pgbench vs arm64 pgrig" "$scratch/values.pgbench-arm64" "$scratch/values.arm64"

# 4. what the hardware's float-to-integer conversion decides
cat >"$scratch/nonfinite.sql" <<'SQL'
\set a random_gaussian(18, 20, 1.0/0)
\set b random_gaussian(1, 10, 0.0/0)
\set c random_exponential(1, 10, 0.0/0)
INSERT INTO rig_nonfinite VALUES (:a, :b, :c);
SQL
nonfinite_run() {
  local out=$1
  shift
  sql "DROP TABLE IF EXISTS rig_nonfinite; CREATE TABLE rig_nonfinite (a bigint, b bigint, c bigint)"
  "$@" -n -c 1 -t 1 --random-seed=1 -f "$scratch/nonfinite.sql" "${conn[@]}" "$db" \
    >"$out.log" 2>&1 || { cat "$out.log" >&2; fail "$* -f nonfinite.sql"; }
  sql "SELECT a, b, c FROM rig_nonfinite" >"$out"
}
nonfinite_run "$scratch/nonfinite.pgbench-arm64" arm_pgbench
nonfinite_run "$scratch/nonfinite.arm64" arm_pgrig bench
grep -qx '18|1|1' "$scratch/nonfinite.pgbench-arm64" ||
  fail "Debian's arm64 pgbench gave $(cat "$scratch/nonfinite.pgbench-arm64"), not 18|1|1 (fcvtzs maps NaN to 0)"
same "out-of-range conversions, arm64 pgbench vs arm64 pgrig" \
  "$scratch/nonfinite.pgbench-arm64" "$scratch/nonfinite.arm64"
echo "arm64 pgrig init, bench and scripts agree with the native build and with arm64 pgbench"
