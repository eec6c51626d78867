#!/usr/bin/env bash
# Alternates `pgrig bench` and `pgbench` (and, with --floor, bench/floor;
# with --wire, bench/wire_probe) on
# the same server with the same script, clients, threads and duration, and
# reports medians of throughput, of client CPU (user+sys of the client
# process, from getrusage of the child) per transaction and of server CPU
# per transaction, and their ratios (pgrig / pgbench; with --floor, each
# tool / the floor as well; with --wire, each tool / wire_probe).
#
# Server CPU: when the server is the local embedded cluster (its data
# directory's postmaster.pid names a live process here), the CPU of all its
# processes during each run, from /proc: see bench/server_cpu.py for how
# backends that exit at the end are counted.  For the floor, the "server"
# column is its echo peer's CPU.
#
# Usage: bench/bench_vs_pgbench.sh [--floor] [--wire] [PAIRS] [DURATION_S]
#   --floor  also run bench/floor (select-only only: SCRIPT_OPT must be -S),
#            interleaved with the other two in every round.
#   --wire   also run bench/wire_probe (select-only only) against the same
#            server in every round: the raw protocol over the same io_uring
#            loop shape as the engine (WIRE_LOOP, default uring), nothing
#            else; the bare loop at the server's own pace, whose user and
#            system time per transaction are measured like the tools' (the
#            child's rusage), so `user` ratios compare like with like.
# Environment: PGRIG (pgrig executable, default build/pgrig), PGBENCH
# (default /usr/lib/postgresql/15/bin/pgbench), FLOOR_BIN (default
# build/bench/floor), WIRE_BIN (default build/bench/wire_probe), PGRIG_HOME
# (embedded cluster; it is started and initialised at scale 10 when needed),
# CLIENTS (8), THREADS (2),
# MODES ("prepared simple"), SCRIPT_OPT ("-S"; SCRIPT_OPT= for tpcb-like), FLOOR_LOOP (uring),
# PIN ("CLIENT_CPUS:SERVER_CPUS", e.g. PIN=0:1; unset: no pinning): run each
# client under taskset on CLIENT_CPUS and move the embedded cluster's
# processes to SERVER_CPUS for the duration (backends inherit it from the
# postmaster; every process gets all CPUs back at the end).  This measures
# the client without the server competing for its core; quote it beside the
# unpinned figures, never instead of them.  Not with --floor (its peer runs
# inside the floor's own process).
#
# Besides the medians of each tool, the per-pair ratios (pgrig / pgbench in
# the same round): median and range.
set -euo pipefail
WITH_FLOOR=0
WITH_WIRE=0
while [[ ${1:-} == --floor || ${1:-} == --wire ]]; do
  if [[ $1 == --floor ]]; then WITH_FLOOR=1; else WITH_WIRE=1; fi
  shift
done
PAIRS=${1:-5}
DURATION=${2:-10}
if [[ ! $PAIRS =~ ^[1-9][0-9]*$ || ! $DURATION =~ ^[1-9][0-9]*$ ]]; then
  echo "bench_vs_pgbench.sh: usage: bench_vs_pgbench.sh [--floor] [--wire] [PAIRS] [DURATION_S] (positive integers; got '$PAIRS' '$DURATION')" >&2
  exit 1
fi
source "$(dirname "$0")/common.sh"
FLOOR_BIN=${FLOOR_BIN:-$here/build/bench/floor}
FLOOR_LOOP=${FLOOR_LOOP:-uring}
WIRE_BIN=${WIRE_BIN:-$here/build/bench/wire_probe}
WIRE_LOOP=${WIRE_LOOP:-uring}
SCRIPT_OPT=${SCRIPT_OPT--S}  # set and empty: the built-in tpcb-like script
PIN=${PIN:-}
if [[ -n $PIN ]]; then
  if [[ ! $PIN =~ ^[0-9,-]+:[0-9,-]+$ ]]; then
    echo "bench_vs_pgbench.sh: PIN takes CLIENT_CPUS:SERVER_CPUS in taskset's list form (e.g. 0:1), not $PIN" >&2
    exit 1
  fi
  if [[ $WITH_FLOOR == 1 ]]; then
    echo "bench_vs_pgbench.sh: PIN and --floor do not go together (the floor's peer runs in its own process); drop one" >&2
    exit 1
  fi
  command -v taskset >/dev/null || { echo "bench_vs_pgbench.sh: PIN needs taskset (util-linux)" >&2; exit 1; }
