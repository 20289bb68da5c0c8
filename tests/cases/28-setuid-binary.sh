#!/bin/bash
# Hard case 28: a set-user-ID (and a set-group-ID) program of root started
# by an unprivileged user runs in secure mode, so the loader ignores
# LD_PRELOAD: the program runs unchanged, mprof returns promptly and says
# that nothing is recorded and why.  Started by root itself, the same file
# gains nothing, and it is recorded as usual (the detection is not
# overbroad).
# Program and facts: tests/progs/cases/28-setuid-binary.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to make a set-user-ID program"
command -v setpriv >/dev/null 2>&1 || skip "setpriv is not installed"
case_start 28-setuid-binary

build_c "$CASE_DIR/prog" "$CASE_SRC/28-setuid-binary.c"
chmod 755 "$WORK" "$CASE_DIR"
mkdir "$WORK/priv" "$WORK/out" "$WORK/rootout"
chmod 755 "$WORK/priv"
chown 65534:65534 "$WORK/out"
for mode in 4755 2755; do
	cp "$CASE_DIR/prog" "$WORK/priv/prog-$mode"
	chown root:root "$WORK/priv/prog-$mode"
	chmod "$mode" "$WORK/priv/prog-$mode"
	[ "$(stat -c %a "$WORK/priv/prog-$mode")" = "$mode" ] ||
		skip "cannot set mode $mode here"
done
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
"${NOBODY[@]}" test -x "$MPROF" -a -x "$WORK/priv/prog-4755" -a -w "$WORK/out" ||
	skip "user 65534 cannot reach the build tree ($MPROF) or $WORK"
# On a nosuid mount the bits mean nothing: there is no hard case to test.
run_cmd "$HANG_LIMIT" plain-4755 "${NOBODY[@]}" "$WORK/priv/prog-4755"
case $(cat "$RUN_OUT") in
secure=1*) ;;
*) skip "the set-user-ID bit has no effect here (nosuid mount?): $(cat "$RUN_OUT")" ;;
esac

for mode in 4755 2755; do
	case $mode in
	4755) want="secure=1 ruid=65534 euid=0 rgid=65534 egid=65534" kind=set-user-ID ;;
	2755) want="secure=1 ruid=65534 euid=65534 rgid=65534 egid=0" kind=set-group-ID ;;
	esac
	echo "--- mode $mode ($kind), run by uid 65534"
	run_cmd "$HANG_LIMIT" "plain-$mode" "${NOBODY[@]}" "$WORK/priv/prog-$mode"
	expect_eq "1. $kind: without mprof: exit status" 6 "$RUN_STATUS"
	expect_eq "1. $kind: without mprof: stdout" "$want" "$(cat "$RUN_OUT")"

	cd "$WORK/out" || hard_error "cd"
	run_cmd "$HANG_LIMIT" "run-$mode" "${NOBODY[@]}" "$MPROF" run "$WORK/priv/prog-$mode"
	cd "$CASE_DIR" || hard_error "cd"
	cat "$RUN_ERR"
	expect_runs_or_refuses "$kind" 6 "$want"
	expect_match "3. $kind: mprof says the program is $kind" \
		"^mprof: .*prog-$mode (runs|is) $kind" "$(cat "$RUN_ERR")"
	expect_match "3. $kind: ... and that nothing is recorded" \
		'^mprof: .*(no allocations will be recorded|nothing|not recorded)' "$(cat "$RUN_ERR")"
	expect_eq "3. $kind: no empty trace left behind" "" "$(ls -A "$WORK/out")"
done

# Control: root starts the set-user-ID file: no secure mode, recorded.
echo "--- mode 4755, run by root (control)"
cd "$WORK/rootout" || hard_error "cd"
run_cmd "$HANG_LIMIT" control "$MPROF" run -o "$WORK/rootout/trace" "$WORK/priv/prog-4755"
cd "$CASE_DIR" || hard_error "cd"
cat "$RUN_ERR"
expect_eq "control: exit status" 6 "$RUN_STATUS"
expect_eq "control: stdout" "secure=0 ruid=0 euid=0 rgid=0 egid=0" "$(cat "$RUN_OUT")"
expect_no_match "control: no secure-mode warning" 'set-user-ID|secure mode' "$(cat "$RUN_ERR")"
if report_json "$WORK/control.json" "$WORK/rootout/trace"; then
	#                                FUNCS            allocs bytes leak-blocks leak-bytes
	expect_site "$WORK/control.json" privileged_hoard 5      6000  5           6000
fi
finish
