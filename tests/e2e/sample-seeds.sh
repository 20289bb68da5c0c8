#!/bin/bash
# sample-seeds.sh - the sampler's seed of each process of a run.
# - Without --sample-seed every process image draws its own seed: six
#   children that execute the same program have six seeds (META, report)
#   and estimates that are not all the same.
# - With --sample-seed N every executed image uses N as given and each fork
#   child N mixed with its fork's number in the parent (the value is checked
#   against the formula), so two runs give the same traces; the largest
#   seed, 2^64 - 1, is a seed like any other.
# - A run that mprof_start(rate) made sampled (exact or paused at the start)
#   has a seed (--sample-seed's when given), and the report's sampling line
#   lists every rate used; mprof_start refuses a rate above 1 GiB (2^30),
#   whose samples' weights would not fit 32 bits, and changes nothing.
# - A process's trace says how that process was recorded: a program that
#   takes MPROF_SAMPLE_RATE out of the environment of what it executes, or
#   puts one in, gets an exact or a sampled child trace, whatever the run;
#   a rate past 1 GiB is taken as 1 GiB.
# Program and facts: tests/progs/sample_seeds.c (fork_execs.c: 3 children,
# one block of 100 B each).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/sample_seeds" "$PROGS_DIR/sample_seeds.c" -I"$abs_top_srcdir/include"

# seeds_and_counts OUT TRACE...: "seed allocations" of each trace, one a
# line, into OUT
seeds_and_counts() {
	local out=$1
	shift
	: >"$out"
	for f in "$@"; do
		report_json "$f.json" "$f" || return
		echo "$(q "$f.json" get summary.sample_seed) $(q "$f.json" summary allocations)" >>"$out"
	done
	sort -o "$out" "$out" # pid order is not fork order when pids wrap
}

# --- without a seed: each process its own ---
RUN_NAME=free mprof_run 120 "$WORK/free" --sample-rate 64K -- "$WORK/sample_seeds" execs 6
expect_eq "no seed: exit status" 0 "$RUN_STATUS"
expect_eq "no seed: stdout" "execs 6" "$(cat "$RUN_OUT")"
execd=$(ls "$WORK"/free.*.2 2>/dev/null)
expect_eq "no seed: six executed images" 6 "$(echo "$execd" | grep -c .)"
seeds_and_counts "$WORK/free.sc" $execd
cat "$WORK/free.sc"
expect_eq "no seed: six seeds in the six traces" 6 "$(cut -d' ' -f1 "$WORK/free.sc" | grep -c '^[0-9]')"
expect_eq "no seed: the six seeds differ" 6 "$(cut -d' ' -f1 "$WORK/free.sc" | sort -u | grep -c .)"
# about 61 samples each: six equal estimates would be odds below 1e-6
expect_ne "no seed: the estimates are not all the same" 1 \
	"$(cut -d' ' -f2 "$WORK/free.sc" | sort -u | grep -c .)"
first=$(echo "$execd" | head -n 1)
TEXT=$("$MPROF" report -n 0 "$first" 2>&1)
expect_match "no seed: the report names the image's seed" \
	"^sampling: .*, seed $(q "$first.json" get summary.sample_seed);" "$TEXT"

# --- a given seed: repeatable ---
for run in a b; do
	RUN_NAME=x$run mprof_run 120 "$WORK/x$run" --sample-rate 64K --sample-seed 7 -- \
		"$WORK/sample_seeds" execs 3
	expect_eq "seed 7, execs, run $run: exit status" 0 "$RUN_STATUS"
	seeds_and_counts "$WORK/x$run.sc" $(ls "$WORK"/x$run.*.2)
	RUN_NAME=f$run mprof_run 120 "$WORK/f$run" --sample-rate 64K --sample-seed 7 -- \
		"$WORK/sample_seeds" forks 3
	expect_eq "seed 7, forks, run $run: exit status" 0 "$RUN_STATUS"
	seeds_and_counts "$WORK/f$run.sc" "$WORK/f$run" $(ls "$WORK"/f$run.[0-9]* | grep -v '\.json')
done
expect_eq "seed 7: every executed image uses 7" "7 7 7" \
	"$(cut -d' ' -f1 "$WORK/xa.sc" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "seed 7: executed images, the same samples in both runs" "$(cat "$WORK/xa.sc")" \
	"$(cat "$WORK/xb.sc")"
# fork child n: mix(7 ^ mix(n * golden)), mix = splitmix64's finalizer
expected=$("$PYTHON" - <<'PY'
M = (1 << 64) - 1
def mix(x):
    x = ((x ^ (x >> 30)) * 0xbf58476d1ce4e5b9) & M
    x = ((x ^ (x >> 27)) * 0x94d049bb133111eb) & M
    return x ^ (x >> 31)
print("\n".join(sorted(["7"] + [str(mix(7 ^ mix((n * 0x9e3779b97f4a7c15) & M))) for n in (1, 2, 3)])))
PY
)
expect_eq "seed 7: the parent's seed and its fork children's" "$expected" \
	"$(cut -d' ' -f1 "$WORK/fa.sc")"
expect_eq "seed 7: fork children, the same samples in both runs" "$(cat "$WORK/fa.sc")" \
	"$(cat "$WORK/fb.sc")"

# --- the largest seed ---
RUN_NAME=max mprof_run 120 "$WORK/max" --sample-rate 64K --sample-seed 18446744073709551615 -- \
	"$WORK/sample_seeds" work
