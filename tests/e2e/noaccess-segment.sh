#!/bin/bash
# noaccess-segment.sh - a library whose first loaded segment has no access
# (a linker script's PT_LOAD with no flags) is unwound through without a
# fault: an unwinder that read its ELF header at the start of its mapping
# (as a _dl_find_object lookup would) faults there.  Its calls are recorded
# with their stacks, in the default and the check mode (no mismatch).
# Program and facts: tests/progs/noaccess_main.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
$CC -O1 -g -fPIC -shared -nostartfiles -o "$WORK/libnoaccess.so" "$PROGS_DIR/noaccess_lib.c" \
	-Wl,-T,"$PROGS_DIR/noaccess_first.lds" -Wl,--eh-frame-hdr >"$WORK/lib.log" 2>&1 ||
	skip "the linker does not take noaccess_first.lds: $(head -n 3 "$WORK/lib.log")"
build_c "$WORK/noaccess_main" "$PROGS_DIR/noaccess_main.c" -ldl
expect_eq "without mprof: stdout" ok "$(timeout 30 "$WORK/noaccess_main" "$WORK/libnoaccess.so")"

for mode in dwarf check; do
	RUN_NAME=$mode MPROF_UNWIND=$mode mprof_run 60 "$WORK/$mode.trace" -- \
		"$WORK/noaccess_main" "$WORK/libnoaccess.so"
	expect_eq "$mode: exit status" 0 "$RUN_STATUS"
	expect_eq "$mode: stdout" ok "$(cat "$RUN_OUT")"
	report_json "$WORK/$mode.json" "$WORK/$mode.trace" || continue
	expect_site "$WORK/$mode.json" noaccess_inner 100 3200 0 0
done
expect_match "check: no mismatch" '^mprof: unwind check: [0-9]+ captures, 0 mismatches' \
	"$(cat "$WORK/check.err")"
finish
