#!/bin/bash
# sample-margins.sh - a sampled report says how many samples its estimates
# rest on and their 95% margins; an exact report is unchanged.
# - Coverage: 1000 blocks of 1000 B, half live at exit, at --sample-rate 64K
#   (about 15 samples), seeds 1..20: the stated intervals of the allocated
#   and the leaked bytes, of the totals and of main's site, cover the truth
#   in at least 72 of the 80 (95% nominal).
# - Exact lines at a fixed seed: 100 blocks of 1000 B at 64K (a new user's
#   case) with four samples (weight 66 each: +-97%), one of them live
#   (allocations +-129, bytes +-128377, i.e. +-195%); with none (the bytes
#   are then below 3 x the rate at 95%); the JSON fields of each.
# - Exact mode: no "±" in the text report, no margin fields in the JSON.
# - Counts of 1 read "1 allocation", "1 block", "1 sample" (trace/plural.h).
# Program and facts: tests/progs/sample_margins.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/sample_margins" "$PROGS_DIR/sample_margins.c"

# --- coverage over seeds ---
covered=0
for seed in $(seq 1 20); do
	RUN_NAME=c$seed mprof_run 60 "$WORK/c$seed" --sample-rate 64K --sample-seed "$seed" -- \
		"$WORK/sample_margins" 1000 1000
	report_json "$WORK/c$seed.json" "$WORK/c$seed"
	n=$("$PYTHON" - "$WORK/c$seed.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
d = r["summary"]
n = abs(d["allocated_bytes"] - 1000000) <= d["allocated_bytes_ci95"]
n += abs(d["leaked_bytes"] - 500000) <= d["leaked_bytes_ci95"]
# the site of main's malloc: the same truths, its own intervals
for s in r["sites"]:
    if s["frames"] and s["frames"][0]["function"] == "main":
        n += abs(s["allocated_bytes"] - 1000000) <= s["allocated_bytes_ci95"]
        n += abs(s["leaked_bytes"] - 500000) <= s["leaked_bytes_ci95"]
print(int(n))
PY
)
	covered=$((covered + n))
done
echo "note: $covered of 80 intervals cover the truth"
expect_range "intervals covering the truth, of 80 (totals and main's site)" 72 80 "$covered"

# --- the new user's case: 100 blocks of 1000 B at 64K, four samples ---
RUN_NAME=four mprof_run 60 "$WORK/four" --sample-rate 64K --sample-seed 1 -- \
	"$WORK/sample_margins" 100 1000
expect_eq "four samples: stdout" "sample_margins 100 1000" "$(cat "$RUN_OUT")"
"$MPROF" report "$WORK/four" >"$WORK/four.txt" 2>&1
expect_eq "four samples: allocations line" \
	"allocations:      264 ±97%, 264000 B (257.8 KiB) ±97% requested (4 samples, ± at 95%)" \
	"$(grep '^allocations:' "$WORK/four.txt")"
expect_eq "one sample live: leaked line" \
	"leaked:           66000 B (64.5 KiB) ±195% in 66 ±195% blocks (live at exit; 1 sample, ± at 95%)" \
	"$(grep '^leaked:' "$WORK/four.txt")"
expect_eq "four samples: the site's head" \
	"#1  site 1: 264 ±97% allocations, 264000 B (257.8 KiB) ±97% allocated (4 samples)" \
	"$(grep -m1 '^#1  site 1:' "$WORK/four.txt")"
expect_eq "four samples: the site's live line" \
	"    live at heap peak (rough) 66000 B (64.5 KiB) in 66 blocks; leaked 66000 B (64.5 KiB) ±195% in 66 ±195% blocks (1 sample)" \
	"$(grep -m1 '^    live at heap peak' "$WORK/four.txt")"
report_json "$WORK/four.json" "$WORK/four"
expect_eq "four samples: the site's JSON samples and ci95s" "4 257 256753 1 129 128377" \
	"$("$PYTHON" -c 'import json, sys
