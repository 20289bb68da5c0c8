#!/bin/bash
# symbolize-together.sh - `mprof-analyze symbolize` given all the traces of
# a run at once (as `mprof run` does) shares one symbolizer among them, and
# still writes into each trace exactly what symbolizing it alone writes:
# the answers it asked for, no more, none missing, with the symbol cache
# off (each module's debug info read once) and on.  The program is
# removed before the reports, so the children's function names can only
# come from their own traces.  The traces also share one compressor for
# their SYMBOLS chunks (making one per trace took ~30 us each; before, the
# four traces made four), counted by tests/progs/deflate_alloc_count.c
# preloaded into the analyzer.
# Program and facts: tests/progs/fork_exec.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/fork_exec" "$PROGS_DIR/fork_exec.c"
mkdir "$WORK/raw"

# the traces without their symbols: an "analyzer" that does nothing
MPROF_ANALYZE=/bin/true mprof_run 60 "$WORK/raw/trace" -- "$WORK/fork_exec"
expect_eq "exit status" 0 "$RUN_STATUS"
n=$(ls "$WORK/raw" | wc -l)
expect_eq "four traces: parent, fork child, exec child before and after its exec" 4 "$n"

for cache in off on; do
	if [ $cache = off ]; then
		export MPROF_SYMBOL_CACHE=
	else
		export MPROF_SYMBOL_CACHE="$WORK/cache"
	fi
	rm -rf "$WORK/alone" "$WORK/together" "$WORK/cache"
	cp -r "$WORK/raw" "$WORK/alone"
	cp -r "$WORK/raw" "$WORK/together"
	for f in "$WORK"/alone/*; do
		run_cmd 60 "alone-$cache" "$MPROF_ANALYZE" symbolize "$f"
		expect_eq "cache $cache: $(basename "$f") symbolized alone" 0 "$RUN_STATUS"
	done
	rm -rf "$WORK/cache"
	run_cmd 60 "together-$cache" "$MPROF_ANALYZE" symbolize "$WORK"/together/*
	expect_eq "cache $cache: all four symbolized together" 0 "$RUN_STATUS"
	expect_eq "cache $cache: no messages" "" "$(cat "$RUN_ERR")"
	for f in "$WORK"/alone/*; do
		expect_file_eq "cache $cache: $(basename "$f") is the same byte for byte" \
			"$f" "$WORK/together/$(basename "$f")"
	done
done

# one compressor for the four traces' SYMBOLS chunks; a sanitizer build's
# analyzer must have AddressSanitizer first, ahead of a preloaded counter
if ldd "$MPROF_ANALYZE" 2>/dev/null | grep -q 'libasan'; then
	echo "# the analyzer is built with AddressSanitizer: its compressors not counted"
else
	build_c "$WORK/libdeflate_alloc_count.so" "$PROGS_DIR/deflate_alloc_count.c" -shared -fPIC -ldl
	rm -rf "$WORK/counted"
	cp -r "$WORK/raw" "$WORK/counted"
	run_cmd 60 counted env LD_PRELOAD="$WORK/libdeflate_alloc_count.so" \
		DEFLATE_ALLOC_COUNT_FILE="$WORK/compressors.count" \
		"$MPROF_ANALYZE" symbolize "$WORK"/counted/*
	expect_eq "counted: all four symbolized together" 0 "$RUN_STATUS"
	expect_eq "counted: one compressor made for the four traces" "compressors 1" \
		"$(cat "$WORK/compressors.count" 2>/dev/null)"
fi

# every trace names its own functions with the program gone
mv "$WORK/fork_exec" "$WORK/fork_exec.gone"
for f in "$WORK"/together/*; do
	report_json "$WORK/$(basename "$f").json" "$f" || continue
done
found=''
for site in parent_before_fork fork_child_work exec_child_work; do
	for j in "$WORK"/*.json; do
		[ "$(q "$j" sites $site)" != 0 ] && found="$found $site"
	done
done
expect_eq "each function named in one trace, from its SYMBOLS chunk" \
	" parent_before_fork fork_child_work exec_child_work" "$found"
finish
