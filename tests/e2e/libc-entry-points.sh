#!/bin/bash
# libc-entry-points.sh - the C library's internal allocator entry points
# (__libc_malloc, __libc_free, __libc_calloc, __libc_realloc,
# __libc_reallocarray, __libc_memalign, __libc_valloc, __libc_pvalloc) are
# recorded as the public ones are, at their caller: a block from malloc
# freed with __libc_free (and the reverse) was an unmatched free and a false
# leak, and the report still said "exact".  Three programs: (a) direct
# calls mixed with the public entry points, (c) a library linked in that
# calls them (the site is its function), and (b) a program whose own
# malloc, free, calloc and realloc are thin wrappers over them, each
# allocation recorded once (not twice, and no endless recursion), its
# wrapper frame dropped like strdup's; its reallocarray, the recorder's,
# reaches its realloc unrecorded.  (d) The same wrappers in a library
# loaded behind the recorder, whose malloc is then the "real" one: each
# block is recorded once, by the recorder's malloc (it was twice).  The
# programs' output and exit status stay theirs; sampled runs match every
# free too.  (e) Those wrappers bound at load (-z now) behind the recorder,
# in a program started under an inherited seccomp filter that kills
# pwrite64: the recorder knows of the filter before it rewrites their
# read-only slots, and makes no such call.  Programs and facts:
# tests/progs/libc_entry.c, libc_entry_lib.c, libc_wrap.c, libc_behind.c,
# no_pwrite_exec.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/libc_entry_lib.so" "$PROGS_DIR/libc_entry_lib.c" -shared -fPIC
build_c "$WORK/libc_entry" "$PROGS_DIR/libc_entry.c" -L"$WORK" -l:libc_entry_lib.so \
	-Wl,-rpath,"$WORK" -pthread
build_c "$WORK/libc_wrap" "$PROGS_DIR/libc_wrap.c"
build_c "$WORK/libc_behind.so" "$PROGS_DIR/libc_behind.c" -shared -fPIC
ENTRY_OUT=done
WRAP_OUT="malloc 6, calloc 2, realloc 2, free 5"

# ---- (a) and (c): direct calls, in the program and in a library ----------
run_cmd 30 native-entry "$WORK/libc_entry"
expect_eq "entry: native exit status" 5 "$RUN_STATUS"
expect_eq "entry: native stdout" "$ENTRY_OUT" "$(cat "$RUN_OUT")"
RUN_NAME=entry mprof_run 60 "$WORK/entry.trace" -- "$WORK/libc_entry"
expect_eq "entry: exit status under mprof" 5 "$RUN_STATUS"
expect_eq "entry: stdout under mprof" "$ENTRY_OUT" "$(cat "$RUN_OUT")"
expect_eq "entry: the program's stderr" "" "$(program_stderr "$RUN_ERR")"
if report_json "$WORK/entry.json" "$WORK/entry.trace"; then
	R=$WORK/entry.json
	#                         FUNCS                allocs bytes   leak-blocks leak-bytes
	expect_site "$R" mix_malloc_libc_free   4 400    1 100
	expect_site "$R" mix_libc_malloc_free   5 1000   2 400
	expect_site "$R" use_libc_calloc        3 900    1 300
	expect_site "$R" use_libc_realloc       5 100212 2 100077
	expect_site "$R" use_libc_memalign      2 666    1 333
	expect_site "$R" use_libc_valloc        2 2468   1 1234
	expect_site "$R" use_libc_pvalloc       1 5000   1 5000
	expect_site "$R" use_libc_reallocarray  2 176    1 99
	expect_site "$R" "lib_grab&use_lib"     3 144    1 48
	expect_eq "entry: allocations" 27 "$(q "$R" summary allocations)"
	expect_eq "entry: allocated bytes" 110966 "$(q "$R" summary allocated_bytes)"
	expect_eq "entry: blocks live at exit" 11 "$(q "$R" summary leaked_blocks)"
	expect_eq "entry: bytes live at exit" 107591 "$(q "$R" summary leaked_bytes)"
	expect_eq "entry: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
	expect_eq "entry: free calls (12 and a realloc to 0)" 13 "$(q "$R" summary frees)"
	expect_eq "entry: blocks freed" 16 "$(q "$R" summary blocks_freed)"
	for pair in malloc=14 calloc=3 realloc=3 reallocarray=2 memalign=2 valloc=2 pvalloc=1 \
		posix_memalign=0 aligned_alloc=0 free=12 realloc_to_zero=1; do
		fn=${pair%=*}
		expect_eq "entry: calls of $fn" "${pair#*=}" "$(q "$R" summary "calls.$fn")"
	done
	# The site is the caller of __libc_malloc, as it is malloc's: the
	# program's line, and the library's function in the library.
	source_line "$PROGS_DIR/libc_entry.c" "/* LEAK_LINE */"
	expect_eq "entry: mix_libc_malloc_free's line" "$SOURCE_LINE" \
		"$(q "$R" frame mix_libc_malloc_free line)"
	source_line "$PROGS_DIR/libc_entry_lib.c" "/* LIB_LINE */"
	expect_eq "entry: the library's site: its first frame" \
		"lib_grab libc_entry_lib.c:$SOURCE_LINE libc_entry_lib.so" \
		"$(json_eval "$R" '" ".join("%s %s:%s %s" % (f["function"], f["file"].split("/")[-1], f["line"], f["module"].split("/")[-1]) for s in site("lib_grab") for f in s["frames"][:1])')"
	expect_eq "entry: lib_grab is called from use_lib" use_lib "$(q "$R" caller lib_grab)"
