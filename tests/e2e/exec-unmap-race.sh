#!/bin/bash
# exec-unmap-race.sh - an execve whose environment another thread unmaps at
# that moment.  One thread maps, fills and unmaps a copy of environ over
# and over while the main thread vforks 300 times and its child executes
# /bin/true with the copy published last.  Natively each child runs
# /bin/true (status 0) or its execve fails with EFAULT (status 127).
# Before, the exec wrappers asked the kernel whether each page could be read
# and then read it directly (preload/own_pages.c): a page unmapped in
# between faulted, and 27 to 50 of the 300 children died of SIGSEGV in
# env_value under `mprof run`, every run.  Now they copy what they read
# through process_vm_readv (preload/exec_args.c), and a page that vanished
# is an error: the call is noted nothing and passed on as it is.
# Program and facts: tests/progs/exec_unmap_race.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/exec_unmap_race" "$PROGS_DIR/exec_unmap_race.c" -pthread
P="$WORK/exec_unmap_race"

# outcome: the run's rounds and the children that ended otherwise than natively
outcome() {
	sed -n 's/^exec_unmap_race: rounds \([0-9]*\) ok [0-9]* efault [0-9]* other \([0-9]*\) signaled \([0-9]*\)$/rounds \1 other \2 signaled \3/p' "$RUN_OUT"
}

run_cmd 120 native "$P"
expect_eq "natively: status 0" 0 "$RUN_STATUS"
expect_eq "natively: every child ran /bin/true or failed with EFAULT" \
	"rounds 300 other 0 signaled 0" "$(outcome)"

for round in 1 2; do
	RUN_NAME=profiled$round mprof_run 180 "$WORK/t$round" -- "$P"
	expect_eq "profiled $round: status 0, as natively" 0 "$RUN_STATUS"
	expect_eq "profiled $round: no child died of a signal, every one as natively" \
		"rounds 300 other 0 signaled 0" "$(outcome)"
done
finish
