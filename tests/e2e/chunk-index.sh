#!/bin/bash
# chunk-index.sh - the launcher ends each trace with a chunk index
# (mprof-trace(5)), and `mprof report --from T` leaves out the laps of the
# thread slots that end before T without changing a byte of the report:
# the same text and JSON (but for the count of chunks left out and the
# merge's buffer) with and without the index (MPROF_NO_INDEX=1, a testing
# aid), from times in the pause and inside the phases.  A trace without an
# index (a launcher killed by SIGKILL), or with a corrupt or forged one, is
# read whole, with a warning where an index was there but not used.
# Re-compression at the end of the run (MPROF_TEST_STORE=1) keeps the index
# right.
# Program and facts: tests/progs/long_laps.c, three threads, phases 1 s
# apart, with the smallest rings (64 KiB) so that each wraps several times.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/long_laps" "$PROGS_DIR/long_laps.c" -pthread
IX="$E2E_DIR/chunk_index.py"

MPROF_RING_KIB=64 mprof_run 120 "$WORK/trace" -- "$WORK/long_laps"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "laps done" "$(cat "$RUN_OUT")"

# 1. The index lists every EVENTS chunk, and the rings wrapped: more than 5
#    laps per writing thread.
read -r word entries _ laps <<<"$("$PYTHON" "$IX" check "$WORK/trace" 2>&1)"
expect_eq "1. the trace has an index matching its chunks" index "$word"
expect_range "1. laps listed" 18 100000 "$laps"

# same LABEL TRACE ARGS...: the report of TRACE with ARGS is the same with
# and without the index (text, and JSON but for the chunks left out and the
# merge buffer); prints the chunks the index left out.
same() {
	local label=$1 trace=$2
	shift 2
	MPROF_NO_INDEX=1 "$MPROF" report "$trace" "$@" -n 5 >"$WORK/no.txt" 2>"$WORK/no.err"
	"$MPROF" report "$trace" "$@" -n 5 >"$WORK/ix.txt" 2>"$WORK/ix.err"
	expect_file_eq "$label: text the same with the index" "$WORK/no.txt" "$WORK/ix.txt"
	MPROF_NO_INDEX=1 "$MPROF" report "$trace" "$@" --format json >"$WORK/no.json" 2>/dev/null
	"$MPROF" report "$trace" "$@" --format json >"$WORK/ix.json" 2>/dev/null
	"$PYTHON" - "$WORK/no.json" "$WORK/ix.json" "$WORK/skipped" <<'PY'
import json, sys
def load(p):
    d = json.load(open(p))
    w = d.get("window") or {}
    skipped = w.pop("index_skipped_chunks", None)
    d.get("summary", {}).get("quality", {}).pop("merge_buffer_bytes_max", None)
    return d, skipped
a, s0 = load(sys.argv[1])
b, s1 = load(sys.argv[2])
open(sys.argv[3], "w").write("%s %s" % (s0, s1))
sys.exit(0 if a == b else 1)
PY
	expect_eq "$label: JSON the same with the index" 0 "$?"
}

