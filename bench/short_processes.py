#!/usr/bin/env python3
"""bench/short_processes.py - the fixed cost of a recorded process, on a
build-like workload: `make -j2` over STEPS phony targets, each running
bench/small_steps.c (a dynamic C program that allocates and frees 300 blocks).

usage: bench/short_processes.py [--build DIR] [--rounds N] [--steps N]
                                [--heaptrack-steps N] [--no-heaptrack]
                                [--baseline DIR] [--workload W]

Round after round (A B C D A B C D ...) it runs the workload
  native       make alone
  mprof        `mprof run -q -o T -- make ...` (exact mode: make and every
               step get a trace)
  mprof-base   the same with DIR/cli/mprof (--baseline: another build tree,
               to compare a change with what it changes, in the same rounds)
and, at --heaptrack-steps steps (heaptrack starts a shell script, an
interpreter and a compressor for each program, about a second a process
here, so 1,000 steps would take minutes a round):
  native-h     make alone, the baseline of the next
  heaptrack    each step run as `heaptrack -o T.%p ./small_steps`
--workload picks what runs instead of make (heaptrack is then skipped):
  true   `sh -c` running /bin/true STEPS times (1 process each)
  pipe   `sh -c` running `echo x | sed s/x/y/ | cat` STEPS times (a
         subshell fork child for echo, sed and cat: 3 processes each)
  cc     `make -j2` compiling STEPS small C files with cc -O2 -c (cc, cc1,
         as: 3 processes each)
and prints medians of wall time and CPU time (user+sys of the whole process
tree, from wait4), the cost a process (median minus native's, over the
number of processes: steps + 1 for make) in ms, and the ratios.  Traces go
to a folder on /dev/shm when there is one and are removed between runs.
Timing is never part of `make check`: these machines are shared and noisy;
state the load (`uptime`) with the figures.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)


def run_tree(argv, cwd):
    """Runs argv in cwd; returns (wall_s, cpu_s) of it and its descendants."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"short_processes.py: {argv[0]} failed (status {status:#x})")
    return wall, ru.ru_utime + ru.ru_stime


def write_makefile(work, steps):
    with open(os.path.join(work, "Makefile"), "w") as f:
        f.write(f"STEPS := $(shell seq 1 {steps})\n"
                ".PHONY: all $(STEPS)\nall: $(STEPS)\n"
                "$(STEPS):\n\t@$(WRAP) ./small_steps\n")


# The --workload loops: (argv of the unprofiled run, processes a step).
LOOPS = {
    "true": (lambda n: ["sh", "-c", f"for i in $(seq {n}); do /bin/true; done"], 1),
    "pipe": (lambda n: ["sh", "-c", f"for i in $(seq {n}); do echo x | sed s/x/y/ | cat; done"], 3),
}


def write_cc_project(work, steps):
    """STEPS small C files and a Makefile compiling them to objects."""
    for i in range(steps):
        with open(os.path.join(work, f"f{i}.c"), "w") as f:
            f.write(f"#include <stdio.h>\n#include <stdlib.h>\n"
                    f"int f{i}(int n) {{ char *p = malloc(n); int s = 0;\n"
                    f"  for (int k = 0; k < n; k++) s += snprintf(p, n, \"%d\", k);\n"
                    f"  free(p); return s; }}\n")
    with open(os.path.join(work, "Makefile.cc"), "w") as f:
        f.write(f"OBJS := $(patsubst %,f%.o,$(shell seq 0 {steps - 1}))\n"
                "all: $(OBJS)\n%.o: %.c\n\t@cc -O2 -c $< -o $@\n"
                "clean:\n\t@rm -f $(OBJS)\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=SRC, help="the build tree (default: the source tree)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--heaptrack-steps", type=int, default=100)
    ap.add_argument("--no-heaptrack", action="store_true")
    ap.add_argument("--baseline", help="another build tree, run as mprof-base")
    ap.add_argument("--workload", choices=["make", "true", "pipe", "cc"], default="make")
    args = ap.parse_args()
    if args.workload != "make":
        args.no_heaptrack = True
    mprof = os.path.join(os.path.abspath(args.build), "cli", "mprof")
    heaptrack = None if args.no_heaptrack else shutil.which("heaptrack")
    if not args.no_heaptrack and not heaptrack:
        print("(heaptrack not installed: its columns are skipped)")
    work = tempfile.mkdtemp(prefix="mprof-short-")
    traces = tempfile.mkdtemp(prefix="mprof-short-",
                              dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    try:
        subprocess.run([os.environ.get("CC", "cc"), "-O2",
                        os.path.join(HERE, "small_steps.c"), "-o",
                        os.path.join(work, "small_steps")], check=True)
        make = ["make", "-s", "-j2", "-f", os.path.join(work, "Makefile")]
        per_step = 1
        if args.workload in LOOPS:
            make, per_step = LOOPS[args.workload][0](args.steps), LOOPS[args.workload][1]
        elif args.workload == "cc":
            write_cc_project(work, args.steps)
            make, per_step = ["make", "-s", "-j2", "-f", os.path.join(work, "Makefile.cc")], 3
        trace = os.path.join(traces, "t")
        variants = [("native", args.steps, make),
                    ("mprof", args.steps, [mprof, "run", "-q", "-o", trace, "--"] + make)]
        if args.baseline:
            base_mprof = os.path.join(os.path.abspath(args.baseline), "cli", "mprof")
            variants.append(("mprof-base", args.steps,
                             [base_mprof, "run", "-q", "-o", trace, "--"] + make))
        if heaptrack:
            variants += [("native-h", args.heaptrack_steps, make),
                         ("heaptrack", args.heaptrack_steps,
                          make + [f"WRAP={heaptrack} -o {trace}.%p"])]
        wall = {v[0]: [] for v in variants}
        cpu = {v[0]: [] for v in variants}
        for _ in range(args.rounds):
            for name, steps, argv in variants:
                write_makefile(work, steps)
                if args.workload == "cc":
                    subprocess.run(["make", "-s", "-f", os.path.join(work, "Makefile.cc"),
                                    "clean"], cwd=work, check=True)
                for f in os.listdir(traces):
                    os.unlink(os.path.join(traces, f))
                w, c = run_tree(argv, work)
                wall[name].append(w)
                cpu[name].append(c)
        med = {n: (statistics.median(wall[n]), statistics.median(cpu[n])) for n in wall}
        what = {"make": "make -j2 over small_steps", "true": "sh: /bin/true",
                "pipe": "sh: echo | sed | cat", "cc": "make -j2: cc -O2 -c"}[args.workload]
        print(f"{what} x{args.steps}, medians of {args.rounds} interleaved rounds")
        print("| variant | processes | wall s | cpu s | wall ms/process above native "
              "| cpu ms/process above native | wall x | cpu x |")
        print("|---|---|---|---|---|---|---|---|")
        for name, steps, _ in variants:
            base = "native-h" if name in ("native-h", "heaptrack") else "native"
            w, c = med[name]
            bw, bc = med[base]
            procs = steps * per_step + 1
            print(f"| {name} | {procs} | {w:.3f} | {c:.3f} | {(w - bw) * 1e3 / procs:.2f} "
                  f"| {(c - bc) * 1e3 / procs:.2f} | x{w / bw:.2f} | x{c / bc:.2f} |")
        if heaptrack:
            mp = (med["mprof"][1] - med["native"][1]) / (args.steps + 1)
            hp = (med["heaptrack"][1] - med["native-h"][1]) / (args.heaptrack_steps + 1)
            mw = (med["mprof"][0] - med["native"][0]) / (args.steps + 1)
            hw = (med["heaptrack"][0] - med["native-h"][0]) / (args.heaptrack_steps + 1)
            print(f"mprof's cost a process / heaptrack's: cpu {mp / hp:.3f}, wall {mw / hw:.3f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(traces, ignore_errors=True)


if __name__ == "__main__":
    main()
