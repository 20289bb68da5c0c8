#!/bin/bash
# deep-bind-late.sh - a library loaded with dlopen(RTLD_LAZY |
# RTLD_DEEPBIND) after 600 others, looked at by mprof before its malloc
# slot was bound (lazy binding), then bound to the C library's malloc by
# its first call: mprof looks again only at the slots not bound at its last
# look (it no longer reads every module's relocations at every rescan), and
# must point that slot at the shim at the next rescan all the same; the
# library closed and loaded again (its slot bound to the C library's at
# once, maybe where it was) must be pointed at the shim again.  The blocks
# of 222 and 333 bytes are exact, their frees matched.  Programs and facts:
# tests/progs/deep_bind_late_main.c, tests/progs/deep_bind_late_lib.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
n=600
build_c "$WORK/libdeep_bind_late.so" "$PROGS_DIR/deep_bind_late_lib.c" -shared -fPIC -Wl,-z,lazy
build_c "$WORK/deep_bind_late_main" "$PROGS_DIR/deep_bind_late_main.c" -ldl
build_c "$WORK/libcopy.so" "$PROGS_DIR/dlopen_chain_lib.c" -shared -fPIC -DPLUG=plug -DPLUG_BYTES=8
mkdir "$WORK/libs" || hard_error "cannot make $WORK/libs"
for i in $(seq 0 $((n + 1))); do
	cp "$WORK/libcopy.so" "$WORK/libs/lib$i.so" || hard_error "cannot copy libcopy.so"
done

mprof_run 60 "$WORK/run.trace" -- "$WORK/deep_bind_late_main" "$WORK/libs" "$n" \
	"$WORK/libdeep_bind_late.so"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_match "stdout" '^(same address|moved) done$' "$(tr '\n' ' ' <"$RUN_OUT" | sed 's/ $//')"
expect_match "the note on stderr" "RTLD_DEEPBIND.*: $WORK/libdeep_bind_late.so;" \
	"$(grep -F 'RTLD_DEEPBIND' "$RUN_ERR" | head -1)"
if report_json "$WORK/run.json" "$WORK/run.trace"; then
	expect_site "$WORK/run.json" late_lib_alloc 8 2109 0 0
	expect_site "$WORK/run.json" main_cb 1 48 0 0
	expect_site "$WORK/run.json" plug_alloc 2 16 2 16
	expect_eq "unmatched frees, addresses reused while live" "0 0" \
		"$(json_eval "$WORK/run.json" '"%d %d" % (d["summary"]["unmatched_frees"], d["summary"]["quality"]["address_reused"])')"
fi
finish
