#!/usr/bin/env python3
"""bench/bench.py - mprof's benchmark: ratios against the unprofiled program,
a do-nothing preload shim and heaptrack, from one interleaved run.

usage: bench/bench.py [--build DIR] [--shared DIR] [--rounds N] [--only NAME,...]
                      [--quick] [--no-heaptrack] [--cold-symbols]
       bench/bench.py --scaling [--build DIR]
       bench/bench.py --pairs [--build DIR] [--rounds N]
       bench/bench.py --threads|--processes [--build DIR] [--rounds N]

For each workload it runs, round after round (A B C D A B C D ...), the
unprofiled program, the program under bench/noop_shim.c (the floor of
interposition), under `mprof run`, and under heaptrack (installed with apt when
missing and possible; skipped, with a note, otherwise), and prints medians:
  wall x, cpu x      wall and CPU time (user+sys of the whole process tree)
                     divided by the unprofiled run's
  rss x              peak memory of the process tree (launcher and helpers
                     included; sum of proportional set sizes, sampled every
                     5 ms) divided by the unprofiled run's; measured in a
                     second run of each variant in the round, because the
                     sampler's CPU time and the mmap lock it takes in every
                     process it reads slow down what it watches (the
                     two-thread microbenchmark: x3.1 sampled, x2.0 not)
  B/alloc            trace bytes per allocation
then `mprof report` against `heaptrack_print` on the traces of the last round,
interleaved like the runs, with the same number of rounds but the order
reversed every other round: medians of their wall time and peak RSS, and of
the per-round ratios of the two.  Just before and just after the runs it
times a fixed loop on each processor and prints their speeds at that moment,
marked UNEVEN when one runs at less than 0.8 of the fastest's (a shared host
can slow one processor for minutes; the two checks say nothing of the runs
between them).  mprof's symbol cache is the bench's own: cold in the first
round, warm after it (--cold-symbols: cold in every round).  Workload
sources and inputs come from the shared bench folder (--shared, default
../shared/bench next to the source tree).
With --pairs it instead times malloc(64)+free pairs inside bench/pair_ns.c
(10^7 per run, thread CPU time), round after round: unprofiled, under the
do-nothing shim, under `mprof run --paused` (recording stopped the whole run:
set mode), under `mprof run` with the program stopping recording first (log
mode), under `mprof run --sampled`, under `mprof run` (exact) and under
`mprof run --paused` with the program starting recording (exact, set mode), and prints
the median ns per pair of each and what each adds to the shim's; then the
same for frees of 10^6 shuffled blocks (bench/free_loop.c: each free waits
for a cache miss) and for reallocs of small blocks (bench/realloc_loop.c)
unprofiled, under the shim, paused and sampled.
With --threads it instead runs bench/burst_threads.c with 2, 32 and 128
threads allocating at once (6.1 M allocations in all at each count),
unprofiled and in an exact run, and prints the
median wall times and the ring waits of each (threads waiting for room).
With --processes it instead times work made of many short processes,
round after round, unprofiled, under the do-nothing shim, in a sampled and
in an exact run (traces in a folder on /dev/shm when there is one, removed
between runs): a parallel build (`make -j2` of 40 small C files and a
link, 127 processes), and bench/fork_loop.c forking 300 children (the
parent's mean time in fork() and waitpid() per child, microseconds).
With --scaling it instead profiles bench/churn_n.c at 10^6, 10^7 and 10^8
allocations (constant live blocks, sites and stacks) and prints `mprof report`
time and peak memory for each, to show that analysis time grows linearly and
its memory stays flat.
Timing is never part of `make check`: these machines are shared and noisy.
"""
import argparse
import json
import math
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def tree_pids(root):
    """root and all its descendants, via /proc/PID/task/TID/children."""
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        try:
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except OSError:
            pass
    return out


