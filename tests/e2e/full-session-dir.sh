#!/bin/bash
# full-session-dir.sh - a program that fills the file system of mprof's
# session directory (a tmpfs, /dev/shm) runs under mprof as without it:
# same output, same exit status.  The process files there are sparse and
# their pages got memory at the recorder's first write: on the full tmpfs
# that write was SIGBUS, which killed the program (and the fork child's
# header, read by the launcher before the child wrote it, killed mprof).
# Now the recorder faults pages in before it writes them
# (MADV_POPULATE_WRITE), and a refusal stops the recording with a
# diagnostic; a fork child whose file cannot be made runs unrecorded and
# is counted.  Needs root and a mount namespace of its own (skipped
# otherwise): small tmpfs mounts on /dev/shm and /tmp, seen by this test
# alone.
# Program and facts: tests/progs/full_session_dir.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
[ "$(id -u)" = 0 ] || skip "not root: cannot mount a tmpfs"
case "$WORK" in
/tmp/* | /dev/shm/*) skip "the scratch directory is under /tmp or /dev/shm, which the test mounts over" ;;
esac
command -v unshare >/dev/null 2>&1 || skip "unshare (util-linux) is not installed"
build_c "$WORK/full_session_dir" "$PROGS_DIR/full_session_dir.c" -pthread

# in_small_tmpfs COMMAND...: COMMAND in a mount namespace of its own where
# /dev/shm and /tmp are empty tmpfs mounts of 8 MiB (the session directory
# goes to /dev/shm, the first place mprof tries when none has room).
cat >"$WORK/in_small_tmpfs" <<'SCRIPT'
#!/bin/sh
mount -t tmpfs -o size=8m tmpfs /dev/shm || exit 90
mount -t tmpfs -o size=8m tmpfs /tmp || exit 91
exec "$@"
SCRIPT
chmod +x "$WORK/in_small_tmpfs"
if ! unshare -m --propagation private true 2>/dev/null; then
	skip "unshare -m refused (no CAP_SYS_ADMIN here)"
fi
EXPECTED_OUT='filled: No space left on device
child exited 0
thread made 50000
main made 50000'

run_cmd 60 plain env TMPDIR=/tmp unshare -m --propagation private "$WORK/in_small_tmpfs" \
	"$WORK/full_session_dir" /dev/shm
[ "$RUN_STATUS" = 90 ] || [ "$RUN_STATUS" = 91 ] && skip "cannot mount a tmpfs in a new mount namespace"
expect_eq "without mprof: exit status" 3 "$RUN_STATUS"
expect_eq "without mprof: stdout" "$EXPECTED_OUT" "$(cat "$RUN_OUT")"

run_cmd 60 run env TMPDIR=/tmp unshare -m --propagation private "$WORK/in_small_tmpfs" \
	"$MPROF" run -o "$WORK/t" -- "$WORK/full_session_dir" /dev/shm
head -n 15 "$RUN_ERR"
expect_eq "exit status as without mprof" 3 "$RUN_STATUS"
expect_eq "stdout as without mprof" "$EXPECTED_OUT" "$(cat "$RUN_OUT")"
expect_eq "stderr: only mprof's lines" "" "$(program_stderr "$RUN_ERR")"
expect_eq "mprof says the recording stopped, and why" 1 \
	"$(grep -c "^mprof: the file system of mprof's session directory is full (no memory for the recorder's rings); recording stopped$" "$RUN_ERR")"
expect_eq "the fork child is named as not recorded, once" 1 \
	"$(grep -c "^mprof: warning: 1 process forked by process [0-9]* ($WORK/full_session_dir) is not recorded: .*No space left on device" "$RUN_ERR")"
expect_eq "no other warning" 0 "$(grep -c "is not recorded: it ended before" "$RUN_ERR")"
expect_eq "one trace: the program's" "t" "$(cd "$WORK" && ls t t.* 2>/dev/null | grep -v html | paste -sd' ')"

run_cmd 60 report "$MPROF" report -n 0 "$WORK/t"
expect_eq "report: exit status" 0 "$RUN_STATUS"
expect_eq "report: ended early, and why" \
	"ended early:      the file system of mprof's session directory is full (no memory for the recorder's rings); recording stopped; blocks still live then are not known to be leaks" \
	"$(grep '^ended early:' "$RUN_OUT")"
if report_json "$WORK/t.json" "$WORK/t"; then
	expect_eq "report: the 10 blocks of before_fill, made before the tmpfs was full" \
		"10 10000" \
		"$(q "$WORK/t.json" sum allocations before_fill) $(q "$WORK/t.json" sum allocated_bytes before_fill)"
fi
finish
