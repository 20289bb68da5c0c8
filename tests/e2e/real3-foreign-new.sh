#!/bin/bash
# real3-foreign-new.sh - an allocator behind the recorder that defines C++
# operator new and delete too and serves them itself (as a preloaded or
# linked jemalloc, tcmalloc or mimalloc does) sends a C++ program's new and
# delete past malloc: mprof points the program's calls of them at its
# hidden wrappers, which record them exactly (new as malloc, aligned new as
# memalign, delete as free: no false leaks) and say so in a note; the
# program's output and exit status are unchanged.  Every form (new[],
# nothrow, aligned, a new that throws bad_alloc, which records nothing), a
# second thread, LD_BIND_NOW=1 and a C++ library loaded with dlopen after
# the start (pointed there at the next module rescan; one bound to the
# allocator before that is named and the run is "incomplete"; one that
# defines new without delete is not wrapped, and said so).  The same
# allocator under a C program, and the C++ program without it, say
# nothing of the kind; the shim exports no operator new.
# Programs and facts: tests/progs/own_new_alloc.c, tests/progs/own_new_user.cpp,
# tests/progs/own_new_forms.cpp, tests/progs/own_new_plugin.cpp,
# tests/progs/own_new_reload.cpp, tests/progs/free_in_order.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/libown_new.so" "$PROGS_DIR/own_new_alloc.c" -shared -fPIC
build_cxx "$WORK/own_new_user" "$PROGS_DIR/own_new_user.cpp"
build_c "$WORK/free_in_order" "$PROGS_DIR/free_in_order.c"
build_cxx "$WORK/own_new_forms" "$PROGS_DIR/own_new_forms.cpp" -ldl -lpthread
build_cxx "$WORK/libown_new_plugin.so" "$PROGS_DIR/own_new_plugin.cpp" -shared -fPIC
# the same plugin without its malloc call: nothing has mprof rescan the
# modules before the program's exit
sed -e 's/void \*p = malloc(24);/void *p = 0;/' -e 's/^\tfree(p);$//' \
	"$PROGS_DIR/own_new_plugin.cpp" >"$WORK/quiet_plugin.cpp"
build_cxx "$WORK/libquiet_plugin.so" "$WORK/quiet_plugin.cpp" -shared -fPIC
OUT="made 300 objects and 40 malloc blocks"
FORMS_OUT=$(printf 'caught bad_alloc\nnothrow gave NULL\nplugin made 60\nforms done')
NOTE="C++ operator new and delete are served by $WORK/libown_new.so, the malloc behind mprof's, which never calls malloc and free for them: mprof records them through its own wrappers"
LATE="$WORK/libquiet_plugin.so, loaded after the start, were bound to the C++ operator new"

# trace_of EXE: the JSON report of the run's trace whose program is EXE (the
# other one is the shell's that put the allocator into LD_PRELOAD).
trace_of() {
	local t
	for t in "$WORK"/trace*; do
		case $t in *.json | *.err) continue ;; esac
		"$MPROF" report --format json "$t" >"$t.json" 2>"$t.err" || continue
		[ "$(q "$t.json" get trace.exe)" = "$1" ] && echo "$t.json"
	done
}

# The allocator goes into the program only, behind the recorder: a shell
# adds it to the LD_PRELOAD mprof set and executes the program in its place.
behind() {
	rm -f "$WORK"/trace*
	mprof_run 60 "$WORK/trace" -- /bin/sh -c 'lib=$1; shift; LD_PRELOAD="$LD_PRELOAD $lib" exec "$@"' sh \
		"$WORK/libown_new.so" "$@"
}

expect_eq "the shim exports no C++ symbol" "" \
	"$(nm -D --defined-only "$abs_top_builddir/preload/.libs/libmprof_preload.so" | awk '$3 ~ /^_Z/')"

run_cmd 30 native env LD_PRELOAD="$WORK/libown_new.so" "$WORK/own_new_user"
expect_eq "native run: exit status" 0 "$RUN_STATUS"
expect_eq "native run: stdout" "$OUT" "$(cat "$WORK/native.out")"

