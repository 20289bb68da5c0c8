#!/bin/bash
# entry-points.sh - every C allocator entry point is recorded once per call,
# with requested sizes, the realloc rules of mprof-report(1) (one allocation
# of the new size per successful realloc, realloc(NULL, n) allocates,
# realloc(p, 0) frees), free_sized / free_aligned_sized where the C library
# has them (the program finds them under mprof as natively), exact summary
# totals, and a leak reported with its exact source location.
# Program and facts: tests/progs/entry_points.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
SRC="$PROGS_DIR/entry_points.c"
build_c "$WORK/entry_points" "$SRC"
# C23's sized frees are the program's where the C library has them (glibc
# 2.36 has neither): then counted as themselves, else its free calls.
run_cmd 60 native "$WORK/entry_points"
NATIVE_OUT=$(cat "$RUN_OUT")
FS=0 FAS=0
case "$NATIVE_OUT" in *"free_sized: found"*) FS=3 ;; esac
case "$NATIVE_OUT" in *"free_aligned_sized: found"*) FAS=2 ;; esac

# The counts every run below must give: in exact mode, and in sampled mode
# at one sample per byte, where every block the program asks for (none is
# under 36 bytes) is sampled with weight 1, so that each entry point takes
# the sampled path.  $R: the report's JSON.
expect_counts() {
#                         FUNCS                 allocs bytes    leak-blocks leak-bytes
expect_site "$R" use_malloc              5 500    2 200
expect_site "$R" use_calloc              4 1200   1 300
expect_site "$R" use_realloc_grow        4 104176 1 100000
expect_site "$R" use_realloc_shrink      2 5100   1 100
expect_site "$R" use_realloc_move        3 200200 1 200000
expect_site "$R" use_realloc_null        3 231    3 231
expect_site "$R" use_realloc_zero        4 220    0 0
expect_site "$R" use_posix_memalign      2 2000   2 2000
expect_site "$R" use_aligned_alloc       3 1536   3 1536
expect_site "$R" use_memalign            2 666    2 666
expect_site "$R" use_valloc              2 2468   2 2468
expect_site "$R" use_pvalloc             1 5000   1 5000
expect_site "$R" use_reallocarray        2 176    1 99
expect_site "$R" use_free_sized          3 900    0 0
expect_site "$R" use_free_aligned_sized  2 1280   0 0
expect_site "$R" parse_header            7 7168   7 7168

# Live bytes follow the reallocs (a realloc changes them by new - old): at
# the heap peak (t-gmax, after the last parse_header allocation) each
# realloc'd block counts its final size once.
expect_eq "heap peak: bytes (everything live at exit)" 319768 "$(q "$R" summary peak.bytes)"
expect_eq "heap peak: blocks" 27 "$(q "$R" summary peak.blocks)"
expect_eq "use_realloc_grow: bytes at peak" 100000 "$(q "$R" sum peak_bytes use_realloc_grow)"
expect_eq "use_realloc_shrink: bytes at peak" 100 "$(q "$R" sum peak_bytes use_realloc_shrink)"
expect_eq "use_realloc_move: bytes at peak" 200000 "$(q "$R" sum peak_bytes use_realloc_move)"
expect_eq "use_realloc_zero: bytes at peak" 0 "$(q "$R" sum peak_bytes use_realloc_zero)"

# The leak with its exact location: the frame parse_header is at the line
# that calls malloc.
source_line "$SRC" "/* LEAK_LINE */"
LEAK_LINE=$SOURCE_LINE
expect_eq "parse_header frame: source file" "entry_points.c" "$(q "$R" frame parse_header file)"
expect_eq "parse_header frame: line" "$LEAK_LINE" "$(q "$R" frame parse_header line)"
expect_eq "parse_header frame: module" "entry_points" "$(q "$R" frame parse_header module)"
expect_eq "parse_header is called from main" "main" "$(q "$R" caller parse_header)"

# Whole-process summary: the program allocates nothing else (no stdio).
expect_eq "summary: allocations" 49 "$(q "$R" summary allocations)"
expect_eq "summary: allocated bytes" 332821 "$(q "$R" summary allocated_bytes)"
expect_eq "summary: blocks live at exit" 27 "$(q "$R" summary leaked_blocks)"
expect_eq "summary: bytes live at exit" 319768 "$(q "$R" summary leaked_bytes)"
expect_eq "summary: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
expect_eq "summary: free calls (free 7, 3 by free_sized, 2 by free_aligned_sized, realloc(p, 0) 4)" \
	16 "$(q "$R" summary frees)"
expect_eq "summary: blocks freed (16 + 6 by moving or resizing reallocs)" 22 "$(q "$R" summary blocks_freed)"
expect_eq "summary: failed reallocs recorded" 0 "$(q "$R" summary failed_reallocs_recorded)"
for pair in malloc=23 calloc=4 realloc=8 posix_memalign=2 aligned_alloc=5 memalign=2 \
	valloc=2 pvalloc=1 reallocarray=2 free=$((12 - FS - FAS)) free_sized=$FS \
	free_aligned_sized=$FAS realloc_to_zero=4; do
	fn=${pair%=*}
	expect_eq "summary: calls of $fn" "${pair#*=}" "$(q "$R" summary "calls.$fn")"
done
}

mprof_run 60 "$WORK/trace" -- "$WORK/entry_points"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout (realloc moved; free_sized and free_aligned_sized found as natively)" \
	"$NATIVE_OUT" "$(cat "$RUN_OUT")"
expect_match "stdout: realloc moved" '^moved: yes, ' "$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"
expect_counts

# Temporary allocations: freed by the thread's very next allocator event.
for pair in use_calloc=3 use_realloc_zero=4 use_free_sized=3 use_free_aligned_sized=2 \
	use_malloc=0 parse_header=0; do
	fn=${pair%=*}
	expect_eq "$fn: temporary allocations" "${pair#*=}" "$(q "$R" sum temporary "$fn")"
done

# The text report names the leak too.
run_cmd 60 text "$MPROF" report "$WORK/trace"
expect_eq "mprof report (text): exit status" 0 "$RUN_STATUS"
expect_match "mprof report (text): parse_header at entry_points.c:$LEAK_LINE" \
	"parse_header.*entry_points\.c:$LEAK_LINE" "$(cat "$RUN_OUT")"
# Sampled at one sample per byte: the same counts, as estimates.
RUN_NAME=sampled mprof_run 60 "$WORK/sampled.trace" --sample-rate 1 --sample-seed 7 -- \
	"$WORK/entry_points"
expect_eq "sampled: exit status" 0 "$RUN_STATUS"
report_json "$WORK/s.json" "$WORK/sampled.trace"
R="$WORK/s.json"
expect_eq "sampled: the report says so" "true" "$(q "$R" summary sampled)"
expect_counts
finish