fi

# A select-only bare loop beside the tools: FLAG needs -S and its built BIN.
need_bare_loop() {
  local flag=$1 bin=$2 target=$3
  if [[ $SCRIPT_OPT != -S ]]; then
    echo "bench_vs_pgbench.sh: $flag has the message sizes of select-only (-S); unset SCRIPT_OPT or drop $flag" >&2
    exit 1
  fi
  if [[ ! -x $bin ]]; then
    echo "bench_vs_pgbench.sh: $bin is missing; build it: cmake --build build --target $target (configure with -DPGRIG_BUILD_BENCH=ON)" >&2
    exit 1
  fi
}
if [[ $WITH_FLOOR == 1 ]]; then need_bare_loop --floor "$FLOOR_BIN" floor; fi
if [[ $WITH_WIRE == 1 ]]; then
  need_bare_loop --wire "$WIRE_BIN" wire_probe
  if [[ $WIRE_LOOP != uring && $WIRE_LOOP != epoll ]]; then
    echo "bench_vs_pgbench.sh: WIRE_LOOP is uring or epoll, not $WIRE_LOOP" >&2
    exit 1
  fi
fi

bench_start_server

python3 - "$PAIRS" "$DURATION" "$PGRIG" "$PGBENCH" "$SOCK" "$CLIENTS" "$THREADS" "$MODES" "$SCRIPT_OPT" \
  "$here/bench" "$PGRIG_HOME/data" "$WITH_FLOOR" "$FLOOR_BIN" "$FLOOR_LOOP" "$PIN" \
  "$WITH_WIRE" "$WIRE_BIN" "$WIRE_LOOP" <<'PY'
import os, re, statistics, subprocess, sys
(pairs, duration, pgrig, pgbench, sock, clients, threads, modes, script_opt,
 bench_dir, data_dir, with_floor, floor_bin, floor_loop, pin,
 with_wire, wire_bin, wire_loop) = sys.argv[1:]
pairs, duration, with_floor, with_wire = int(pairs), int(duration), with_floor == "1", with_wire == "1"
sys.path.insert(0, bench_dir)
import measure, server_cpu
server = server_cpu.open_or_none(data_dir)

def cpu_list(text):
    cpus = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus

def cluster_pids():
    """The postmaster and its children (backends fork from it later)."""
    kids = subprocess.run(["pgrep", "-P", str(server.pid)], capture_output=True, text=True).stdout
    return [server.pid] + [int(p) for p in kids.split()]

client_prefix = []
if pin:
    if not server:
        sys.exit("bench_vs_pgbench.sh: PIN needs the local embedded cluster (none at %s)" % data_dir)
    client_cpus, server_cpus = pin.split(":")
    online = os.sched_getaffinity(0)
    if not (cpu_list(client_cpus) | cpu_list(server_cpus)) <= online:
        sys.exit("bench_vs_pgbench.sh: PIN=%s names CPUs this process may not use (%s)"
                 % (pin, sorted(online)))
    for pid in cluster_pids():
        os.sched_setaffinity(pid, cpu_list(server_cpus))
    client_prefix = ["taskset", "-c", client_cpus]

def unpin():
    if pin:
        for pid in cluster_pids():
            try:
                os.sched_setaffinity(pid, os.sched_getaffinity(0) | set(range(os.cpu_count())))
            except OSError:
                pass

def run(name, cmd):
    """(tps, client us/txn, user, sys, server us/txn or None)."""
    if name != "floor":
        return measure.measure(client_prefix + cmd, server)
    # getrusage of the child would include the floor's peer: take the
    # floor's own per-thread figures, and the peer's as the server's.
    out = measure.run_checked(cmd)
    tps = measure.summary_figure(out, r"^tps = ([0-9.]+) \(without")
    c = re.search(r"^client CPU per round trip: ([0-9.]+) us \(user ([0-9.]+), sys ([0-9.]+)\)", out, re.M)
    p = re.search(r"^peer CPU per round trip: ([0-9.]+) us", out, re.M)
    return tps, float(c.group(1)), float(c.group(2)), float(c.group(3)), float(p.group(1))

