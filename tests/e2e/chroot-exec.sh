#!/bin/bash
# chroot-exec.sh - a program that changes its root directory to one
# without mprof's library (as chroot(1) and build sandboxes do) and then
# starts programs there: by posix_spawn, by execv in a vfork child and in
# a fork child, and by an execv of its own.  Before, each kept the
# recorder's entry in LD_PRELOAD, and its loader printed "ERROR: ld.so:
# object '...' from LD_PRELOAD cannot be preloaded (cannot open shared
# object file): ignored." on the program's stderr (4 lines); now the
# recorder's exec and posix_spawn wrappers take the entry out when its
# file cannot be found from the process, and the programs run as without
# mprof, named as not recorded.  Needs root (skipped otherwise).
# Program and facts: tests/progs/chroot_exec.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
[ "$(id -u)" = 0 ] || skip "not root: cannot chroot"
build_c "$WORK/chroot_exec" "$PROGS_DIR/chroot_exec.c"
# the root: the program as /bin/prog, with the libraries its loader loads
mkdir -p "$WORK/root/bin"
cp "$WORK/chroot_exec" "$WORK/root/bin/prog"
for lib in $(ldd "$WORK/chroot_exec" | grep -o '/[^ ]*'); do
	mkdir -p "$WORK/root$(dirname "$lib")"
	cp "$lib" "$WORK/root$lib"
done
EXPECTED_OUT='child ran
spawned: status 0
child ran
vfork child: status 0
child ran
fork child: status 0
last image'
WHY="the process had changed its root directory (chroot) or mounted over mprof's session directory in a mount namespace of its own, where the recorder cannot create a process file"
PROG="$WORK/chroot_exec"

run_cmd 60 native "$PROG" "$WORK/root"
[ "$RUN_STATUS" = 77 ] && skip "chroot refused"
expect_eq "without mprof: exit status" 0 "$RUN_STATUS"
expect_eq "without mprof: stdout" "$EXPECTED_OUT" "$(cat "$RUN_OUT")"
expect_eq "without mprof: stderr" "" "$(cat "$RUN_ERR")"

mprof_run 60 "$WORK/t" -- "$PROG" "$WORK/root"
expect_eq "exit status as without mprof" 0 "$RUN_STATUS"
expect_eq "stdout as without mprof" "$EXPECTED_OUT" "$(cat "$RUN_OUT")"
expect_eq "stderr: only mprof's lines (no loader error)" "" "$(program_stderr "$RUN_ERR")"
expect_eq "the spawned and vfork-started programs are named, with the reason" 1 \
	"$(grep -c "^mprof: warning: 2 programs started by process [0-9]* ($PROG) are not recorded: /bin/prog (and 1 more); $WHY\$" "$RUN_ERR")"
expect_eq "the program it executed itself is named, with the reason" 1 \
	"$(grep -c "^mprof: warning: process [0-9]* ($PROG) executed /bin/prog, which is not recorded: $WHY\$" "$RUN_ERR")"
expect_eq "one trace: the program's" "t" "$(cd "$WORK" && ls t t.* 2>/dev/null | grep -v html | paste -sd' ')"
finish
