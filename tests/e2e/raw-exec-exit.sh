#!/bin/bash
# raw-exec-exit.sh - a process image that ends by an exec or exit system
# call the C library's wrappers did not make.  Before, an image that called
# syscall(SYS_execve, ...) with an empty environment (so the next program
# ran unrecorded) was reported "exited with status 3", the shell's status,
# with its block "leaked (live at exit)"; one that called
# syscall(SYS_exit_group, 5) left no exit note (its names were the
# launcher's last look).  Now the shim's syscall() notes both as the exec
# and _exit wrappers do: state "exec", "executed: /bin/sh, not recorded"
# and "live at exec"; an exit note with the name it gave itself.  An exec
# by a system call instruction of the program's own (as Go's runtime
# makes) is found by the launcher when the next program runs long enough
# to be looked at (here 3 s: the looks are at most 1.6 s apart); an exit
# that way says its status has no exit note behind it, and so may be that
# of a program an unseen exec started.
# Program and facts: tests/progs/raw_exec_exit.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/raw_exec_exit" "$PROGS_DIR/raw_exec_exit.c"

# summary MODE: the report's program, leaked and executed lines, pid hidden
summary() {
	run_cmd 60 "r-$1" "$MPROF" report -n 0 "$WORK/$1"
	grep -E '^(program|leaked|executed):' "$RUN_OUT" | sed 's/(pid [0-9]*)/(pid P)/' | paste -sd'|'
}

SH_WHY="its environment dropped mprof's LD_PRELOAD or MPROF_SESSION"
for mode in exec execat; do
	RUN_NAME=$mode mprof_run 60 "$WORK/$mode" -- "$WORK/raw_exec_exit" $mode
	expect_eq "$mode: mprof's exit status is the shell's" 3 "$RUN_STATUS"
	expect_eq "$mode: the warning names the shell" 1 \
		"$(grep -c "^mprof: warning: process [0-9]* ($WORK/raw_exec_exit) executed /bin/sh, which is not recorded: $SH_WHY$" "$RUN_ERR")"
	expect_eq "$mode: an exec, its block live at exec, the shell named" \
		"program:          $WORK/raw_exec_exit $mode (pid P), exec|leaked:           1000 B in 1 block (live at exec)|executed:         /bin/sh, not recorded: $SH_WHY" \
		"$(summary $mode)"
	report_json "$WORK/$mode.json" "$WORK/$mode"
	expect_eq "$mode: json program" "None|False|exec|/bin/sh|$SH_WHY" \
		"$(json_eval "$WORK/$mode.json" '"|".join(str(d["summary"]["program"][k]) for k in ("exit_status", "exit_unnoted", "process_state", "executed", "executed_why"))')"
done

RUN_NAME=failexec mprof_run 60 "$WORK/failexec" -- "$WORK/raw_exec_exit" failexec
expect_eq "failexec: status 4" 4 "$RUN_STATUS"
expect_eq "failexec: errno kept" "raw_exec_exit: ENOENT yes" "$(cat "$RUN_OUT")"
expect_eq "failexec: nothing executed, an exit" \
	"program:          [rawend] $WORK/raw_exec_exit failexec (pid P), exited with status 4|leaked:           5096 B (5.0 KiB) in 2 blocks (live at exit)" \
	"$(summary failexec)"

# Arguments the kernel cannot read fail with EFAULT, as without mprof (the
# shim read them itself before, and the program died of SIGSEGV).
RUN_NAME=badexec mprof_run 60 "$WORK/badexec" -- "$WORK/raw_exec_exit" badexec
expect_eq "badexec: status 4" 4 "$RUN_STATUS"
expect_eq "badexec: all four EFAULT" "raw_exec_exit: EFAULT 4" "$(cat "$RUN_OUT")"
expect_eq "badexec: nothing executed, an exit" \
	"program:          [rawend] $WORK/raw_exec_exit badexec (pid P), exited with status 4|leaked:           5096 B (5.0 KiB) in 2 blocks (live at exit)" \
	"$(summary badexec)"

# An execveat of a descriptor names its program by argv[0], as fexecve does
# (before, the warning said "executed , which").
RUN_NAME=fdexec mprof_run 60 "$WORK/fdexec" -- "$WORK/raw_exec_exit" fdexec
expect_eq "fdexec: mprof's exit status is the shell's" 3 "$RUN_STATUS"
expect_eq "fdexec: the warning names argv[0]" 1 \
	"$(grep -c "^mprof: warning: process [0-9]* ($WORK/raw_exec_exit) executed sh, which is not recorded: $SH_WHY$" "$RUN_ERR")"
expect_eq "fdexec: an exec, the shell named" \
	"program:          $WORK/raw_exec_exit fdexec (pid P), exec|leaked:           1000 B in 1 block (live at exec)|executed:         sh, not recorded: $SH_WHY" \
	"$(summary fdexec)"