def med(rows, j):
    vals = [r[j] for r in rows if r[j] is not None]
    return statistics.median(vals) if vals else None

def fmt(v, spec="%6.2f"):
    return spec % v if v is not None else "   n/a"

def pair_ratios(a, b, j):
    rs = sorted(x[j] / y[j] for x, y in zip(a, b) if x[j] and y[j])
    if not rs:
        return "n/a"
    return "%.3f (%.3f-%.3f)" % (statistics.median(rs), rs[0], rs[-1])

print("pairs=%d duration=%ds clients=%s threads=%s script=%s server CPU: %s%s" % (
    pairs, duration, clients, threads, script_opt,
    "postmaster %d" % server.pid if server else "n/a (no local cluster at %s)" % data_dir,
    "; pinned: clients on CPUs %s, server on CPUs %s" % tuple(pin.split(":")) if pin else ""))
try:
  for mode in modes.split():
      common = script_opt.split() + ["-c", clients, "-j", threads, "-T", str(duration), "-M", mode, "-n",
                "-h", sock, "-U", "postgres", "pgrig"]
      tools = [("pgrig", [pgrig, "bench"] + common), ("pgbench", [pgbench] + common)]
      if with_floor:
          tools.append(("floor", [floor_bin, "-c", clients, "-j", threads, "-T", str(duration),
                                  "-M", mode, "--loop", floor_loop]))
      if with_wire:
          tools.append(("wire", [wire_bin, wire_loop, mode, clients, threads, str(duration),
                                 "host=%s user=postgres dbname=pgrig" % sock]))
      res = {name: [] for name, _ in tools}
      for i in range(pairs):
          # interleaved; the order rotates so that none always goes first
          k = i % len(tools)
          for name, cmd in tools[k:] + tools[:k]:
              res[name].append(run(name, cmd))
      m = {k: [med(v, j) for j in range(5)] for k, v in res.items()}
      print("mode=%s" % mode)
      for name, _ in tools:
          x = m[name]
          print("  %-8s median tps %10.1f  client CPU/txn %6.2f us (user %5.2f, sys %5.2f)  %s CPU/txn %s us"
                % (name, x[0], x[1], x[2], x[3], "peer  " if name == "floor" else "server", fmt(x[4])))
          print("           runs: " + ", ".join("%.0f tps/%.2f/%s us" % (r[0], r[1], fmt(r[4], "%.2f").strip())
                                        for r in res[name]))
      a, b = m["pgrig"], m["pgbench"]
      print("  ratio pgrig/pgbench: tps %.3f, client CPU per txn %.3f, server CPU per txn %s"
            % (a[0] / b[0], a[1] / b[1], fmt(a[4] / b[4] if a[4] and b[4] else None, "%.3f")))
      if with_floor:
          f = m["floor"]
          for name in ("pgrig", "pgbench"):
              x = m[name]
              print("  ratio %s/floor: tps %.3f, client CPU per txn %.3f (%.2f us above the floor)"
                    % (name, x[0] / f[0], x[1] / f[1], x[1] - f[1]))
      if with_wire:
          for name in ("pgrig", "pgbench"):
              print("  pair ratios %s/wire, median (range): client CPU per txn %s, user %s, sys %s"
                    % (name, pair_ratios(res[name], res["wire"], 1),
                       pair_ratios(res[name], res["wire"], 2), pair_ratios(res[name], res["wire"], 3)))
      a_runs, b_runs = res["pgrig"], res["pgbench"]
      print("  pair ratios pgrig/pgbench, median (range): tps %s, client CPU per txn %s, server CPU per txn %s"
            % (pair_ratios(a_runs, b_runs, 0), pair_ratios(a_runs, b_runs, 1),
               pair_ratios(a_runs, b_runs, 4)))
finally:
  unpin()
PY