def rss_kib(pid):
    """Proportional set size: shared pages (the recorder's rings, which the
    program and the launcher both map, and shared libraries) are split
    between the processes that map them instead of counted in each."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run_measured(argv, env=None, cwd=None, stdin=None, sample_memory=True):
    """Runs argv; returns (wall_s, cpu_s, peak_tree_rss_kib); the peak is 0
    unless sample_memory (the sampler reads /proc every 5 ms: its CPU time
    and the target's mmap lock it takes would slow what is timed)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, env=env, cwd=cwd, stdin=stdin,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = [0]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], sum(rss_kib(q) for q in tree_pids(p.pid)))
            done.wait(0.005)

    th = threading.Thread(target=sample, daemon=True)
    if sample_memory:
        th.start()
    try:
        _, status, ru = os.wait4(p.pid, 0)
    except BaseException:
        # (Ctrl-C, say: the child must not outlive the bench, nor the
        # sampler poll a zombie)
        done.set()
        p.kill()
        p.wait()
        raise
    wall = time.perf_counter() - t0
    done.set()
    if sample_memory:
        th.join()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise RuntimeError(f"{argv[0]} exited with {p.returncode}")
    # ru_maxrss is not used: a vfork'ed child inherits this script's
    # high-water mark through exec, so only the sampled tree sum is reliable
    return wall, ru.ru_utime + ru.ru_stime, peak[0]


def measure_round(commands, cwd, before=None):
    """One round: every command (name -> (argv, env), in the dict's order)
    timed with no sampler, then every one run again to sample its peak
    memory (the sampler slows what it watches); before(name), when given,
    runs before each run.  Returns name -> (wall s, cpu s, peak KiB)."""
    out = {}
    for sampled in (False, True):
        for k, (argv, env) in commands.items():
            if before:
                before(k)
            m = run_measured(argv, env=env, cwd=cwd, sample_memory=sampled)
            out[k] = out[k][:2] + m[2:] if sampled else m
    return out


def analysis_rounds(commands, cwd, rounds):
    """Runs the analysis commands (name -> argv) interleaved like the runs,
    but with the order reversed every other round: rounds times, each round
    timing every command (unsampled) and then sampling its peak memory.
    Returns name -> (median wall s, median peak KiB) and, with two commands,
    the medians over the rounds of the per-round ratios of the first to the
    second as "ratio" -> (wall, memory), so that one slow run, or the host
    taking a processor away for a while, moves no figure by itself.  A
    round whose sampler saw no memory (a run shorter than its 5 ms period)
    gives no memory ratio; NaN when none does."""
    names = list(commands)
    runs = [measure_round({k: (commands[k], None) for k in (names if r % 2 == 0 else names[::-1])},
                          cwd) for r in range(rounds)]
    wall = {k: [m[k][0] for m in runs] for k in names}
    peak = {k: [m[k][2] for m in runs] for k in names}
    out = {k: (statistics.median(wall[k]), statistics.median(peak[k])) for k in names}
    if len(names) == 2:
        a, b = names
        mem = [x / y for x, y in zip(peak[a], peak[b]) if x and y]
        out["ratio"] = (statistics.median(x / max(y, 1e-9) for x, y in zip(wall[a], wall[b])),
                        statistics.median(mem) if mem else float("nan"))
    return out


def ensure_heaptrack():
    if shutil.which("heaptrack") and shutil.which("heaptrack_print"):
        return True
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("bench: installing heaptrack with apt-get", file=sys.stderr)
        r = subprocess.run(["apt-get", "install", "-y", "-qq", "heaptrack"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if r.returncode == 0 and shutil.which("heaptrack"):
            return True
    print("bench: heaptrack is not installed and could not be installed: its columns are empty",
          file=sys.stderr)
    return False


def prepare(work, shared, quick, long=False):
    cc = os.environ.get("CC", "cc")
    cxx = os.environ.get("CXX", "c++")
    sh([cc, "-O2", "-g", "-pthread", os.path.join(shared, "mallocbench.c"),
        "-o", os.path.join(work, "mallocbench")])
    sh([cxx, "-O2", "-g", os.path.join(shared, "cxxchurn.cpp"), "-o", os.path.join(work, "cxxchurn")])
    sh([cc, "-O2", "-shared", "-fPIC", os.path.join(HERE, "noop_shim.c"),
        "-o", os.path.join(work, "noop_shim.so"), "-ldl"])
    gen = [sys.executable, os.path.join(shared, "gen_inputs.py"), work]
    # 150 C functions: cc1 runs ~1.5 s here, as in the peers' figures of
    # ../shared/bench/README.md (the generator's default, 1500, takes 16 s)
    if quick:
        gen += ["--sql-rows", "3000", "--c-funcs", "30"]
    elif long:
        gen += ["--sql-rows", str(60000 * LONG), "--c-funcs", "150"]
    else:
        gen += ["--c-funcs", "150"]
    sh(gen, stdout=subprocess.DEVNULL)
    shutil.copy(os.path.join(shared, "pyalloc.py"), work)


# --long: each workload (but cc1, 1.5 s already) made this many times longer,
# about 2 s, so that a run's fixed cost (two execs, the recorder's set-up,
# symbolization: about 4 ms) weighs 0.2% instead of 2%
LONG = 8


def workloads(work, quick, long=False):
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else shutil.which("python3")
    cc1 = subprocess.run(["gcc", "-print-prog-name=cc1"], capture_output=True,
                         text=True).stdout.strip()
    k = LONG if long else 1
    n = "150000" if quick else str(1500000 * k)
    return {
        "mallocbench": ([os.path.join(work, "mallocbench"), "-t", "2", "-n", n], {}),
        "sqlite": (["sqlite3", ":memory:", ".read bench.sql"], {}),
        "python": ([python, "pyalloc.py", str(k)], {"PYTHONMALLOC": "malloc"}),
        "cc1": ([cc1, "-quiet", "big.c", "-O2", "-o", "/dev/null"], {}),
        "cxxchurn": ([os.path.join(work, "cxxchurn"), "1" if quick else str(3 * k), "60000"], {}),
    }


def files_size(prefix_dir, prefix):
    return sum(os.path.getsize(os.path.join(prefix_dir, f))
               for f in os.listdir(prefix_dir) if f.startswith(prefix))


def clean(dirname, prefix):
    for f in os.listdir(dirname):
        if f.startswith(prefix):
            os.unlink(os.path.join(dirname, f))


# prints the seconds of its loop alone (the interpreter's start-up, part of it
# on the parent's processor and on the disk, would pull every reading to 1)
SPIN = ("import time\nt = time.perf_counter()\nx = 0\nfor i in range(3000000):\n"
        "    x += i\nprint(time.perf_counter() - t)\n")


def processor_speeds(tries=3):
    """Speed of each processor the bench may use, as a fraction of the
    fastest's, at this moment (a check of a second or two): the best of
    `tries` runs of a fixed Python loop (~0.2 s) pinned to it, the
    processors taking turns within each try.  On a virtual machine whose
    host shares its cores, one processor may run at a fraction of the
    other's speed for minutes (seen on a 2-CPU VM here: a C spin loop took
    1.2 s on one and 3.2-3.4 s on the other, and which one was slow changed
    within minutes), and then a ratio depends on where the scheduler put
    each run."""
    cpus = sorted(os.sched_getaffinity(0))
    seconds = {cpu: float("inf") for cpu in cpus}
    for _ in range(tries):
        for cpu in cpus:
            out = subprocess.run([sys.executable, "-c", SPIN], check=True,
                                 capture_output=True, text=True,
                                 preexec_fn=lambda c=cpu: os.sched_setaffinity(0, {c}))
            seconds[cpu] = min(seconds[cpu], float(out.stdout))
    fastest = min(seconds.values())
    return {cpu: fastest / t for cpu, t in seconds.items()}


def speeds_line(speeds):
    """One line naming each processor's speed, with a warning when they differ
    by more than a fifth."""
    text = ", ".join(f"cpu{c} {v:.2f}" for c, v in speeds.items())
    if min(speeds.values()) < 0.8:
        text += " (UNEVEN: ratios mix fast and slow processors; expect more noise)"
    return f"processor speeds at that moment, fraction of the fastest: {text}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.environ.get("MPROF_BUILD", SRC),
                    help="build tree holding cli/mprof (default: the source tree)")
    ap.add_argument("--shared", default=os.path.join(SRC, "..", "shared", "bench"))
    ap.add_argument("--rounds", type=int, default=5, help="rounds (at least 1; 5 or more "
                    "for the figures the README quotes)")
    ap.add_argument("--only", default="")
    ap.add_argument("--quick", action="store_true", help="small inputs, for a smoke test")
    ap.add_argument("--long", action="store_true",
                    help=f"inputs {LONG} times larger (cc1's as it is): runs of about 2 s, "
                         "where a run's fixed cost weighs 0.2%% instead of 2%%")
    ap.add_argument("--no-heaptrack", action="store_true")
    ap.add_argument("--cold-symbols", action="store_true",
                    help="empty mprof's symbol cache before every run (default: a cache of "
                         "the bench's own, cold in the first round only, as for a user "
                         "profiling the same program again)")
    ap.add_argument("--run-args", default="",
                    help="extra options for `mprof run`, e.g. '--sampled' (sampled mode at the "
                         "default rate); B/alloc then divides by the estimated allocations")
    ap.add_argument("--pairs", action="store_true",
                    help="ns per malloc+free pair: paused, stopped, sampled, exact, the shim")
    ap.add_argument("--scaling", action="store_true",
                    help="report time and memory at 1e6, 1e7, 1e8 allocations")
    ap.add_argument("--threads", action="store_true",
                    help="2, 32 and 128 threads allocating at once: wall time and ring waits")
    ap.add_argument("--processes", action="store_true",
                    help="a parallel build and a fork loop: the cost of many short processes")
    args = ap.parse_args()

    mprof = os.path.join(os.path.abspath(args.build), "cli", "mprof")
    if not os.access(mprof, os.X_OK):
        sys.exit(f"bench: {mprof} not found: build mprof first (or pass --build)")
    if args.scaling:
        return scaling(mprof)
    if args.pairs:
        return pairs(mprof, max(args.rounds, 1))
    if args.threads:
        return threads(mprof, max(args.rounds, 1))
    if args.processes:
        return processes(mprof, max(args.rounds, 1))
    if not os.path.isdir(args.shared):
        sys.exit(f"bench: workload folder {args.shared} not found (--shared)")
    if args.rounds < 1:
        sys.exit("bench: --rounds takes 1 or more")
    work = tempfile.mkdtemp(prefix="mprof-bench-")
    try:
        bench(args, mprof, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def bench(args, mprof, work):
    """The interleaved runs and the table (see the module's comment); work is
    a scratch folder, the caller's."""
    loads = workloads(work, args.quick, args.long)
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in loads]
        if not names or unknown:
            sys.exit(f"bench: no workload named {', '.join(map(repr, unknown)) or repr(args.only)}"
                     f" (--only takes {', '.join(loads)})")
        loads = {k: v for k, v in loads.items() if k in names}
    have_ht = not args.no_heaptrack and ensure_heaptrack()
    prepare(work, os.path.abspath(args.shared), args.quick, args.long)
    speeds_before = processor_speeds()
    print(f"bench: {speeds_line(speeds_before)}", file=sys.stderr)

    rows = []
    for name, (argv, extra_env) in loads.items():
        env = dict(os.environ, **extra_env)
        symbol_cache = os.path.join(work, "symbol-cache")
        variants = {
            "base": (argv, env),
            "noop": (argv, dict(env, LD_PRELOAD=os.path.join(work, "noop_shim.so"))),
            "mprof": ([mprof, "run", "-q", "-o", os.path.join(work, "m.trace")] +
                      shlex.split(args.run_args) + ["--"] + argv,
                      dict(env, MPROF_SYMBOL_CACHE=symbol_cache)),
        }
        if have_ht:
            variants["heaptrack"] = (["heaptrack", "-o", os.path.join(work, "h")] + argv, env)
        def before(k):
            clean(work, {"mprof": "m.trace", "heaptrack": "h."}.get(k, "no such file"))
            if k == "mprof" and args.cold_symbols:
                shutil.rmtree(symbol_cache, ignore_errors=True)

        res = {k: [] for k in variants}
        for r in range(args.rounds):
            for k, m in measure_round(variants, work, before).items():
                res[k].append(m)
            print(f"bench: {name} round {r + 1}/{args.rounds} done", file=sys.stderr)
        # trace sizes and analysis cost, from the last round's traces
        summary = json.loads(subprocess.run(
            [mprof, "report", "--format", "json", os.path.join(work, "m.trace")],
            capture_output=True, text=True, check=True).stdout)
        if isinstance(summary, list):
            summary = summary[0]
        allocs = summary["summary"]["allocations"]
        row = {"name": name, "allocs": allocs,
               "mprof_bytes": files_size(work, "m.trace")}
        analyses = {"report": [mprof, "report", os.path.join(work, "m.trace")]}
        if have_ht:
            row["ht_bytes"] = files_size(work, "h.")
            htfile = [f for f in os.listdir(work) if f.startswith("h.")][0]
            analyses["ht_print"] = ["heaptrack_print", "-f", os.path.join(work, htfile)]
        row.update(analysis_rounds(analyses, work, args.rounds))
        base = res["base"]
        for k in variants:
            if k == "base":
                continue
            # ratios per round (A and B from the same round), then the median
            row[k] = tuple(statistics.median(res[k][i][j] / max(base[i][j], 1e-9)
                                             for i in range(args.rounds)) for j in range(3))
        row["base"] = tuple(statistics.median(x[j] for x in base) for j in range(3))
        rows.append(row)

    print()
    print(f"rounds: {args.rounds} (medians; ratios are taken within each round)")
    print(f"before the runs, {speeds_line(speeds_before)}")
    print(f"after the runs, {speeds_line(processor_speeds())}")
    hdr = ("workload", "base s", "base MiB", "allocs", "noop wall", "mprof wall", "mprof cpu",
           "mprof rss", "mprof B/alloc", "ht wall", "ht rss", "ht B/alloc",
           "report s", "report MiB", "ht_print s", "ht_print MiB", "report/ht_print s",
           "report/ht_print MiB")
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr))
    for r in rows:
        ht = r.get("heaptrack")
        cells = [r["name"], f"{r['base'][0]:.2f}", f"{r['base'][2] / 1024:.0f}", f"{r['allocs']:,}",
                 f"x{r['noop'][0]:.2f}", f"x{r['mprof'][0]:.2f}", f"x{r['mprof'][1]:.2f}",
                 f"x{r['mprof'][2]:.2f}", f"{r['mprof_bytes'] / max(r['allocs'], 1):.2f}",
                 f"x{ht[0]:.2f}" if ht else "-", f"x{ht[2]:.2f}" if ht else "-",
                 f"{r['ht_bytes'] / max(r['allocs'], 1):.2f}" if ht else "-",
                 f"{r['report'][0]:.2f}", f"{r['report'][1] / 1024:.0f}",
                 f"{r['ht_print'][0]:.2f}" if ht else "-",
                 f"{r['ht_print'][1] / 1024:.0f}" if ht else "-",
                 f"{r['ratio'][0]:.2f}" if ht else "-",
                 f"{r['ratio'][1]:.2f}" if ht and not math.isnan(r['ratio'][1]) else "-"]
        print("| " + " | ".join(cells) + " |")


