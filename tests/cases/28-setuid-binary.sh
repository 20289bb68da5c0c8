#!/bin/bash
# Shared case 28: a set-user-ID program started by an unprivileged user runs
# in secure mode, so the loader ignores LD_PRELOAD: the program runs
# unchanged and mprof says that nothing was recorded and why.
. "$abs_top_srcdir/tests/e2e/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to make a set-user-ID program"
command -v setpriv >/dev/null 2>&1 || skip "setpriv is not installed"
case_setup 28-setuid-binary
chmod 755 "$WORK" "$CASE_DIR"
mkdir "$WORK/suid" "$WORK/out"
cp ./prog "$WORK/suid/prog"
chown root:root "$WORK/suid/prog"
chmod 4755 "$WORK/suid/prog"
chmod 755 "$WORK/suid"
chown 65534:65534 "$WORK/out"
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
"${NOBODY[@]}" test -x "$MPROF" -a -x "$WORK/suid/prog" -a -w "$WORK/out" ||
	skip "user 65534 cannot reach the build tree ($MPROF) or $WORK"
[ "$(stat -c %a "$WORK/suid/prog")" = 4755 ] || skip "cannot set the set-user-ID bit here"

cd "$WORK/out" || hard_error "cd"
run_cmd 10 run "${NOBODY[@]}" "$MPROF" run "$WORK/suid/prog"
cd "$CASE_DIR" || hard_error "cd"
if [ "$RUN_STATUS" -eq 6 ]; then
	expect_eq "1. stdout" "secure mode: yes, uid differs from euid: yes" "$(cat "$RUN_OUT")"
else
	expect_range "1. refused: non-zero status (and no timeout)" 1 123 "$RUN_STATUS"
	expect_eq "1. refused before running: no output" "" "$(cat "$RUN_OUT")"
fi
expect_ne "2. no hang (10 s)" 124 "$RUN_STATUS"
expect_match "3. mprof says the program is set-user-ID / runs in secure mode" \
	'^mprof: .*([Ss]et-?[ug]id|set-user-ID|set-group-ID|[Ss]ecure|AT_SECURE)' "$(cat "$RUN_ERR")"
expect_match "3. ... and that nothing was recorded" \
	'^mprof: .*(nothing|no allocation|cannot|can not|not recorded|ignored|ignores|unable)' "$(cat "$RUN_ERR")"
finish
