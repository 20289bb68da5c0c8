#!/bin/bash
# module-threads.sh - four threads load 48 libraries between them at once,
# each allocating right after its dlopen, and unload every third one while
# the others load: rescans of one thread meet another's (a table changed
# under a scan, a scan's scratch taken, a module view rewritten while read),
# and every plugin's block is still named with its own library and function.
# Programs and facts: tests/progs/dlopen_threads.c, dlopen_chain_lib.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
N=48
build_plugins "$N"
build_c "$WORK/dlopen_threads" "$PROGS_DIR/dlopen_threads.c" -ldl -pthread
T="$WORK/trace"
mprof_run 120 "$T" -- "$WORK/dlopen_threads" "$WORK" "$N" 4
expect_eq "1. exit status" 0 "$RUN_STATUS"
expect_eq "1. stdout" "loaded $N" "$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$T"
R="$WORK/r.json"
expect_eq "2. sites of plugI_alloc in libplugI.so, each plugin's own" "$N" \
	"$(json_eval "$R" 'len({s["frames"][0]["function"] for s in d["sites"] if s["frames"] and (s["frames"][0]["function"] or "").startswith("plug") and (s["frames"][0]["module"] or "").endswith("/lib" + s["frames"][0]["function"][:-6] + ".so")})')"
for i in 0 1 2 3 21 30 46 47; do
	expect_site "$R" plug${i}_alloc 1 $(((i + 1) * 8)) 1 $(((i + 1) * 8))
	expect_eq "2. plug${i}_alloc frame: module" "libplug$i.so" "$(q "$R" frame plug${i}_alloc module)"
	expect_eq "2. plug${i}_alloc is called from call_plugin" call_plugin "$(q "$R" caller plug${i}_alloc)"
done
expect_eq "2. no unnamed frame in the plugins or the program" 0 \
	"$(q "$R" unnamed call_plugin 'libplug[0-9]+\.so$|/dlopen_threads$|^$')"
finish
