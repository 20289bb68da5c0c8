#!/bin/bash
# sampled-temporary.sh - temporary allocations (freed by the thread's next
# allocator event) have no estimate in a sampled trace, where the events
# between a sampled allocation and its free were not recorded (counted
# anyway, they came out 29 to 135 times the truth).  Every report, export and
# diff of a sampled trace leaves them out or refuses them, and the exports
# that name the run say its figures are estimates; an exact trace keeps
# them everywhere.  Program and facts: tests/progs/leak_count.c (N leaked
# blocks, one temporary allocation per round).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/leak_count" "$PROGS_DIR/leak_count.c"
pp() { "$PYTHON" "$E2E_DIR/pprof.py" "$@" 2>&1; }
jd() { "$PYTHON" -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>&1; }

RUN_NAME=s mprof_run 60 "$WORK/s.trace" --sample-rate 4096 --sample-seed 3 -- "$WORK/leak_count" 7
expect_eq "sampled run: exit status" 0 "$RUN_STATUS"
RUN_NAME=s2 mprof_run 60 "$WORK/s2.trace" --sample-rate 4096 --sample-seed 4 -- "$WORK/leak_count" 7
RUN_NAME=e mprof_run 60 "$WORK/e.trace" -- "$WORK/leak_count" 7
expect_eq "exact run: exit status" 0 "$RUN_STATUS"

report_json "$WORK/s.json" "$WORK/s.trace"
report_json "$WORK/e.json" "$WORK/e.trace"
expect_eq "json: summary temporary null" None "$(jd "$WORK/s.json" 'd["summary"]["temporary"]')"
expect_eq "json: no site has a temporary count" "set()" \
	"$(jd "$WORK/s.json" '{s["temporary"] for s in d["sites"]} - {None}')"
expect_match "json, exact: summary temporary a count" '^[0-9]+$' "$(jd "$WORK/e.json" 'd["summary"]["temporary"]')"

run_cmd 60 text "$MPROF" report "$WORK/s.trace"
expect_match "text: the ranking says not estimated" \
	'^== Temporary allocations: not estimated \(sampled trace\)$' "$(cat "$RUN_OUT")"

run_cmd 60 dhat "$MPROF" report -f dhat "$WORK/s.trace"
expect_eq "dhat: the totals' short-lived line" "  Short-lived: not estimated (sampled)" \
	"$(grep 'Short-lived:' "$RUN_OUT")"
expect_match "dhat: t-gmax marked rough" '^  At t-gmax: .*\(rough: no unbiased estimate\)$' \
	"$(grep -m1 'At t-gmax:' "$RUN_OUT")"
run_cmd 60 dhatsort "$MPROF" report -f dhat --sort short-lived "$WORK/s.trace"
expect_eq "dhat --sort short-lived: refused" 2 "$RUN_STATUS"
expect_match "dhat --sort short-lived: why" 'no estimate in a sampled trace' "$(cat "$RUN_ERR")"
run_cmd 60 foldtemp "$MPROF" report -f folded --metric temporary "$WORK/s.trace"
expect_eq "folded --metric temporary: refused" 2 "$RUN_STATUS"
run_cmd 60 foldtemp "$MPROF" report -f folded --metric temporary "$WORK/e.trace"
expect_eq "folded --metric temporary, exact: accepted" 0 "$RUN_STATUS"

run_cmd 60 pprof "$MPROF" report -f pprof -o "$WORK/s.pb.gz" "$WORK/s.trace"
expect_eq "pprof: well formed" ok "$(pp "$WORK/s.pb.gz" check)"
expect_eq "pprof: no temporary sample type" \
	"alloc_objects/count alloc_space/bytes inuse_objects/count inuse_space/bytes peak_objects/count peak_space/bytes" \
	"$(pp "$WORK/s.pb.gz" types)"
expect_match "pprof: the comment says so" 'temporary allocations have no estimate' \
	"$(pp "$WORK/s.pb.gz" get comments)"
expect_match "pprof: the peak's comment says rough" \
	'^peak_objects, peak_space: blocks live at t-gmax, when the heap peaked at [0-9]+ bytes in [0-9]+ blocks \(rough: no unbiased estimate\)$' \
	"$(pp "$WORK/s.pb.gz" get comments)"
run_cmd 60 pprofe "$MPROF" report -f pprof -o "$WORK/e.pb.gz" "$WORK/e.trace"
expect_match "pprof, exact: a temporary sample type" 'temporary/count$' "$(pp "$WORK/e.pb.gz" types)"

run_cmd 60 ss "$MPROF" report -f speedscope -o "$WORK/s.ss.json" --metric peak-blocks "$WORK/s.trace"
expect_eq "speedscope: the profiles, the peak's marked rough as in flame graphs" \
	"peak bytes (rough),leaked bytes,allocated bytes,allocations,peak blocks (rough)" \
	"$(jd "$WORK/s.ss.json" '",".join(p["name"] for p in d["profiles"])')"
expect_eq "speedscope: the active profile is --metric's" 4 "$(jd "$WORK/s.ss.json" 'd["activeProfileIndex"]')"
expect_match "speedscope: the name says estimated" '\[mprof: estimated, sample rate 4096 B' \
	"$(jd "$WORK/s.ss.json" 'd["name"]')"
expect_match "speedscope: the name says the peak is rough" \
	'\] \[mprof: peak and max live are rough: they have no unbiased estimate; temporary allocations have none at all\]$' \
	"$(jd "$WORK/s.ss.json" 'd["name"]')"
run_cmd 60 dj "$MPROF" report -f dhat-json -o "$WORK/s.dhat.json" "$WORK/s.trace"
expect_match "dhat-json: cmd says estimated" '\[mprof: estimated, sample rate 4096 B' \
	"$(jd "$WORK/s.dhat.json" 'd["cmd"]')"
expect_match "dhat-json: cmd says the peak (gb, tg) and max (mb) are rough" \
	'\[mprof: peak and max live are rough: they have no unbiased estimate' \
	"$(jd "$WORK/s.dhat.json" 'd["cmd"]')"
run_cmd 60 ms "$MPROF" report -f massif -o "$WORK/s.massif" "$WORK/s.trace"
expect_match "massif: desc says estimated" '^desc: .*; estimated, sample rate 4096 B' \
	"$(head -1 "$WORK/s.massif")"
if command -v ms_print >/dev/null 2>&1; then
	run_cmd 60 msp ms_print "$WORK/s.massif"
	expect_match "ms_print: the description it shows (as Massif arguments) says the heap is rough" \
		'^Massif arguments: +mprof: .*estimated, sample rate 4096 B.*, the heap rough$' "$(cat "$RUN_OUT")"
fi

run_cmd 60 djson "$MPROF" diff -f json -o "$WORK/d.json" "$WORK/s.trace" "$WORK/s2.trace"
expect_eq "diff json: temporary of A, B and the change" "None None None" \
	"$(jd "$WORK/d.json" '" ".join(str(d["totals"][k]["temporary"]) for k in ("a", "b", "delta"))')"
expect_eq "diff json: allocations still compared" True \
	"$(jd "$WORK/d.json" 'd["totals"]["delta"]["allocations"] is not None')"
run_cmd 60 dfold "$MPROF" diff -f folded --metric temporary "$WORK/s.trace" "$WORK/s2.trace"
expect_eq "diff --metric temporary: refused" 2 "$RUN_STATUS"
finish
