#!/bin/bash
# process-libraries.sh - what the recorder loads into every process it
# records: neither libunwind (the own unwinder's fallback, loaded only when
# a capture needs it: tests/e2e/libunwind-late.sh) nor libm, which the shim
# linked for the sampler's ln and e^x - 1 only: loading it into a program
# that does not use it (make, sh, cc, as, ld) cost its loader 0.3-0.5 ms in
# every process.  In exact and in sampled mode a
# program without libm of its own has none mapped; its one trace is whole.
# Program: cat of /proc/self/maps, which links no libm.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
CAT=$(command -v cat)
if ldd "$CAT" | grep -q 'libm\.so'; then
	skip "$CAT links libm itself"
fi

for mode in exact sampled; do
	opts=()
	[ "$mode" = sampled ] && opts=(--sample-rate 64)
	RUN_NAME=$mode mprof_run 60 "$WORK/$mode.trace" "${opts[@]}" -- "$CAT" /proc/self/maps
	expect_eq "$mode: exit status" 0 "$RUN_STATUS"
	expect_match "$mode: the recorder is loaded" 'libmprof_preload\.so' "$(cat "$RUN_OUT")"
	expect_no_match "$mode: libunwind is not loaded" '/libunwind[^/]*\.so' "$(cat "$RUN_OUT")"
	expect_no_match "$mode: libm is not loaded" '/libm[.-]' "$(cat "$RUN_OUT")"
	report_json "$WORK/$mode.json" "$WORK/$mode.trace" >/dev/null
	expect_eq "$mode: trace complete" true "$(q "$WORK/$mode.json" summary quality.complete)"
	expect_eq "$mode: diagnostics" "[]" "$(q "$WORK/$mode.json" summary diagnostics)"
done
expect_eq "sampled: the trace says sampled" 64 \
	"$(q "$WORK/sampled.json" get summary.sample_rate_bytes)"
finish
