#!/bin/bash
# next-wrappers.sh - a program whose own malloc and free (and calloc and
# realloc) count their calls and forward to the next definition, found with
# dlsym(RTLD_NEXT), the hook pattern of debug and counting wrappers.  Under
# mprof the next one is the recorder's: its free called the program's free
# again (the recorder took it for a foreign allocator's), until SIGSEGV.
# Now the recorder's entry points go to the C library's, each block is
# recorded once at its caller (the wrapper frame dropped), and the
# program's counts, output and exit status are its native ones: the
# recorder's own load of libunwind at the first pthread_create made 8
# mallocs, 4 callocs and a free through the program's malloc.  mprof warns
# at the start and says once, when the wrapper first calls it, that its
# blocks are recorded after all; the report is exact.  Variants: malloc
# and free only (calloc and realloc are the recorder's), all four, the
# four in a library the program links (behind the recorder: its next is
# the C library), that library preloaded ahead of the recorder, a fork
# child; reallocarray, which the wrappers lack,
# reaches their realloc.  Programs and facts: tests/progs/next_wrap.c,
# next_wrap_lib.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/next_two" "$PROGS_DIR/next_wrap.c" "$PROGS_DIR/next_wrap_lib.c" -pthread -ldl
build_c "$WORK/next_all" "$PROGS_DIR/next_wrap.c" "$PROGS_DIR/next_wrap_lib.c" \
	-DNEXT_WRAP_ALL -pthread -ldl
build_c "$WORK/libnext_wrap.so" "$PROGS_DIR/next_wrap_lib.c" -DNEXT_WRAP_ALL -shared -fPIC
build_c "$WORK/next_lib" "$PROGS_DIR/next_wrap.c" -L"$WORK" -l:libnext_wrap.so \
	-Wl,-rpath,"$WORK" -pthread

# variant | its calls of reallocarray and realloc as recorded (the
# wrappers' realloc records a reallocarray as realloc) | warned
for v in "two|1 1|yes" "all|0 2|yes" "lib|1 1|no"; do
	IFS='|' read -r name calls warned <<<"$v"
	prog=$WORK/next_$name
	run_cmd 30 "native-$name" "$prog"
	expect_eq "$name: native exit status" 6 "$RUN_STATUS"
	native=$(cat "$RUN_OUT")
	case $name in
	two) expect_eq "$name: native stdout" "malloc 8, calloc 0, realloc 0, free 6" "$native" ;;
	*) expect_eq "$name: native stdout" "malloc 8, calloc 3, realloc 2, free 6" "$native" ;;
	esac
	RUN_NAME=$name mprof_run 60 "$WORK/$name.trace" -- "$prog"
	expect_eq "$name: exit status under mprof (no SIGSEGV)" 6 "$RUN_STATUS"
	expect_eq "$name: stdout under mprof (the wrappers' counts)" "$native" "$(cat "$RUN_OUT")"
	expect_eq "$name: the program's stderr" "" "$(program_stderr "$RUN_ERR")"
	warning="the program defines its own malloc (in $prog): its allocations cannot be recorded"
	note="the program's own malloc (in $prog) calls mprof's (the next malloc, found with dlsym(RTLD_NEXT)): what it gets there is recorded after all, blocks it serves itself are not"
	expected="mprof: $warning
