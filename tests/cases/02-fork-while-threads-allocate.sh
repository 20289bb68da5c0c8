#!/bin/bash
# Shared case 02: fork() while worker threads are inside malloc/free: no
# hang in the children, the parent's profile is exact and holds nothing of
# the children, each child's trace holds exactly its own work.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_setup 02-fork-while-threads-allocate
mkdir "$WORK/traces" "$WORK/rep"
T="$WORK/traces/trace"

mprof_run 15 "$T" -- ./prog
expect_eq "1. no hang: finished within 15 s with exit status 0" 0 "$RUN_STATUS"
expect_eq "2. stdout line 1" "children ok: 60/60" "$(sed -n 1p "$RUN_OUT")"
expect_no_match "2. stderr: no failed child" "^child [0-9]+ failed" "$(cat "$RUN_ERR")"
expect_match "3. stdout line 2" "^worker allocations: [0-9]+$" "$(sed -n 2p "$RUN_OUT")"
N=$(sed -n 's/^worker allocations: \([0-9]*\)$/\1/p' "$RUN_OUT")
report_json "$WORK/rep/parent.json" "$T"
P="$WORK/rep/parent.json"
expect_eq "3. worker_alloc: allocations = the program's count" "$N" "$(q "$P" sum allocations worker_alloc)"
expect_eq "3. worker_alloc: bytes leaked" 0 "$(q "$P" sum leaked_bytes worker_alloc)"
expect_site "$P" parent_leak - - 7 29694
expect_no_site "$P" child_work

# 5. Each child's trace is its own file and holds exactly its 100 allocations.
children=$(cd "$WORK/traces" && ls | grep -v '^trace$')
expect_eq "5. one trace per child (FILE.PID)" 60 "$(printf '%s\n' "$children" | grep -Ec '^trace\.[0-9]+$')"
# gcc 12 -O1 deletes child_work's malloc/memset/free (the memory is never
# read), so with that compiler the children make no allocation at all, and
# then that is what their traces must show.
if nm "$CASE_DIR/prog" | grep -q ' child_work$'; then
	want="60 100/0/0"
	what="child_work: 100 allocations / 0 bytes leaked / no worker_alloc site"
else
	echo "note: the compiler removed child_work's allocations: each child allocates nothing"
	want="60 0/0/0"
	what="no allocation at all (child_work optimized away) / 0 bytes leaked / no worker_alloc site"
fi
summary=
for f in $children; do
	if timeout 60 "$MPROF" report --format json "$WORK/traces/$f" >"$WORK/rep/$f.json" 2>"$WORK/rep/$f.err"; then
		if [ "$want" = "60 100/0/0" ]; then
			n=$(q "$WORK/rep/$f.json" sum allocations child_work)
		else
			n=$(q "$WORK/rep/$f.json" summary allocations)
		fi
		summary="$summary$n/$(q "$WORK/rep/$f.json" sum leaked_bytes child_work)/$(q "$WORK/rep/$f.json" sites worker_alloc)
"
	else
		summary="${summary}report failed: $(head -c 300 "$WORK/rep/$f.err")
"
	fi
done
expect_eq "5. every child trace: $what" "$want" "$(printf '%s' "$summary" | sort | uniq -c | sed 's/^ *//')"
finish
