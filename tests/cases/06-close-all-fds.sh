#!/bin/bash
# Hard case 06: the program drops every descriptor above stderr (close_range,
# a /proc/self/fd sweep, or dup2 of /dev/null over them) and then opens its
# own files: mprof never touches them and keeps recording, completely.
# Program and facts: tests/progs/cases/06-close-all-fds.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_start 06-close-all-fds

build_c "$CASE_DIR/prog" "$CASE_SRC/06-close-all-fds.c"

# site_facts LABEL REPORT FUNC ALLOCS BYTES LEAK_BLOCKS LEAK_BYTES
site_facts() {
	expect_eq "$1 $3: allocations" "$4" "$(q "$2" sum allocations "$3")"
	expect_eq "$1 $3: allocated bytes" "$5" "$(q "$2" sum allocated_bytes "$3")"
	expect_eq "$1 $3: blocks live at exit" "$6" "$(q "$2" sum leaked_blocks "$3")"
	expect_eq "$1 $3: bytes live at exit" "$7" "$(q "$2" sum leaked_bytes "$3")"
}

for mode in range scan null; do
	# Natively the files get the lowest free numbers: 3 and 4 once all is
	# closed, 256 and 257 when 3..255 are taken by /dev/null.
	fds="fd 3, side 3072 bytes on fd 4"
	[ "$mode" = null ] && fds="fd 256, side 3072 bytes on fd 257"
	native="files intact: data 393216 bytes on $fds"
	run_cmd "$HANG_LIMIT" "native-$mode" "$CASE_DIR/prog" "$mode" "$WORK/native-$mode.data"
	expect_eq "1. $mode: native stdout" "$native" "$(cat "$RUN_OUT")"
	RUN_NAME="mprof-$mode" mprof_run "$HANG_LIMIT" "$WORK/trace-$mode" -- \
		"$CASE_DIR/prog" "$mode" "$WORK/mprof-$mode.data"
	expect_eq "1. $mode: exit status" 0 "$RUN_STATUS"
	# The same descriptor numbers as natively: mprof holds none of its own
	# that would shift them (and wrote nothing into the program's files).
	expect_eq "1. $mode: stdout (same descriptors as natively)" "$native" "$(cat "$RUN_OUT")"
	expect_eq "1. $mode: program stderr" "" "$(program_stderr "$RUN_ERR")"
	expect_no_match "1. $mode: the files are gone" '\.data' "$(ls "$WORK")"
	expect_eq "4. $mode: mprof names the trace and warns of nothing" \
		"mprof: trace written to $WORK/trace-$mode; view it with: $MPROF_HINT report $WORK/trace-$mode
mprof: a page to look at it: $MPROF_HINT report --html $WORK/trace-$mode.html $WORK/trace-$mode" \
		"$(grep '^mprof' "$RUN_ERR")"
	report_json "$WORK/r-$mode.json" "$WORK/trace-$mode" || continue
	R="$WORK/r-$mode.json"
	#                             FUNCS      allocs bytes  leak-blocks leak-bytes
	site_facts "2. $mode:" "$R" churn_step 960 176160 0 0
	site_facts "2. $mode:" "$R" keep_some 12 53328 12 53328
	site_facts "3. $mode:" "$R" keep_early 4 10000 4 10000
	expect_eq "4. $mode: trace complete" true "$(q "$R" summary quality.complete)"
	expect_eq "4. $mode: trace not truncated" false "$(q "$R" summary quality.truncated)"
	expect_eq "4. $mode: no chunk lost" 0 "$(q "$R" summary quality.chunks_lost)"
	expect_eq "4. $mode: no event missing" 0 "$(q "$R" summary quality.missing_events)"
	expect_eq "4. $mode: no unrecorded allocation" 0 "$(q "$R" summary quality.unrecorded_allocations)"
	expect_eq "4. $mode: no unmatched free" 0 "$(q "$R" summary unmatched_frees)"
	expect_eq "4. $mode: program exit status recorded" 0 "$(q "$R" summary program.exit_status)"
done
finish
