#!/usr/bin/env python3
"""bench/seek.py - what the chunk index saves a report from a time on:
`mprof report TRACE --from T` with and without the index (MPROF_NO_INDEX=1,
a testing aid of mprof-report(1)), interleaved, round after round (the order
reversed every other round), and the medians of wall time and peak RSS.

usage: bench/seek.py [--mprof PATH] [--rounds N] [--from T,...] TRACE

Each report is one process (mprof execs the analyzer), so its wait4 rusage
is the analyzer's: ru_maxrss is its peak RSS, user + system time its CPU
time (both threads: the reader's prefetcher too), steadier than wall time
on a loaded host.  Reports write their text to
/dev/null; both are checked to be the same first.  Timing is never part of
`make check`: these machines are shared and noisy.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run(argv, env):
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.monotonic() - t0
    if status != 0:
        sys.exit("failed: %s" % " ".join(argv))
    return wall, ru.ru_maxrss, ru.ru_utime + ru.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mprof", default=os.path.join(os.path.dirname(HERE), "cli", "mprof"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--from", dest="times", default="90%")
    ap.add_argument("trace")
    args = ap.parse_args()
    env_ix = dict(os.environ)
    env_ix.pop("MPROF_NO_INDEX", None)
    env_no = dict(env_ix, MPROF_NO_INDEX="1")
    print("trace %s: %.1f MB" % (args.trace, os.path.getsize(args.trace) / 1e6))
    for t in args.times.split(","):
        argv = [args.mprof, "report", args.trace, "--from", t, "-n", "5"]
        a = subprocess.run(argv, env=env_no, capture_output=True).stdout
        b = subprocess.run(argv, env=env_ix, capture_output=True).stdout
        print("--from %s: reports %s" % (t, "the same" if a == b else "DIFFER"))
        res = {"index": [], "no index": []}
        for r in range(args.rounds):
            order = [("no index", env_no), ("index", env_ix)]
            if r % 2:
                order.reverse()
            for name, env in order:
                res[name].append(run(argv, env))
        med = {}
        for name in ("no index", "index"):
            walls = [w for w, _, _ in res[name]]
            cpus = [c for _, _, c in res[name]]
            rss = [k for _, k, _ in res[name]]
            med[name] = (statistics.median(walls), statistics.median(cpus),
                         statistics.median(rss))
            print("  %-8s wall %.2f s (%s), CPU %.2f s (%s), peak RSS %.1f MiB (%s)" % (
                name, med[name][0], " ".join("%.2f" % w for w in walls),
                med[name][1], " ".join("%.2f" % c for c in cpus),
                med[name][2] / 1024, " ".join("%.1f" % (k / 1024) for k in rss)))
        print("  index/no index: wall x%.2f, CPU x%.2f, peak RSS x%.2f" % tuple(
            med["index"][k] / med["no index"][k] for k in range(3)))


main()