SCALING_ROUNDS = 3  # report runs per size, timed and sampled; medians


def pairs(mprof, rounds):
    """ns per malloc+free pair in each mode, medians of interleaved rounds."""
    work = tempfile.mkdtemp(prefix="mprof-pairs-")
    try:
        cc = os.environ.get("CC", "cc")
        prog = os.path.join(work, "pair_ns")
        sh([cc, "-O2", "-g", "-I" + os.path.join(SRC, "include"), os.path.join(HERE, "pair_ns.c"),
            "-o", prog])
        shim = os.path.join(work, "noop_shim.so")
        sh([cc, "-O2", "-shared", "-fPIC", os.path.join(HERE, "noop_shim.c"), "-o", shim, "-ldl"])
        trace = os.path.join(work, "t")
        run = [mprof, "run", "-q", "-o", trace]
        variants = [
            ("unprofiled", [prog, "10000000", "64"], {}),
            ("noop shim", [prog, "10000000", "64"], {"LD_PRELOAD": shim}),
            ("paused (set)", run + ["--paused", "--", prog, "10000000", "64"], {}),
            ("stopped (log)", run + ["--", prog, "10000000", "64", "stop"], {}),
            ("sampled 512K", run + ["--sampled", "--", prog, "10000000", "64"], {}),
            ("exact", run + ["--", prog, "10000000", "64"], {}),
            ("exact (set)", run + ["--paused", "--", prog, "10000000", "64", "start"], {}),
        ]

        def shim_modes(name):
            """bench/NAME.c, built, run with 10^6 operations unprofiled, under
            the shim, paused and sampled."""
            argv = [os.path.join(work, name), "1000000"]
            sh([cc, "-O2", "-g", os.path.join(HERE, name + ".c"), "-o", argv[0]])
            return [("unprofiled", argv, {}), ("noop shim", argv, {"LD_PRELOAD": shim}),
                    ("paused (set)", run + ["--paused", "--"] + argv, {}),
                    ("sampled 512K", run + ["--sampled", "--"] + argv, {})]

        tables = [(variants, "ns/pair", "malloc(64)+free pairs"),
                  (shim_modes("free_loop"), "ns/free", "frees of 10^6 shuffled blocks"),
                  (shim_modes("realloc_loop"), "ns/realloc",
                   "reallocs of 64 blocks, 16-143 bytes")]
        tables = [({name: [] for name, _, _ in runs}, runs, unit, what)
                  for runs, unit, what in tables]
        for _ in range(rounds):
            for table, runs, _, _ in tables:
                for name, argv, extra in runs:
                    clean(work, "t")
                    out = subprocess.run(argv, env=dict(os.environ, **extra),
                                         capture_output=True, text=True, check=True).stdout
                    table[name].append(float(out.split()[-1]))
        for table, runs, unit, what in tables:
            base = statistics.median(table["noop shim"])
            print(f"{what}:")
            print(f"{'mode':<16} {unit:>10} {'above shim':>10}  (medians of {rounds}; all runs)")
            for name, _, _ in runs:
                med = statistics.median(table[name])
                all_runs = " ".join(f"{v:.2f}" for v in table[name])
                print(f"{name:<16} {med:10.2f} {med - base:10.2f}  {all_runs}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def threads(mprof, rounds):
    """bench/burst_threads.c with 2, 32 and 128 threads (6.1 M allocations
    in all at each count), unprofiled and in
    an exact run, interleaved: median wall times, their ratio and the ring
    waits `mprof report` counts (threads waiting for room in their ring)."""
    work = tempfile.mkdtemp(prefix="mprof-threads-")
    try:
        cc = os.environ.get("CC", "cc")
        prog = os.path.join(work, "burst_threads")
        sh([cc, "-O2", "-g", "-pthread", os.path.join(HERE, "burst_threads.c"), "-o", prog])
        trace = os.path.join(work, "t")
        print(f"{'threads':>7} {'base s':>7} {'mprof s':>8} {'ratio':>6} {'ring waits':>10}"
              f"  (medians of {rounds})")
        for n in (2, 32, 128):
            # the same 6.1 M allocations at every thread count
            argv = [prog, str(n), str(2048 // n), "3000"]
            base, prof, waits = [], [], []
            for _ in range(rounds):
                t0 = time.perf_counter()
                subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
                base.append(time.perf_counter() - t0)
                clean(work, "t")
                t0 = time.perf_counter()
                subprocess.run([mprof, "run", "-q", "-o", trace, "--"] + argv, check=True,
                               stdout=subprocess.DEVNULL)
                prof.append(time.perf_counter() - t0)
                text = subprocess.run([mprof, "report", trace], check=True, capture_output=True,
                                      text=True).stdout
                m = re.search(r"ring waits (\d+)", text)
                waits.append(int(m.group(1)) if m else -1)
            b, p = statistics.median(base), statistics.median(prof)
            print(f"{n:>7} {b:7.2f} {p:8.2f} {p / b:6.2f} {statistics.median(waits):>10}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


BUILD_FILES = 40


def processes(mprof, rounds):
    """A parallel build and a fork loop, unprofiled, under the shim, sampled
    and exact, interleaved: median wall times and ratios (see the docstring
    at the top)."""
    work = tempfile.mkdtemp(prefix="mprof-processes-")
    traces = tempfile.mkdtemp(prefix="mprof-processes-",
                              dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    try:
        cc = os.environ.get("CC", "cc")
        src = os.path.join(work, "src")
        os.mkdir(src)
        for i in range(BUILD_FILES):
            with open(os.path.join(src, f"f{i}.c"), "w") as f:
                f.write("#include <stdio.h>\n#include <string.h>\n"
                        f"int f{i}(int x) {{ char b[64]; snprintf(b, sizeof b, \"%d\", x); "
                        "return (int)strlen(b) + x; }\n")
        with open(os.path.join(src, "main.c"), "w") as f:
            f.write("int main(void) { return 0; }\n")
        with open(os.path.join(src, "Makefile"), "w") as f:
            f.write("OBJS := $(patsubst %.c,%.o,$(wildcard *.c))\napp: $(OBJS)\n"
                    "\t$(CC) -o $@ $(OBJS)\n%.o: %.c\n\t$(CC) -O1 -c $< -o $@\n")
        fork_loop = os.path.join(work, "fork_loop")
        sh([cc, "-O2", os.path.join(HERE, "fork_loop.c"), "-o", fork_loop])
        shim = os.path.join(work, "noop_shim.so")
        sh([cc, "-O2", "-shared", "-fPIC", os.path.join(HERE, "noop_shim.c"), "-o", shim, "-ldl"])
        trace = os.path.join(traces, "t")
        variants = [("unprofiled", [], {}), ("noop shim", [], {"LD_PRELOAD": shim}),
                    ("sampled", [mprof, "run", "-q", "--sampled", "-o", trace, "--"], {}),
                    ("exact", [mprof, "run", "-q", "-o", trace, "--"], {})]
        loads = [("make -j2", ["make", "-s", "-j2", "-B", "CC=" + cc], src),
                 ("fork_loop 300", [fork_loop, "300"], work)]
        for title, argv, cwd in loads:
            wall = {v[0]: [] for v in variants}
            per_child = {v[0]: [] for v in variants}
            for _ in range(rounds):
                for name, pre, extra in variants:
                    clean(traces, "t")
                    t0 = time.perf_counter()
                    out = subprocess.run(pre + argv, cwd=cwd, env=dict(os.environ, **extra),
                                         check=True, capture_output=True, text=True).stdout
                    wall[name].append(time.perf_counter() - t0)
                    if argv[0] == fork_loop:
                        per_child[name].append(sum(map(float, out.split())))
            base = statistics.median(wall["unprofiled"])
            print(f"{title} (medians of {rounds}):")
            for name, _, _ in variants:
                m = statistics.median(wall[name])
                line = f"  {name:>10}: {m:6.3f} s  x{m / base:.2f}"
                if per_child[name]:
                    line += f"  fork+wait {statistics.median(per_child[name]):6.1f} us a child"
                print(line)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(traces, ignore_errors=True)


def scaling(mprof):
    work = tempfile.mkdtemp(prefix="mprof-scaling-")
    try:
        prog = os.path.join(work, "churn_n")
        sh([os.environ.get("CC", "cc"), "-O2", "-g", os.path.join(HERE, "churn_n.c"), "-o",
            prog])
        print(f"(report: medians of {SCALING_ROUNDS} runs)")
        print("| allocations | mprof run s | trace MiB | B/alloc | report s | report MiB |")
        print("|---|---|---|---|---|---|")
        for n in (10**6, 10**7, 10**8):
            trace = os.path.join(work, f"t{n}")
            run = run_measured([mprof, "run", "-q", "-o", trace, "--", prog, str(n)], cwd=work)
            size = os.path.getsize(trace)
            t, m = analysis_rounds({"report": [mprof, "report", trace]}, work,
                                   SCALING_ROUNDS)["report"]
            print(f"| {n:,} | {run[0]:.1f} | {size / 2**20:.1f} | {size / n:.2f} | {t:.2f} "
                  f"| {m / 1024:.1f} |")
            os.unlink(trace)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
