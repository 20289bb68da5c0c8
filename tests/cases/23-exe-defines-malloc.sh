#!/bin/bash
# Shared case 23: the executable defines malloc and friends itself: mprof
# must not mix allocators, must not hang, and must say that it could not
# intercept the allocations.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_setup 23-exe-defines-malloc

mprof_run 20 "$WORK/trace" -- ./prog
expect_eq "1. exit status" 0 "$RUN_STATUS"
expect_eq "1. stdout" "own allocator served >2000 calls, foreign frees: 0, all in arena: yes" "$(cat "$RUN_OUT")"
expect_range "2. mprof run returned within 10 s of the program (ms)" 0 10000 "$RUN_MS"
said=$(grep -E '^mprof: ' "$RUN_ERR")
if [ -s "$WORK/trace" ]; then
	run_cmd 60 text "$MPROF" report "$WORK/trace"
	said="$said
$(cat "$RUN_OUT" "$RUN_ERR")"
fi
expect_match "3. mprof says the executable's own allocator could not be intercepted" \
	'([Oo]wn|defines|provides|foreign|another|not intercepted|cannot intercept).*(malloc|allocator)|(malloc|allocator).*(own|defined|provided|foreign|not intercepted|cannot)' \
	"$said"
finish
