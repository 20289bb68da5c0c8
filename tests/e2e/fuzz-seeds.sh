#!/bin/bash
# fuzz-seeds.sh - the fuzz target's seeds reach the record decoders of the
# trace major they were made from.  Its input's mode bits 2-3 hold majors 1
# to 4 only, so a seed of a major-6 trace was read as major 2 and every
# EVENTS chunk was refused ("chunks lost", 0 allocations): the committed
# seeds and every seed trace_to_seed.py made of a current trace fuzzed
# nothing past the chunk framing.  A chunk of type 0xfd now carries the
# major (tests/fuzz/fuzz_trace.c), and the "sampled" flag goes in bit 4.
# tests/fuzz/seed_to_trace.py frames a seed as the target does.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
FUZZ_DIR=$abs_top_srcdir/tests/fuzz

# facts JSON: "allocations bytes sampled data_lost" of a report
facts() {
	json_eval "$1" '" ".join(str(d["summary"][k]) for k in ("allocations", "allocated_bytes", "sampled", "data_lost"))'
}

for v in "module-deltas-report|163 41966" "module-deltas-json|163 41966" \
	"module-deltas-symbolize|163 41966" "module-deltas-fork-child|7 3417" \
	"dlopen-churn-json|162 37068" "sampled-threads-fork-child|299 573039"; do
	IFS='|' read -r seed counts <<<"$v"
	"$PYTHON" "$FUZZ_DIR/seed_to_trace.py" "$FUZZ_DIR/seeds/$seed" "$WORK/$seed.trace" ||
		hard_error "seed_to_trace.py $seed"
	report_json "$WORK/$seed.json" "$WORK/$seed.trace" || continue
	sampled=False
	case $seed in sampled-*) sampled=True ;; esac
	expect_eq "seed $seed: allocations, bytes, sampled, data lost" "$counts $sampled None" \
		"$(facts "$WORK/$seed.json")"
done

# a sampled trace of today's writer, made a seed and framed back, reads as
# the trace itself
build_c "$WORK/small_leak" "$PROGS_DIR/small_leak.c"
mprof_run 60 "$WORK/sampled.trace" -q --sample-rate 64 --sample-seed 7 -- "$WORK/small_leak"
expect_eq "sampled run: exit status" 0 "$RUN_STATUS"
"$PYTHON" "$FUZZ_DIR/trace_to_seed.py" 0 "$WORK/sampled.trace" "$WORK/sampled.seed" ||
	hard_error "trace_to_seed.py"
"$PYTHON" "$FUZZ_DIR/seed_to_trace.py" "$WORK/sampled.seed" "$WORK/framed.trace" ||
	hard_error "seed_to_trace.py"
report_json "$WORK/sampled.json" "$WORK/sampled.trace" &&
	report_json "$WORK/framed.json" "$WORK/framed.trace" &&
	expect_eq "the framed seed reads as its trace" "$(facts "$WORK/sampled.json")" \
		"$(facts "$WORK/framed.json")"
expect_eq "the trace is sampled and whole" "True None" \
	"$(facts "$WORK/sampled.json" | cut -d' ' -f3-)"
finish
