#!/bin/bash
# sampling.sh - `mprof run --sample-rate`: Poisson byte sampling.
# - Accuracy at the default rate (512K), fixed seed: every site with at least
#   5% of the bytes is estimated within +-10% of the truth; the run is sized
#   so that bound is at least 4 sigma for each (the sigmas are printed).
# - The same seed gives the same trace; another seed another.
# - At rate 1 every block of 16 bytes or more is sampled with weight 1
#   (p = 1 - e^-17): the exact facts of the cross-thread hand-over program
#   hold; at 1K its sampled blocks freed by other threads, at reused
#   addresses, all match (nothing live at exit, no unmatched free).
# - Reports say "estimated, sample rate R"; bad values are refused.
# Programs and facts: tests/progs/sample_sites.c, tests/progs/thread_handoff.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/sample_sites" "$PROGS_DIR/sample_sites.c"
build_c "$WORK/thread_handoff" "$PROGS_DIR/thread_handoff.c" -pthread

# --- accuracy at the default rate ---
RUN_NAME=acc mprof_run 300 "$WORK/acc" --sampled --sample-seed 1 -- "$WORK/sample_sites" 16
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "sample_sites 16" "$(cat "$RUN_OUT")"
report_json "$WORK/acc.json" "$WORK/acc"
R="$WORK/acc.json"
expect_eq "summary: sampled" true "$(q "$R" get summary.sampled)"
expect_eq "summary: sample_rate_bytes" 524288 "$(q "$R" get summary.sample_rate_bytes)"
expect_eq "summary: sample_seed" 1 "$(q "$R" get summary.sample_seed)"
expect_eq "summary: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
# site count size: true bytes, relative sigma of the estimate (Horvitz-
# Thompson per sample, plus the random rounding of the weight), the estimate
for spec in "site_small 16777216 64" "site_page 262144 4096" "site_half 4096 262144" \
	"site_huge 64 8388608"; do
	set -- $spec
	est=$(q "$R" sum allocated_bytes "$1")
	line=$("$PYTHON" - "$2" "$3" "$est" <<'PY'
import math, sys
n, s, est = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
T = 524288.0
p = -math.expm1(-(s + 1) / T)
f = 1 / p - math.floor(1 / p)
var = n * s * s * ((1 - p) / p + p * f * (1 - f))
true = n * s
sigma = math.sqrt(var) / true
print("%d %.2f %.2f %.2f" % (true, 100 * sigma, 100 * (est - true) / true,
      0.10 / sigma if sigma else 1e9))
PY
)
	set -- $1 $line
	echo "note: $1: true $2 B, sigma $3%, estimate off by $4%, the 10% bound is $5 sigma"
	expect_true "$1: the 10% bound is at least 4 sigma ($5)" \
		"$PYTHON" -c "import sys; sys.exit(0 if $5 >= 4 else 1)"
	expect_true "$1: estimate within 10% of $2 B (off by $4%)" \
		"$PYTHON" -c "import sys; sys.exit(0 if abs($4) <= 10 else 1)"
done
"$MPROF" report "$WORK/acc" >"$WORK/acc.txt" 2>&1
expect_match "text report header" '^mprof report: .*\(estimated, sample rate 524288 B \(512\.0 KiB\): counts and bytes are estimates\)$' \
	"$(head -n 1 "$WORK/acc.txt")"
expect_match "text report: what has no estimate" '^sampling: .*seed 1; .*temporary, max live and peak have none' \
	"$(cat "$WORK/acc.txt")"
expect_match "text report: no temporary count" '^frees: .*temporary not estimated' \
	"$(cat "$WORK/acc.txt")"

# --- the same seed, the same trace ---
for run in a b; do
	RUN_NAME=seed$run mprof_run 120 "$WORK/seed$run" --sample-rate 64K --sample-seed 7 -- \
		"$WORK/sample_sites" 1
	report_json "$WORK/seed$run.json" "$WORK/seed$run"
done
RUN_NAME=seedc mprof_run 120 "$WORK/seedc" --sample-rate 64K --sample-seed 8 -- "$WORK/sample_sites" 1
report_json "$WORK/seedc.json" "$WORK/seedc"
facts() {
	echo "$(q "$1" summary allocations) $(q "$1" summary allocated_bytes) \
$(q "$1" summary calls.malloc) $(q "$1" summary blocks_freed) $(q "$1" summary leaked_bytes)"
}
expect_eq "seed 7 twice: allocations, bytes, samples, frees, leaks" "$(facts "$WORK/seeda.json")" \
	"$(facts "$WORK/seedb.json")"
"$MPROF" diff "$WORK/seeda" "$WORK/seedc" >"$WORK/diff.txt" 2>&1
expect_match "mprof diff: both sides estimated" '^note: .* is estimated, sample rate 65536 B' \
	"$(cat "$WORK/diff.txt")"
expect_match "mprof diff: no temporary total for sampled traces" '^  temporary +- +- +- +-  A and B: not estimated \(sampled\)$' \
	"$(cat "$WORK/diff.txt")"
expect_eq "mprof diff: no temporary per site for sampled traces" 0 \
	"$(grep -c 'temporary [0-9]' "$WORK/diff.txt")"
"$MPROF" diff --fail-if 'temporary>0' "$WORK/seeda" "$WORK/seedc" >/dev/null 2>"$WORK/gate.err"
expect_eq "mprof diff: a gate on temporary of sampled traces is an error" 2 "$?"
expect_eq "mprof diff: its reason" "mprof: diff: --fail-if 'temporary>0': temporary allocations have no \
estimate in a sampled trace" "$(cat "$WORK/gate.err")"
expect_ne "seed 8: other samples" "$(facts "$WORK/seeda.json")" "$(facts "$WORK/seedc.json")"

# --- rate 1: exact facts; 1K: cross-thread frees match ---
RUN_NAME=h1 mprof_run 120 "$WORK/h1" --sample-rate 1 --sample-seed 3 -- "$WORK/thread_handoff"
expect_eq "rate 1: exit status" 0 "$RUN_STATUS"
expect_eq "rate 1: stdout" "handed over: 100000, checksum ok" "$(cat "$RUN_OUT")"
report_json "$WORK/h1.json" "$WORK/h1"
expect_site "$WORK/h1.json" produce_block 100000 3949360 0 0
expect_eq "rate 1: unmatched frees" 0 "$(q "$WORK/h1.json" summary unmatched_frees)"
RUN_NAME=h2 mprof_run 120 "$WORK/h2" --sample-rate 1K --sample-seed 3 -- "$WORK/thread_handoff"
expect_eq "rate 1K: exit status" 0 "$RUN_STATUS"
report_json "$WORK/h2.json" "$WORK/h2"
expect_site "$WORK/h2.json" produce_block - - 0 0
expect_eq "rate 1K: unmatched frees" 0 "$(q "$WORK/h2.json" summary unmatched_frees)"
expect_range "rate 1K: samples of produce_block (~3949360/1024 = 3857)" 3000 4700 \
	"$(q "$WORK/h2.json" summary calls.malloc)"

# --- bad values ---
for bad in "--sample-rate 0" "--sample-rate 2G" "--sample-rate 12Q" "--sample-rate -1" \
	"--sampled --sample-seed 18446744073709551616" "--sampled --sample-seed x"; do
	RUN_NAME=bad mprof_run 30 "$WORK/bad" $bad -- /bin/true
	expect_eq "mprof run $bad: exit status" 2 "$RUN_STATUS"
	expect_match "mprof run $bad: one error line" '^mprof: run: .*sample' "$(cat "$RUN_ERR")"
done
finish