expect_eq "seed 2^64-1: exit status" 0 "$RUN_STATUS"
report_json "$WORK/max.json" "$WORK/max"
expect_eq "seed 2^64-1: in the JSON report" 18446744073709551615 \
	"$(q "$WORK/max.json" get summary.sample_seed)"
RUN_NAME=max2 mprof_run 120 "$WORK/max2" --sample-rate 64K --sample-seed 18446744073709551615 -- \
	"$WORK/sample_seeds" work
report_json "$WORK/max2.json" "$WORK/max2"
RUN_NAME=zero mprof_run 120 "$WORK/zero" --sample-rate 64K --sample-seed 0 -- \
	"$WORK/sample_seeds" work
report_json "$WORK/zero.json" "$WORK/zero"
expect_eq "seed 2^64-1 twice: the same samples" "$(q "$WORK/max.json" summary allocations)" \
	"$(q "$WORK/max2.json" summary allocations)"
expect_ne "seed 2^64-1 and seed 0: not the same generator" \
	"$(q "$WORK/zero.json" summary allocations) $(q "$WORK/zero.json" summary allocated_bytes)" \
	"$(q "$WORK/max.json" summary allocations) $(q "$WORK/max.json" summary allocated_bytes)"
# --- mprof_start(rate) in an exact run and in a paused one ---
starts="start 4096: 0
start 65536: 0
start 1048576: 0
start 2^30+1: -22
start 2^32: -22
start 2^62-1: -22
start 2^62: -22"
RUN_NAME=rates mprof_run 120 "$WORK/rates" -- "$WORK/sample_seeds" rates
expect_eq "exact run, mprof_start(rate): stdout" "$starts" "$(cat "$RUN_OUT")"
report_json "$WORK/rates.json" "$WORK/rates"
R="$WORK/rates.json"
expect_eq "exact run, mprof_start(rate): sampled" true "$(q "$R" get summary.sampled)"
seed=$(q "$R" get summary.sample_seed)
expect_match "exact run, mprof_start(rate): the process's seed" '^[0-9]+$' "$seed"
expect_eq "exact run, mprof_start(rate): three rates" 3 "$(q "$R" get summary.recording.sample_rates)"
expect_eq "exact run, mprof_start(rate): the highest rate" 1048576 \
	"$(q "$R" get summary.recording.sample_rate_max_bytes)"
expect_match "exact run, mprof_start(rate): the sampling line lists the rates" \
	"^sampling:         Poisson by bytes at 3 rates: one sample per 4 KiB, 64 KiB, 1 MiB on \
average, some stretches exact \(recording says when\), seed $seed; " "$("$MPROF" report -n 0 "$WORK/rates" 2>&1)"
RUN_NAME=prates mprof_run 120 "$WORK/prates" --paused --sample-seed 9 -- "$WORK/sample_seeds" rates
expect_eq "paused run, --sample-seed 9: stdout" "$starts" "$(cat "$RUN_OUT")"
report_json "$WORK/prates.json" "$WORK/prates"
expect_eq "paused run, --sample-seed 9: the seed" 9 \
	"$(q "$WORK/prates.json" get summary.sample_seed)"
expect_match "paused run: the sampling line, nothing exact" \
	"^sampling:         Poisson by bytes at 3 rates: one sample per 4 KiB, 64 KiB, 1 MiB on \
average \(recording says when\), seed 9; " \
	"$("$MPROF" report -n 0 "$WORK/prates" 2>&1)"
# The environment a program hands on decides its children's mode, and their
# traces say that mode (the run's said before: "estimated" for children
# recorded exactly, "exact" for ones sampled at 4 KiB).  env executes
# fork_execs (FILE.PID), whose 3 children (FILE.PID) execute true (.2).
build_c "$WORK/fork_execs" "$PROGS_DIR/fork_execs.c"
mkdir -p "$WORK/env"
# headers NAME: the first line of each trace FILE.* of run NAME, one a line
headers() {
	local f
	for f in "$WORK/env/$1".[0-9]*; do
		case $f in *.html) continue ;; esac
		"$MPROF" report -n 0 "$f" 2>&1 | head -n 1 | sed 's/^mprof report: [^ ]* //'
	done | sort | uniq -c | sed 's/^ *//'
}
RUN_NAME=env-exact mprof_run 60 "$WORK/env/s" --sample-rate 512K -- \
	env -u MPROF_SAMPLE_RATE "$WORK/fork_execs" 3 /bin/true
expect_eq "sampled run, children without MPROF_SAMPLE_RATE: exact" \
	"7 (exact: every allocation recorded)" "$(headers s)"
RUN_NAME=env-sampled mprof_run 60 "$WORK/env/e" -- \
	env MPROF_SAMPLE_RATE=4096 "$WORK/fork_execs" 3 /bin/true
expect_eq "exact run, children with MPROF_SAMPLE_RATE=4096: sampled at 4 KiB" \
	"7 (estimated, sample rate 4096 B (4.0 KiB): counts and bytes are estimates)" \
	"$(headers e)"
RUN_NAME=env-huge mprof_run 60 "$WORK/env/h" -- \
	env MPROF_SAMPLE_RATE=17179869184 "$WORK/fork_execs" 3 /bin/true
expect_eq "children with MPROF_SAMPLE_RATE=16 GiB: sampled at 1 GiB" \
	"7 (estimated, sample rate 1073741824 B (1.0 GiB): counts and bytes are estimates)" \
	"$(headers h)"
finish
