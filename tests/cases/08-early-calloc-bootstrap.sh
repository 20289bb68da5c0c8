#!/bin/bash
# Hard case 08: an allocation storm from several threads in a library
# constructor, before main() and maybe before the profiler is ready, with
# failing dlsym()/dlopen() calls that allocate: no crash or hang, calloc
# memory stays zeroed, nothing is lost, mis-counted or unmatched; and the
# same with callocs from the executable's .preinit_array, before libc has
# set environ.
# Program and facts: tests/progs/cases/08-early-calloc-bootstrap.c and
# 08-early-calloc-bootstrap-lib.c (built as libwarmup.so, a dependency).
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_start 08-early-calloc-bootstrap

build_c "$CASE_DIR/libwarmup.so" "$CASE_SRC/08-early-calloc-bootstrap-lib.c" \
	-fPIC -shared -pthread -ldl
build_c "$CASE_DIR/prog" "$CASE_SRC/08-early-calloc-bootstrap.c" \
	-L"$CASE_DIR" -lwarmup -Wl,-rpath,"$CASE_DIR" -pthread

want="warm-up: 4208 calloc blocks checked, 0 not zeroed; failed look-ups 50/50"
run_cmd "$HANG_LIMIT" native "$CASE_DIR/prog"
expect_eq "1. native stdout" "$want" "$(cat "$RUN_OUT")"
mprof_run "$HANG_LIMIT" "$WORK/trace" -- "$CASE_DIR/prog"
expect_eq "1. exit status (no crash, no hang; in $RUN_MS ms)" 0 "$RUN_STATUS"
expect_eq "1. stdout" "$want" "$(cat "$RUN_OUT")"
expect_eq "1. program stderr" "" "$(program_stderr "$RUN_ERR")"
report_json "$WORK/r.json" "$WORK/trace" || finish
R="$WORK/r.json"

expect_eq "2. ctor_tables: allocations" 8 "$(q "$R" sum allocations ctor_tables)"
expect_eq "2. ctor_tables: allocated bytes" 32768 "$(q "$R" sum allocated_bytes ctor_tables)"
expect_eq "2. ctor_tables: blocks live at exit" 8 "$(q "$R" sum leaked_blocks ctor_tables)"
expect_eq "2. ctor_tables: bytes live at exit" 32768 "$(q "$R" sum leaked_bytes ctor_tables)"
expect_eq "2. ctor_tables: called from the constructor" warmup "$(q "$R" caller ctor_tables)"
expect_eq "2. ctor_tables: frame in libwarmup.so" libwarmup.so "$(q "$R" frame ctor_tables module)"

expect_eq "3. storm_calloc: allocations" 4200 "$(q "$R" sum allocations storm_calloc)"
expect_eq "3. storm_calloc: allocated bytes" 302400 "$(q "$R" sum allocated_bytes storm_calloc)"
expect_eq "3. storm_calloc: blocks live at exit" 0 "$(q "$R" sum leaked_blocks storm_calloc)"
expect_eq "3. storm_calloc: bytes live at exit" 0 "$(q "$R" sum leaked_bytes storm_calloc)"
expect_eq "3. storm_calloc: called from the storm threads" storm "$(q "$R" caller storm_calloc)"
# Ours are 4208 calloc()s; libc and ld.so add a few of their own.
expect_range "3. calls to calloc counted as calloc" 4208 4308 "$(q "$R" summary calls.calloc)"
expect_eq "3. no unmatched free" 0 "$(q "$R" summary unmatched_frees)"
expect_eq "3. no allocation reported unrecorded" 0 "$(q "$R" summary quality.unrecorded_allocations)"
expect_eq "3. no free reported unrecorded" 0 "$(q "$R" summary quality.unrecorded_frees)"
expect_eq "3. no event missing" 0 "$(q "$R" summary quality.missing_events)"
expect_eq "3. trace complete" true "$(q "$R" summary quality.complete)"

# The same with callocs from the executable's .preinit_array, which run
# before libc has set environ: the recorder must still find its session
# (it reads /proc/self/environ then) and record them.
build_c "$CASE_DIR/prog_pre" "$CASE_SRC/08-early-calloc-bootstrap.c" -DCASE08_PREINIT \
	-L"$CASE_DIR" -lwarmup -Wl,-rpath,"$CASE_DIR" -pthread
RUN_NAME=pre mprof_run "$HANG_LIMIT" "$WORK/pre.trace" -- "$CASE_DIR/prog_pre"
expect_eq "preinit: exit status" 0 "$RUN_STATUS"
expect_eq "preinit: stdout" "$(printf 'preinit: 3 blocks zeroed\n%s' "$want")" "$(cat "$RUN_OUT")"
expect_eq "preinit: program stderr" "" "$(program_stderr "$RUN_ERR")"
report_json "$WORK/pre.json" "$WORK/pre.trace" || finish
expect_site "$WORK/pre.json" first_callocs 3 600 3 600
expect_site "$WORK/pre.json" storm_calloc 4200 302400 0 0
expect_eq "preinit: no unmatched free" 0 "$(q "$WORK/pre.json" summary unmatched_frees)"
finish