# in_pause TRACE: a time in the pause between the phases of TRACE, the
# middle of the longest stretch of its report's timeline without a point
# (on a loaded machine phase 1 can end past 0.5 s, the time once given).
in_pause() {
	"$MPROF" report --format json "$1" 2>/dev/null | "$PYTHON" -c 'import json, sys
t = [p["time_ns"] for p in json.load(sys.stdin)["timeline"]["points"]]
gap, at = max((b - a, a) for a, b in zip(t, t[1:]))
print("%dms" % ((at + gap // 2) // 1000000))'
}
PAUSE=$(in_pause "$WORK/trace")
echo "the pause: at $PAUSE"

# 2. From the pause: the laps of phase 1 are left out, and the report is
#    phase 2's exactly (the blocks carried over the pause are freed in the
#    window: counted apart, not unmatched).
same "2. --from the pause" "$WORK/trace" --from "$PAUSE"
read -r no_skip ix_skip <"$WORK/skipped"
expect_eq "2. without the index nothing is left out" 0 "$no_skip"
expect_range "2. with it, chunks left out" 4 100000 "$ix_skip"
report_json "$WORK/p2.json" "$WORK/trace" --from "$PAUSE"
expect_site "$WORK/p2.json" phase_two 90000 3555000 30 1755
expect_eq "2. no site of phase 1" 0 "$(q "$WORK/p2.json" sites phase_one)"
expect_eq "2. frees" 89970 "$(q "$WORK/p2.json" summary frees)"
expect_eq "2. unmatched frees" 0 "$(q "$WORK/p2.json" summary unmatched_frees)"
expect_eq "2. frees of blocks from before" 90 "$(q "$WORK/p2.json" get window.frees_outside)"
expect_eq "2. no warning" "" "$(cat "$WORK/ix.err")"

# 3. From times inside the phases (laps that straddle T are read whole),
#    and with an end.
for t in 1ms 5ms 10ms 20ms 90% 95% 98% 99.5%; do
	same "3. --from $t" "$WORK/trace" --from "$t"
done
same "3. --from 5ms --to 98%" "$WORK/trace" --from 5ms --to 98%

# 4. A corrupt index (its checksum fails): read whole, with a warning; the
#    same report as without the index.
cp "$WORK/trace" "$WORK/corrupt"
"$PYTHON" "$IX" corrupt "$WORK/corrupt"
same "4. corrupt index" "$WORK/corrupt" --from "$PAUSE"
expect_eq "4. nothing left out" "0 0" "$(cat "$WORK/skipped")"
expect_match "4. the warning" \
	"^mprof: warning: .*corrupt: the chunk index is not used \(the trace is damaged \(chunk checksum mismatch at offset [0-9]+\)\); every chunk was read$" \
	"$(cat "$WORK/ix.err")"

# 5. A forged index (its checksum right, an entry's stream wrong): the same.
cp "$WORK/trace" "$WORK/forged"
"$PYTHON" "$IX" forge "$WORK/forged"
same "5. forged index" "$WORK/forged" --from "$PAUSE"
expect_eq "5. nothing left out" "0 0" "$(cat "$WORK/skipped")"
expect_match "5. the warning" \
	"^mprof: warning: .*forged: the chunk index is not used \(its entries do not match the events chunks\); every chunk was read$" \
	"$(cat "$WORK/ix.err")"
# (as the same trace's without its index, the one chunk fewer aside: the
# index's earliest stamp is the start of the recording that a trace with one
# measures from)
cp "$WORK/trace" "$WORK/dropped"
"$PYTHON" "$IX" drop "$WORK/dropped"
sed 's/ events in [0-9]* chunks;/ events in N chunks;/' "$WORK/no.txt" >"$WORK/forged.txt"
"$MPROF" report "$WORK/dropped" --from "$PAUSE" -n 5 2>/dev/null |
	sed "s|$WORK/dropped|$WORK/forged|; s/ events in [0-9]* chunks;/ events in N chunks;/" >"$WORK/dropped.txt"
expect_file_eq "5. the report as the trace's without its index" "$WORK/forged.txt" "$WORK/dropped.txt"
# Without an index a window's times count from the earliest of the slots'
# first stamps, as with one: the same figures in the trace and in its copy
# without the index (the first chunk in the file, a slot that started later,
# made windows start late).
for w in "--to 1ms" "--to 5ms" "--from 5ms" "--from 2ms --to 30%" "--at 3ms" "--to 50%"; do
	report_json "$WORK/w-ix.json" "$WORK/trace" $w
	report_json "$WORK/w-no.json" "$WORK/dropped" $w
	for k in allocations frees allocated_bytes; do
		expect_eq "5. $w without the index: $k" "$(q "$WORK/w-ix.json" summary $k)" \
			"$(q "$WORK/w-no.json" summary $k)"
	done
done

# 6. The launcher killed by SIGKILL in the pause: no index, no END; the
#    trace reads whole; a percentage is of its first to last TIME stamp.
#    The kill comes once every thread has ended phase 1 and a chunk of it
#    is in the trace (a kill 0.6 s after the start, as before, found none
#    on a loaded machine), in a pause of 60 s (a check took seconds there),
#    after which the program, which runs on, is killed too.
MPROF_RING_KIB=64 "$MPROF" run -o "$WORK/killed" -- "$WORK/long_laps" 60000 "$WORK/killed.ready" \
	>"$WORK/killed.out" 2>"$WORK/killed.err" </dev/null &
launcher=$!
for _ in $(seq 600); do
	[ -e "$WORK/killed.ready" ] &&
		[ "$("$PYTHON" "$IX" events "$WORK/killed" 2>/dev/null || echo 0)" -gt 0 ] && break
	kill -0 "$launcher" 2>/dev/null || break
	sleep 0.05
done
program=$(cat "/proc/$launcher/task/$launcher/children" 2>/dev/null)
kill -KILL "$launcher" 2>/dev/null
wait "$launcher"
expect_eq "6. the launcher died of SIGKILL (128 + 9)" 137 "$?"
[ -n "$program" ] && kill -KILL $program 2>/dev/null
rm -rf /dev/shm/mprof-"$launcher"-* "${TMPDIR:-/tmp}"/mprof-"$launcher"-*
expect_eq "6. no index" "no index" "$("$PYTHON" "$IX" check "$WORK/killed")"
same "6. killed launcher" "$WORK/killed" --from 1ms
expect_eq "6. no warning" "" "$(cat "$WORK/ix.err")"
expect_match "6. phase 1 is there" '^#1  site [0-9]+: [0-9]+ allocations' "$(cat "$WORK/ix.txt")"
# a percentage of a run without END is of its first to last TIME stamp
# (a second reading): at 100% the heap is the whole trace's
whole=$("$MPROF" report "$WORK/killed" 2>/dev/null | grep '^allocations:')
at_end=$("$MPROF" report "$WORK/killed" --at 100% 2>"$WORK/at.err" | grep '^allocations:')
expect_eq "6. --at 100% without END: no error" "" "$(cat "$WORK/at.err")"
expect_match "6. --at 100% without END: allocations" '^allocations: +[1-9][0-9]*, ' "$at_end"
expect_eq "6. --at 100% without END: every allocation" "$whole" "$at_end"

# 7. Chunks stored while the program runs and deflated at the end of the
#    run (cli/rezip.h): the index still matches the chunks and is used.
mkdir -p "$WORK/store"
MPROF_TEST_STORE=1 MPROF_RING_KIB=64 RUN_NAME=store mprof_run 120 "$WORK/store/trace" -- \
	"$WORK/long_laps"
expect_eq "7. exit status" 0 "$RUN_STATUS"
read -r word _ <<<"$("$PYTHON" "$IX" check "$WORK/store/trace" 2>&1)"
expect_eq "7. the index matches the re-compressed chunks" index "$word"
PAUSE=$(in_pause "$WORK/store/trace")
same "7. --from the pause ($PAUSE)" "$WORK/store/trace" --from "$PAUSE"
read -r no_skip ix_skip <"$WORK/skipped"
expect_range "7. chunks left out" 4 100000 "$ix_skip"
finish
