#!/bin/bash
# real-rust.sh - a multi-threaded Rust program built with Debian's rustc
# (whose std calls pthread_getattr_np as each thread starts, which once
# deadlocked the shim): output and exit status unchanged, no hang, a whole
# trace, and the allocations of make_blocks on the 4 threads counted
# exactly.  Program and facts: tests/progs/rust_threads.rs.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
# Debian's own, explicitly: a rustup toolchain earlier on the PATH is not
# what a fresh machine has
RUSTC=/usr/bin/rustc
[ -x "$RUSTC" ] || skip "Debian's rustc is not installed ($RUSTC; apt package rustc)"
make_work
"$RUSTC" -C opt-level=1 -g -o "$WORK/rust_threads" "$PROGS_DIR/rust_threads.rs" \
	>"$WORK/build.log" 2>&1 || { cat "$WORK/build.log"; hard_error "cannot compile rust_threads.rs"; }

expect_as_native 60 threads 3 "$WORK/trace" "$WORK/rust_threads"
expect_eq "stdout" "threads 4, blocks 4000, sum 292607904000" "$(cat "$WORK/mprof-threads.out")"
expect_eq "one trace (no child process)" "$WORK/trace" "$(ls -d "$WORK/trace"*)"
report_json "$WORK/r.json" "$WORK/trace" || finish
R="$WORK/r.json"
expect_whole_trace report "$R" 3 null
#                         allocs bytes leak-blocks leak-bytes
expect_site "$R" make_blocks 4000 1536000 0 0
expect_eq "make_blocks: every block of 384 bytes" 384 "$(q "$R" sizes make_blocks)"
finish
