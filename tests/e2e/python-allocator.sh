#!/bin/bash
# python-allocator.sh - whether a Python program's objects were malloc
# blocks, told from its stacks where the interpreter has its symbol table:
# pymalloc's static functions (new_arena) show its own heap (the note then
# without "unless it runs with PYTHONMALLOC=malloc"); CPython's static
# allocating functions (gc_alloc) without them show PYTHONMALLOC=malloc
# (every object recorded: an exact headline, no note); a stripped library
# names neither and the note keeps its "unless".  A stand-in library named
# libpython3.99.so plays the interpreter: tests/progs/fake_python.c,
# tests/progs/fake_python_main.c (facts there).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
# no symbol cache: the stripped library has the full one's build-id, and
# the cache would give it the names its symbol table no longer has
MPROF_SYMBOL_CACHE=
export MPROF_SYMBOL_CACHE
mkdir -p "$WORK/full" "$WORK/stripped"
build_c "$WORK/full/libpython3.99.so" "$PROGS_DIR/fake_python.c" -shared -fPIC
cp "$WORK/full/libpython3.99.so" "$WORK/stripped/libpython3.99.so"
strip --strip-all "$WORK/stripped/libpython3.99.so" || hard_error "strip failed"
build_c "$WORK/prog" "$PROGS_DIR/fake_python_main.c" -L"$WORK/full" -l:libpython3.99.so

NOTE_RE='^note: +Python manages a heap of its own'
for lib in full stripped; do
	for mode in malloc pymalloc; do
		RUN_NAME="$lib-$mode" LD_LIBRARY_PATH="$WORK/$lib" mprof_run 60 "$WORK/$lib-$mode.trace" -- \
			"$WORK/prog" "$mode"
		expect_eq "$lib $mode: stdout" "fake_python $mode" "$(cat "$RUN_OUT")"
		"$MPROF" report -n 0 "$WORK/$lib-$mode.trace" >"$WORK/$lib-$mode.txt" 2>&1
		report_json "$WORK/$lib-$mode.json" "$WORK/$lib-$mode.trace" || continue
		expect_eq "$lib $mode: allocations (40 objects, stdout's buffer, a realloc with pymalloc)" \
			"$([ "$mode" = pymalloc ] && echo 42 || echo 41)" \
			"$(q "$WORK/$lib-$mode.json" summary allocations)"
		[ "$lib" = full ] && expect_site "$WORK/$lib-$mode.json" gc_alloc 40 1920 20 960
	done
done
expect_match "symbols, PYTHONMALLOC=malloc: exact" "^mprof report: .* \\(exact: every allocation recorded\\)\$" \
	"$(head -n 1 "$WORK/full-malloc.txt")"
expect_no_match "symbols, PYTHONMALLOC=malloc: no note of a heap of its own" "$NOTE_RE" \
	"$(cat "$WORK/full-malloc.txt")"
expect_eq "symbols, PYTHONMALLOC=malloc: JSON own_heap_runtime" None \
	"$(json_eval "$WORK/full-malloc.json" 'd["summary"]["own_heap_runtime"]')"
expect_match "symbols, pymalloc: the note, without 'unless'" \
	"$NOTE_RE; mprof sees only the blocks it takes from malloc, not its objects\$" \
	"$(grep '^note:' "$WORK/full-pymalloc.txt")"
expect_eq "symbols, pymalloc: JSON own_heap_runtime" Python \
	"$(json_eval "$WORK/full-pymalloc.json" 'd["summary"]["own_heap_runtime"]')"
for mode in malloc pymalloc; do
	expect_match "stripped, $mode: the trace cannot tell: 'unless'" \
		"$NOTE_RE \\(unless it runs with PYTHONMALLOC=malloc\\);" "$(grep '^note:' "$WORK/stripped-$mode.txt")"
done
finish