fi
run_cmd 60 entry-text "$MPROF" report "$WORK/entry.trace"
expect_eq "entry: the text report's first line" \
	"mprof report: $WORK/entry.trace (exact: every allocation recorded)" \
	"$(head -n 1 "$RUN_OUT")"

# A thread whose first allocator call is __libc_malloc.
RUN_NAME=thread mprof_run 60 "$WORK/thread.trace" -- "$WORK/libc_entry" thread
expect_eq "thread: exit status" 5 "$RUN_STATUS"
expect_eq "thread: stdout" "thread done" "$(cat "$RUN_OUT")"
if report_json "$WORK/thread.json" "$WORK/thread.trace"; then
	expect_site "$WORK/thread.json" thread_first_use 3 369 1 123
	expect_eq "thread: unmatched frees" 0 "$(q "$WORK/thread.json" summary unmatched_frees)"
fi

# ---- (b): the program's malloc over __libc_malloc -------------------------
run_cmd 30 native-wrap "$WORK/libc_wrap"
expect_eq "wrap: native exit status" 4 "$RUN_STATUS"
expect_eq "wrap: native stdout" "$WRAP_OUT" "$(cat "$RUN_OUT")"
RUN_NAME=wrap mprof_run 60 "$WORK/wrap.trace" -- "$WORK/libc_wrap"
expect_eq "wrap: exit status under mprof" 4 "$RUN_STATUS"
expect_eq "wrap: stdout under mprof (the wrappers were called as often)" "$WRAP_OUT" \
	"$(cat "$RUN_OUT")"
note="the program defines its own malloc (in $WORK/libc_wrap) over the C library's __libc_malloc: what that returns is recorded, blocks it serves itself are not"
expect_eq "wrap: the note on stderr" "mprof: $note" "$(grep -F 'own malloc' "$RUN_ERR")"
if report_json "$WORK/wrap.json" "$WORK/wrap.trace"; then
	R=$WORK/wrap.json
	expect_site "$R" make_names   2 8    1 4
	expect_site "$R" wrap_malloc  3 900  1 300
	expect_site "$R" wrap_calloc  2 200  0 0
	expect_site "$R" wrap_realloc 3 1110 2 1100
	expect_eq "wrap: allocations" 10 "$(q "$R" summary allocations)"
	expect_eq "wrap: allocated bytes" 2218 "$(q "$R" summary allocated_bytes)"
	expect_eq "wrap: blocks live at exit" 4 "$(q "$R" summary leaked_blocks)"
	expect_eq "wrap: bytes live at exit" 1404 "$(q "$R" summary leaked_bytes)"
	expect_eq "wrap: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
	for pair in malloc=6 calloc=2 realloc=2 reallocarray=0 free=5; do
		fn=${pair%=*}
		expect_eq "wrap: calls of $fn" "${pair#*=}" "$(q "$R" summary "calls.$fn")"
	done
	expect_eq "wrap: the report's diagnostics" "$note" \
		"$(json_eval "$R" '"\n".join(x["text"] for x in d["summary"]["diagnostics"])')"
	# make_names calls strdup on two lines, wrap_realloc malloc, realloc
	# and reallocarray (the recorder's frame between: not the site's)
	expect_eq "wrap: sites whose first frame is the caller of the program's malloc" \
		"2 1 1 3" \
		"$(json_eval "$R" '" ".join(str(len(site(f))) for f in ("make_names", "wrap_malloc", "wrap_calloc", "wrap_realloc"))')"
fi
# With the wrappers kept, the recorded stack starts in the program's malloc.
source_line "$PROGS_DIR/libc_wrap.c" "/* WRAP_LINE */"
if report_json "$WORK/wrap-kept.json" --keep-wrappers "$WORK/wrap.trace"; then
	expect_eq "wrap: kept wrappers: the first frame of wrap_malloc's site" \
		"malloc libc_wrap.c:$SOURCE_LINE" \
		"$(json_eval "$WORK/wrap-kept.json" '" ".join("%s %s:%s" % (s["frames"][0]["function"], s["frames"][0]["file"].split("/")[-1], s["frames"][0]["line"]) for s in d["sites"] if any(f["function"] == "wrap_malloc" for f in s["frames"]))')"
