#!/bin/bash
# diff-gate.sh - `mprof diff` between two versions of one program built in
# different folders (tests/progs/diff_versions.c without and with
# -DVERSION_B): sites match by function and module file name, whatever the
# folder; exact changes, the new and the vanished site marked; --match line
# tells moved lines apart; the folded output's two columns; the CI gate's
# exit status for each kind of condition and the sites it names; the same
# version run twice differs in nothing and passes the gate; bad expressions
# and traces of different programs are refused (status 2).  Blanks between a
# condition's parts ('leaked > 0') read as without (they were refused).
source "$(dirname "$0")/lib.sh"
require_mprof
make_work
SRC="$PROGS_DIR/diff_versions.c"
mkdir -p "$WORK/a" "$WORK/b"
build_c "$WORK/a/prog" "$SRC"
build_c "$WORK/b/prog" "$SRC" -DVERSION_B
build_c "$WORK/leak_count" "$PROGS_DIR/leak_count.c"

RUN_NAME=ra mprof_run 60 "$WORK/ta" -- "$WORK/a/prog"
expect_eq "A: stdout" "diff_versions A" "$(cat "$RUN_OUT")"
RUN_NAME=rb mprof_run 60 "$WORK/tb" -- "$WORK/b/prog"
expect_eq "B: stdout" "diff_versions B" "$(cat "$RUN_OUT")"
RUN_NAME=ra2 mprof_run 60 "$WORK/ta2" -- "$WORK/a/prog"

jd() { json_eval "$@"; }

# ---- JSON: exact changes, statuses ----
run_cmd 60 j "$MPROF" diff --format json "$WORK/ta" "$WORK/tb"
J="$WORK/j.out"
expect_eq "json: exit status" 0 "$RUN_STATUS"
expect_eq "json: grow changed, allocations 10 -> 30, bytes 1000 -> 3000" "changed 10 30 1000 3000" \
	"$(jd "$J" '" ".join(str(x) for x in [site("grow")[0]["status"], site("grow")[0]["a"]["allocations"], site("grow")[0]["b"]["allocations"], site("grow")[0]["a"]["allocated_bytes"], site("grow")[0]["b"]["allocated_bytes"]])')"
expect_eq "json: leak_new is new (added), leaked 0 -> 2560 in 5 blocks" "added 0 2560 5 None" \
	"$(jd "$J" '" ".join(str(x) for x in [site("leak_new")[0]["status"], site("leak_new")[0]["a"]["leaked_bytes"], site("leak_new")[0]["b"]["leaked_bytes"], site("leak_new")[0]["b"]["leaked_blocks"], site("leak_new")[0]["a_id"]])')"
expect_eq "json: dropped vanished (removed), 20 allocations of 64 B" "removed 20 1280 0 None" \
	"$(jd "$J" '" ".join(str(x) for x in [site("dropped")[0]["status"], site("dropped")[0]["a"]["allocations"], site("dropped")[0]["a"]["allocated_bytes"], site("dropped")[0]["b"]["allocations"], site("dropped")[0]["b_id"]])')"
expect_eq "json: steady matches across the folders and moved lines (not listed)" 0 \
	"$(jd "$J" 'len(site("steady"))')"
expect_eq "json: totals delta allocations +5, leaked +2560" "5 2560" \
	"$(jd "$J" '"%d %d" % (d["totals"]["delta"]["allocations"], d["totals"]["delta"]["leaked_bytes"])')"
expect_eq "json: the sites' changes add up to the totals' (allocated bytes)" True \
	"$(jd "$J" 'sum(s["delta"]["allocated_bytes"] for s in d["sites"]) == d["totals"]["delta"]["allocated_bytes"]')"

# ---- text ----
run_cmd 60 t "$MPROF" diff -n 5 --metric allocations "$WORK/ta" "$WORK/tb"
T="$WORK/t.out"
expect_match "text: sites line" '^sites: +1 changed, 1 new, 1 vanished, [0-9]+ same' "$(cat "$T")"
expect_match "text: totals allocations" '^  allocations +[0-9]+ +[0-9]+ +\+5 +\+[0-9.]+%$' "$(cat "$T")"
expect_match "text: grown in allocations, 2 sites" '^== Grown in allocations: top 2 of 2 sites$' "$(cat "$T")"
expect_eq "text: the first grown is grow, +20" "    allocated bytes 1000 -> 3000 (+2000); allocations 10 -> 30 (+20)" \
	"$(sed -n '/^== Grown/,/^== Shrunk/p' "$T" | sed -n 3p)"
expect_match "text: leak_new marked new" '^#2  new \(only in B: site [0-9]+\)$' "$(cat "$T")"
expect_match "text: dropped marked vanished" '^#1  vanished \(only in A: site [0-9]+\)$' "$(cat "$T")"
expect_match "text: DHAT columns" '^    max live 100 -> 100; average lifetime (< )?[0-9.]+ (ns|us|ms|s) -> (< )?[0-9.]+ (ns|us|ms|s)$' "$(cat "$T")"

# ---- --match line: the moved steady() no longer matches ----
run_cmd 60 jl "$MPROF" diff --format json --match line "$WORK/ta" "$WORK/tb"
expect_eq "match line: steady vanished and new" "added removed" \
	"$(jd "$WORK/jl.out" '" ".join(sorted(s["status"] for s in site("steady")))')"
expect_eq "match line: said in the JSON" line "$(jd "$WORK/jl.out" 'd["match"]')"

