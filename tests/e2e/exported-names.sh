#!/bin/bash
# exported-names.sh - a program looks up under mprof exactly the allocator
# names it finds natively: every function the recorder exports but its own
# API (mprof_api_*, which mprof.h looks for) is one the C library defines,
# and dlsym(RTLD_DEFAULT, NAME) and a weak reference answer the same with
# and without mprof.  The recorder exported C23's free_sized and
# free_aligned_sized, which glibc 2.36 lacks: a program probing for them
# found them under mprof alone and took another path.
# Program and facts: tests/progs/symbol_probe.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
SHIM="$abs_top_builddir/preload/.libs/libmprof_preload.so"
[ -f "$SHIM" ] || hard_error "no recorder at $SHIM"
command -v nm >/dev/null || skip "nm (binutils) is not installed"
build_c "$WORK/symbol_probe" "$PROGS_DIR/symbol_probe.c" -ldl
LIBC=$(ldd "$WORK/symbol_probe" | awk '$1 ~ /^libc\.so/ {print $3}')
[ -f "$LIBC" ] || hard_error "no C library found for the probe"

# the recorder's exported functions, but its own API
nm -D --defined-only "$SHIM" | awk '$2 == "T" || $2 == "W" || $2 == "i" {print $3}' |
	sed 's/@.*//' | grep -v '^mprof_api_' | sort -u >"$WORK/shim.names"
nm -D --defined-only "$LIBC" | awk '{print $3}' | sed 's/@.*//' | sort -u >"$WORK/libc.names"
expect_eq "the recorder exports some allocator names" 1 "$(grep -cx malloc "$WORK/shim.names")"
expect_eq "every name the recorder exports, the C library defines" "" \
	"$(comm -23 "$WORK/shim.names" "$WORK/libc.names" | paste -sd ' ')"

# the probe natively and under mprof: the same answers, C23's names included
NAMES=$(sort -u "$WORK/shim.names" - <<<"free_sized
free_aligned_sized" | paste -sd ' ')
run_cmd 60 native "$WORK/symbol_probe" $NAMES
expect_eq "native: exit status" 0 "$RUN_STATUS"
cp "$RUN_OUT" "$WORK/native.txt"
mprof_run 60 "$WORK/trace" -- "$WORK/symbol_probe" $NAMES
expect_eq "under mprof: exit status" 0 "$RUN_STATUS"
expect_eq "under mprof: every name found as natively" "$(cat "$WORK/native.txt")" "$(cat "$RUN_OUT")"
expect_eq "free_sized: as natively" "$(grep -x 'free_sized [a-z]*' "$WORK/native.txt")" \
	"$(grep -x 'free_sized [a-z]*' "$RUN_OUT")"
finish
