"""One measured client run, as the load benchmarks take it.

Used by bench/bench_vs_pgbench.sh, bench/engine_paths.sh and
bench/wire_probe.sh.  The client is any program that prints pgbench's
summary lines (pgbench, pgrig bench, bench/wire_probe).  Its CPU is the
user+sys that getrusage(RUSAGE_CHILDREN) gains while it runs, so the
benchmark script must start nothing else meanwhile; the server's, when a
server_cpu.Cluster is given, is the difference of two snapshots of the
cluster's processes (see server_cpu.py).
"""
import os
import re
import resource
import subprocess
import sys


def run_checked(cmd, env=None):
    """Runs cmd with env added to ours; its stdout, or exits naming it."""
    e = dict(os.environ)
    e.update(env or {})
    out = subprocess.run(cmd, capture_output=True, text=True, env=e)
    if out.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), out.stderr))
    return out.stdout


def summary_figure(stdout, pattern, cast=float):
    """The first group of pattern in the client's summary."""
    m = re.search(pattern, stdout, re.M)
    if not m:
        sys.exit("no line matching %r in the client's output:\n%s" % (pattern, stdout))
    return cast(m.group(1))


def measure(cmd, server=None, env=None):
    """Runs a client; (tps, client us/txn, user us/txn, sys us/txn,
    server us/txn or None)."""
    snap0 = server.snapshot() if server else None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    stdout = run_checked(cmd, env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    snap1 = server.settle(snap0[2]) if server else None
    tps = summary_figure(stdout, r"^tps = ([0-9.]+) \(without")
    n = summary_figure(stdout, r"^number of transactions actually processed: (\d+)", int)
    user = (after.ru_utime - before.ru_utime) * 1e6 / n
    sys_ = (after.ru_stime - before.ru_stime) * 1e6 / n
    srv = None
    if server:
        srv = ((snap1[0] - snap0[0]) + (snap1[1] - snap0[1])) * 1e6 / n
    return tps, user + sys_, user, sys_, srv
