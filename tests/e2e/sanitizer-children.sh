#!/bin/bash
# sanitizer-children.sh - a program GCC built with a sanitizer that serves
# malloc (its runtime a DT_NEEDED library: libasan, libtsan, liblsan),
# started by a recorded program rather than by mprof, runs as without
# mprof, and mprof says which program ran unrecorded and why.  Before, the
# recorder's exec and posix_spawn wrappers looked at an ELF file's class,
# not its needed libraries, so the child kept the recorder in LD_PRELOAD:
# AddressSanitizer's ended with "ASan runtime does not come first in
# initial library list" (status 1), ThreadSanitizer's took a SIGSEGV, and
# LeakSanitizer's leak report showed the recorder's malloc where main was.
#  1. posix_spawn, fork + execv, vfork + execv, system, popen, an execv of
#     the parent itself, a shell script, make: the exit status, stdout and
#     stderr as without mprof, one warning naming the child and why, and
#     the parent recorded (its one block of 64 bytes in main).
#     The same by posix_spawn for clang's shared AddressSanitizer runtime
#     (-shared-libsan: libclang_rt.asan-x86_64.so), where clang is here.
#  2. LeakSanitizer's leak report in a spawned child names main, as
#     without mprof.
# Each sanitizer is skipped where the compiler cannot build or the host
# cannot run it.  Programs: tests/progs/foreign_child.c (the parent),
# tests/progs/sanitized_leak.c (the child, exit status 5).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work

build_c "$WORK/fc" "$PROGS_DIR/foreign_child.c"
sh_exe=$(readlink -f /bin/sh)
printf '#!/bin/sh\n"$1"\necho "script: child status $?"\n' >"$WORK/script.sh"
chmod +x "$WORK/script.sh"
make_exe=$(command -v make || true)
# make ignores the child's status 5 (with a line on stderr); not the
# jobserver of the make running this test
[ -z "$make_exe" ] || printf 'all:\n\t-@$(CHILD)\n\t@echo "make: done"\n' >"$WORK/Makefile"
unset MAKEFLAGS MFLAGS MAKELEVEL

# expect_one_warning HOW EXE CHILD NAME SONAME: mprof's only warning names
# CHILD, started by a process running EXE, as built with sanitizer NAME
# (runtime SONAME, an extended regular expression); pids are written as N.
expect_one_warning() {
	local how=$1 exe=$2 child=$3 name=$4 lib=$5 err="$WORK/mprof-$1.err" why
	why="it is built with $name \\(it loads $lib\\), whose runtime serves malloc itself and must come first, so it ran without mprof's recorder"

	expect_eq "$how: one warning" 1 "$(grep -c '^mprof: warning' "$err")"
	expect_eq "$how: it names the child and why" 1 "$(sed -E 's/process [0-9]+ /process N /' \
		"$err" | grep -cxE -e "mprof: warning: 1 program started by process N \\($exe\\) is not recorded: $child; $why" \
		-e "mprof: warning: process N \\($exe\\) executed $child, which is not recorded: $why")"
}

# expect_parent_recorded HOW TRACE: the parent's trace holds main's one
# block of 64 bytes.
expect_parent_recorded() {
	report_json "$WORK/$1.json" "$2" || return
	expect_eq "$1: the parent's main recorded: allocations, bytes" "1 64" \
		"$(json_eval "$WORK/$1.json" "'%d %d' % tuple(sum(s[k] for s in site('main'))
		for k in ('allocations', 'allocated_bytes'))")"
}

