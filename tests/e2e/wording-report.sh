#!/bin/bash
# wording-report.sh - a site's "max live" cannot be read against its peak.
# A site of two call stacks that symbolize alike (two calls of malloc on
# one line) printed "peak 100 B in 1 blocks" above "max live 160 B / 4
# blocks (at most: the sum over its stacks' maxima)": one stack is shown,
# "its stacks" named none, and "peak" read as the site's own maximum.  Now
# "live at heap peak 100 B in 1 block" (what it had live at t-gmax, as DHAT's
# "At t-gmax") and "max live at most 160 B / 4 blocks (the sum of its 2
# call stacks' own maxima, which need not have been live at once)"; the
# DHAT text says the same.  A site of one stack has no "at most".
# The time grain: the DHAT text said "(to about 10 ms)" while the report
# wrote lifetimes as "< 2 ms"; now the report's "run time:" line and the
# DHAT text name the trace's grain, the one that "< 2 ms" shows.
# Program and facts: tests/progs/wording_max_live.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/wording_max_live" "$PROGS_DIR/wording_max_live.c"

mprof_run 60 "$WORK/t.trace" -- "$WORK/wording_max_live"
expect_eq "exit status" 0 "$RUN_STATUS"
run_cmd 60 text "$MPROF" report -n 2 --metric allocated "$WORK/t.trace"
T=$(cat "$RUN_OUT")
expect_match "heap peak: big and grab's first block" '^heap peak: +1100 B \(1.1 KiB\) in 2 blocks,' "$T"
expect_eq "grab's site: live at heap peak, then its max live as a bound that says why" \
	"#2  site 2: 4 allocations, 160 B allocated
    live at heap peak 100 B in 1 block; leaked 0 B in 0 blocks; temporary 1
    max live at most 160 B / 4 blocks (the sum of its 2 call stacks' own maxima, which need not have been live at once); freed 4" \
	"$(grep -A2 '^#2 ' <<<"$T" | sed 's/; freed 4, lifetime .*/; freed 4/')"
expect_eq "big's site, one stack: its max live plain" \
	"    max live 1000 B / 1 block; freed 1" \
	"$(grep -A2 '^#1 ' <<<"$T" | tail -n 1 | sed 's/; freed 1, lifetime .*/; freed 1/')"
GRAIN=$(sed -n "s/^run time: .* (times below are to the event clock's grain, \([0-9.]* [mun]*s\))\$/\1/p" <<<"$T")
expect_match "run time: names the grain" '^[0-9.]+ (ns|us|ms|s)$' "$GRAIN"
# big's block lives across grab's first call (its first unwind), which a
# loaded host may stretch past the grain: then a time, not "< grain"
LIFE=$(grep -A2 '^#1 ' <<<"$T" | tail -n 1 | sed 's|.*events, \([^/]*\)/.*|\1|')
case $LIFE in
"<"*) expect_eq "the grain named is the one a lifetime below it shows" "< $GRAIN" "$LIFE" ;;
*) expect_match "a lifetime past the grain is a time" '^[0-9.]+ (ns|us|ms|s)$' "$LIFE" ;;
esac
run_cmd 60 dhat "$MPROF" report -f dhat "$WORK/t.trace"
expect_eq "dhat text: the same grain" \
	"free and failed realloc is one, a realloc two) and in time (to the event clock's grain, $GRAIN)." \
	"$(grep '^free and failed realloc is one' "$RUN_OUT")"
expect_eq "dhat text: grab's Max says the same" \
	"  Max:         at most 160 bytes in 4 blocks (the sum of its 2 call stacks' own maxima, which need not have been live at once)" \
	"$(grep -A4 '^PP .*(site 2)' "$RUN_OUT" | grep '^  Max:')"
finish
