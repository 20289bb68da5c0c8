#!/bin/bash
# unreachable-spawns.sh - programs that a posix_spawn or a vfork child
# starts with mprof's recorder in their environment, but that the loader
# will not load it into (statically linked; set-user-ID to another user),
# are named.  A fork child that executed one was named, but a spawn or a
# vfork child left no process file and no word: Rust's Command
# (posix_spawn) and dash (vfork) running a static program, or dash
# running passwd as a user, made runs that silently lacked a process.
# Now the recorder looks at the file before the call and counts it, and
# mprof names the first with the reason and counts the others.
#  1. posix_spawn, posix_spawnp (through $PATH), vfork+execv and
#     vfork+execvp of a static program: one warning, "4 programs ...
#     (and 3 more); it is statically linked"; exit statuses as without
#     mprof.
#  2. posix_spawn of /bin/true (recorded) and a failed execv in a vfork
#     child are not counted.
#  3. As root: a copy of /bin/true set-user-ID to nobody, spawned: named
#     as "it runs set-user-ID".
#  4. File capabilities (ping's cap_net_raw=ep, on a copy of /bin/true)
#     put a program in secure-execution mode too: run by uid 65534, the 4
#     spawns and vfork children of it are named, "it runs with file
#     capabilities" (before, nothing was said: `sh -c 'ping -c1 ::1'` as a
#     user, dash's vfork, left no word); run by root, whose exec gains
#     nothing, all 4 are recorded and nothing is said (needs setcap and
#     setpriv; libcap2-bin, util-linux).
#  5. As root: a process whose effective IDs are 65534 and real ones 0
#     (seteuid) spawns /bin/true and executes it from a vfork child: the
#     kernel runs both in secure-execution mode, whatever the file; named
#     with that reason (before, nothing was said).  And mprof itself
#     started with mixed IDs (setpriv --euid=65534 --egid=65534): its
#     program runs in that mode too; mprof says so before it starts (before,
#     at the end: "LD_PRELOAD was dropped, or it became a static or
#     set-user-ID program"), runs it unrecorded, leaves no trace.
#  6. A fork child of the shell executes a static program that is still
#     running when the program ends: the recorder's note names it once
#     (before, mprof's look at the run's processes at the end named it a
#     second time, as a process of its own).
# Programs: tests/progs/spawn_unreachable.c, spawn_mixed_ids.c,
# static_linger.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/spawn_unreachable" "$PROGS_DIR/spawn_unreachable.c"
mkdir -p "$WORK/bin" || hard_error "cannot create $WORK/bin"
$CC -static -O1 -o "$WORK/bin/static_hello" "$PROGS_DIR/cases/27-static-binary.c" \
	>"$WORK/static.log" 2>&1 || skip "no static C library ($CC -static fails)"

args=("$WORK/bin/static_hello" static_hello)
suid=
if [ "$(id -u)" = 0 ] && cp /bin/true "$WORK/suid_true" && chown nobody "$WORK/suid_true" &&
	chmod 4755 "$WORK/suid_true" && "$WORK/suid_true"; then
	suid="$WORK/suid_true"
fi

export PATH="$WORK/bin:$PATH"
run_cmd 60 native "$WORK/spawn_unreachable" "${args[@]}"
expect_eq "native exit status" 0 "$RUN_STATUS"
mprof_run 60 "$WORK/t" -- "$WORK/spawn_unreachable" "${args[@]}"
expect_eq "exit status as without mprof" 0 "$RUN_STATUS"
expect_file_eq "children's exit statuses as without mprof" "$WORK/native.out" "$RUN_OUT"
expect_eq "the static program's statuses, /bin/true's and the failed exec's" \
	"4 4 4 4 0 127" "$(tail -n 1 "$RUN_OUT")"
static_line=$(grep '^mprof: warning: .*static_hello' "$RUN_ERR")
expect_match "the static program: named once, 4 counted, with the reason" \
	"^mprof: warning: 4 programs started by process [0-9]+ \(.*/spawn_unreachable\) are not recorded: .*/static_hello \(and 3 more\); it is statically linked: LD_PRELOAD cannot reach it$" \
	"$static_line"
expect_eq "one line for them" 1 "$(printf '%s\n' "$static_line" | grep -c .)"
# recorded: the program and /bin/true
expect_eq "traces: the program and /bin/true" 2 "$(ls "$WORK"/t "$WORK"/t.* | grep -vc '\.json')"

if [ -n "$suid" ]; then
	RUN_NAME=suid mprof_run 60 "$WORK/s" -- "$WORK/spawn_unreachable" /nonexistent/s s "$suid"
	expect_eq "set-user-ID: exit status" 0 "$RUN_STATUS"
	expect_match "set-user-ID: named, with the reason" \
		"^mprof: warning: 1 program started by process [0-9]+ \(.*/spawn_unreachable\) is not recorded: .*/suid_true; it runs set-user-ID: the loader ignores LD_PRELOAD$" \
		"$(cat "$RUN_ERR")"
else
	echo "not root, or no set-user-ID file possible here: the set-user-ID case is not run"
fi