fi
run_cmd 60 wrap-text "$MPROF" report "$WORK/wrap.trace"
expect_eq "wrap: the text report's first line" \
	"mprof report: $WORK/wrap.trace (exact: every allocation recorded)" \
	"$(head -n 1 "$RUN_OUT")"

# ---- (d): the same wrappers behind the recorder -----------------------------
# The recorder is first in LD_PRELOAD; a shell puts the library after it
# (the program's trace: the one of the exec, FILE.PID).
RUN_NAME=behind mprof_run 60 "$WORK/behind.trace" -- /bin/sh -c \
	'LD_PRELOAD="$LD_PRELOAD $1" exec "$2"' sh "$WORK/libc_behind.so" "$WORK/libc_entry"
expect_eq "behind: exit status" 5 "$RUN_STATUS"
expect_eq "behind: stdout" "$ENTRY_OUT" "$(cat "$RUN_OUT")"
traces=("$WORK"/behind.trace.*)
expect_eq "behind: the program's trace" 1 "${#traces[@]}"
if report_json "$WORK/behind.json" "${traces[0]}"; then
	R=$WORK/behind.json
	expect_site "$R" mix_malloc_libc_free   4 400    1 100
	expect_site "$R" mix_libc_malloc_free   5 1000   2 400
	expect_site "$R" use_libc_realloc       5 100212 2 100077
	expect_site "$R" "lib_grab&use_lib"     3 144    1 48
	expect_eq "behind: totals (allocations, bytes, blocks and bytes live at exit, unmatched frees)" \
		"27 110966 11 107591 0" \
		"$(json_eval "$R" '" ".join(str(d["summary"][k]) for k in ("allocations", "allocated_bytes", "leaked_blocks", "leaked_bytes", "unmatched_frees"))')"
fi

# ---- (e): behind the recorder, bound at load, under a seccomp filter -------
# Linked with -z now, the wrappers' __libc_ slots are read-only when the
# recorder points them at the C library's: under a filter inherited at exec
# (here one that kills pwrite64) it must know of the filter before that
# rewrite and not write them through /proc/self/mem (the program was
# killed by SIGSYS at its start, status 159).
build_c "$WORK/libc_behind_now.so" "$PROGS_DIR/libc_behind.c" -shared -fPIC -Wl,-z,now
build_c "$WORK/no_pwrite_exec" "$PROGS_DIR/no_pwrite_exec.c"
RUN_NAME=filtered mprof_run 60 "$WORK/filtered.trace" -- "$WORK/no_pwrite_exec" /bin/sh -c \
	'LD_PRELOAD="$LD_PRELOAD $1" exec "$2"' sh "$WORK/libc_behind_now.so" "$WORK/libc_entry"
expect_eq "filtered: exit status" 5 "$RUN_STATUS"
expect_eq "filtered: stdout" "$ENTRY_OUT" "$(cat "$RUN_OUT")"
traces=("$WORK"/filtered.trace.*.2)
expect_eq "filtered: the program's trace (the second exec's)" 1 "${#traces[@]}"
if [ -f "${traces[0]}" ] && report_json "$WORK/filtered.json" "${traces[0]}"; then
	expect_eq "filtered: totals (allocations, bytes, blocks and bytes live at exit, unmatched frees)" \
		"27 110966 11 107591 0" \
		"$(json_eval "$WORK/filtered.json" '" ".join(str(d["summary"][k]) for k in ("allocations", "allocated_bytes", "leaked_blocks", "leaked_bytes", "unmatched_frees"))')"
fi

# ---- sampled: every free matched, the programs' output unchanged ----------
# At one sample per byte (seed 7) every block is sampled with weight 1, so
# the estimates are the exact totals: allocations, bytes, blocks and bytes
# live at exit, blocks freed.
for rate in 1 256; do
	for prog in entry wrap; do
		case $prog in
		entry) out=$ENTRY_OUT status=5 totals="27 110966 11 107591 16" ;;
		wrap) out=$WRAP_OUT status=4 totals="10 2218 4 1404 6" ;;
		esac
		RUN_NAME=$prog-$rate mprof_run 60 "$WORK/$prog-$rate.trace" --sample-rate $rate \
			--sample-seed 7 -- "$WORK/libc_$prog"
		expect_eq "$prog, sampled at $rate B: exit status" $status "$RUN_STATUS"
		expect_eq "$prog, sampled at $rate B: stdout" "$out" "$(cat "$RUN_OUT")"
		R=$WORK/$prog-$rate.json
		report_json "$R" "$WORK/$prog-$rate.trace" || continue
		expect_eq "$prog, sampled at $rate B: unmatched frees" 0 \
			"$(q "$R" summary unmatched_frees)"
		[ "$rate" = 1 ] || continue
		expect_eq "$prog, sampled at $rate B: totals" "$totals" \
			"$(json_eval "$R" '" ".join(str(d["summary"][k]) for k in ("allocations", "allocated_bytes", "leaked_blocks", "leaked_bytes", "blocks_freed"))')"
	done
done
finish
