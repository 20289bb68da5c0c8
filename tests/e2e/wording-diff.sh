#!/bin/bash
# wording-diff.sh - `mprof diff` says why a figure is missing and what it
# merged, in words a user of heaptrack or DHAT reads without the manual
# (stop 58's fresh-clone testers):
#  - a site's average lifetime read "- -> -" whether the site was not in
#    that trace or none of its blocks was freed: now "(not in A)",
#    "(none freed)", "(no sampled block freed)";
#  - a total with no figure ("-": temporary in a sampled trace, peak RSS
#    not recorded) says which side lacks it and why;
#  - sites merged under --match function (they differ only in lines) were
#    "[2 / 2 sites of A / B that differ only in lines or JIT frames]" and,
#    on the sites line, "count once": now "[merged: 2 sites of A, 2 of B,
#    ...]" and how many sites became how many rows;
#  - the max live of a merged row sums the sites' maxima: "(at most: ...)".
# Program and facts: tests/progs/wording_diff.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/wording_diff" "$PROGS_DIR/wording_diff.c"

RUN_NAME=a mprof_run 60 "$WORK/a.trace" -- "$WORK/wording_diff" a
expect_eq "A: exit status" 0 "$RUN_STATUS"
RUN_NAME=b mprof_run 60 "$WORK/b.trace" -- "$WORK/wording_diff" b
expect_eq "B: exit status" 0 "$RUN_STATUS"
RUN_NAME=s mprof_run 60 "$WORK/s.trace" --sample-rate 1 --sample-seed 3 -- "$WORK/wording_diff" b
expect_eq "B sampled: exit status" 0 "$RUN_STATUS"

run_cmd 60 text "$MPROF" diff --metric allocated "$WORK/a.trace" "$WORK/b.trace"
expect_eq "text: exit status" 0 "$RUN_STATUS"
T=$(cat "$RUN_OUT")
row() { # row FUNCTION: the lines of the row whose innermost frame is FUNCTION
	awk -v f="    at $1 " '/^#/ { head = $0; n = 0; next } { body[n++] = $0 }
		index($0, f) == 1 && n == 5 { print head; for (i = 0; i < 4; i++) print body[i] }' \
		<<<"$T"
}
expect_eq "sites line: how many sites of each side were merged into how many rows" \
	"sites:            3 changed, 1 new, 0 vanished, 0 same (4 in A, 5 in B; merged, as they differ only in lines or JIT frames (--match function): 2 sites of A into 1 row, 2 sites of B into 1 row)" \
	"$(grep '^sites:' <<<"$T")"
expect_eq "kept: no block freed on either side" \
	"    max live 128 -> 192; average lifetime (none freed) -> (none freed)" \
	"$(row kept | tail -n 1)"
expect_eq "only_b: not in A, none freed in B" \
	"    max live 0 -> 16; average lifetime (not in A) -> (none freed)" \
	"$(row only_b | tail -n 1)"
expect_match "two_lines: the row says it merged 2 sites of each side" \
	'^#[0-9]  changed \(site [0-9] in A, site [0-9] in B\) \[merged: 2 sites of A, 2 of B, that differ only in lines or JIT frames\]$' \
	"$(row two_lines | head -n 1)"
expect_match "two_lines: its max live, 8 + 9 B summed, is at most" \
	'^    max live \(at most: the sum of its sites'"'"' and stacks'"'"' own maxima\) 17 -> 17; average lifetime ' \
	"$(row two_lines | tail -n 1)"
expect_eq "freed: one site each side, its max live plain" "    max live 32 -> 32" \
	"$(row freed | tail -n 1 | cut -d';' -f1)"

run_cmd 60 line "$MPROF" diff --match line --metric allocated "$WORK/a.trace" "$WORK/b.trace"
expect_eq "--match line: nothing merged, so no word of it" \
	"sites:            3 changed, 1 new, 0 vanished, 1 same (4 in A, 5 in B)" \
	"$(grep '^sites:' "$RUN_OUT")"
expect_no_match "--match line: no row merged" 'merged' "$(cat "$RUN_OUT")"

run_cmd 60 sampled "$MPROF" diff -n 0 "$WORK/a.trace" "$WORK/s.trace"
expect_eq "sampled B: the temporary total says why it has no figure" \
	" temporary 7 - - - B: not estimated (sampled)" \
	"$(grep '^  temporary ' "$RUN_OUT" | tr -s ' ')"
run_cmd 60 sampled-kept "$MPROF" diff --metric allocated "$WORK/a.trace" "$WORK/s.trace"
T=$(cat "$RUN_OUT")
expect_eq "sampled B: kept's lifetime, no sampled block freed" \
	"    max live (rough) 128 -> 192; average lifetime (estimated, per block) (none freed) -> (no sampled block freed)" \
	"$(row kept | tail -n 1)"
finish