# ---- folded: root first, A's value, B's value ----
run_cmd 60 f "$MPROF" diff --format folded --metric allocated "$WORK/ta" "$WORK/tb"
expect_match "folded: grow 1000 3000" '(^|;)main;grow 1000 3000$' "$(cat "$WORK/f.out")"
expect_match "folded: leak_new 0 2560" '(^|;)main;leak_new 0 2560$' "$(cat "$WORK/f.out")"
expect_match "folded: dropped 1280 0" '(^|;)main;dropped 1280 0$' "$(cat "$WORK/f.out")"

# ---- the gate ----
gate() { # gate NAME EXPECTED_STATUS EXPR...
	local name=$1 want=$2
	shift 2
	local args=()
	for e in "$@"; do args+=(--fail-if "$e"); done
	run_cmd 60 "gate-$name" "$MPROF" diff -n 0 "${args[@]}" "$WORK/ta" "$WORK/tb"
	expect_eq "gate $*: exit status" "$want" "$RUN_STATUS"
}
gate leaked-b 1 'leaked>0'
gate leaked-up 1 'leaked>+2K'
expect_eq "gate leaked>+2K: what held" \
	"mprof: diff: condition held: leaked>+2K: leaked bytes $(jd "$J" 'd["totals"]["a"]["leaked_bytes"]') -> $(jd "$J" 'd["totals"]["b"]["leaked_bytes"]') (+2560, $(jd "$J" '"%+.1f%%" % (100.0 * 2560 / d["totals"]["a"]["leaked_bytes"])'))" \
	"$(cat "$RUN_ERR")"
gate leaked-3k 0 'leaked>+3K'
gate allocs-10 0 'allocations>+10'
gate allocs-5 1 'allocations>=+5'
gate peak-pct 0 'peak>+1000%'
gate below 0 'allocations<0'
gate site-19 1 'site:allocations>+19'
expect_match "gate site:allocations>+19: names grow" \
	'^    allocations 10 -> 30 \(\+20, \+200\.0%\) at grow \(diff_versions\.c:[0-9]+\)$' "$(cat "$RUN_ERR")"
expect_match "gate site:allocations>+19: one site" 'condition held: site:allocations>\+19: 1 site$' \
	"$(cat "$RUN_ERR")"
gate site-20 0 'site:allocations>+20'
gate site-new 1 'site:leaked>+100%'
expect_match "gate site:leaked>+100%: the new site, marked" '^    leaked bytes 0 -> 2560 \(\+2560, new\) at leak_new .* \[new\]$' \
	"$(cat "$RUN_ERR")"
gate two 1 'allocations>+10' 'leaked>+2K'
expect_eq "gate with two conditions: only the one that held is printed" 1 "$(grep -c 'condition held' "$RUN_ERR")"

# ---- blanks between the parts, as a user writes them: read as without ----
gate spaced-leaked 1 'leaked > 0'
gate spaced-ends 1 ' leaked>0 '
gate spaced-sign 0 'leaked > + 3 K'
gate spaced-tabs 1 '	site:	allocations	>=	+20	'
expect_match "gate with tabs: printed without its blanks" \
	'^mprof: diff: condition held: site:allocations>=\+20: 1 site$' "$(cat "$RUN_ERR")"
gate spaced-up 1 'leaked >+2 K'
expect_match "gate 'leaked >+2 K': printed without its blanks" \
	'^mprof: diff: condition held: leaked>\+2K: leaked bytes ' "$(cat "$RUN_ERR")"
gate spaced-pct 0 'peak > +1000 %'
gate spaced-site-pct 1 'site: leaked > +100 %'

# ---- the same version twice: no change, the gate passes ----
run_cmd 60 same "$MPROF" diff --fail-if 'leaked>+0' --fail-if 'allocations>+0' \
	--fail-if 'site:peak>+0' "$WORK/ta" "$WORK/ta2"
expect_eq "same version twice: exit status" 0 "$RUN_STATUS"
expect_eq "same version twice: no difference" 1 "$(grep -c '^no difference$' "$RUN_OUT")"
expect_eq "same version twice: no condition held" "" "$(cat "$RUN_ERR")"
run_cmd 60 samej "$MPROF" diff --format json "$WORK/ta" "$WORK/ta2"
expect_eq "same version twice: every site delta 0" "[]" "$(jd "$RUN_OUT" 'json.dumps(d["sites"])')"

# ---- errors ----
for bad in 'peak>>5' 'foo>1' 'peak>5%' 'site:rss>0' 'peak>+5X' 'peak' 'peak>' 'peak > = 5' \
	'pe ak>5' 'peak>1 0' '' ' ' 'peak>+5K x'; do
	run_cmd 30 bad "$MPROF" diff --fail-if "$bad" "$WORK/ta" "$WORK/tb"
	expect_eq "bad --fail-if '$bad': exit status 2" 2 "$RUN_STATUS"
	expect_eq "bad --fail-if '$bad': one line" 1 "$(wc -l <"$RUN_ERR")"
done
RUN_NAME=rl mprof_run 60 "$WORK/tl" -- "$WORK/leak_count" 2
run_cmd 30 other "$MPROF" diff "$WORK/ta" "$WORK/tl"
expect_eq "different programs: exit status 2" 2 "$RUN_STATUS"
expect_eq "different programs: the message" \
	"mprof: diff: A is a trace of prog and B of leak_count: sites match only in modules of one file name (build both as one name, or --force to compare anyway)" \
	"$(cat "$RUN_ERR")"
run_cmd 30 forced "$MPROF" diff --force -n 0 "$WORK/ta" "$WORK/tl"
expect_eq "different programs with --force: exit status 0" 0 "$RUN_STATUS"
finish
