#!/bin/bash
# iconv-unload.sh - glibc unloads an iconv module by itself, past the shim's
# dlclose, and maps the next module where it was: the blocks of the new
# module's gconv_init must be counted at its own site (before the fix, the
# module map kept the unloaded UTF-16.so at that address, and the three
# UTF-32 blocks were reported at utf-16.c's gconv_init).
# Program and facts: tests/progs/iconv_unload.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/iconv_unload" "$PROGS_DIR/iconv_unload.c"
run_cmd 60 native "$WORK/iconv_unload"
[ "$RUN_STATUS" = 0 ] || skip "iconv to UTF-16 and UTF-32 does not work here (status $RUN_STATUS)"
grep -qx "utf-32 where utf-16 was: yes" "$RUN_OUT" ||
	skip "the loader did not map UTF-32.so where UTF-16.so was: $(tr '\n' ' ' <"$RUN_OUT")"
T="$WORK/trace"
mprof_run 120 "$T" -- "$WORK/iconv_unload"
expect_eq "1. exit status" 0 "$RUN_STATUS"
expect_eq "1. stdout" "$(printf 'utf-16 unloaded: yes\nutf-32 where utf-16 was: yes')" \
	"$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$T"
R="$WORK/r.json"
# "MODULE:ALLOCATIONS" of the sites of gconv_init (a module's, named in its
# .dynsym) under function $1, by the first frame's module
gconv_sites() {
	json_eval "$R" "' '.join(sorted(s['frames'][0]['module'].rsplit('/', 1)[-1] + ':' + str(s['allocations']) for s in d['sites'] if any(f['function'] == '$1' for f in s['frames']) and any(f['function'] == 'gconv_init' for f in s['frames'])))"
}
expect_eq "2. convert_utf16's block: allocated in UTF-16.so" "UTF-16.so:1" \
	"$(gconv_sites convert_utf16)"
expect_eq "3. convert_utf32's 3 blocks: allocated in UTF-32.so" "UTF-32.so:3" \
	"$(gconv_sites convert_utf32)"
expect_eq "4. convert_utf32's blocks: none in utf-16.c" 0 \
	"$(json_eval "$R" "sum(s['allocations'] for s in d['sites'] if any(f['function'] == 'convert_utf32' for f in s['frames']) and (s['frames'][0]['file'] or '').endswith('utf-16.c'))")"
expect_eq "5. gconv_init's blocks: none live at exit" 0 \
	"$(q "$R" sum leaked_blocks 'gconv_init')"
finish
