#!/bin/bash
# start-mappings.sh - the mmap calls a recorded process makes for the
# recorder's own memory at its start.  The recorder hands out pieces of one
# reserved range; each piece was an mmap of its own (13 for /bin/echo, at
# 5-10 us each on the VMs measured, bench/HISTORY.md session 54).  The
# range's head (256 KiB) is now made writable with the reservation, so the
# start's pieces need no call of their own: one call in all for echo, an
# mprotect since pieces are made accessible so (preload/mem.c; an mmap
# before it) (a
# program that allocates more also maps its first thread's 545 KiB of site
# tables apart, larger than the head).  Pieces of at most 3 pages get
# their pages in the same step (MADV_POPULATE_WRITE in the head): counted
# here as the calls that name the head.  Counted with strace.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
command -v strace >/dev/null 2>&1 || skip "strace is not installed"
make_work

# LeakSanitizer cannot work under ptrace (a sanitizer build's mprof would
# exit 1)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	run_cmd 120 echo strace -ff -qq -e trace=execve,mmap,mprotect,madvise \
	-o "$WORK/calls" "$MPROF" run -q -o "$WORK/trace" -- /bin/echo mapped
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" mapped "$(cat "$RUN_OUT")"

strace_calls_of "$WORK/calls" /bin/echo "$WORK/prog-calls"
# the reservation: mmap(HINT or NULL, 16 GiB, PROT_NONE, ...) = base
base=$(sed -n 's/.*mmap([^,]*, 17179869184, PROT_NONE,.*= \(0x[0-9a-f]*\)$/\1/p' \
	"$WORK/prog-calls" | head -n 1)
expect_eq "the recorder reserved its range" yes "$([ -n "$base" ] && echo yes || echo no)"
# in_range CALL: the calls CALL(ADDR, ...) with ADDR inside the reservation
# (but the reservation's own mmap, whose address is a hint: preload/mem.c)
in_range() {
	local addr n=0
	for addr in $(grep -v ', 17179869184, PROT_NONE,' "$WORK/prog-calls" |
		sed -n "s/^$1(\(0x[0-9a-f]*\),.*/\1/p"); do
		if ((addr >= base && addr - base < (16 << 30))); then
			n=$((n + 1))
		fi
	done
	echo "$n"
}
expect_eq "mmap and mprotect calls in the reservation: the head alone" 1 \
	"$(($(in_range mmap) + $(in_range mprotect)))"
expect_eq "small pieces of the head get their pages in one call each" yes \
	"$(n=$(in_range madvise); [ "$n" -ge 5 ] && echo yes || echo "no ($n)")"
finish
