#!/bin/bash
# real3-foreign-new.sh - an allocator behind the recorder that defines C++
# operator new and delete too and serves them itself (as a preloaded or
# linked jemalloc, tcmalloc or mimalloc does) sends a C++ program's new and
# delete past the recorder: mprof must say so (a warning, an "incomplete"
# headline, foreign_new in the JSON report), never report such a run as
# exact; the program's malloc calls are still recorded exactly, its output
# and exit status are unchanged.  The same allocator under a C program, and
# the C++ program without it, say nothing of the kind.
# Programs and facts: tests/progs/own_new_alloc.c, tests/progs/own_new_user.cpp,
# tests/progs/free_in_order.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/libown_new.so" "$PROGS_DIR/own_new_alloc.c" -shared -fPIC
build_cxx "$WORK/own_new_user" "$PROGS_DIR/own_new_user.cpp"
build_c "$WORK/free_in_order" "$PROGS_DIR/free_in_order.c"
OUT="made 300 objects and 40 malloc blocks"
WARN="C++ operator new and delete are served by $WORK/libown_new.so"

# trace_of EXE: the JSON report of the run's trace whose program is EXE (the
# other one is the shell's that put the allocator into LD_PRELOAD).
trace_of() {
	local t
	for t in "$WORK"/trace*; do
		case $t in *.json | *.err) continue ;; esac
		"$MPROF" report --format json "$t" >"$t.json" 2>"$t.err" || continue
		[ "$(q "$t.json" get trace.exe)" = "$1" ] && echo "$t.json"
	done
}

# The allocator goes into the program only, behind the recorder: a shell
# adds it to the LD_PRELOAD mprof set and executes the program in its place.
behind() {
	rm -f "$WORK"/trace*
	mprof_run 60 "$WORK/trace" -- /bin/sh -c 'LD_PRELOAD="$LD_PRELOAD $1" exec "$2"' sh \
		"$WORK/libown_new.so" "$1"
}

run_cmd 30 native env LD_PRELOAD="$WORK/libown_new.so" "$WORK/own_new_user"
expect_eq "native run: exit status" 0 "$RUN_STATUS"
expect_eq "native run: stdout" "$OUT" "$(cat "$WORK/native.out")"

behind "$WORK/own_new_user"
expect_eq "behind: exit status" 0 "$RUN_STATUS"
expect_eq "behind: stdout" "$OUT" "$(cat "$RUN_OUT")"
expect_eq "behind: program's stderr" "" "$(program_stderr "$RUN_ERR")"
expect_eq "behind: mprof names the allocator that serves new, once" 1 \
	"$(grep -E '^mprof: ' "$RUN_ERR" | grep -cF "$WARN")"
R=$(trace_of "$WORK/own_new_user")
expect_ne "behind: a trace of own_new_user" "" "$R"
if [ -n "$R" ]; then
	expect_eq "behind: foreign_new" true "$(q "$R" summary foreign_new)"
	expect_eq "behind: diagnostic code" 7 "$(json_eval "$R" \
		'[x["code"] for x in d["summary"]["diagnostics"] if "operator new" in x["text"]][0]')"
	expect_site "$R" malloc_blocks 40 1920 0 0
	expect_no_site "$R" new_objects
	"$MPROF" report "${R%.json}" >"$WORK/behind.txt" 2>&1
	expect_match "behind: the headline says incomplete" \
		"\(incomplete: C\+\+ operator new and delete were another allocator's" \
		"$(head -n 1 "$WORK/behind.txt")"
fi

# a C program under the same allocator: nothing to say
behind "$WORK/free_in_order"
expect_eq "C program: exit status" 0 "$RUN_STATUS"
expect_eq "C program: no word of operator new" "" "$(grep -F 'operator new' "$RUN_ERR")"
R=$(trace_of "$WORK/free_in_order")
expect_ne "C program: a trace of free_in_order" "" "$R"
[ -n "$R" ] && expect_eq "C program: foreign_new" false "$(q "$R" summary foreign_new)"

# the C++ program with the C++ library's own new (which calls malloc)
rm -f "$WORK"/trace*
mprof_run 60 "$WORK/trace" -- "$WORK/own_new_user"
expect_eq "alone: exit status" 0 "$RUN_STATUS"
expect_eq "alone: no word of operator new" "" "$(grep -F 'operator new' "$RUN_ERR")"
if report_json "$WORK/alone.json" "$WORK/trace"; then
	expect_eq "alone: foreign_new" false "$(q "$WORK/alone.json" summary foreign_new)"
	expect_site "$WORK/alone.json" new_objects 300 5600 0 0
	expect_site "$WORK/alone.json" malloc_blocks 40 1920 0 0
fi
finish