behind "$WORK/own_new_user"
expect_eq "behind: exit status" 0 "$RUN_STATUS"
expect_eq "behind: stdout" "$OUT" "$(cat "$RUN_OUT")"
expect_eq "behind: program's stderr" "" "$(program_stderr "$RUN_ERR")"
expect_eq "behind: mprof says it records new through its wrappers, once" 1 \
	"$(grep -E '^mprof: ' "$RUN_ERR" | grep -cF "$NOTE")"
R=$(trace_of "$WORK/own_new_user")
expect_ne "behind: a trace of own_new_user" "" "$R"
if [ -n "$R" ]; then
	expect_eq "behind: foreign_new" false "$(q "$R" summary foreign_new)"
	expect_eq "behind: the note's code" 0 "$(json_eval "$R" \
		'[x["code"] for x in d["summary"]["diagnostics"] if "operator new" in x["text"]][0]')"
	expect_site "$R" new_objects 300 5600 0 0
	expect_site "$R" malloc_blocks 40 1920 0 0
	expect_eq "behind: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
	"$MPROF" report "${R%.json}" >"$WORK/behind.txt" 2>&1
	expect_match "behind: the headline says exact" "\(exact: every allocation recorded\)" \
		"$(head -n 1 "$WORK/behind.txt")"
fi

# every form, a thread and a library loaded later (forms_checks NAME)
forms_checks() {
	expect_eq "$1: exit status" 0 "$RUN_STATUS"
	expect_eq "$1: stdout" "$FORMS_OUT" "$(cat "$RUN_OUT")"
	expect_eq "$1: program's stderr" "" "$(program_stderr "$RUN_ERR")"
	R=$(trace_of "$WORK/own_new_forms")
	expect_ne "$1: a trace of own_new_forms" "" "$R"
	[ -n "$R" ] || return 0
	expect_site "$R" array_objects 50 5000 0 0
	expect_site "$R" nothrow_objects 30 480 0 0
	expect_site "$R" aligned_objects 30 1920 0 0
	expect_eq "$1: aligned new as memalign" 30 "$(q "$R" summary calls.memalign)"
	expect_site "$R" failing_new 1 - 0 0
	expect_range "$1: failing_new's bytes (the exception object, no 1 TiB)" 1 1023 \
		"$(q "$R" sum allocated_bytes failing_new)"
	expect_site "$R" thread_objects 40 320 0 0
	expect_site "$R" kept_objects 5 160 5 160
	expect_site "$R" plugin_objects 60 1200 0 0
	expect_eq "$1: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
}

run_cmd 30 native-forms env LD_PRELOAD="$WORK/libown_new.so" "$WORK/own_new_forms" \
	"$WORK/libown_new_plugin.so"
expect_eq "native forms: exit status" 0 "$RUN_STATUS"
expect_eq "native forms: stdout" "$FORMS_OUT" "$(cat "$RUN_OUT")"

behind "$WORK/own_new_forms" "$WORK/libown_new_plugin.so"
forms_checks forms
[ -n "$R" ] && expect_eq "forms: foreign_new" false "$(q "$R" summary foreign_new)"

# with every slot bound at load, the library loaded later was bound to the
# allocator's new before the rescan: named, incomplete; its calls after it
# still recorded
rm -f "$WORK"/trace*
RUN_NAME=bindnow mprof_run 60 "$WORK/trace" -- /bin/sh -c \
	'LD_PRELOAD="$LD_PRELOAD $1" LD_BIND_NOW=1 exec "$2" "$3"' sh "$WORK/libown_new.so" \
	"$WORK/own_new_forms" "$WORK/libown_new_plugin.so"
forms_checks bind-now
[ -n "$R" ] && expect_eq "bind-now: foreign_new" true "$(q "$R" summary foreign_new)"
expect_eq "bind-now: the plugin named" 1 \
	"$(grep -cF "$WORK/libown_new_plugin.so, loaded after the start, were bound" "$RUN_ERR")"