# 4. file capabilities
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
caps=
if [ "$(id -u)" = 0 ] && command -v setcap >/dev/null 2>&1 && command -v setpriv >/dev/null 2>&1 &&
	mkdir -p "$WORK/capbin" "$WORK/capout" && cp /bin/true "$WORK/capbin/caps_true" &&
	setcap cap_net_raw=ep "$WORK/capbin/caps_true" 2>/dev/null &&
	chmod 755 "$WORK" "$WORK/capbin" && chown 65534:65534 "$WORK/capout" &&
	"${NOBODY[@]}" test -x "$MPROF" -a -w "$WORK/capout" &&
	"${NOBODY[@]}" "$WORK/capbin/caps_true"; then
	caps="$WORK/capbin/caps_true"
fi
if [ -n "$caps" ]; then
	export PATH="$WORK/capbin:$PATH"
	run_cmd 60 caps "${NOBODY[@]}" "$MPROF" run -o "$WORK/capout/c" -- "$WORK/spawn_unreachable" \
		"$caps" caps_true
	expect_eq "file capabilities: exit status" 0 "$RUN_STATUS"
	expect_eq "file capabilities: the children's statuses as without mprof" "0 0 0 0 0 127" \
		"$(cat "$RUN_OUT")"
	expect_eq "file capabilities: the 4 named once, with the reason" 1 \
		"$(grep -Ec "^mprof: warning: 4 programs started by process [0-9]+ \(.*/spawn_unreachable\) are not recorded: .*/caps_true \(and 3 more\); it runs with file capabilities: the loader ignores LD_PRELOAD$" "$RUN_ERR")"
	expect_eq "file capabilities: traces: the program and /bin/true" 2 \
		"$(ls "$WORK"/capout/c "$WORK"/capout/c.* 2>/dev/null | grep -vc '\.json')"
	RUN_NAME=caps-root mprof_run 60 "$WORK/r" -- "$WORK/spawn_unreachable" "$caps" caps_true
	expect_eq "file capabilities, run by root: exit status" 0 "$RUN_STATUS"
	expect_eq "file capabilities, run by root: no warning" 0 "$(grep -c 'warning' "$RUN_ERR")"
	expect_eq "file capabilities, run by root: traces: the program, 4 of it, /bin/true" 6 \
		"$(ls "$WORK"/r "$WORK"/r.* 2>/dev/null | grep -vc '\.json')"
else
	echo "not root, or no setcap/setpriv here, or uid 65534 cannot run mprof: the file-capability case is not run"
fi

# 5. a caller with mixed IDs
if [ "$(id -u)" = 0 ]; then
	build_c "$WORK/spawn_mixed_ids" "$PROGS_DIR/spawn_mixed_ids.c"
	run_cmd 60 mixed-native "$WORK/spawn_mixed_ids" /bin/true
	RUN_NAME=mixed mprof_run 60 "$WORK/m" -- "$WORK/spawn_mixed_ids" /bin/true
	expect_eq "mixed IDs: exit status" 0 "$RUN_STATUS"
	expect_eq "mixed IDs: stdout as without mprof" "$(cat "$WORK/mixed-native.out")" \
		"$(cat "$RUN_OUT")"
	expect_eq "mixed IDs: the 2 named once, with the reason" 1 \
		"$(grep -Ec "^mprof: warning: 2 programs started by process [0-9]+ \(.*/spawn_mixed_ids\) are not recorded: /bin/true \(and 1 more\); it was started by a process whose effective user or group ID was not its real one \(as after seteuid\(\)\): it runs in secure-execution mode, in which the loader ignores LD_PRELOAD$" "$RUN_ERR")"
	expect_eq "mixed IDs: one trace, the program's" 1 \
		"$(ls "$WORK"/m "$WORK"/m.* 2>/dev/null | grep -vc '\.json')"
	if command -v setpriv >/dev/null 2>&1 && mkdir -p "$WORK/mixout" &&
		chown 65534:65534 "$WORK/mixout"; then
		run_cmd 60 mixed-mprof setpriv --euid=65534 --egid=65534 --clear-groups \
			"$MPROF" run -o "$WORK/mixout/t" -- /bin/true
		expect_eq "mprof with mixed IDs: exit status" 0 "$RUN_STATUS"
		expect_eq "mprof with mixed IDs: said before the start, nothing else" \
			"mprof: warning: /bin/true runs with an effective user or group ID that is not its real one (as mprof was started): the loader ignores LD_PRELOAD in secure mode, so no allocations will be recorded (no trace written)" \
			"$(cat "$RUN_ERR")"
		expect_eq "mprof with mixed IDs: no trace" "" "$(ls -A "$WORK/mixout")"
	fi
else
	echo "not root: the mixed-IDs case is not run"
fi

# 6. a static program still running at the end, executed by a fork child
$CC -static -O1 -o "$WORK/bin/static_linger" "$PROGS_DIR/static_linger.c" \
	>"$WORK/linger.log" 2>&1 || hard_error "cannot build static_linger (static_hello was built)"
RUN_NAME=linger mprof_run 60 "$WORK/l" -- sh -c "'$WORK/bin/static_linger' 1500 & exit 0"
expect_eq "lingering static program: exit status" 0 "$RUN_STATUS"
expect_eq "lingering static program: named once" 1 "$(grep -c 'static_linger' "$RUN_ERR")"
expect_match "lingering static program: by the note of the shell's child that executed it" \
	"^mprof: warning: process [0-9]+ \([^)]*\) executed .*/static_linger, which is not recorded: it is statically linked: LD_PRELOAD cannot reach it$" \
	"$(grep 'static_linger' "$RUN_ERR")"
finish
