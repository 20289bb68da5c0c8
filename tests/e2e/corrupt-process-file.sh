#!/bin/bash
# corrupt-process-file.sh - a program that writes over its recorder's
# process file (mapped in its own address space: header, reap table, slots,
# rings) ends under mprof as without it: same output, its own exit status,
# in bounded time, with one warning naming what it damaged and what the
# recording lost, and a trace `mprof report` reads.  Before: damaged ring
# positions left its threads waiting for room for ever (the launcher
# stopped reading), a lap whose first record was damaged made the launcher
# spin, a reap table count written over made it pass entries for 2^63
# rounds, and a fork child's header written over crashed it.  Another
# process of the run keeps its whole recording.
# Program and modes: tests/progs/procfile_scribble.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/scribble" "$PROGS_DIR/procfile_scribble.c" -pthread -I"$abs_top_srcdir"

OUT='workers made 400000
main made 50000'
OUT_CHILD="$OUT
child exited 0"
RINGS="its trace keeps the events read before, and recording it stopped"
RECORDS="readers count the damaged records as lost"
REAPS="how its children ended may be unknown"
HEADER="the counts and notes of its header are left out"

run_cmd 60 native "$WORK/scribble" all-random@child 5
expect_eq "without mprof: exit status" 7 "$RUN_STATUS"
expect_eq "without mprof: stdout" "$OUT_CHILD" "$(cat "$RUN_OUT")"

# damaged MODE SEED PARTS COSTS: runs MODE under mprof; checks the exit
# status, stdout, the one warning (none when PARTS is empty) and the report.
damaged() {
	local mode=$1 seed=$2 parts=$3 costs=$4 out=$OUT name=${1//@/-}-$2
	case "$mode" in *@child) out=$OUT_CHILD ;; esac
	run_cmd 60 "$name" "$MPROF" run -o "$WORK/t.$name" -- "$WORK/scribble" "$mode" "$seed"
	expect_eq "$mode $seed: exit status, the program's" 7 "$RUN_STATUS"
	expect_eq "$mode $seed: stdout" "$out" "$(cat "$RUN_OUT")"
	expect_eq "$mode $seed: stderr, only mprof's lines" "" "$(program_stderr "$RUN_ERR")"
	local pid warned refused
	pid=$(grep -o "process [0-9]* wrote over" "$RUN_ERR" | head -n1 | cut -d' ' -f2)
	warned=$(grep -cFx "mprof: warning: process $pid wrote over its recorder's memory ($parts); its recording is damaged: $costs" "$RUN_ERR")
	# random ring positions may also make the launcher read records no
	# writer made before it sees the positions are wrong: a fifth and
	# sixth argument name that outcome, also right
	if [ "$warned" = 0 ] && [ -n "${5:-}" ]; then
		warned=$(grep -cFx "mprof: warning: process $pid wrote over its recorder's memory ($5); its recording is damaged: $6" "$RUN_ERR")
	fi
	# a fork child may write over its header before mprof has read it
	refused=$(grep -c "^mprof: warning: process [0-9]* (.*/scribble) is not recorded: its process file holds a header no recorder writes (the program wrote over its recorder's memory before mprof read it, or made the file) (process file p\.[0-9]*\.[0-9a-f]*)$" "$RUN_ERR")
	case "$mode" in *@child) ;; *) refused=0 ;; esac
	if [ -n "$parts" ]; then
		expect_eq "$mode $seed: one warning, naming what was damaged" 1 $((warned + refused))
	fi
	expect_eq "$mode $seed: damage warnings" "$([ -n "$parts" ] && echo 1 || echo 0)" \
		"$(grep -c "wrote over its recorder's memory" "$RUN_ERR")"
	run_cmd 60 "$name.report" "$MPROF" report "$WORK/t.$name"
	expect_eq "$mode $seed: mprof report reads the trace" 0 "$RUN_STATUS"
	expect_eq "$mode $seed: no sanitizer report" 0 \
		"$(cat "$WORK/$name.err" "$RUN_ERR" | grep -c 'Sanitizer\|runtime error:')"
}

damaged none 1 "" ""
damaged none@child 1 "" ""
# positions that no writer makes
damaged rpos-max 1 "ring positions" "$RINGS"
damaged rpos-full 1 "ring positions" "$RINGS"
damaged rpos-ahead@exit 1 "ring positions" "$RINGS"
damaged wpos-max@exit 1 "ring positions" "$RINGS"
damaged wpos-zero@exit 1 "ring positions" "$RINGS"
# a write position past the records may show first as records no writer
# made (the launcher reads up to it before it sees the position is wrong)
damaged wpos-past@exit 1 "ring positions" "$RINGS" "records in its rings" "$RECORDS"
damaged slots-random 1 "ring positions" "$RINGS" "ring positions, records in its rings" \
	"$RINGS; $RECORDS"
