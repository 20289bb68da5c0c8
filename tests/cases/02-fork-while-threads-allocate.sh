#!/bin/bash
# Hard case 02: fork() while worker threads are inside malloc/free: no
# hang in the children, the parent's profile is exact and holds nothing of
# the children, each child's trace holds exactly its own work.
# Program and facts: tests/progs/cases/02-fork-while-threads-allocate.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_start 02-fork-while-threads-allocate

build_c "$CASE_DIR/prog" "$CASE_SRC/02-fork-while-threads-allocate.c" -pthread
mkdir "$WORK/traces" "$WORK/rep"
T="$WORK/traces/trace"

mprof_run "$HANG_LIMIT" "$T" -- "$CASE_DIR/prog"
expect_eq "1. no hang: finished with exit status 0 (in $RUN_MS ms)" 0 "$RUN_STATUS"
expect_eq "2. stdout line 1" "children that exited cleanly: 50 of 50" "$(sed -n 1p "$RUN_OUT")"
expect_no_match "2. stderr: no child ended badly" "^child [0-9]+ ended badly" "$(cat "$RUN_ERR")"
expect_match "3. stdout line 2" "^worker allocations: [0-9]+, bytes: [0-9]+$" "$(sed -n 2p "$RUN_OUT")"
N=$(sed -n 's/^worker allocations: \([0-9]*\), bytes: [0-9]*$/\1/p' "$RUN_OUT")
B=$(sed -n 's/^worker allocations: [0-9]*, bytes: \([0-9]*\)$/\1/p' "$RUN_OUT")
# The workers' own count must be real work, not an empty run.
expect_range "3. the workers allocated (their own count)" 1000 1000000000 "${N:-none}"
report_json "$WORK/rep/parent.json" "$T" || finish
P="$WORK/rep/parent.json"
#                FUNCS       allocs bytes leak-blocks leak-bytes
expect_site "$P" worker_step "$N"   "$B"  0 0
expect_site "$P" parent_keep 5      15150 5 15150
expect_no_site "$P" child_work

# 5. Each child's trace is its own file and holds exactly its 90 blocks.
children=$(cd "$WORK/traces" && ls | grep -v '^trace$')
expect_eq "5. one trace per child (FILE.PID)" 50 "$(printf '%s\n' "$children" | grep -Ec '^trace\.[0-9]+$')"
summary=
for f in $children; do
	C="$WORK/rep/$f.json"
	if timeout 60 "$MPROF" report --format json "$WORK/traces/$f" >"$C" 2>"$C.err"; then
		summary="$summary$(q "$C" sum allocations child_work)/$(q "$C" sum allocated_bytes child_work)/$(q "$C" sum leaked_blocks child_work)/$(q "$C" sum leaked_bytes child_work)/$(q "$C" sites worker_step)/$(q "$C" sites parent_keep)
"
	else
		summary="${summary}report failed: $(head -c 300 "$C.err")
"
	fi
done
expect_eq "5. every child trace: child_work 90 allocs / 37800 bytes / leak 0 / 0, no worker_step or parent_keep site" \
	"50 90/37800/0/0/0/0" "$(printf '%s' "$summary" | sort | uniq -c | sed 's/^ *//')"
finish
