#!/bin/bash
# module-deltas.sh - a program that loads 40 libraries one by one, each
# allocating right after its dlopen, makes mprof rescan the modules 40
# times; each new map goes into the trace as a MODULES_DELTA record (what
# changed), not the whole map again, so the trace's module bytes grow with
# the number of libraries, not its square (mprof-trace(5)).  Every frame
# is still named with its library and function: after dlcloses, for a
# library loaded at a closed one's address, for one loaded again at its own
# old address, and in a fork child, whose trace starts with a whole map.
# Programs and facts: tests/progs/dlopen_chain.c, dlopen_chain_lib.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
N=40
LIB_SRC="$PROGS_DIR/dlopen_chain_lib.c"
build_plugins "$N" reload child
build_c "$WORK/dlopen_chain" "$PROGS_DIR/dlopen_chain.c" -ldl

# The loader usually maps libreload.so where the last plugin was and plug10
# where it was before; when it did not, run again (at most 3 times).
want="loaded $N, closed 3, reload at the last one's address: yes, plug10 at its own: yes"
for attempt in 1 2 3; do
	T="$WORK/trace$attempt"
	mprof_run 60 "$T" -- "$WORK/dlopen_chain" "$WORK" "$N"
	[ "$RUN_STATUS" -eq 0 ] && [ "$(cat "$RUN_OUT")" = "$want" ] && break
	echo "note: attempt $attempt: status $RUN_STATUS, stdout: $(cat "$RUN_OUT")"
done
expect_eq "1. exit status" 0 "$RUN_STATUS"
expect_eq "1. stdout (libraries reloaded at a closed one's address)" "$want" "$(cat "$RUN_OUT")"
CHILD=$(ls "$T".* 2>/dev/null)
expect_eq "1. one fork child's trace" 1 "$(printf '%s\n' "$CHILD" | grep -c .)"

# 2. a whole map at the start, then a delta per rescan, and the whole map
# again each time the deltas since the last one would pass its size; each
# delta holds one library's path and a few numbers, so the deltas stay
# under (N + 5) times a plugin's path and 64 bytes, the whole maps after
# the first under the first plus twice the deltas (the whole map each
# time, as before, took some 45 times the first map's bytes).
read -r _ full _ deltas _ bytes _ first <<<"$("$PYTHON" "$E2E_DIR/module_records.py" "$T")"
expect_range "2. whole maps in the trace (the first, and again as the deltas grow)" 2 6 "$full"
expect_range "2. deltas in the trace (a rescan per load, one after the dlcloses)" \
	$((N + 1 - full)) $((N + 8)) "$deltas"
path_bytes=${#WORK}
bound=$((2 * first + 3 * (N + 5) * (path_bytes + 20 + 64)))
expect_true "2. module record bytes $bytes <= $bound (linear in the libraries)" [ "$bytes" -le "$bound" ]

report_json "$WORK/r.json" "$T"
R="$WORK/r.json"
# 3. every plugin's block, named with its library and function, called
# from the program's call_plugin; plug10 was loaded twice at one address
for i in 0 1 9 10 11 19 20 21 38 39; do
	n=1
	[ "$i" = 10 ] && n=2
	expect_site "$R" plug${i}_alloc $n $((n * (i + 1) * 8)) $n $((n * (i + 1) * 8))
	expect_eq "3. plug${i}_alloc frame: module" "libplug$i.so" "$(q "$R" frame plug${i}_alloc module)"
	expect_eq "3. plug${i}_alloc is called from call_plugin" call_plugin "$(q "$R" caller plug${i}_alloc)"
done
expect_eq "3. sites of plugI_alloc in libplugI.so, each plugin's own" "$N" \
	"$(json_eval "$R" 'len({s["frames"][0]["function"] for s in d["sites"] if s["frames"] and s["frames"][0]["function"].startswith("plug") and s["frames"][0]["module"].endswith("/lib" + s["frames"][0]["function"][:-6] + ".so")})')"
expect_site "$R" reload_alloc 1 1000 1 1000
expect_eq "3. reload_alloc frame: module (at plug$((N - 1))'s address)" libreload.so \
	"$(q "$R" frame reload_alloc module)"
expect_eq "3. no stack mixes reload_alloc and plug$((N - 1))_alloc" 0 \
	"$(q "$R" sites "reload_alloc&plug$((N - 1))_alloc")"
expect_eq "3. no unnamed frame in the plugins or the program" 0 \
	"$(q "$R" unnamed call_plugin 'lib(plug[0-9]+|reload)\.so$|/dlopen_chain$|^$')"

# 4. the fork child: a whole map first, then the delta of libchild.so; its
# inherited blocks are the parent's
read -r _ full _ deltas _ _ <<<"$("$PYTHON" "$E2E_DIR/module_records.py" "$CHILD")"
expect_eq "4. child: whole maps, deltas" "1 1" "$full $deltas"
report_json "$WORK/c.json" "$CHILD"
expect_site "$WORK/c.json" child_alloc 1 2000 1 2000
expect_eq "4. child_alloc frame: module" libchild.so "$(q "$WORK/c.json" frame child_alloc module)"
expect_eq "4. child's inherited blocks seeded from the parent's trace" True \
	"$(json_eval "$WORK/c.json" 'd["summary"]["inherited"]["seeded"]')"

# 5. the other readers of module maps: pprof's mappings, the diff of the
# trace with itself, and a symbolize step run again (it leaves the trace
# alone: its symbols are in)
run_cmd 60 pprof "$MPROF" report --format pprof -o "$WORK/p.pb.gz" "$T"
expect_eq "5. pprof export: exit status" 0 "$RUN_STATUS"
expect_eq "5. pprof: a mapping per plugin, and libreload.so's" "$((N + 1))" \
	"$("$PYTHON" "$E2E_DIR/pprof.py" "$WORK/p.pb.gz" mappings | grep -Ec '/lib(plug[0-9]+|reload)\.so ')"
expect_eq "5. pprof: samples are the JSON report's sites" "ok" \
	"$("$PYTHON" "$E2E_DIR/pprof.py" "$WORK/p.pb.gz" compare "$R" | cut -d' ' -f1)"
run_cmd 60 diff "$MPROF" diff --format json "$T" "$T"
expect_eq "5. diff of the trace with itself: exit status" 0 "$RUN_STATUS"
run_cmd 60 text "$MPROF" report -n 100 "$T"
source_line "$LIB_SRC" "/* PLUG_MALLOC_LINE */"
expect_eq "5. text report: plug39_alloc's frame" \
	"    at plug39_alloc (dlopen_chain_lib.c:$SOURCE_LINE) [libplug39.so]" \
	"$(grep -F 'at plug39_alloc' "$RUN_OUT" | sort -u)"
finish
