#!/bin/bash
# diff-jit.sh - `mprof diff` of two runs of a program that allocates from
# code compiled at run time (no module, no symbol, an address that differs
# from run to run, as V8's and the JVM's code does) matches those sites:
# the one site that grew is "changed", none "new" or "vanished", and the
# two sites of one trace that differ only in such frames are summed.
# Before, frames of code outside every module matched by address: two runs
# of node differed in half their sites (6552 new, 6507 vanished of 12400),
# and the top of "grown" was a "new" site that was in both.
# Program and facts: tests/progs/jit_frames.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/jit_frames" "$PROGS_DIR/jit_frames.c"

for k in 1 2; do
	RUN_NAME=run$k mprof_run 60 "$WORK/t$k" -- "$WORK/jit_frames" $k
	[ "$RUN_STATUS" = 77 ] && skip "not x86-64: the program's stubs are x86-64 code"
	expect_eq "run $k: exit status" 0 "$RUN_STATUS"
	expect_eq "run $k: stdout" "jit frames: done" "$(cat "$RUN_OUT")"
	report_json "$WORK/t$k.json" "$WORK/t$k" || finish
done
# the stubs' frames: below leak_small, in no module, at another address in each run
jit_frames() {
	json_eval "$1" '" ".join(sorted("%s:%x" % (s["frames"][1]["module"], s["frames"][1]["offset"]) for s in site("leak_small")))'
}
expect_eq "run 1: the stubs' frames are in no module" "?:310000000010 ?:310000000050" "$(jit_frames "$WORK/t1.json")"
expect_eq "run 2: the stubs' frames are in no module" "?:320000000010 ?:320000000050" "$(jit_frames "$WORK/t2.json")"

run_cmd 60 diff "$MPROF" diff "$WORK/t1" "$WORK/t2"
expect_eq "diff: exit status" 0 "$RUN_STATUS"
expect_eq "diff: the sites line" 1 \
	"$(grep -c '^sites: *1 changed, 0 new, 0 vanished, 1 same (3 in A, 3 in B; merged, as they differ only in lines or JIT frames (--match function): 2 sites of A into 1 row, 2 sites of B into 1 row)$' "$RUN_OUT")"
run_cmd 60 diff-json "$MPROF" diff --format json "$WORK/t1" "$WORK/t2"
expect_eq "diff --format json: exit status" 0 "$RUN_STATUS"
expect_eq "diff: one site differs, changed: 100 -> 200 allocations, 2 / 2 sites summed" \
	"changed 100 200 2 2" \
	"$(json_eval "$RUN_OUT" '" | ".join("%s %d %d %d %d" % (s["status"], s["a"]["allocations"], s["b"]["allocations"], s["a_sites"], s["b_sites"]) for s in d["sites"])')"
finish