mprof: $note"
	[ "$warned" = yes ] || expected=
	expect_eq "$name: mprof's lines about malloc" "$expected" \
		"$(grep -E '^mprof: .*(own malloc|recorded)' "$RUN_ERR")"
	report_json "$WORK/$name.json" "$WORK/$name.trace" || continue
	R=$WORK/$name.json
	#                         FUNCS       allocs bytes leak-blocks leak-bytes
	expect_site "$R" make_names   2 8    1 4
	expect_site "$R" wrap_malloc  3 900  1 300
	expect_site "$R" wrap_calloc  2 200  0 0
	expect_site "$R" wrap_realloc 3 1110 2 1100
	expect_site "$R" thread_work  2 128  1 64
	# the thread's DTV, from pthread_create (its size depends on the
	# modules): one more allocation, live at exit
	expect_eq "$name: allocations" 13 "$(q "$R" summary allocations)"
	expect_eq "$name: blocks live at exit" 6 "$(q "$R" summary leaked_blocks)"
	expect_eq "$name: frees" 6 "$(q "$R" summary frees)"
	expect_eq "$name: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
	expect_eq "$name: calls of malloc, calloc, reallocarray, realloc, free" \
		"8 3 $calls 6" \
		"$(json_eval "$R" '" ".join(str(d["summary"]["calls"][k]) for k in ("malloc", "calloc", "reallocarray", "realloc", "free"))')"
	expect_eq "$name: the report's diagnostics" "$(printf '%s\n' "$expected" | sed 's/^mprof: //')" \
		"$(json_eval "$R" '"\n".join(x["text"] for x in d["summary"]["diagnostics"])')"
	expect_eq "$name: foreign_malloc (the program's malloc was recorded)" false \
		"$(json_eval "$R" 'str(d["summary"]["foreign_malloc"]).lower()')"
	source_line "$PROGS_DIR/next_wrap.c" "/* MALLOC_LINE */"
	expect_eq "$name: wrap_malloc's site: its first frame" \
		"wrap_malloc next_wrap.c:$SOURCE_LINE" \
		"$(json_eval "$R" '" ".join("%s %s:%s" % (f["function"], f["file"].split("/")[-1], f["line"]) for s in site("wrap_malloc") for f in s["frames"][:1])')"
	run_cmd 60 "$name-text" "$MPROF" report "$WORK/$name.trace"
	expect_eq "$name: the text report's first line" \
		"mprof report: $WORK/$name.trace (exact: every allocation recorded)" \
		"$(head -n 1 "$RUN_OUT")"
done

# The wrappers in a library preloaded ahead of the recorder (a shell puts
# it first in the LD_PRELOAD mprof set): their next is the recorder's too.
lib=$WORK/libnext_wrap.so
run_cmd 30 native-ahead env LD_PRELOAD="$lib" "$WORK/next_lib"
expect_eq "ahead: native exit status" 6 "$RUN_STATUS"
native=$(cat "$RUN_OUT")
expect_eq "ahead: native stdout" "malloc 8, calloc 3, realloc 2, free 6" "$native"
RUN_NAME=ahead mprof_run 60 "$WORK/ahead.trace" -- /bin/sh -c \
	'LD_PRELOAD="$1 $LD_PRELOAD" exec "$2"' sh "$lib" "$WORK/next_lib"
expect_eq "ahead: exit status under mprof" 6 "$RUN_STATUS"
expect_eq "ahead: stdout under mprof" "$native" "$(cat "$RUN_OUT")"
expect_eq "ahead: mprof's lines about malloc" \
	"malloc is defined by $lib, ahead of the C library: the program's allocations cannot be recorded
the malloc of $lib, ahead of the C library, calls mprof's (the next malloc, found with dlsym(RTLD_NEXT)): what it gets there is recorded after all, blocks it serves itself are not" \
	"$(grep -E '^mprof: process [0-9]+: .*malloc' "$RUN_ERR" | sed 's/^mprof: process [0-9]*: //')"
traces=("$WORK"/ahead.trace.*)
expect_eq "ahead: the program's trace" 1 "${#traces[@]}"
if report_json "$WORK/ahead.json" "${traces[0]}"; then
	R=$WORK/ahead.json
	expect_site "$R" wrap_malloc 3 900 1 300
	expect_site "$R" wrap_realloc 3 1110 2 1100
	expect_eq "ahead: allocations, blocks live at exit, unmatched frees, foreign_malloc" \
		"13 6 0 False" \
		"$(json_eval "$R" '" ".join(str(d["summary"][k]) for k in ("allocations", "leaked_blocks", "unmatched_frees", "foreign_malloc"))')"
fi

# A fork child: its own trace, its counts its native ones.
run_cmd 30 native-fork "$WORK/next_all" fork
expect_eq "fork: native exit status" 6 "$RUN_STATUS"
native=$(cat "$RUN_OUT")
expect_eq "fork: native stdout" "child: malloc 2, calloc 0, realloc 0, free 1
malloc 8, calloc 3, realloc 2, free 6" "$native"
RUN_NAME=fork mprof_run 60 "$WORK/fork.trace" -- "$WORK/next_all" fork
expect_eq "fork: exit status under mprof" 6 "$RUN_STATUS"
expect_eq "fork: stdout under mprof" "$native" "$(cat "$RUN_OUT")"
traces=("$WORK"/fork.trace.*)
expect_eq "fork: the child's trace" 1 "${#traces[@]}"
if report_json "$WORK/fork-child.json" "${traces[0]}"; then
	expect_site "$WORK/fork-child.json" fork_child 2 100 1 50
	expect_eq "fork: the child's unmatched frees" 0 \
		"$(q "$WORK/fork-child.json" summary unmatched_frees)"
fi
finish
