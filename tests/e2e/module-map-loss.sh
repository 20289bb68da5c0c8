#!/bin/bash
# module-map-loss.sh - a reader that lost one of a trace's module map deltas
# refuses every delta after it (their base is gone); the recorder writes the
# whole map again once the deltas since the last whole map would pass its
# size, so the libraries loaded after that are named again (mprof-trace(5),
# MODULES_DELTA).  The loss is made by hand: the first delta (the map that
# added libplug0.so) turned into a record of a kind no reader knows.
# Programs and facts: tests/progs/dlopen_chain.c, dlopen_chain_lib.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
N=40
build_plugins "$N" reload child
build_c "$WORK/dlopen_chain" "$PROGS_DIR/dlopen_chain.c" -ldl
T="$WORK/trace"
mprof_run 60 "$T" -- "$WORK/dlopen_chain" "$WORK" "$N"
expect_eq "1. exit status" 0 "$RUN_STATUS"

# 2. whole maps again after the first: each once the deltas since the last
# one would pass its size (a first map of ~0.5-1 KB and deltas of a path
# and ~40 bytes: the second comes within some 20 libraries)
read -r _ full _ deltas _ _ <<<"$("$PYTHON" "$E2E_DIR/module_records.py" "$T")"
expect_range "2. whole maps in the trace" 2 6 "$full"
expect_range "2. deltas in the trace" $((N - 6)) $((N + 8)) "$deltas"

# 3. the trace without its first delta: libplug0.so's map is lost, and
# with it the maps after it until the next whole one
dropped=$("$PYTHON" "$E2E_DIR/drop_module_delta.py" "$T" "$WORK/lost" 1)
expect_eq "3. the dropped delta is epoch 2's (the first rescan's)" 2 "$dropped"
report_json "$WORK/r.json" "$WORK/lost"
R="$WORK/r.json"
expect_eq "3. plug0_alloc's frame has no module (its map was lost)" "" \
	"$(q "$R" frame plug0_alloc module)"
named=$(json_eval "$R" 'len({s["frames"][0]["function"] for s in d["sites"] if s["frames"] and (s["frames"][0]["function"] or "").startswith("plug") and (s["frames"][0]["module"] or "").endswith("/lib" + s["frames"][0]["function"][:-6] + ".so")})')
expect_range "3. plugins named with their own library after the next whole map" 20 $((N - 1)) "$named"
for i in 25 30 38; do
	expect_eq "3. plug${i}_alloc frame: module" "libplug$i.so" "$(q "$R" frame plug${i}_alloc module)"
	expect_eq "3. plug${i}_alloc is called from call_plugin" call_plugin "$(q "$R" caller plug${i}_alloc)"
done
expect_eq "3. reload_alloc frame: module" libreload.so "$(q "$R" frame reload_alloc module)"
finish
