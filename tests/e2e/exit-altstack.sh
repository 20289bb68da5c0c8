#!/bin/bash
# exit-altstack.sh - a signal handler on an alternate signal stack that ends
# the process (_exit, or a raw exit_group system call), as crash handlers
# do: the report says "exited with status N" as for any exit, never that
# the recorder saw no exit, and its blocks are live at exit.  On a large
# alternate stack the whole exit note is written (the name the program
# gave itself, name_how "exit"); on one too small for it (8 KiB: the note's
# names take some 6 KiB) the status and time alone, the name then the
# launcher's last look.  Each size is run only where the program runs
# without mprof.  Program and facts: tests/progs/exit_on_altstack.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/eoa" "$PROGS_DIR/exit_on_altstack.c"

checked=0
for size in 65536 8192; do
	for mode in exit raw; do
		want=6
		[ "$mode" = raw ] && want=5
		run_cmd 30 "native-$size-$mode" "$WORK/eoa" "$size" "$mode"
		if [ "$RUN_STATUS" != "$want" ]; then
			echo "# a $size-byte signal stack is too small for the program itself here ($RUN_STATUS)"
			continue
		fi
		checked=$((checked + 1))
		RUN_NAME="r-$size-$mode" mprof_run 60 "$WORK/t-$size-$mode" -- "$WORK/eoa" "$size" "$mode"
		expect_eq "$size $mode: exit status as native" "$want" "$RUN_STATUS"
		expect_eq "$size $mode: stdout" "exit_on_altstack $size $mode" "$(cat "$RUN_OUT")"
		"$MPROF" report "$WORK/t-$size-$mode" >"$WORK/t-$size-$mode.txt" 2>&1
		expect_match "$size $mode: 'exited with status $want', nothing more" \
			"^program: .*\\(pid [0-9]+\\), exited with status $want\$" \
			"$(grep '^program:' "$WORK/t-$size-$mode.txt")"
		expect_match "$size $mode: blocks live at exit" "^leaked: .*\\(live at exit\\)\$" \
			"$(grep '^leaked:' "$WORK/t-$size-$mode.txt")"
		R="$WORK/t-$size-$mode.json"
		report_json "$R" "$WORK/t-$size-$mode" || continue
		expect_eq "$size $mode: exit_unnoted" False "$(json_eval "$R" 'd["summary"]["program"]["exit_unnoted"]')"
		expect_site "$R" on_usr1 3 300 3 300
		if [ "$size" = 65536 ]; then
			expect_eq "$size $mode: the whole note: the name the program gave itself, at exit" \
				"renamed-alt exit" \
				"$(json_eval "$R" 'd["summary"]["program"]["comm"] + " " + d["summary"]["program"]["name_how"]')"
		fi
	done
done
expect_range "sizes and modes checked" 2 4 "$checked"
finish
