#!/bin/bash
# iconv-unload.sh - glibc unloads an iconv module by itself, past the shim's
# dlclose, and maps the next module where it was: the blocks of the new
# module's gconv_init must be counted in that module (before the fix, the
# module map kept the unloaded UTF-16.so at that address and the three
# UTF-32 blocks were reported at utf-16.c's gconv_init).  Only the program's
# "split" way: the blocks come through new call stacks, whose intern checks
# the loader's unload counter.  Its "same" way (UTF-32.so's block through the
# very stack UTF-16.so's had, found again by the stack table or the call-site
# cache) is still counted in UTF-16.so: checking the counter on those hits
# took the loader's lock at every allocation through a dlopened library
# (bench/HISTORY.md, session 45).
# Program and facts: tests/progs/iconv_unload.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/iconv_unload" "$PROGS_DIR/iconv_unload.c"
for mode in split; do
	run_cmd 60 "native-$mode" "$WORK/iconv_unload" "$mode"
	[ "$RUN_STATUS" = 0 ] || skip "iconv to UTF-16 and UTF-32 does not work here (status $RUN_STATUS)"
	grep -qx "utf-32 where utf-16 was: yes" "$RUN_OUT" ||
		skip "the loader did not map UTF-32.so where UTF-16.so was: $(tr '\n' ' ' <"$RUN_OUT")"
done

# gconv_sites REPORT [FUNC]: "MODULE:ALLOCATIONS" of the sites of gconv_init
# (a module's, named in its .dynsym) by the first frame's module, only
# those under FUNC when given
gconv_sites() {
	json_eval "$1" "' '.join(sorted(s['frames'][0]['module'].rsplit('/', 1)[-1] + ':' + str(s['allocations']) for s in d['sites'] if any(f['function'] == 'gconv_init' for f in s['frames']) and ('${2:-}' == '' or any(f['function'] == '${2:-}' for f in s['frames']))))"
}

for mode in split; do
	T="$WORK/trace-$mode"
	RUN_NAME=run-$mode mprof_run 120 "$T" -- "$WORK/iconv_unload" "$mode"
	expect_eq "$mode 1. exit status" 0 "$RUN_STATUS"
	expect_eq "$mode 1. stdout: UTF-16.so unloaded" "utf-16 unloaded: yes" "$(head -n 1 "$RUN_OUT")"
	# (the recorder's own mappings may take the hole first: nothing to show then)
	grep -qx "utf-32 where utf-16 was: no" "$RUN_OUT" &&
		skip "$mode: under mprof the loader mapped UTF-32.so elsewhere"
	expect_eq "$mode 1. stdout: UTF-32.so where UTF-16.so was" "utf-32 where utf-16 was: yes" \
		"$(sed -n 2p "$RUN_OUT")"
	R="$WORK/r-$mode.json"
	report_json "$R" "$T"
	expect_eq "$mode 2. gconv_init's blocks: 1 in UTF-16.so, 3 in UTF-32.so" \
		"UTF-16.so:1 UTF-32.so:3" "$(gconv_sites "$R")"
	expect_eq "$mode 3. none of them in utf-16.c but UTF-16.so's" 1 \
		"$(json_eval "$R" "sum(s['allocations'] for s in d['sites'] if any(f['function'] == 'gconv_init' for f in s['frames']) and (s['frames'][0]['file'] or '').endswith('utf-16.c'))")"
	expect_eq "$mode 4. gconv_init's blocks: none live at exit" 0 \
		"$(q "$R" sum leaked_blocks 'gconv_init')"
done
expect_eq "split 5. convert_utf16's block in UTF-16.so" "UTF-16.so:1" \
	"$(gconv_sites "$WORK/r-split.json" convert_utf16)"
expect_eq "split 5. convert_utf32's 3 blocks in UTF-32.so" "UTF-32.so:3" \
	"$(gconv_sites "$WORK/r-split.json" convert_utf32)"
finish