# a library whose news nothing recorded passes through before the exit:
# they are not recorded, and the exit's pass says so
behind "$WORK/own_new_forms" "$WORK/libquiet_plugin.so"
expect_eq "quiet plugin: exit status" 0 "$RUN_STATUS"
expect_eq "quiet plugin: stdout" "$FORMS_OUT" "$(cat "$RUN_OUT")"
expect_eq "quiet plugin: named" 1 "$(grep -E '^mprof: ' "$RUN_ERR" | grep -cF "$LATE")"
R=$(trace_of "$WORK/own_new_forms")
if [ -n "$R" ]; then
	expect_eq "quiet plugin: foreign_new" true "$(q "$R" summary foreign_new)"
	expect_eq "quiet plugin: diagnostic code" 7 "$(json_eval "$R" \
		'[x["code"] for x in d["summary"]["diagnostics"] if "loaded after the start" in x["text"]][0]')"
	expect_site "$R" array_objects 50 5000 0 0
	"$MPROF" report "${R%.json}" >"$WORK/quiet.txt" 2>&1
	expect_match "quiet plugin: the headline says incomplete" \
		"\(incomplete: C\+\+ operator new and delete calls served by another allocator were not all recorded" \
		"$(head -n 1 "$WORK/quiet.txt")"
fi

# a C++ library closed and another loaded where it was, then the first
# again: each one's new and delete are wrapped after its load (the module
# table checks again the modules it held after an unload)
cp "$WORK/libown_new_plugin.so" "$WORK/libown_new_plugin_b.so" || hard_error "cannot copy the plugin"
build_cxx "$WORK/own_new_reload" "$PROGS_DIR/own_new_reload.cpp" -ldl
behind "$WORK/own_new_reload" "$WORK/libown_new_plugin.so" "$WORK/libown_new_plugin_b.so"
expect_eq "reload: exit status" 0 "$RUN_STATUS"
expect_eq "reload: stdout" "made 180" "$(cat "$RUN_OUT")"
R=$(trace_of "$WORK/own_new_reload")
expect_ne "reload: a trace of own_new_reload" "" "$R"
if [ -n "$R" ]; then
	expect_site "$R" plugin_objects 180 3600 0 0
	expect_eq "reload: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
fi

# an allocator that defines new and not delete: its new is not wrapped (a
# block it made would be freed unrecorded), and mprof says so as before
build_c "$WORK/libown_new_only.so" "$PROGS_DIR/own_new_alloc.c" -shared -fPIC -DOWN_NEW_ONLY
rm -f "$WORK"/trace*
RUN_NAME=newonly mprof_run 60 "$WORK/trace" -- /bin/sh -c \
	'lib=$1; shift; LD_PRELOAD="$LD_PRELOAD $lib" exec "$@"' sh "$WORK/libown_new_only.so" \
	"$WORK/own_new_user"
expect_eq "new only: exit status" 0 "$RUN_STATUS"
expect_eq "new only: stdout" "$OUT" "$(cat "$RUN_OUT")"
expect_eq "new only: mprof says they are not recorded" 1 "$(grep -E '^mprof: ' "$RUN_ERR" |
	grep -cF "$WORK/libown_new_only.so, the malloc behind mprof's, which never calls malloc and free for them, and mprof could not send them through its wrappers")"
R=$(trace_of "$WORK/own_new_user")
if [ -n "$R" ]; then
	expect_eq "new only: foreign_new" true "$(q "$R" summary foreign_new)"
	expect_site "$R" malloc_blocks 40 1920 0 0
	expect_no_site "$R" new_objects
fi

# a C program under the same allocator: nothing to say
behind "$WORK/free_in_order"
expect_eq "C program: exit status" 0 "$RUN_STATUS"
expect_eq "C program: no word of operator new" "" "$(grep -F 'operator new' "$RUN_ERR")"
R=$(trace_of "$WORK/free_in_order")
expect_ne "C program: a trace of free_in_order" "" "$R"
[ -n "$R" ] && expect_eq "C program: foreign_new" false "$(q "$R" summary foreign_new)"

# the C++ program with the C++ library's own new (which calls malloc)
rm -f "$WORK"/trace*
mprof_run 60 "$WORK/trace" -- "$WORK/own_new_user"
expect_eq "alone: exit status" 0 "$RUN_STATUS"
expect_eq "alone: no word of operator new" "" "$(grep -F 'operator new' "$RUN_ERR")"
if report_json "$WORK/alone.json" "$WORK/trace"; then
	expect_eq "alone: foreign_new" false "$(q "$WORK/alone.json" summary foreign_new)"
	expect_site "$WORK/alone.json" new_objects 300 5600 0 0
	expect_site "$WORK/alone.json" malloc_blocks 40 1920 0 0
fi
finish
