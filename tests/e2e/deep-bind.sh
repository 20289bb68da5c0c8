#!/bin/bash
# deep-bind.sh - a library loaded with dlopen(RTLD_DEEPBIND), as PHP loads
# every extension, binds its malloc and free to the C library's, past the
# shim: its frees of the program's blocks were lost (those blocks leaked in
# the report, their addresses "reused while live") and its own blocks
# missing.  mprof now points such a library's bound allocator slots at the
# shim when it rescans the modules (here at the first stack through the
# library: its call of main_cb_alloc), says so in one diagnostic, and the
# counts are exact.  The slots, in the library's RELRO pages (-z now), are
# written through /proc/self/mem (counted with strace, where installed);
# under a seccomp filter (here one that kills the process on pwrite64) the
# pages are made writable for the store and read-only again, and the counts
# are as exact.  Programs and facts: tests/progs/deep_bind_main.c,
# tests/progs/deep_bind_lib.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/libdeep_bind_lib.so" "$PROGS_DIR/deep_bind_lib.c" -shared -fPIC -Wl,-z,now
build_c "$WORK/deep_bind_main" "$PROGS_DIR/deep_bind_main.c" -ldl

note="a library loaded with RTLD_DEEPBIND calls the C library's malloc and free past mprof: $WORK/libdeep_bind_lib.so; mprof records those calls from here on, not the ones made before (their blocks may show as leaks, unmatched frees or addresses reused while live)"
# deep_bind_checks NAME TRACE: the facts of a run (RUN_* set)
deep_bind_checks() {
	expect_eq "$1: exit status" 0 "$RUN_STATUS"
	expect_eq "$1: stdout" "done" "$(cat "$RUN_OUT")"
	expect_eq "$1: the note on stderr" "mprof: $note" "$(grep -F 'RTLD_DEEPBIND' "$RUN_ERR")"
	report_json "$2.json" "$2" || return 0
	expect_site "$2.json" main_cb_alloc 3 144 0 0
	expect_site "$2.json" deep_bind_lib_alloc 5 500 0 0
	expect_site "$2.json" main_alloc 7 2331 7 2331
	expect_eq "$1: unmatched frees, addresses reused while live" "0 0" \
		"$(json_eval "$2.json" '"%d %d" % (d["summary"]["unmatched_frees"], d["summary"]["quality"]["address_reused"])')"
	expect_eq "$1: diagnostic in the JSON report" "0 $note" \
		"$(json_eval "$2.json" '"\n".join("%d %s" % (x["code"], x["text"]) for x in d["summary"]["diagnostics"] if "DEEPBIND" in x["text"])')"
}

mprof_run 60 "$WORK/run.trace" -- "$WORK/deep_bind_main" "$WORK/libdeep_bind_lib.so"
deep_bind_checks plain "$WORK/run.trace"

RUN_NAME=sandboxed mprof_run 60 "$WORK/sandboxed.trace" -- "$WORK/deep_bind_main" \
	"$WORK/libdeep_bind_lib.so" sandboxed
deep_bind_checks sandboxed "$WORK/sandboxed.trace"

if command -v strace >/dev/null 2>&1; then
	RUN_NAME=strace mprof_run 60 "$WORK/strace.trace" -- strace -ff -o "$WORK/st" \
		-e trace=execve,openat,pwrite64 "$WORK/deep_bind_main" "$WORK/libdeep_bind_lib.so"
	strace_calls_of "$WORK/st" "$WORK/deep_bind_main" "$WORK/st.calls"
	expect_eq "strace: the malloc and free slots written through /proc/self/mem" 2 \
		"$(grep -c '^pwrite64(.*, 8, [0-9]*) = 8$' "$WORK/st.calls")"
	expect_eq "strace: /proc/self/mem opened for them" 2 \
		"$(grep -cF 'openat(AT_FDCWD, "/proc/self/mem", O_RDWR|O_CLOEXEC) =' "$WORK/st.calls")"
else
	echo "# strace is not installed: the writes through /proc/self/mem are not counted"
fi
finish
