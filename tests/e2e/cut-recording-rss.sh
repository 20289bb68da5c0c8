#!/bin/bash
# cut-recording-rss.sh - a recording that mprof cut while the process ran on
# (it could not write the trace: a full disk; or it stopped reading the
# process) has the heap peak of the part recorded and the peak RSS of the
# whole run.  The report said "peak RSS ... is over 4 times the heap peak:
# most of the memory is not malloc blocks" of a program that had leaked 850
# MiB of malloc blocks after the disk filled; now it says nothing of the
# kind there, and still does for a whole recording with the same figures.
# The traces are written here (man/mprof-trace.5; records as
# trace/record.h encodes them), as in hostile-traces.sh.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work

"$PYTHON" - "$WORK" "$E2E_DIR" <<'PY' || hard_error "cannot write the crafted traces"
import struct, sys
work = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from trace_craft import chunk, s, u

def trace(name, end):
    # thread 11, the module map of epoch 0 (empty: a map a recorder
    # writes, or the stacks' module records are missing), stack nodes
    # 1 <- 2, one malloc of 1000 B at seq 1
    modules = u(0) + u(0)
    records = (b"\x02" + u(11) + b"\x80" + u(len(modules)) + modules +
               b"\x04" + u(1) + u(0) + s(0) + b"\x04" + u(2) + u(1) +
               s(0x401000) + b"\x10" + u(1) + u(2) + s(0x10000) + u(1000) + s(2))
    events = u(0) + u(0) + u(0) + records
    data = (b"MPROFTRC" + struct.pack("<HHII", 1, 0, 64, 0) + bytes(44) +
            chunk(1, b"pid=300\n") + chunk(2, events, 1) + chunk(4, end))
    open(work + "/" + name, "wb").write(data)

rss = b"exit_status=0\npeak_rss_kib=204800\n"   # 200 MiB against a 1000 B heap
trace("whole.trace", rss)
trace("write-error.trace", rss + b"write_error=No space left on device\n")
trace("collector-error.trace", rss + b"collector_error=the ring was corrupt\n")
PY

run_cmd 30 whole "$MPROF_ANALYZE" report -n 0 "$WORK/whole.trace"
expect_eq "whole recording: exit status" 0 "$RUN_STATUS"
expect_match "whole recording: the peak RSS note" \
	"^note: +peak RSS \(209715200 B \(200.0 MiB\)\) is over 4 times the heap peak \(1000 B\)" \
	"$(cat "$RUN_OUT")"
for what in write-error collector-error; do
	run_cmd 30 "$what" "$MPROF_ANALYZE" report -n 0 "$WORK/$what.trace"
	expect_eq "$what: exit status" 0 "$RUN_STATUS"
	expect_match "$what: the peak RSS is still shown" "^peak RSS: +209715200 B" "$(cat "$RUN_OUT")"
	expect_eq "$what: no note that most memory is not malloc blocks" "" \
		"$(grep '^note: .*peak RSS' "$RUN_OUT")"
	expect_match "$what: the header does not blame memory mprof does not see" \
		"^mprof report: .* \(incomplete: data was lost; see data and warnings\)$|^mprof report: .* \(exact until the recording ended early\)$" \
		"$(head -n 1 "$RUN_OUT")"
	report_json "$WORK/$what.json" "$WORK/$what.trace" &&
		expect_eq "$what: json rss_mostly_unseen" false \
			"$(q "$WORK/$what.json" summary rss_mostly_unseen)"
done
finish
