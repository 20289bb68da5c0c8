#!/bin/bash
# early-analyzer-limits.sh - the analyzer `mprof run` starts while the
# program runs, in a launcher short of what it needs:
# - stderr closed (`2>&-`, or all three standard descriptors): when the
#   early analyzer is gone by the end, the one started then still embeds
#   the symbols.  Before, its start failed on the closed stderr it was to
#   take as its stdout, and the warning went nowhere.
# Program and facts: tests/progs/early_analyzer.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work

# expect_named LABEL TRACE: early_alloc's site, named with its file, from
# the symbols in TRACE (the program's file is gone, the cache is new).
expect_named() {
	local label=$1 trace=$2
	report_json "$WORK/$label.json" "$trace" || return
	expect_site "$WORK/$label.json" early_alloc 6 14070 6 14070
	expect_eq "$label: early_alloc's file" early_analyzer.c \
		"$(q "$WORK/$label.json" frame early_alloc file)"
}

# closed NAME REDIRECTIONS: the early analyzer killed by the program, mprof
# run with REDIRECTIONS (closing descriptors).
closed() {
	local name=$1 redirections=$2
	mkdir "$WORK/$name"
	build_c "$WORK/$name/prog" "$PROGS_DIR/early_analyzer.c"
	eval "MPROF_SYMBOL_CACHE=\"\$WORK/\$name/cache\" timeout -k 5 120 \
		\"\$MPROF\" run -o \"\$WORK/\$name/trace\" -- \"\$WORK/\$name/prog\" killed \
		>\"\$WORK/\$name.out\" </dev/null $redirections"
	expect_eq "$name: exit status" 0 "$?"
	rm "$WORK/$name/prog"
	MPROF_SYMBOL_CACHE="$WORK/$name/cache" expect_named "$name" "$WORK/$name/trace"
}
closed stderr-closed '2>&-'
closed all-closed '0<&- 1>&- 2>&-'

finish
