#!/bin/bash
# deep-bind-reloc-race.sh - mprof's module rescans see a library that a
# dlopen in another thread is still relocating (dl_iterate_phdr lists it as
# soon as it is mapped).  When the loader had bound its malloc slot, in a
# RELRO page, mprof rewrote the slot by making the page writable and then
# read-only again, under the loader still writing that page: the program
# died of SIGSEGV inside dlopen (13 of 20 runs of 100 rounds, 12 of 12 of
# 300, before).  The slot is now written through /proc/self/mem, which
# leaves the page's protection alone.  300 rounds of dlopen(RTLD_NOW |
# RTLD_DEEPBIND) and dlclose of a library whose malloc slot shares its page
# with slots that take the loader long to fill, while other threads have
# mprof rescan.  Programs and facts: tests/progs/deep_bind_race_main.c,
# tests/progs/deep_bind_race_lib.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
n=100
build_c "$WORK/libdeep_bind_race.so" "$PROGS_DIR/deep_bind_race_lib.c" -shared -fPIC -fno-plt \
	-Wl,-z,now -Wl,-z,relro
build_c "$WORK/deep_bind_race_main" "$PROGS_DIR/deep_bind_race_main.c" -ldl -lpthread
build_c "$WORK/libcopy.so" "$PROGS_DIR/dlopen_chain_lib.c" -shared -fPIC -DPLUG=plug -DPLUG_BYTES=8
mkdir "$WORK/libs" || hard_error "cannot make $WORK/libs"
for i in $(seq 0 $((n - 1))); do
	cp "$WORK/libcopy.so" "$WORK/libs/lib$i.so" || hard_error "cannot copy libcopy.so"
done

run_cmd 120 native "$WORK/deep_bind_race_main" "$WORK/libs" "$n" 20 "$WORK/libdeep_bind_race.so"
expect_eq "native run: exit status" 0 "$RUN_STATUS"

mprof_run $HANG_LIMIT "$WORK/run.trace" -- "$WORK/deep_bind_race_main" "$WORK/libs" "$n" 300 \
	"$WORK/libdeep_bind_race.so"
expect_eq "exit status (139: SIGSEGV in the loader)" 0 "$RUN_STATUS"
expect_eq "stdout" "done" "$(cat "$RUN_OUT")"
expect_eq "program's stderr" "" "$(program_stderr "$RUN_ERR")"
expect_match "the library's slots were rewritten" \
	"RTLD_DEEPBIND.*: $WORK/libdeep_bind_race.so;" "$(grep -F 'RTLD_DEEPBIND' "$RUN_ERR")"
report_json "$WORK/run.json" "$WORK/run.trace" &&
	expect_range "deep_bind_race_churn's allocations" 1 999999999 \
		"$(q "$WORK/run.json" sum allocations deep_bind_race_churn)"
finish
