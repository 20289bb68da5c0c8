#!/bin/bash
# module-reuse.sh - four threads each load, call and unload 8 plugins of the
# same size 500 times, so the loader maps one plugin where another was just
# unloaded, often before the thread that unloaded it has left dlclose: each
# block must still be counted at its own plugin's site (before the fix,
# another thread's capture could intern the new library's frames under the
# old module map and a plugin's block landed in the site of the plugin
# unloaded from that address: 1-3 of 8 sites wrong in every run).
# Program and facts: tests/progs/dlopen_reuse.c, dlopen_chain_lib.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
N=8 THREADS=4 ROUNDS=500
build_plugins "$N"
build_c "$WORK/dlopen_reuse" "$PROGS_DIR/dlopen_reuse.c" -ldl -pthread
T="$WORK/trace"
mprof_run 120 "$T" -- "$WORK/dlopen_reuse" "$WORK" "$N" "$THREADS" "$ROUNDS"
expect_eq "1. exit status" 0 "$RUN_STATUS"
expect_eq "1. stdout" "called $((THREADS * ROUNDS))" "$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$T"
R="$WORK/r.json"
for i in $(seq 0 $((N - 1))); do
	expect_eq "2. plug${i}_alloc: every block $(((i + 1) * 8)) bytes" $(((i + 1) * 8)) \
		"$(q "$R" sizes plug${i}_alloc)"
	expect_eq "2. plug${i}_alloc frame: module" "libplug$i.so" "$(q "$R" frame plug${i}_alloc module)"
	expect_eq "2. plug${i}_alloc: no block live at exit" 0 "$(q "$R" sum leaked_blocks plug${i}_alloc)"
done
expect_eq "3. the plugins' sites hold every call's block" $((THREADS * ROUNDS)) \
	"$(json_eval "$R" 'sum(s["allocations"] for s in d["sites"] if s["frames"] and (s["frames"][0]["function"] or "").startswith("plug"))')"
finish
