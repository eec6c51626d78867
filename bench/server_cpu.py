"""CPU used by a local PostgreSQL cluster, read from /proc (issue 16, point 3).

Used by bench/measure.py (for bench_vs_pgbench.sh and engine_paths.sh) to put the
server's CPU per transaction beside the client's: a client that makes the
server work harder per transaction is not leaner.

How it counts.  Every server process is the postmaster or a child of it
(backends, parallel workers, checkpointer, walwriter, autovacuum...).  A
snapshot is the sum of
  * the postmaster's own utime+stime,
  * the postmaster's cutime+cstime: every child it has reaped with waitpid
    (PostgreSQL reaps each backend as soon as it exits), so backends that
    ended during a run are in here in full, and
  * utime+stime+cutime+cstime of every live child (from
    /proc/<postmaster>/task/*/children, or a scan of /proc if that is absent).
A child that exits between the reads would be counted twice or not at all;
the postmaster's cutime/cstime is read again at the end and the snapshot is
retaken if it moved.  After a run, `settle()` waits (bounded) until the
number of live children is back to what it was before the run, so the run's
backends have been reaped into cutime/cstime when the closing snapshot is
taken.  The difference of two snapshots is the cluster's CPU in between:
the run's backends (including their start-up) and whatever background work
happened meanwhile (autovacuum, checkpoints), which both tools see alike.
Resolution is one clock tick (1/SC_CLK_TCK s, 10 ms) per process read.
"""
import os
import time

TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid):
    """(ppid, utime, stime, cutime, cstime) in ticks, from /proc/<pid>/stat."""
    with open("/proc/%d/stat" % pid) as f:
        s = f.read()
    rest = s[s.rindex(")") + 2:].split()  # rest[0] is field 3 (state)
    return (int(rest[1]),) + tuple(int(x) for x in rest[11:15])


def _children(pid):
    try:
        kids = []
        for tid in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/children" % (pid, tid)) as f:
                kids += [int(x) for x in f.read().split()]
        return kids
    except FileNotFoundError:  # kernel without CONFIG_PROC_CHILDREN
        kids = []
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    if _stat(int(name))[0] == pid:
                        kids.append(int(name))
                except (FileNotFoundError, ProcessLookupError):
                    pass
        return kids


class ServerCpu:
    """Snapshots of one local cluster's CPU; data_dir holds postmaster.pid."""

    def __init__(self, data_dir):
        with open(os.path.join(data_dir, "postmaster.pid")) as f:
            self.pid = int(f.readline())
        _stat(self.pid)  # fails now if the postmaster is not running here

    def snapshot(self):
        """(user_s, sys_s, live_children) of the whole cluster so far."""
        for _ in range(20):
            _, ut, st, cut, cst = _stat(self.pid)
            kids = _children(self.pid)
            user, sys_ = ut + cut, st + cst
            for k in kids:
                try:
                    _, a, b, c, d = _stat(k)
                except (FileNotFoundError, ProcessLookupError):
                    continue  # reaped meanwhile: the re-read below catches it
                user += a + c
                sys_ += b + d
            if _stat(self.pid)[3:] == (cut, cst):
                return user / TICK, sys_ / TICK, len(kids)
        raise RuntimeError("server_cpu: children of postmaster %d kept exiting "
                           "during 20 snapshots; try again on a quieter server" % self.pid)

    def settle(self, live_before, timeout_s=5.0):
        """Waits until at most live_before children are alive (the run's
        backends reaped), at most timeout_s; returns the closing snapshot."""
        deadline = time.monotonic() + timeout_s
        while True:
            snap = self.snapshot()
            if snap[2] <= live_before or time.monotonic() >= deadline:
                return snap
            time.sleep(0.02)


def open_or_none(data_dir):
    """A ServerCpu for a running local cluster, or None (remote or stopped)."""
    try:
        return ServerCpu(data_dir)
    except (OSError, ValueError):
        return None
