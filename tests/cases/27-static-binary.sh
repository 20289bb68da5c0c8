#!/bin/bash
# Hard case 27: a statically linked program (-static, and -static-pie where
# the toolchain has it) cannot be profiled through LD_PRELOAD: it still runs
# unchanged (or mprof refuses before running it), mprof returns promptly and
# says that it is static and nothing can be recorded.  The same source
# linked dynamically is recorded as usual (the detection is not overbroad).
# Program and facts: tests/progs/cases/27-static-binary.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_start 27-static-binary

SRC="$CASE_SRC/27-static-binary.c"
$CC -O1 -g -static -o "$CASE_DIR/static" "$SRC" >"$WORK/build-static.log" 2>&1 ||
	{ cat "$WORK/build-static.log"; skip "cannot link -static (no static libc?)"; }
variants=static
if $CC -O1 -g -static-pie -o "$CASE_DIR/static-pie" "$SRC" >"$WORK/build-spie.log" 2>&1; then
	variants="static static-pie"
else
	echo "note: $CC cannot link -static-pie here; that variant is not run"
fi
build_c "$CASE_DIR/dynamic" "$SRC"

for v in $variants; do
	echo "--- $v"
	run_cmd "$HANG_LIMIT" "plain-$v" "$CASE_DIR/$v"
	expect_eq "1. $v: without mprof: exit status" 4 "$RUN_STATUS"
	expect_eq "1. $v: without mprof: stdout" "interpreter: none; kept 4 blocks" "$(cat "$RUN_OUT")"
	RUN_NAME="run-$v" mprof_run "$HANG_LIMIT" "$WORK/trace-$v" -- "$CASE_DIR/$v"
	expect_runs_or_refuses "$v" 4 "interpreter: none; kept 4 blocks"
	expect_match "3. $v: mprof says the program is statically linked" \
		"^mprof: .*$v is statically linked" "$(cat "$RUN_ERR")"
	expect_match "3. $v: ... and that nothing can be recorded" \
		'^mprof: .*(no allocations will be recorded|nothing|cannot be recorded)' "$(cat "$RUN_ERR")"
	expect_eq "3. $v: no empty trace left behind" no \
		"$([ -e "$WORK/trace-$v" ] && echo yes || echo no)"
done

# Control: dynamically linked, the same program is recorded.
echo "--- dynamic (control)"
RUN_NAME=run-dynamic mprof_run "$HANG_LIMIT" "$WORK/trace-dynamic" -- "$CASE_DIR/dynamic"
expect_eq "control: exit status" 4 "$RUN_STATUS"
expect_eq "control: stdout" "interpreter: loaded; kept 4 blocks" "$(cat "$RUN_OUT")"
expect_no_match "control: no static warning" 'statically linked' "$(cat "$RUN_ERR")"
if report_json "$WORK/dynamic.json" "$WORK/trace-dynamic"; then
	#                           FUNCS       allocs bytes leak-blocks leak-bytes
	expect_site "$WORK/dynamic.json" keep_blocks 4      10000 4           10000
fi
finish
