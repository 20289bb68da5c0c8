#!/bin/bash
# module-reload-places.sh - a program loads, calls and unloads two plugins
# of the same size 40 and 400 times (one thread, the loader mapping each
# where the other was): every load is a module epoch of its own, so every
# call's stack is a stack of its own, but the report looks each code
# address up once per module file and offset, not once per epoch: the
# distinct frames it counts ("frames" in its quality figures) and its sites
# are the same for 400 loads as for 40, while each plugin's blocks stay at
# its own site.  Before the fix the report's address set grew by some 29
# entries a load: 10,000 loads took 290,019 of them, 48 MiB.
# Program and facts: tests/progs/dlopen_reuse.c, dlopen_chain_lib.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_plugins 2
build_c "$WORK/dlopen_reuse" "$PROGS_DIR/dlopen_reuse.c" -ldl -pthread
source_line "$PROGS_DIR/dlopen_chain_lib.c" "/* PLUG_MALLOC_LINE */"
MALLOC_LINE=$SOURCE_LINE
PLUGS='("plug0_alloc", "plug1_alloc")'

# check_rounds FACT ROUNDS: runs ROUNDS loads and checks the plugins' sites;
# sets FRAMES and SITES to the report's figures.
check_rounds() {
	local n=$1 rounds=$2 r="$WORK/r$2.json" i
	mprof_run 120 "$WORK/trace$rounds" -- "$WORK/dlopen_reuse" "$WORK" 2 1 "$rounds"
	expect_eq "$n. $rounds loads: exit status" 0 "$RUN_STATUS"
	expect_eq "$n. $rounds loads: stdout" "called $rounds" "$(cat "$RUN_OUT")"
	report_json "$r" "$WORK/trace$rounds"
	for i in 0 1; do
		expect_eq "$n. $rounds loads: plug${i}_alloc has one site" 1 \
			"$(q "$r" sites plug${i}_alloc)"
		expect_eq "$n. $rounds loads: plug${i}_alloc: every block $(((i + 1) * 8)) bytes" \
			$(((i + 1) * 8)) "$(q "$r" sizes plug${i}_alloc)"
		expect_eq "$n. $rounds loads: plug${i}_alloc frame: module" "libplug$i.so" \
			"$(q "$r" frame plug${i}_alloc module)"
		expect_eq "$n. $rounds loads: plug${i}_alloc frame: line" "$MALLOC_LINE" \
			"$(q "$r" frame plug${i}_alloc line)"
		expect_eq "$n. $rounds loads: plug${i}_alloc is called from call_plugin" call_plugin \
			"$(q "$r" caller plug${i}_alloc)"
	done
	expect_eq "$n. $rounds loads: the plugins' sites hold every call's block" "$rounds" \
		"$(json_eval "$r" "sum(s['allocations'] for f in $PLUGS for s in site(f))")"
	expect_eq "$n. $rounds loads: ... one call stack a load" "$rounds" \
		"$(json_eval "$r" "sum(s['stacks'] for f in $PLUGS for s in site(f))")"
	FRAMES=$(q "$r" summary quality.frames)
	SITES=$(q "$r" len sites)
	expect_match "$n. $rounds loads: distinct frames counted" '^[1-9][0-9]*$' "$FRAMES"
	expect_match "$n. $rounds loads: sites counted" '^[1-9][0-9]*$' "$SITES"
}

check_rounds 1 40
FRAMES_FEW=$FRAMES SITES_FEW=$SITES
check_rounds 2 400
expect_eq "3. distinct frames: as many for 400 loads as for 40" "$FRAMES_FEW" "$FRAMES"
expect_eq "3. sites: as many for 400 loads as for 40" "$SITES_FEW" "$SITES"
finish