s = json.load(open(sys.argv[1]))["sites"][0]
print(*(s[k] for k in ("allocated_samples", "allocations_ci95", "allocated_bytes_ci95",
                       "leaked_samples", "leaked_blocks_ci95", "leaked_bytes_ci95")))' "$WORK/four.json")"
expect_eq "four samples: JSON allocated_samples, ci95s" "4 257 256753" \
	"$(q "$WORK/four.json" summary allocated_samples) $(q "$WORK/four.json" summary allocations_ci95) \
$(q "$WORK/four.json" summary allocated_bytes_ci95)"
expect_eq "one sample live: JSON leaked_samples, ci95s" "1 129 128377" \
	"$(q "$WORK/four.json" summary leaked_samples) $(q "$WORK/four.json" summary leaked_blocks_ci95) \
$(q "$WORK/four.json" summary leaked_bytes_ci95)"

# --- no sample: the bound ---
RUN_NAME=none mprof_run 60 "$WORK/none" --sample-rate 64K --sample-seed 2 -- \
	"$WORK/sample_margins" 100 1000
"$MPROF" report "$WORK/none" >"$WORK/none.txt" 2>&1
expect_eq "no sample: allocations line" \
	"allocations:      0, 0 B requested (0 samples: under 196608 B (192.0 KiB) at 95%)" \
	"$(grep '^allocations:' "$WORK/none.txt")"
expect_eq "no sample: leaked line" \
	"leaked:           0 B in 0 blocks (live at exit; 0 samples: under 196608 B (192.0 KiB) at 95%)" \
	"$(grep '^leaked:' "$WORK/none.txt")"
report_json "$WORK/none.json" "$WORK/none"
expect_eq "no sample: JSON allocated_samples, ci95s" "0 null 196608" \
	"$(q "$WORK/none.json" summary allocated_samples) $(q "$WORK/none.json" summary allocations_ci95) \
$(q "$WORK/none.json" summary allocated_bytes_ci95)"

# --- exact mode: unchanged ---
RUN_NAME=exact mprof_run 60 "$WORK/exact" -- "$WORK/sample_margins" 100 1000
"$MPROF" report "$WORK/exact" >"$WORK/exact.txt" 2>&1
expect_eq "exact: allocations line" "allocations:      101, 104096 B (101.7 KiB) requested" \
	"$(grep '^allocations:' "$WORK/exact.txt")"
expect_eq "exact: no ± in the report" 0 "$(grep -c '±' "$WORK/exact.txt")"
report_json "$WORK/exact.json" "$WORK/exact"
expect_eq "exact: no margin fields in the JSON" 0 "$(grep -c '_ci95\|_samples"' "$WORK/exact.json")"

# --- counts of 1 read "1 allocation", "1 block", "1 sample" ---
RUN_NAME=single mprof_run 60 "$WORK/single" -- "$WORK/sample_margins" 1 100
"$MPROF" report "$WORK/single" >"$WORK/single.txt" 2>&1
expect_eq "one block: a site's line" "#1  site 1: 1 allocation, 4096 B (4.0 KiB) allocated" \
	"$(grep -m1 '^#1  site 1:' "$WORK/single.txt")"
expect_eq "one block: its live line" \
	"    live at heap peak 4096 B (4.0 KiB) in 1 block; leaked 4096 B (4.0 KiB) in 1 block; temporary 0" \
	"$(grep -m1 '^    live at heap peak' "$WORK/single.txt")"
expect_eq "one block: its max live" "    max live 4096 B (4.0 KiB) / 1 block; freed 0" \
	"$(grep -m1 '^    max live' "$WORK/single.txt")"
expect_eq "no '1 allocations', '1 blocks', '1 samples' in the report" 0 \
	"$(cat "$WORK/single.txt" "$WORK/four.txt" | grep -c '[^0-9]1 \(allocations\|blocks\|samples\)')"
finish
