#!/bin/bash
# deep-bind.sh - a library loaded with dlopen(RTLD_DEEPBIND), as PHP loads
# every extension, binds its malloc and free to the C library's, past the
# shim: its frees of the program's blocks were lost (those blocks leaked in
# the report, their addresses "reused while live") and its own blocks
# missing.  mprof now points such a library's bound allocator slots at the
# shim when it rescans the modules (here at the first stack through the
# library: its call of main_cb_alloc), says so in one diagnostic, and the
# counts are exact.  Programs and facts: tests/progs/deep_bind_main.c,
# tests/progs/deep_bind_lib.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/libdeep_bind_lib.so" "$PROGS_DIR/deep_bind_lib.c" -shared -fPIC -Wl,-z,now
build_c "$WORK/deep_bind_main" "$PROGS_DIR/deep_bind_main.c" -ldl

note="a library loaded with RTLD_DEEPBIND calls the C library's malloc and free past mprof: $WORK/libdeep_bind_lib.so; mprof records those calls from here on, not the ones made before (their blocks may show as leaks, unmatched frees or addresses reused while live)"
mprof_run 60 "$WORK/run.trace" -- "$WORK/deep_bind_main" "$WORK/libdeep_bind_lib.so"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "done" "$(cat "$RUN_OUT")"
expect_eq "the note on stderr" "mprof: $note" "$(grep -F 'RTLD_DEEPBIND' "$RUN_ERR")"
if report_json "$WORK/run.json" "$WORK/run.trace"; then
	expect_site "$WORK/run.json" main_cb_alloc 3 144 0 0
	expect_site "$WORK/run.json" deep_bind_lib_alloc 5 500 0 0
	expect_site "$WORK/run.json" main_alloc 7 2331 7 2331
	expect_eq "unmatched frees, addresses reused while live" "0 0" \
		"$(json_eval "$WORK/run.json" '"%d %d" % (d["summary"]["unmatched_frees"], d["summary"]["quality"]["address_reused"])')"
	expect_eq "diagnostic in the JSON report" "0 $note" \
		"$(json_eval "$WORK/run.json" '"\n".join("%d %s" % (x["code"], x["text"]) for x in d["summary"]["diagnostics"] if "DEEPBIND" in x["text"])')"
fi
finish
