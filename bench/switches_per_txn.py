#!/usr/bin/env python3
"""Context switches per transaction of the backends and of the client, pgrig
bench against pgbench (issue 16: does either client make the server sleep or
be preempted more often?).

Each round runs both tools (the order alternating) with the same options
against the local embedded cluster: `-n -S -M MODE -c 8 -j 2 -T 5`.  One
second into a run, the script lists the postmaster's children that are client
backends ("[local]" in their title), reads the voluntary and involuntary
context switches of every thread of those backends and of the client process
from /proc/<pid>/task/*/status, reads them again three seconds later, and
divides the differences by the transactions of those three seconds (the
tool's own tps times the interval).  Reads stay inside the run, so start-up
and teardown are left out.  Both tools must run on this machine.

  bench/switches_per_txn.py [--mode prepared|simple] [--rounds N]

Environment: PGRIG_HOME (the embedded cluster; default ~/.pgrig), PGRIG
(default build/pgrig of this tree), PGBENCH (default PostgreSQL 15's).
"""
import argparse
import os
import re
import subprocess
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOME = os.environ.get("PGRIG_HOME", os.path.expanduser("~/.pgrig"))
PGRIG = os.environ.get("PGRIG", os.path.join(HERE, "build", "pgrig"))
PGBENCH = os.environ.get("PGBENCH", "/usr/lib/postgresql/15/bin/pgbench")
SOCK = os.path.join(HOME, "run")


def postmaster():
    with open(os.path.join(HOME, "data", "postmaster.pid")) as f:
        return int(f.readline())


def client_backends(pm):
    out = []
    for tid in os.listdir(f"/proc/{pm}/task"):
        with open(f"/proc/{pm}/task/{tid}/children") as f:
            for child in f.read().split():
                try:
                    with open(f"/proc/{child}/cmdline") as c:
                        if "[local]" in c.read():
                            out.append(int(child))
                except OSError:
                    pass  # exited meanwhile
    return out


def switches(pid):
    """(voluntary, involuntary) summed over the threads of pid; (0, 0) if gone."""
    vol = invol = 0
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches"):
                        vol += int(line.split()[1])
                    elif line.startswith("nonvoluntary_ctxt_switches"):
                        invol += int(line.split()[1])
    except OSError:
        pass
    return vol, invol


def one_run(tool, mode, pm):
    cmd = [PGRIG, "bench"] if tool == "pgrig" else [PGBENCH]
    cmd += ["-n", "-S", "-M", mode, "-c", "8", "-j", "2", "-T", "5",
            "-h", SOCK, "-U", "postgres", "pgrig"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        time.sleep(1.0)
        backends = client_backends(pm)
        b0 = [switches(b) for b in backends]
        c0 = switches(p.pid)
        t0 = time.monotonic()
        time.sleep(3.0)
        b1 = [switches(b) for b in backends]
        c1 = switches(p.pid)
        interval = time.monotonic() - t0
    finally:
        out = p.communicate(timeout=60)[0]
    m = re.search(r"tps = ([0-9.]+)", out)
    if p.returncode != 0 or m is None:
        raise SystemExit(f"{tool} failed (exit {p.returncode}): {out[-500:]}")
    txns = float(m.group(1)) * interval
    per = lambda after, before, k: sum(a[k] - b[k] for a, b in zip(after, before)) / txns
    return {"tps": float(m.group(1)), "backends": len(backends),
            "backend_vol": per(b1, b0, 0), "backend_invol": per(b1, b0, 1),
            "client_vol": (c1[0] - c0[0]) / txns, "client_invol": (c1[1] - c0[1]) / txns}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mode", default="prepared", choices=["prepared", "simple", "extended"])
    ap.add_argument("--rounds", type=int, default=6)
    args = ap.parse_args()
    pm = postmaster()
    print(f"{args.rounds} rounds, -M {args.mode} -c 8 -j 2; per transaction:")
    for i in range(args.rounds):
        for tool in (["pgrig", "pgbench"] if i % 2 == 0 else ["pgbench", "pgrig"]):
            r = one_run(tool, args.mode, pm)
            print(f"{tool:8s} tps {r['tps']:8.0f}  backends ({r['backends']}) voluntary "
                  f"{r['backend_vol']:.3f} involuntary {r['backend_invol']:.3f}  client voluntary "
                  f"{r['client_vol']:.3f} involuntary {r['client_invol']:.3f}", flush=True)


if __name__ == "__main__":
    main()
