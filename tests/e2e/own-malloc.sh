#!/bin/bash
# own-malloc.sh - a program that defines malloc and free itself (with or
# without calloc and realloc) runs as it does without mprof, and mprof says
# once that its allocations cannot be recorded.  The C library is bound to
# that malloc by plain lookup, which the recorder took for a library loaded
# with RTLD_DEEPBIND calling the C library past it: it rewrote the C
# library's allocator slots and noted "a library loaded with RTLD_DEEPBIND
# ... libc.so.6" in every such report.  What the program's calloc from the
# C library makes is still recorded, and a note given later does not hide
# the warning on stderr, nor is it hidden there (the launcher printed only
# the one text the process header keeps); a fork child's trace says so
# too.  Programs and facts:
# tests/progs/own_malloc.c, tests/progs/audit_lib.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/own_all" "$PROGS_DIR/own_malloc.c"
build_c "$WORK/own_two" "$PROGS_DIR/own_malloc.c" -DOWN_MALLOC_AND_FREE_ONLY

# variant, its stdout, and its recorded allocations and bytes
for v in "all|served 4, freed 4 of them, 0 others|0 0" \
	"two|served 2, freed 2 of them, 1 others|1 100"; do
	IFS='|' read -r name out counts <<<"$v"
	prog=$WORK/own_$name
	run_cmd 30 "native-$name" "$prog"
	expect_eq "$name: native exit status" 3 "$RUN_STATUS"
	expect_eq "$name: native stdout" "$out" "$(cat "$RUN_OUT")"
	note="the program defines its own malloc (in $prog): its allocations cannot be recorded"
	RUN_NAME=$name mprof_run 60 "$WORK/$name.trace" -- "$prog"
	expect_eq "$name: exit status under mprof" 3 "$RUN_STATUS"
	expect_eq "$name: stdout under mprof" "$out" "$(cat "$RUN_OUT")"
	expect_eq "$name: the note on stderr" "mprof: $note" "$(grep -F 'own malloc' "$RUN_ERR")"
	report_json "$WORK/$name.json" "$WORK/$name.trace" || continue
	expect_eq "$name: the only diagnostic" "$note" \
		"$(json_eval "$WORK/$name.json" '"\n".join(x["text"] for x in d["summary"]["diagnostics"])')"
	expect_eq "$name: allocations and bytes recorded" "$counts" \
		"$(json_eval "$WORK/$name.json" '"%d %d" % (d["summary"]["allocations"], d["summary"]["allocated_bytes"])')"
done

# A fork child runs the same image and malloc: its trace says so too (its
# file said nothing, and its report read "exact: every allocation
# recorded", as Chromium's renderers forked by its zygote did).
prog=$WORK/own_all
note="the program defines its own malloc (in $prog): its allocations cannot be recorded"
RUN_NAME=fork mprof_run 60 "$WORK/fork.trace" -- "$prog" fork
expect_eq "fork: exit status under mprof" 3 "$RUN_STATUS"
expect_eq "fork: stdout under mprof" "served 4, freed 4 of them, 0 others" "$(cat "$RUN_OUT")"
expect_eq "fork: the warning on stderr, for both processes" "mprof: $note (in 2 processes)" \
	"$(grep -F 'own malloc' "$RUN_ERR")"
child=$(ls "$WORK"/fork.trace.* 2>/dev/null | grep -v html | head -1)
expect_eq "fork: the child has a trace" 1 "$([ -n "$child" ] && echo 1)"
if [ -n "$child" ] && report_json "$WORK/fork-child.json" "$child"; then
	expect_eq "fork: the child's report gives the warning" "$note" \
		"$(json_eval "$WORK/fork-child.json" '"\n".join(x["text"] for x in d["summary"]["diagnostics"])')"
fi

# A note given after that warning (an LD_AUDIT library's namespace) must
# not take its place on stderr, where the launcher prints the process's
# last text: the warning was lost there.  Both are in the report.
build_c "$WORK/libaudit_lib.so" "$PROGS_DIR/audit_lib.c" -shared -fPIC
prog=$WORK/own_all
note="the program defines its own malloc (in $prog): its allocations cannot be recorded"
LD_AUDIT=$WORK/libaudit_lib.so RUN_NAME=audit mprof_run 60 "$WORK/audit.trace" -- "$prog"
expect_eq "audit: exit status under mprof" 3 "$RUN_STATUS"
expect_eq "audit: the warning on stderr" "mprof: $note" "$(grep -F 'own malloc' "$RUN_ERR")"
expect_eq "audit: the note on stderr too (the header kept only the warning)" \
	"mprof: LD_AUDIT loaded $WORK/libaudit_lib.so" \
	"$(grep -F 'LD_AUDIT loaded' "$RUN_ERR" | sed 's/ into .*//')"
if report_json "$WORK/audit.json" "$WORK/audit.trace"; then
	expect_eq "audit: the warning and the note in the report" \
		"$note|LD_AUDIT loaded $WORK/libaudit_lib.so" \
		"$(json_eval "$WORK/audit.json" '"|".join(x["text"].split(" into ")[0] for x in d["summary"]["diagnostics"])')"
fi
finish
