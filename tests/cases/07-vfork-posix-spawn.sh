#!/bin/bash
# Hard case 07: vfork()+exec, vfork() with a failing exec, posix_spawn()
# with file actions and system() children: the parent is not corrupted, its
# profile is exact and holds nothing of the children, whose traces (if mprof
# follows them) are separate, readable and hold exactly their own work.
# Program and facts: tests/progs/cases/07-vfork-posix-spawn.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_start 07-vfork-posix-spawn

build_c "$CASE_DIR/prog" "$CASE_SRC/07-vfork-posix-spawn.c"
mkdir "$WORK/traces" "$WORK/rep"
T="$WORK/traces/trace"

run_cmd "$HANG_LIMIT" native "$CASE_DIR/prog"
expect_eq "1. native stdout" "spawned 85 + 10 by system(), wrong exit statuses: 0, blocks kept: 85" "$(cat "$RUN_OUT")"
mprof_run "$HANG_LIMIT" "$T" -- "$CASE_DIR/prog"
expect_eq "1. exit status (no hang; in $RUN_MS ms)" 0 "$RUN_STATUS"
expect_eq "1. stdout" "spawned 85 + 10 by system(), wrong exit statuses: 0, blocks kept: 85" "$(cat "$RUN_OUT")"
expect_eq "1. program stderr" "" "$(program_stderr "$RUN_ERR")"
report_json "$WORK/rep/parent.json" "$T" || finish
P="$WORK/rep/parent.json"

expect_eq "2. note_spawn: allocations" 85 "$(q "$P" sum allocations note_spawn)"
expect_eq "2. note_spawn: allocated bytes" 8160 "$(q "$P" sum allocated_bytes note_spawn)"
expect_eq "2. note_spawn: blocks live at exit" 85 "$(q "$P" sum leaked_blocks note_spawn)"
expect_eq "2. note_spawn: bytes live at exit" 8160 "$(q "$P" sum leaked_bytes note_spawn)"

# 3. glibc's file-action bookkeeping: its count per spawn is glibc's
# business (2 with glibc 2.36), but it is the same for each of the 40.
actions=$(q "$P" sum allocations spawn_with_actions)
glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null)
if [ "$glibc" = "glibc 2.36" ]; then
	expect_eq "3. spawn_with_actions: allocations (glibc 2.36)" 80 "$actions"
else
	expect_range "3. spawn_with_actions: allocations ($glibc)" 40 4000 "$actions"
	expect_eq "3. spawn_with_actions: allocations are a multiple of 40" 0 "$((${actions:-1} % 40))"
fi
expect_eq "3. spawn_with_actions: blocks live at exit" 0 "$(q "$P" sum leaked_blocks spawn_with_actions)"
expect_eq "3. spawn_with_actions: bytes live at exit" 0 "$(q "$P" sum leaked_bytes spawn_with_actions)"
expect_eq "3. parent: no unmatched free" 0 "$(q "$P" summary unmatched_frees)"
expect_eq "3. parent: trace complete" true "$(q "$P" summary quality.complete)"

expect_eq "4. parent: no site of child_role" 0 "$(q "$P" sites child_role)"
expect_no_match "4. parent: no frame of the shell run by system()" \
	'^(dash|bash|sh|busybox)$' "$(q "$P" modules)"

# 4. Children's traces: each its own file FILE.PID; the copies of this
# program hold exactly child_role's work, the shells nothing of ours.
copies=0 shells=0 bad= summary=
for f in $(cd "$WORK/traces" && ls | grep -v '^trace$'); do
	C="$WORK/rep/$f.json"
	if ! timeout 60 "$MPROF" report --format json "$WORK/traces/$f" >"$C" 2>"$C.err"; then
		bad="$bad $f"
		continue
	fi
	case $(q "$C" summary program.cmdline) in
	"$CASE_DIR/prog child "*)
		copies=$((copies + 1))
		summary="$summary$(q "$C" sum allocations child_role)/$(q "$C" sum allocated_bytes child_role)/$(q "$C" sum leaked_blocks child_role)/$(q "$C" sum leaked_bytes child_role)/$(q "$C" sites note_spawn)/$(q "$C" sites spawn_with_actions)
" ;;
	*)
		shells=$((shells + 1))
		summary="$summary$(q "$C" summary program.cmdline): $(q "$C" sites-re 'child_role|note_spawn|spawn_with_actions|spawn_by_vfork') sites of ours
" ;;
	esac
done
expect_eq "4. children's traces are named FILE.PID" "" \
	"$(cd "$WORK/traces" && ls | grep -Ev '^trace(\.[0-9]+)?$')"
expect_eq "4. children's traces read cleanly" "" "$bad"
# All exec'd copies of this program are followed, or none.
expect_match "4. traced copies of the program: 0 or 80" '^(0|80)$' "$copies"
expect_match "4. traced shells of system(): 0 or 10" '^(0|10)$' "$shells"
expected_summary=
[ "$copies" -gt 0 ] && expected_summary="$copies 3/963/1/321/0/0"
[ "$shells" -gt 0 ] && expected_summary="$expected_summary${expected_summary:+
}$shells sh -c 'exit 6': 0 sites of ours"
expect_eq "4. each traced copy: child_role 3 / 963, leak 1 / 321, no parent site; shells: none of ours" \
	"$expected_summary" "$(printf '%s' "$summary" | sort | uniq -c | sed 's/^ *//')"
finish