# The environment kept past the recorder's first batches of envp: the
# shell is recorded, in a trace of its own, and nothing is said unrecorded.
RUN_NAME=padexec mprof_run 60 "$WORK/padexec" -- "$WORK/raw_exec_exit" padexec
expect_eq "padexec: mprof's exit status is the shell's" 3 "$RUN_STATUS"
expect_eq "padexec: no warning" 0 "$(grep -c "warning" "$RUN_ERR")"
expect_eq "padexec: the shell's trace" 1 "$(ls "$WORK"/padexec.[0-9]* | wc -l)"

RUN_NAME=exit mprof_run 60 "$WORK/exit" -- "$WORK/raw_exec_exit" exit
expect_eq "exit: status 5" 5 "$RUN_STATUS"
expect_eq "exit: its exit note's name, leaks at exit" \
	"program:          [rawend] $WORK/raw_exec_exit exit (pid P), exited with status 5|leaked:           1000 B in 1 block (live at exit)" \
	"$(summary exit)"
report_json "$WORK/exit.json" "$WORK/exit"
expect_eq "exit: json: the exit note's name" "rawend|exit|5|False|ended" \
	"$(json_eval "$WORK/exit.json" '"|".join(str(d["summary"]["program"][k]) for k in ("comm", "name_how", "exit_status", "exit_unnoted", "process_state"))')"

RUN_NAME=ownexit mprof_run 60 "$WORK/ownexit" -- "$WORK/raw_exec_exit" ownexit
[ "$RUN_STATUS" = 77 ] && skip "no system call instruction for this machine in raw_exec_exit.c"
expect_eq "ownexit: status 6" 6 "$RUN_STATUS"
UNNOTED="the recorder saw no exit: an exit system call of the program's own, or an exec it did not see whose program gave this status"
expect_eq "ownexit: the status, said to have no exit note behind it" \
	"program:          $WORK/raw_exec_exit ownexit (pid P), exited with status 6 ($UNNOTED)|leaked:           1000 B in 1 block (live at its end: exit, or an exec mprof did not see)" \
	"$(summary ownexit)"
report_json "$WORK/ownexit.json" "$WORK/ownexit"
expect_eq "ownexit: json" "6|True|ended|None" \
	"$(json_eval "$WORK/ownexit.json" '"|".join(str(d["summary"]["program"][k]) for k in ("exit_status", "exit_unnoted", "process_state", "executed"))')"

OWN_WHY="the image was replaced by an exec system call of the program's own, which mprof's recorder does not see (found by the launcher: the process ran this program), and the program started without the recorder"
SH=$(readlink -f /bin/sh)
# The launcher finds the exec only when it took the process file in before
# it (cli/pid_guard.c: a pid is known as the file's by its maps when it
# started within the file's clock tick); the program waits 300 ms for that,
# and a run on a loaded host that still missed it is tried again, twice.
for try in 1 2 3; do
	rm -f "$WORK/ownexec"
	RUN_NAME=ownexec mprof_run 60 "$WORK/ownexec" -- "$WORK/raw_exec_exit" ownexec
	grep -q "^mprof: warning: process [0-9]* ($WORK/raw_exec_exit) executed" "$RUN_ERR" && break
done
expect_eq "ownexec: mprof's exit status is the shell's" 3 "$RUN_STATUS"
expect_eq "ownexec: the launcher found the exec" 1 \
	"$(grep -c "^mprof: warning: process [0-9]* ($WORK/raw_exec_exit) executed $SH, which is not recorded: $OWN_WHY$" "$RUN_ERR")"
expect_eq "ownexec: an exec, its block live at exec" \
	"program:          [rawend] $WORK/raw_exec_exit ownexec (pid P), exec|leaked:           1000 B in 1 block (live at exec)|executed:         $SH, not recorded: $OWN_WHY" \
	"$(summary ownexec)"
report_json "$WORK/ownexec.json" "$WORK/ownexec"
expect_eq "ownexec: json" "None|False|exec|$SH" \
	"$(json_eval "$WORK/ownexec.json" '"|".join(str(d["summary"]["program"][k]) for k in ("exit_status", "exit_unnoted", "process_state", "executed"))')"

# the page says what the text says (analyze/output/assets/report.js)
run_cmd 60 html "$MPROF" report --html "$WORK/ownexit.html" "$WORK/ownexit"
expect_eq "page: the exit without a note" 1 \
	"$(grep -c "the recorder saw no exit: an exit system call of the program’s own, or an exec it did not see whose ' +" "$WORK/ownexit.html")"
expect_eq "page: the exec" 1 "$(grep -c "'leaked (live at exec)'" "$WORK/ownexit.html")"
finish
