#!/bin/bash
# pending-cancel.sh - a pending cancellation never acts inside malloc: a
# thread that cancelled itself and then allocated through a frame without
# unwind information was ended inside malloc, where libunwind checked
# memory with read(2) on its pipe (a cancellation point), in the default
# unwinding mode and with MPROF_UNWIND=libunwind; it must end where it
# does natively, at pthread_testcancel() after its free.
# Program and facts: tests/progs/pending_cancel.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/pending_cancel" "$PROGS_DIR/pending_cancel.c" -pthread

run_cmd 30 native "$WORK/pending_cancel"
expect_eq "native: stdout" "thread cancelled, malloc returned" "$(cat "$RUN_OUT")"
for unwind in default libunwind; do
	value=$unwind
	[ "$unwind" = default ] && value=
	MPROF_UNWIND=$value RUN_NAME="mprof-$unwind" \
		mprof_run 30 "$WORK/trace-$unwind" -- "$WORK/pending_cancel"
	expect_eq "$unwind: exit status" 0 "$RUN_STATUS"
	expect_eq "$unwind: the thread ends at pthread_testcancel, as natively" \
		"thread cancelled, malloc returned" "$(cat "$RUN_OUT")"
	report_json "$WORK/r-$unwind.json" "$WORK/trace-$unwind" || continue
	expect_site "$WORK/r-$unwind.json" no_cfi_alloc 1 100 0 0
done
finish
