#!/bin/bash
# unrecorded-fork-handler.sh - a fork child handler of the program's that
# runs before the recorder's (registered by a library constructor, which
# runs before the preloaded recorder's) frees an inherited block before
# the child's trace exists.  The free cannot be recorded; it must be
# counted in the child's trace, so its report says the leak figure is an
# upper bound ("at most", the headline, the unrecorded line and the JSON
# quality keys), not an exact leak of a block that was freed.  The parent's
# trace is untouched by it.
# Program and facts: tests/progs/unrecorded_fork.c, unrecorded_fork_lib.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/libunrecorded_fork.so" "$PROGS_DIR/unrecorded_fork_lib.c" -shared -fPIC
build_c "$WORK/unrecorded_fork" "$PROGS_DIR/unrecorded_fork.c" -L"$WORK" -lunrecorded_fork \
	-Wl,-rpath,"$WORK"

mprof_run 60 "$WORK/trace" -- "$WORK/unrecorded_fork"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout: the handler freed the block in the child" "unrecorded_fork child 0" \
	"$(cat "$RUN_OUT")"
CHILD=$(ls "$WORK"/trace.[0-9]* 2>/dev/null | head -n 1)
expect_eq "one child trace" 1 "$(ls "$WORK"/trace.[0-9]* 2>/dev/null | wc -l)"
[ -n "$CHILD" ] || finish

report_json "$WORK/child.json" "$CHILD" || finish
R="$WORK/child.json"
expect_eq "child: unrecorded frees" 1 "$(q "$R" summary quality.unrecorded_frees)"
expect_eq "child: unrecorded allocations" 0 "$(q "$R" summary quality.unrecorded_allocations)"
expect_eq "child: leaked blocks (the inherited one, no free seen)" 1 "$(q "$R" summary leaked_blocks)"
expect_eq "child: leaked bytes" 4000 "$(q "$R" summary leaked_bytes)"
expect_eq "child: leaked blocks maybe freed" 1 "$(q "$R" summary quality.leaked_blocks_maybe_freed)"
expect_eq "child: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"

run_cmd 60 child-text "$MPROF" report "$CHILD"
expect_eq "child text: exit status" 0 "$RUN_STATUS"
expect_eq "child text: headline" "mprof report: $CHILD (incomplete: 1 free was not recorded, so leak and peak figures may be high; see leaked and unrecorded)" \
	"$(head -n 1 "$RUN_OUT")"
expect_eq "child text: leaked line" \
	"leaked:           at most 4000 B (3.9 KiB) in 1 block (live at exit)" \
	"$(grep '^leaked:' "$RUN_OUT")"
expect_eq "child text: maybe freed line" \
	"                  up to 1 of these blocks may have been freed: 1 free was not recorded (see unrecorded), and the heap peak may be high by them too" \
	"$(grep 'may have been freed' "$RUN_OUT")"
expect_eq "child text: unrecorded line" \
	"unrecorded:       0 allocations, 1 free made but not recorded" \
	"$(grep '^unrecorded:' "$RUN_OUT")"

# the parent: the block is its own leak, exactly
report_json "$WORK/parent.json" "$WORK/trace" || finish
P="$WORK/parent.json"
expect_site "$P" inherited_alloc 1 4000 1 4000
expect_eq "parent: unrecorded frees" 0 "$(q "$P" summary quality.unrecorded_frees)"
expect_eq "parent: leaked blocks maybe freed" 0 "$(q "$P" summary quality.leaked_blocks_maybe_freed)"
finish
