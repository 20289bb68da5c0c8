#!/bin/bash
# neighbour-sizes.sh - a process's trace does not grow with what other
# processes of the run do beside it or left behind.  The
# launcher stores chunks as they are, without re-encoding their lap, while
# as many threads write as there are processors; it counted every slot
# holding 4 KiB or more unread as a writer, so the last records of a demo
# that had ended, or of a parent waiting for its child, made the next demo
# of `sh -c 'for i in 1 2 3; do demo; done'` a second writer on a 2-processor
# host: 31 KB traces instead of 3.6 KB, with the same report.  Now a slot
# counts only when its thread wrote since the round before, and a
# process's first lap is re-encoded even when it starts while chunks are
# stored.
# Programs: examples/demo.c (its facts below) and tests/progs/lead_then_run.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/demo" "$abs_top_srcdir/examples/demo.c"
build_c "$WORK/lead_then_run" "$PROGS_DIR/lead_then_run.c"

# facts REPORT.json: what a demo's report says, on one line: events,
# allocations, bytes, frees, temporary, peak, live at exit, and per site
# its first function, allocations and bytes.
facts() {
	json_eval "$1" '" ".join(str(x) for x in [d["summary"][k] for k in ("events",
"allocations", "allocated_bytes", "frees", "temporary", "max_live_blocks",
"leaked_blocks", "leaked_bytes")] + [d["summary"]["peak"]["bytes"]] + sorted(
"%s:%d:%d" % (s["frames"][0]["function"], s["allocations"], s["allocated_bytes"])
for s in d["sites"]))'
}

# expect_demo LABEL TRACE: TRACE is a demo's whole trace with the lone
# run's facts, within a factor of 1.5 of its bytes.
expect_demo() {
	local label=$1 t=$2 bytes
	bytes=$(stat -c %s "$t")
	expect_range "$label: trace bytes (the lone run's: $LONE_BYTES)" \
		$((LONE_BYTES * 2 / 3)) $((LONE_BYTES * 3 / 2)) "$bytes"
	report_json "$WORK/$label.json" "$t" || return
	expect_whole_trace "$label" "$WORK/$label.json" 0 -
	expect_eq "$label: the lone run's facts" "$LONE_FACTS" "$(facts "$WORK/$label.json")"
}

# expect_three_demos LABEL DIR: DIR holds three child traces, each a demo's
# as expect_demo wants it.
expect_three_demos() {
	local label=$1 n=0 t
	set -- "$2"/t.*
	expect_eq "$label. three demo traces" 3 "$#"
	for t in "$@"; do
		n=$((n + 1))
		expect_demo "$label. demo $n" "$t"
	done
}

# 1. The demo alone: 60,008 events.
mkdir "$WORK/lone"
RUN_NAME=lone mprof_run 60 "$WORK/lone/t" -- "$WORK/demo"
expect_eq "1. exit status" 0 "$RUN_STATUS"
if report_json "$WORK/lone.json" "$WORK/lone/t"; then
	expect_eq "1. events" 60008 "$(q "$WORK/lone.json" summary events)"
	expect_eq "1. allocations" 30008 "$(q "$WORK/lone.json" summary allocations)"
	expect_eq "1. allocated bytes" 2695154 "$(q "$WORK/lone.json" summary allocated_bytes)"
	expect_eq "1. parse_line's allocations" 20000 "$(q "$WORK/lone.json" sum allocations parse_line)"
fi
LONE_BYTES=$(stat -c %s "$WORK/lone/t")
LONE_FACTS=$(facts "$WORK/lone.json")

# 2. Three demos one after another under a shell: each trace as the lone
#    run's (before: 8 times its size for 10 of 57 demo traces in 19 runs).
mkdir "$WORK/loop"
RUN_NAME=loop mprof_run 60 "$WORK/loop/t" -- sh -c "for i in 1 2 3; do '$WORK/demo'; done"
expect_eq "2. exit status" 0 "$RUN_STATUS"
expect_three_demos 2 "$WORK/loop"

# 3. A parent that leaves some 50 KB of records in its ring before it runs
#    each demo and waits (before: 8 times the lone run's size for 1 to 3
#    of the demos in each of 5 runs: those before the launcher's sweep took
#    the parent's records).
mkdir "$WORK/lead"
RUN_NAME=lead mprof_run 60 "$WORK/lead/t" -- "$WORK/lead_then_run" 3 "$WORK/demo"
expect_eq "3. exit status" 0 "$RUN_STATUS"
if report_json "$WORK/lead.json" "$WORK/lead/t"; then
	expect_site "$WORK/lead.json" lead_block 15000 480000 0 0
fi
expect_three_demos 3 "$WORK/lead"

# 4. Every chunk stored, as while another process writes on every other
#    processor (MPROF_TEST_STORE=1, mprof-run(1)): a process's first lap is
#    re-encoded all the same (before: 31 KB, 8 times the lone run's).
mkdir "$WORK/store"
MPROF_TEST_STORE=1 RUN_NAME=store mprof_run 60 "$WORK/store/t" -- "$WORK/demo"
expect_eq "4. exit status" 0 "$RUN_STATUS"
expect_demo "4. demo" "$WORK/store/t"
finish
