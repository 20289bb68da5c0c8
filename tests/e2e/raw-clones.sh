#!/bin/bash
# raw-clones.sh - children made by fork-like system calls through syscall()
# (SYS_fork, SYS_clone and SYS_clone3 without CLONE_VM), which run no fork
# handlers.  Before, such a child found its parent's process file, stopped
# recording and ran unrecorded without a word, as did one of the C
# library's clone(), which runs the child on a stack of the program's.  Now
# a copy made by a system call in a process with one thread is recorded
# like a fork child; one made while the process had several threads (a lock
# another thread held would stay held in the child), or by clone(), is
# named by a warning.  Under a seccomp filter a raw fork's child is named
# as a fork child there is, never recorded through the fork handlers, and
# so is a clone3 child (its arguments were not read under a filter, and it
# went unnamed); a clone3 given an address the kernel refuses fails with
# EFAULT as it does without mprof.  The parent's "forks:" counted only the children the fork
# handlers saw; now it counts every child and says how many were not
# recorded.  Program and facts: tests/progs/raw_clones.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
PROG="$WORK/raw_clones"
build_c "$PROG" "$PROGS_DIR/raw_clones.c" -pthread

RUN_NAME=raw mprof_run 60 "$WORK/t" -- "$PROG"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "what the calls and waitpid returned" \
	"fork exit 3|clone exit 4|clone3 exit 5|threaded exit 6|stack exit 7|clone3 bad pointer: -1 EFAULT|done" "$(paste -sd'|' "$RUN_OUT")"
expect_eq "the child of the threaded process is named" 1 \
	"$(grep -c "^mprof: warning: 1 process made by process [0-9]* ($PROG) with a raw clone system call (syscall(SYS_fork), SYS_clone or SYS_clone3, which run no fork handlers) is not recorded: the process had several threads then, and a child may inherit a lock another thread held, which its recorder would wait for$" "$RUN_ERR")"
expect_eq "the child of clone() is named" 1 \
	"$(grep -c "^mprof: warning: 1 process made by process [0-9]* ($PROG) with clone() (or a clone system call) on a stack of its own is not recorded: no fork handler runs in it, and the recorder does not start on a stack whose size it cannot know$" "$RUN_ERR")"

# each child's trace: how it ended and its blocks (by status: pids may wrap)
n=0
for t in "$WORK"/t.*; do
	[[ $t =~ /t\.[0-9]+$ ]] || continue
	n=$((n + 1))
	run_cmd 60 report-$n "$MPROF" report -n 0 "$t"
	line=$(grep '^program:' "$RUN_OUT")
	echo "${line##*), }; $(grep '^leaked:' "$RUN_OUT" | tr -s ' ')"
done | sort >"$WORK/children"
expect_eq "three children recorded, each how it ended and its blocks" \
	"exited with status 3; leaked: 3000 B (2.9 KiB) in 3 blocks (live at exit)|exited with status 4; leaked: 4000 B (3.9 KiB) in 4 blocks (live at exit)|exited with status 5; leaked: 5000 B (4.9 KiB) in 5 blocks (live at exit)" \
	"$(paste -sd'|' "$WORK/children")"
run_cmd 60 report-parent "$MPROF" report -n 0 "$WORK/t"
expect_eq "the parent counts the five children, two not recorded" \
	"forks:            5 (2 not recorded, named by mprof run; each child recorded has its own trace)" \
	"$(grep '^forks:' "$RUN_OUT")"
report_json "$WORK/parent.json" "$WORK/t"
expect_eq "json: forks and forks_unrecorded" "5 2" \
	"$(json_eval "$WORK/parent.json" '"%s %s" % (d["summary"]["forks"], d["summary"].get("forks_unrecorded"))')"

# the same calls without mprof: what they return is unchanged
run_cmd 60 native "$PROG"
expect_file_eq "without mprof: the same output" "$WORK/native.out" "$WORK/raw.out"

# ---- under a seccomp filter ----
mkdir "$WORK/sandboxed"
run_cmd 60 native-sandboxed "$PROG" sandboxed
if [ "$(head -n 1 "$RUN_OUT")" = "no filter" ]; then
	echo "# no seccomp filter here: the sandboxed checks are skipped"
	finish
fi
expect_eq "sandboxed, without mprof: output" \
	"fork exit 3|clone3 exit 5|clone3 bad pointer: -1 EFAULT|done" "$(paste -sd'|' "$RUN_OUT")"
RUN_NAME=sandboxed mprof_run 60 "$WORK/sandboxed/t" -- "$PROG" sandboxed
expect_eq "sandboxed: exit status" 0 "$RUN_STATUS"
expect_file_eq "sandboxed: the output without mprof" "$WORK/native-sandboxed.out" \
	"$WORK/sandboxed.out"
expect_eq "sandboxed: the raw fork's and clone3's children are named" 1 \
	"$(grep -c "^mprof: warning: 2 processes forked by process [0-9]* ($PROG) are not recorded: they were forked under a seccomp filter (a sandbox), which may kill a process that opens a file, so their recorder did not try to create their process file$" "$RUN_ERR")"
expect_eq "sandboxed: no child trace (no fork handler ran in them)" "" \
	"$(cd "$WORK/sandboxed" && ls | grep -E '^t\.[0-9]+')"
run_cmd 60 report-sandboxed "$MPROF" report -n 0 "$WORK/sandboxed/t"
expect_eq "sandboxed: the parent counts its two children, not recorded" \
	"forks:            2 (2 not recorded, named by mprof run; each child recorded has its own trace)" \
	"$(grep '^forks:' "$RUN_OUT")"
finish
