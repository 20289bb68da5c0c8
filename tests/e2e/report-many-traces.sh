#!/bin/bash
# report-many-traces.sh - a report of many small traces does no more per
# trace than it must.  The analyzer reads a small trace on one thread and a
# large one on three.  It started a chunk reader and an aggregation thread
# for every trace, so `mprof report --all` of a run of hundreds of small
# processes made two threads per trace, and on a busy host each start and
# hand-over waited for a processor (159 s for 601 traces at a load of 15,
# with 4.9 s of CPU).  Now the reader thread is made only for a trace of
# 1 MiB or more and the aggregation thread only after 65536 events.
# And the heap it frees after a trace stays for the next: the C library
# gave back all but 128 KiB of it after each and grew it again for the next
# (a TLB flush and fresh zeroed pages every time; 3 times the time of the
# whole report).
# Counted with strace: the clone and brk calls of mprof-analyze.  Program
# and facts: tests/progs/trace_sizes.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
command -v strace >/dev/null 2>&1 || skip "strace is not installed"
make_work
PROG="$WORK/trace_sizes"
build_c "$PROG" "$PROGS_DIR/trace_sizes.c"

# analyze_calls NAME ARGS...: mprof-analyze ARGS under strace (RUN_* set);
# THREADS: how many threads it made, BRKS: how many times it set its heap's
# end.
analyze_calls() {
	local name=$1
	shift
	# LeakSanitizer cannot work under ptrace (a sanitizer build's analyzer
	# would exit 1 and start one thread more for its check at exit)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		run_cmd 300 "$name" strace -f -qq -e trace=clone,clone3,brk \
		-o "$WORK/$name.calls" "$MPROF_ANALYZE" "$@"
	# a clone interrupted by another thread's call is two lines, "clone(...
	# <unfinished ...>" and "<... clone resumed>": the first one counts
	THREADS=$(grep -cE '^[0-9]+ +clone3?\(' "$WORK/$name.calls")
	BRKS=$(grep -c 'brk(' "$WORK/$name.calls")
}

# 40 fork children, one after another: 41 small traces
mkdir "$WORK/kids"
RUN_NAME=kids mprof_run 120 "$WORK/kids/t" -q -- "$PROG" children 40
expect_eq "children: exit status" 0 "$RUN_STATUS"
analyze_calls kids-report report -n 0 --all "$WORK/kids/t"
expect_eq "41 small traces: report status" 0 "$RUN_STATUS"
expect_eq "41 small traces: threads made" 0 "$THREADS"
expect_eq "41 small traces: the overview's count" "mprof report: 41 traces, most allocations first" \
	"$(head -n 1 "$RUN_OUT")"
expect_eq "41 small traces: children with one allocation of 100 B, leaked" 40 \
	"$(grep -Ec ' [0-9]+  exit 0 +1 +100 B +100 B ' "$RUN_OUT")"

# one trace of 300000 allocations, over 1 MiB
RUN_NAME=churn mprof_run 120 "$WORK/churn" -q -- "$PROG" churn 300000
expect_eq "churn: exit status" 0 "$RUN_STATUS"
bytes=$(stat -c %s "$WORK/churn")
expect_true "churn: the trace holds 1 MiB or more ($bytes B)" [ "$bytes" -ge 1048576 ]
analyze_calls churn-report report -n 0 "$WORK/churn"
expect_eq "large trace: report status" 0 "$RUN_STATUS"
expect_eq "large trace: threads made (chunk reader, aggregation)" 2 "$THREADS"
expect_eq "large trace: allocations" "allocations:      300000, 158444687 B (151.1 MiB) requested" \
	"$(grep '^allocations:' "$RUN_OUT")"
expect_eq "large trace: live at exit" \
	"leaked:           2182239 B (2.1 MiB) in 4096 blocks (live at exit)" \
	"$(grep '^leaked:' "$RUN_OUT")"

# 100 children that exec /bin/true: 101 traces with modules to read, and a
# heap that held each one's report until the overview was out (the C
# library trimmed it after most traces: 85 brk calls, 65 with the threads
# gone, 6 now)
mkdir "$WORK/execs"
RUN_NAME=execs mprof_run 120 "$WORK/execs/t" -q -- /bin/sh -c \
	'i=0; while [ $i -lt 100 ]; do /bin/true; i=$((i + 1)); done'
expect_eq "execs: exit status" 0 "$RUN_STATUS"
analyze_calls execs-report report -n 0 --all "$WORK/execs/t"
expect_eq "101 traces: report status" 0 "$RUN_STATUS"
expect_eq "101 traces: the overview's count" "mprof report: 101 traces, most allocations first" \
	"$(head -n 1 "$RUN_OUT")"
# AddressSanitizer's allocator maps its heap and never calls brk: the count
# says something only of the C library's allocator
if ldd "$MPROF_ANALYZE" 2>/dev/null | grep -q libasan; then
	echo "note: the analyzer is built with AddressSanitizer: its heap is not the C library's, brk calls not counted"
else
	expect_range "101 traces: brk calls (the heap kept from trace to trace)" 0 20 "$BRKS"
fi
finish
