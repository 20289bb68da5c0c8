#!/bin/bash
# dlmopen-namespace.sh - a library loaded by dlmopen() into a namespace of
# its own runs with a C library of its own, whose malloc the shim does not
# wrap: its allocations cannot be recorded, and mprof now says so (a
# diagnostic naming the library, on mprof run's stderr and in the report)
# instead of a report that looks complete.  The program's own allocations
# are still counted exactly; a dlopen()ed library gives no such note.  An
# LD_AUDIT library's namespace is named as LD_AUDIT's.  Programs and facts:
# tests/progs/dlmopen_main.c, tests/progs/dlmopen_lib.c,
# tests/progs/audit_lib.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/libdlmopen_lib.so" "$PROGS_DIR/dlmopen_lib.c" -shared -fPIC
build_c "$WORK/dlmopen_main" "$PROGS_DIR/dlmopen_main.c" -ldl

note="the program loaded $WORK/libdlmopen_lib.so with dlmopen() into a namespace of its own, with a C library of its own: the allocations made there are not recorded"
for mode in new-close new-keep base; do
	RUN_NAME=$mode mprof_run 60 "$WORK/$mode.trace" -- "$WORK/dlmopen_main" "$mode" \
		"$WORK/libdlmopen_lib.so"
	expect_eq "$mode: exit status" 0 "$RUN_STATUS"
	expect_eq "$mode: stdout" "$mode done" "$(cat "$RUN_OUT")"
	if [ "$mode" = base ]; then
		expect_eq "$mode: no note on stderr" "" "$(grep -F 'dlmopen()' "$RUN_ERR")"
	else
		expect_eq "$mode: the note on stderr" "mprof: $note" "$(grep -F 'dlmopen()' "$RUN_ERR")"
	fi
	report_json "$WORK/$mode.json" "$WORK/$mode.trace" || continue
	expect_site "$WORK/$mode.json" main_alloc 7 2331 7 2331
	if [ "$mode" = base ]; then
		expect_site "$WORK/$mode.json" dlmopen_lib_alloc 5 5000 5 5000
		expect_eq "$mode: no diagnostic" 0 \
			"$(json_eval "$WORK/$mode.json" 'sum("dlmopen()" in x["text"] for x in d["summary"]["diagnostics"])')"
	else
		expect_eq "$mode: diagnostic in the JSON report" "0 $note" \
			"$(json_eval "$WORK/$mode.json" '"\n".join("%d %s" % (x["code"], x["text"]) for x in d["summary"]["diagnostics"])')"
		run_cmd 60 "$mode-text" "$MPROF" report -n 0 "$WORK/$mode.trace"
		expect_eq "$mode: diagnostic in the text report" "diagnostic: $note" \
			"$(grep -F 'dlmopen()' "$RUN_OUT")"
	fi
done

# An LD_AUDIT library lives in a namespace of its own too, which the loader
# makes before the program runs (and whose allocations can start the
# recorder before environ is set): it is named as LD_AUDIT's, given by path
# or by file name, not as a library the program loaded with dlmopen() (it
# was, with the program's base run).  A dlmopen() of the program's is still
# named, apart.
build_c "$WORK/libaudit_lib.so" "$PROGS_DIR/audit_lib.c" -shared -fPIC
audit="LD_AUDIT loaded $WORK/libaudit_lib.so into a namespace of its own, with a C library of its own: the allocations made there are not recorded"
for v in "audit-path|$WORK/libaudit_lib.so|base" "audit-name|libaudit_lib.so|base" \
	"audit-dlmopen|$WORK/libaudit_lib.so|new-keep"; do
	IFS='|' read -r name lib mode <<<"$v"
	# (mprof itself runs with the auditor too)
	LD_AUDIT=$lib LD_LIBRARY_PATH=$WORK RUN_NAME=$name mprof_run 60 "$WORK/$name.trace" -- \
		"$WORK/dlmopen_main" "$mode" "$WORK/libdlmopen_lib.so"
	expect_eq "$name: exit status" 0 "$RUN_STATUS"
	expect_eq "$name: stdout" "$mode done" "$(cat "$RUN_OUT")"
	report_json "$WORK/$name.json" "$WORK/$name.trace" || continue
	expect_site "$WORK/$name.json" main_alloc 7 2331 7 2331
	want=$audit
	if [ "$mode" = base ]; then
		expect_eq "$name: the note on stderr" "mprof: $audit" \
			"$(grep -F 'LD_AUDIT loaded' "$RUN_ERR")"
	else
		want="$audit
$note"
	fi
	expect_eq "$name: diagnostics in the JSON report" "$want" \
		"$(json_eval "$WORK/$name.json" '"\n".join(x["text"] for x in d["summary"]["diagnostics"])')"
done
finish
