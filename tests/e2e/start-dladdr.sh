#!/bin/bash
# start-dladdr.sh - a recorded process's start asks which module holds the
# allocator it found behind the recorder by _dl_find_object (a search of
# the loader's sorted table, some nanoseconds), not by dladdr, which walks
# the whole symbol table of the module: about 10 us for the C library, 13
# calls at every start (real_resolve and real_route_behind), some 0.13 ms
# of each short process.  Counted by tests/progs/dladdr_count.c, put ahead
# of the recorder in LD_PRELOAD (where an allocator would be); the program
# still runs and is recorded.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/libdladdr_count.so" "$PROGS_DIR/dladdr_count.c" -shared -fPIC

# the counter alone: it counts a call the program makes itself
run_cmd 30 native env LD_PRELOAD="$WORK/libdladdr_count.so" DLADDR_COUNT_FILE="$WORK/native.count" \
	/bin/echo native
expect_eq "native: exit status" 0 "$RUN_STATUS"
expect_eq "native: echo makes no dladdr call" "calls_in_libc 0" "$(cat "$WORK/native.count" 2>/dev/null)"

# a shell puts the counter ahead of the recorder in the LD_PRELOAD mprof set
# and executes the program in its place
mprof_run 60 "$WORK/trace" -- /bin/sh -c \
	'LD_PRELOAD="$1 $LD_PRELOAD" DLADDR_COUNT_FILE="$2" exec /bin/echo recorded' sh \
	"$WORK/libdladdr_count.so" "$WORK/run.count"
expect_eq "mprof run: exit status" 0 "$RUN_STATUS"
expect_eq "mprof run: stdout" recorded "$(cat "$RUN_OUT")"
expect_eq "mprof run: the program wrote nothing on stderr" "" "$(program_stderr "$RUN_ERR")"
expect_eq "the recorded start walks no symbol table of the C library" "calls_in_libc 0" \
	"$(cat "$WORK/run.count" 2>/dev/null)"
# the program was recorded (the counter did not hide the allocator)
R=
for t in "$WORK"/trace*; do
	case $t in *.json | *.err) continue ;; esac
	report_json "$t.json" "$t" || continue
	[ "$(q "$t.json" get trace.exe)" = /usr/bin/echo ] && R="$t.json"
done
expect_ne "a trace of echo" "" "$R"
expect_eq "echo's trace: its malloc is the recorder's" false "$(q "$R" get summary.foreign_malloc)"
expect_eq "echo's trace: exact" false "$(q "$R" get summary.sampled)"
expect_range "echo's trace: its allocations recorded" 1 100000 "$(q "$R" get summary.allocations)"
finish