damaged slots-random@exit 2 "ring positions" "$RINGS" "ring positions, records in its rings" \
	"$RINGS; $RECORDS"
expect_eq "the report says the recording ended early, and why" 1 \
	"$(grep -c "^ended early: *the collector reported: the program wrote over its recorder's memory (ring positions)" "$WORK/rpos-max-1.report.out")"
# records no writer makes (a lap's first record among them)
damaged ring-ff 1 "records in its rings" "$RECORDS"
damaged meta-ff 1 "records in its rings" "$RECORDS"
damaged meta-ff@exit 1 "records in its rings" "$RECORDS"
damaged meta-random 3 "records in its rings" "$RECORDS"
# the stacks those records held are lost: the report must not call the
# recording whole (before: "exact: every allocation recorded", 7 stacks
# missing)
for name in meta-ff-1 meta-ff-exit-1; do
	expect_eq "$name: the report's kind says stacks were lost" 1 \
		"$(head -n1 "$WORK/$name.report.out" | grep -c '(incomplete: \(data and \)\?call stacks were lost; see ')"
	expect_eq "$name: the report names the lost stacks" 1 \
		"$(grep -c '^stacks lost:      [1-9][0-9]* of [1-9][0-9]* call stacks the events name (their stack records are missing)' "$WORK/$name.report.out")"
done
run_cmd 60 meta-ff.json "$MPROF" report --format json "$WORK/t.meta-ff-1"
expect_eq "meta-ff: JSON meta_lost and lost_stacks" "1 1" \
	"$("$PYTHON" -c 'import json,sys; s=json.load(sys.stdin)["summary"]; print(int(s["meta_lost"].startswith("%d of " % s["quality"]["lost_stacks"])), int(s["quality"]["lost_stacks"] > 0))' <"$WORK/meta-ff.json.out")"
# the reap table's count: 2^63, and random bytes
damaged reaps-max 1 "its table of reaped children" "$REAPS"
damaged reaps-max@exit 1 "its table of reaped children" "$REAPS"
damaged reaps-random 4 "its table of reaped children" "$REAPS"
# the header's geometry and the whole header
damaged nslots 1 "the header of its process file" "$HEADER"
damaged header-random 5 "the header of its process file" "$HEADER"
damaged header-random@child 5 "the header of its process file" "$HEADER"
# counts that cannot be true (UINT32_MAX children and programs not
# recorded: more than the machine started since mprof did) are damage, not
# facts: before, "4294967295 processes forked by ... are not recorded"
damaged strings 6 "the header of its process file" "$HEADER"
expect_eq "strings: no impossible count is printed" 0 "$(grep -c 4294967295 "$WORK/strings-6.err")"
run_cmd 60 strings.report "$MPROF" report "$WORK/t.strings-6"
expect_eq "strings: the trace states no children or programs not recorded" 0 \
	"$(grep -c '^not recorded:' "$WORK/strings.report.out")"
# an exit note written over (status -5, a time after now) by a child that
# then dies by SIGKILL unreaped by a recorded call: before, its trace said
# "exited with status 251" and took the note's names (0xff bytes)
damaged exit-note@orphan 6 "the header of its process file" "$HEADER"
orphan=$(cd "$WORK" && ls t.exit-note-orphan-6.* | sed -n 's/^t\.exit-note-orphan-6\.\([0-9]*\)$/\1/p' | head -n1)
run_cmd 60 orphan.report "$MPROF" report "$WORK/t.exit-note-orphan-6.$orphan"
expect_eq "exit note written over: its status is not taken" 0 \
	"$(grep -c '^program: .*exited with status' "$WORK/orphan.report.out")"
expect_eq "exit note written over: its names are not taken" 1 \
	"$(grep -c "^program:          /.*/scribble exit-note orphan 6 (pid $orphan)" "$WORK/orphan.report.out")"
# everything, from seeds
ALL="ring positions, its table of reaped children, the header of its process file"
ALL_COSTS="$RINGS; $REAPS; $HEADER"
ALL_READ="ring positions, records in its rings, its table of reaped children, the header of its process file"
ALL_READ_COSTS="$RINGS; $RECORDS; $REAPS; $HEADER"
for seed in 1 2 3; do
	damaged all-random "$seed" "$ALL" "$ALL_COSTS" "$ALL_READ" "$ALL_READ_COSTS"
