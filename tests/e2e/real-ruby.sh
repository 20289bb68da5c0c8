#!/bin/bash
# real-ruby.sh - Debian's Ruby (which once hung under mprof as a script's
# first thread started) running a script with 4 threads: output and exit
# status unchanged, no hang, a whole trace, and the blocks the threads take
# with Fiddle.malloc counted exactly (by their size: libruby is stripped,
# its inner functions have no name).  Program and facts:
# tests/progs/ruby_threads.rb.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
# Debian's own, explicitly (apt package ruby)
RUBY=/usr/bin/ruby
[ -x "$RUBY" ] || skip "ruby is not installed ($RUBY; apt package ruby)"
make_work

expect_as_native 60 threads 6 "$WORK/trace" "$RUBY" "$PROGS_DIR/ruby_threads.rb"
for t in 0 1 2 3; do
	echo "thread $t: 20000 words, 3000 distinct, length 619999, native 100"
done >"$WORK/expected.out"
echo "threads 4 done" >>"$WORK/expected.out"
expect_file_eq "stdout" "$WORK/expected.out" "$WORK/mprof-threads.out"
expect_eq "one trace (no child process)" "$WORK/trace" "$(ls -d "$WORK/trace"*)"
report_json "$WORK/r.json" "$WORK/trace" || finish
R="$WORK/r.json"
expect_whole_trace report "$R" 6 Ruby
expect_range "allocations" 10000 1000000000 "$(q "$R" summary allocations)"
expect_range "sites with a frame named rb_* (from .dynsym)" 1 10000000 "$(q "$R" sites-re '^rb_')"
expect_eq "blocks of 3333 bytes: allocations" 400 "$(q "$R" sum-size-all allocations 3333)"
expect_eq "blocks of 3333 bytes: live at exit" 4 "$(q "$R" sum-size-all leaked_blocks 3333)"
finish
