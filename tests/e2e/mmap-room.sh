#!/bin/bash
# mmap-room.sh - the recorder's large mappings (its 16 GiB address-space
# reservation and 3 GiB process file) lie far below the shared libraries,
# not where the kernel puts the program's own next mappings.  They lay
# right below the libraries: a program's mappings made in holes above them
# and those made below were 19 GiB apart, and Boehm's collector, with heap
# sections on both sides, grew its heap (blacklisted pages) in 1 run in 40.
# Program: tests/progs/mmap_room.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/mmap_room" "$PROGS_DIR/mmap_room.c"

run_cmd 60 native "$WORK/mmap_room"
expect_eq "native exit status" 0 "$RUN_STATUS"
expect_match "native: no large mapping below the libraries" \
	'^large mappings within 32 GiB below the libraries: 0$' "$(sed -n 1p "$WORK/native.out")"
RUN_NAME=mprof mprof_run 60 "$WORK/t" -- "$WORK/mmap_room"
expect_eq "exit status under mprof" 0 "$RUN_STATUS"
expect_match "under mprof: no large mapping within 32 GiB below the libraries" \
	'^large mappings within 32 GiB below the libraries: 0$' "$(sed -n 1p "$WORK/mprof.out")"
span=$(sed -n 's/^64 pieces of 1 MiB span \([0-9]*\) MiB$/\1/p' "$WORK/mprof.out")
expect_range "span of the program's 64 pieces under mprof, MiB" 64 1023 "${span:-0}"
finish