tried=0
for kind in address:AddressSanitizer:libasan thread:ThreadSanitizer:libtsan \
	leak:LeakSanitizer:liblsan; do
	flag=${kind%%:*}
	rest=${kind#*:}
	name=${rest%%:*}
	lib=${rest#*:}
	child="$WORK/c_$flag"
	build_sanitized "$flag" "$child" "native-alone-$flag" || continue
	tried=$((tried + 1))

	# 1. each way of starting it
	for how in spawn fork vfork system popen; do
		expect_as_native 60 "$how-$flag" 0 "$WORK/t-$how-$flag" "$WORK/fc" "$how" "$child"
		case $how in
		system | popen) exe=$sh_exe ;;
		*) exe=$WORK/fc ;;
		esac
		expect_one_warning "$how-$flag" "$exe" "$child" "$name" "$lib\\.so\\.[0-9]+"
		expect_parent_recorded "$how-$flag" "$WORK/t-$how-$flag"
	done
	expect_as_native 60 "exec-$flag" 5 "$WORK/t-exec-$flag" "$WORK/fc" exec "$child"
	expect_one_warning "exec-$flag" "$WORK/fc" "$child" "$name" "$lib\\.so\\.[0-9]+"
	expect_parent_recorded "exec-$flag" "$WORK/t-exec-$flag"
	expect_as_native 60 "script-$flag" 0 "$WORK/t-script-$flag" "$WORK/script.sh" "$child"
	expect_one_warning "script-$flag" "$sh_exe" "$child" "$name" "$lib\\.so\\.[0-9]+"
	if [ -n "$make_exe" ]; then
		expect_as_native 60 "make-$flag" 0 "$WORK/t-make-$flag" "$make_exe" -s \
			-C "$WORK" CHILD="$child"
		expect_one_warning "make-$flag" "$(readlink -f "$make_exe")" "$child" "$name" "$lib\\.so\\.[0-9]+"
	fi
done
[ "$tried" -gt 0 ] || skip "no sanitizer program can be built and run here"

# clang's shared AddressSanitizer runtime (-shared-libsan), when clang is here
clang_exe=$(command -v clang || true)
rt_dir=$([ -z "$clang_exe" ] || "$clang_exe" -print-runtime-dir 2>/dev/null)
if [ -n "$clang_exe" ] && "$clang_exe" -O1 -fsanitize=address -shared-libsan \
	-Wl,-rpath,"$rt_dir" -o "$WORK/c_clang" "$PROGS_DIR/sanitized_leak.c" \
	>"$WORK/build-clang.log" 2>&1 && "$WORK/c_clang" >/dev/null 2>&1; [ $? = 5 ]; then
	expect_as_native 60 spawn-clang 0 "$WORK/t-spawn-clang" "$WORK/fc" spawn "$WORK/c_clang"
	expect_one_warning spawn-clang "$WORK/fc" "$WORK/c_clang" AddressSanitizer \
		'libclang_rt\.asan[-a-z0-9_]*\.so'
	expect_parent_recorded spawn-clang "$WORK/t-spawn-clang"
else
	echo "# clang -fsanitize=address -shared-libsan cannot be built or run here: skipped"
fi

# 2. LeakSanitizer's report of a leak in a spawned child (its pid and
# addresses, which differ from run to run, written as N and 0xA)
unvary() {
	sed -E 's/==[0-9]+==/==N==/; s/0x[0-9a-f]+/0xA/g' "$1"
}
if [ -x "$WORK/c_leak" ] && [ -s "$WORK/mprof-spawn-leak.out" ]; then
	export SANITIZED_LEAK_KEEP=1
	run_cmd 60 native-leaks "$WORK/fc" spawn "$WORK/c_leak"
	RUN_NAME=mprof-leaks mprof_run 60 "$WORK/t-leaks" -- "$WORK/fc" spawn "$WORK/c_leak"
	unset SANITIZED_LEAK_KEEP
	expect_eq "leaks: the child's status (LeakSanitizer's 23)" \
		"foreign_child: spawn: status 23" "$(cat "$WORK/mprof-leaks.out")"
	program_stderr "$WORK/mprof-leaks.err" >"$WORK/mprof-leaks.progerr"
	expect_eq "leaks: the report as native, but for pids and addresses" \
		"$(unvary "$WORK/native-leaks.err")" "$(unvary "$WORK/mprof-leaks.progerr")"
	expect_eq "leaks: the report's first frame below malloc is main" 1 \
		"$(grep -cE '^ +#1 0x[0-9a-f]+ in main ' "$WORK/mprof-leaks.progerr")"
fi
finish
