#!/bin/bash
# Shared case 07: vfork()+exec, posix_spawn() and system() children: the
# parent is not corrupted, its profile is exact and holds nothing of the
# children, whose traces (if any) are separate and readable.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_setup 07-vfork-posix-spawn
mkdir "$WORK/traces" "$WORK/rep"
T="$WORK/traces/trace"

mprof_run 10 "$T" -- ./prog
expect_eq "1. exit status (within 10 s)" 0 "$RUN_STATUS"
expect_eq "1. stdout" "spawned 110 children, wrong exit statuses: 0, parent blocks kept: 100" "$(cat "$RUN_OUT")"
report_json "$WORK/rep/parent.json" "$T"
P="$WORK/rep/parent.json"
expect_site "$P" between_spawns 100 12800 100 12800
glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null)
if [ "$glibc" = "glibc 2.36" ]; then
	expect_eq "3. run_posix_spawn: allocations (glibc 2.36)" 150 "$(q "$P" sum allocations run_posix_spawn)"
else
	expect_range "3. run_posix_spawn: allocations ($glibc)" 1 1000000 "$(q "$P" sum allocations run_posix_spawn)"
fi
expect_eq "3. run_posix_spawn: bytes leaked" 0 "$(q "$P" sum leaked_bytes run_posix_spawn)"
expect_no_match "4. no frame of the children's programs in the parent's profile" \
	'^(true|false|dash|bash|sh)$' "$(q "$P" modules)"
# 4. Children's traces, if written, are separate files that read cleanly.
bad=
for f in $(cd "$WORK/traces" && ls | grep -v '^trace$' | head -20); do
	timeout 60 "$MPROF" report "$WORK/traces/$f" >/dev/null 2>"$WORK/rep/$f.err" || bad="$bad $f"
done
expect_eq "4. children's traces read cleanly" "" "$bad"
finish