done
damaged all-random@child 5 "$ALL" "$ALL_COSTS" "$ALL_READ" "$ALL_READ_COSTS"
# fields a writer stores again at once, or the launcher does not trust:
# whatever the launcher sees, the run ends as the program's
for mode in wpos-max wpos-past rpos-ahead state slots-high exit-note strings ring-random; do
	run_cmd 60 "loose-$mode" "$MPROF" run -o "$WORK/t.loose-$mode" -- "$WORK/scribble" "$mode" 6
	expect_eq "$mode: exit status, the program's" 7 "$RUN_STATUS"
	expect_eq "$mode: stdout" "$OUT" "$(cat "$RUN_OUT")"
	expect_eq "$mode: at most one damage warning" 1 \
		"$(($(grep -c "wrote over its recorder's memory" "$RUN_ERR") <= 1))"
	run_cmd 60 "loose-$mode.report" "$MPROF" report "$WORK/t.loose-$mode"
	expect_eq "$mode: mprof report reads the trace" 0 "$RUN_STATUS"
done

# the parent of a child that damaged its file keeps its whole recording
allocs() { grep -m1 '^allocations:' "$WORK/$1.report.out"; }
expect_eq "the parent's allocations, as with an undamaged child" "$(allocs none-child-1)" \
	"$(allocs all-random-child-5)"
expect_eq "the parent's allocations, as with an undamaged child (header)" "$(allocs none-child-1)" \
	"$(allocs header-random-child-5)"
expect_eq "the parent's trace is whole" 0 \
	"$(grep -c 'data lost\|ended early' "$WORK/all-random-child-5.report.out")"

# files the program makes in the session directory: a FIFO, a symbolic
# link, a directory, a 1 TiB sparse file, headers no recorder writes, and a
# hard link to its own process file (taken in twice before, it split the
# shell's recording between two traces)
cat >"$WORK/hostile.sh" <<'SCRIPT'
d=$MPROF_SESSION
own=$(cd "$d" && ls | grep "^p\.$$\." | head -n 1)
mkfifo "$d/p.$$.aaaa1"
ln -s /etc/passwd "$d/p.$$.aaaa2"
truncate -s 1T "$d/p.$$.aaaa3"
printf 'PROF_SHMxxxxxxxx' >"$d/p.$$.aaaa4"
mkdir "$d/p.$$.aaaa6"
head -c 4096 "$d/$own" >"$d/p.$$.aaaa7"
ln "$d/$own" "$d/p.$$.aaaa9"
echo "pid $$"
exit 3
SCRIPT
run_cmd 60 hostile "$MPROF" run -o "$WORK/h.t" -- bash "$WORK/hostile.sh"
expect_eq "fake process files: exit status, the program's" 3 "$RUN_STATUS"
shell_pid=$(sed -n 's/^pid //p' "$RUN_OUT")
expect_eq "fake process files: stdout" "pid $shell_pid" "$(cat "$RUN_OUT")"
expect_eq "fake process files: the shell's recording in one trace" "" \
	"$(cd "$WORK" && ls "h.t.$shell_pid" 2>/dev/null)"
# (the short header copy always; the 16-byte file, whose header cannot be
# read whole, may instead wait as a recorder starting)
expect_eq "fake process files: a header no recorder writes is named" 1 \
	"$(grep -c "^mprof: warning: a process file named after process $shell_pid (.*bash), which is recorded in another file, is ignored: its process file holds a header no recorder writes (the program wrote over its recorder's memory before mprof read it, or made the file) (process file p\.$shell_pid\.aaaa7)$" "$RUN_ERR")"
# the shell is recorded: no file named after it makes it "not recorded"
# (before: "process N (/usr/bin/bash) is not recorded", and "a process (?)
# is not recorded: it ended before its recorder finished starting")
expect_eq "fake process files: no process is named not recorded" 0 \
	"$(grep -c "is not recorded" "$RUN_ERR")"
run_cmd 60 hostile.report "$MPROF" report "$WORK/h.t"
expect_eq "fake process files: mprof report reads the shell's trace" 0 "$RUN_STATUS"
expect_eq "fake process files: no sanitizer report" 0 \
	"$(cat "$WORK/hostile.err" "$WORK/hostile.report.err" | grep -c 'Sanitizer\|runtime error:')"
finish
