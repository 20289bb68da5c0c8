#!/bin/bash
# runtime-names.sh - a runtime with a heap of its own that is linked into the
# program's executable (OCaml's native programs and ocamlrun, Erlang's
# beam.smp) has no library of its own in the stacks to be named by: the
# report names it by its C functions (caml_, erts_) and says its counts are
# exact for malloc blocks only.  Before, such runs read "exact: every
# allocation recorded" with no note.  Our program carries those names
# (tests/progs/runtime_names.c); the real runtimes are tried when installed
# (ocaml-nox, erlang-base).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/runtime_names" "$PROGS_DIR/runtime_names.c"

# runtime_named LABEL RUNTIME TRACE: TRACE's report names RUNTIME (null:
# none) and its first line says what its counts rest on.
runtime_named() {
	local label=$1 runtime=$2 trace=$3 first="exact for malloc blocks; see the note"
	report_json "$WORK/$label.json" "$trace" || return
	expect_eq "$label: runtime with a heap of its own" "$runtime" \
		"$(q "$WORK/$label.json" summary own_heap_runtime)"
	[ "$runtime" = null ] && first="exact: every allocation recorded"
	"$MPROF" report -n 0 "$trace" >"$WORK/$label.txt" 2>&1
	expect_eq "$label: first line" "mprof report: $trace ($first)" "$(head -n 1 "$WORK/$label.txt")"
}

for how in ocaml:OCaml erlang:"Erlang (BEAM)" plain:null; do
	RUN_NAME=$how mprof_run 60 "$WORK/t-${how%%:*}" -- "$WORK/runtime_names" "${how%%:*}"
	expect_eq "${how%%:*}: exit status" 0 "$RUN_STATUS"
	expect_eq "${how%%:*}: stdout" "blocks 10" "$(cat "$RUN_OUT")"
	runtime_named "${how%%:*}" "${how#*:}" "$WORK/t-${how%%:*}"
done
report_json "$WORK/counts.json" "$WORK/t-ocaml" &&
	expect_site "$WORK/counts.json" caml_alloc_for_heap 10 10000 0 0

# the real runtimes, when installed: a native OCaml program, and erl (whose
# beam.smp trace is the run's with the most allocations)
if command -v ocamlopt >/dev/null 2>&1; then
	printf 'let () = print_endline (String.concat "," (List.init 1000 string_of_int) |> String.length |> string_of_int)\n' \
		>"$WORK/names.ml"
	if (cd "$WORK" && ocamlopt names.ml -o names_ml) >"$WORK/ocamlopt.log" 2>&1; then
		expect_as_native 60 ocaml-real 0 "$WORK/t-real-ocaml" "$WORK/names_ml"
		runtime_named ocaml-real OCaml "$WORK/t-real-ocaml"
	else
		fail_ "ocamlopt failed: $(head -n 3 "$WORK/ocamlopt.log")"
	fi
fi
if command -v erl >/dev/null 2>&1; then
	expect_as_native 120 erl 0 "$WORK/t-erl" erl -noshell -eval 'io:format("~p~n", [length(lists:seq(1, 1000))]), halt(0).'
	expect_eq "erl: stdout" 1000 "$(cat "$WORK/mprof-erl.out")"
	beam=$("$MPROF" report -n 0 --all "$WORK/t-erl" 2>/dev/null | awk '/^most allocations: / { print $3 }')
	runtime_named erl "Erlang (BEAM)" "${beam:-$WORK/t-erl}"
fi
finish
