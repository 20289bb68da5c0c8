#!/bin/bash
# Hard case 23: the executable defines malloc and friends itself (program:
# tests/progs/cases/23-exe-defines-malloc.c): mprof must not mix allocators,
# must not hang, and must say that it could not intercept the allocations.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_start 23-exe-defines-malloc
build_c prog "$CASE_SRC/23-exe-defines-malloc.c"

mprof_run "$HANG_LIMIT" "$WORK/trace" -- ./prog
expect_eq "1. exit status" 0 "$RUN_STATUS"
expect_eq "1. stdout" "pool served 3000+ requests; foreign pointers: 0; all blocks from pool: yes" \
	"$(cat "$RUN_OUT")"
expect_ne "2. no hang: mprof run returned (in $RUN_MS ms)" 124 "$RUN_STATUS"

# What mprof says about it: its own stderr lines, and the report if a trace
# was written (an empty profile without such a note is a failure).  The
# scratch path (it holds the test's name, "...-defines-malloc...") is blanked
# out first so that only mprof's words can match.
said() { cat "$@" | sed "s|$WORK|WORK|g"; }
note_re='([Oo]wn|defines|provides|foreign|another|not intercepted|cannot intercept).*(malloc|allocator)|(malloc|allocator).*(own|defined|provided|foreign|not intercepted|cannot)'
expect_match "3. mprof run says on stderr that the program's own allocator could not be intercepted" \
	"^mprof: .*($note_re)" "$(said "$RUN_ERR")"
if [ -s "$WORK/trace" ]; then
	report_json "$WORK/r.json" "$WORK/trace"
	# The program makes 3000+ allocations, none of them through mprof's shim.
	expect_range "3. allocations in the report (none or almost none interceptable)" 0 100 \
		"$(q "$WORK/r.json" summary allocations)"
	run_cmd 60 text "$MPROF" report "$WORK/trace"
	expect_eq "3. mprof report: exit status" 0 "$RUN_STATUS"
	expect_match "3. mprof report says the program's own allocator could not be intercepted" \
		"$note_re" "$(said "$RUN_OUT" "$RUN_ERR")"
fi
finish
