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
# Program: tests/progs/spawn_unreachable.c.
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
static_line=$(grep 'static_hello' "$RUN_ERR")
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
finish
