#!/bin/bash
# fork-samples.sh - in a sampled run the children one thread forks each
# draw their own samples: 40 children, forked with no allocation between
# them, each allocate one block of 2838 bytes, which a 4096-byte sample
# rate records with probability 1 - exp(-2839/4096) = 0.50.  How many
# children recorded theirs must look like 40 coin tosses (5 to 35: outside
# that has odds below 1e-6), not all or none, as it would if the children
# shared the forking thread's generator or its countdown to its next sample.
# Program and facts: tests/progs/fork_samples.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/fork_samples" "$PROGS_DIR/fork_samples.c" -fno-builtin

mprof_run 120 "$WORK/t" --sample-rate 4096 --sample-seed 11 -- "$WORK/fork_samples" 40 2838
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "children 40" "$(cat "$RUN_OUT")"
children=0 sampled=0
for f in "$WORK"/t.*; do
	children=$((children + 1))
	report_json "$f.json" "$f"
	[ "$(q "$f.json" summary allocations)" != 0 ] && sampled=$((sampled + 1))
done
expect_eq "one trace per child" 40 "$children"
echo "children that recorded their block: $sampled of $children"
expect_range "children that recorded their block" 5 35 "$sampled"
finish
