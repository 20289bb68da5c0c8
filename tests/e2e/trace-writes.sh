#!/bin/bash
# trace-writes.sh - the launcher writes each chunk of a trace, its 24-byte
# header and its payload, with one system call: a run of many short
# processes writes some five chunks a trace, and each call is a few
# microseconds of the launcher's fixed cost a process.  Counted with strace:
# the calls that write to each trace against the trace's chunks (its file
# header is one more call, and the analyzer's symbols another).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
command -v strace >/dev/null 2>&1 || skip "strace is not installed"
make_work

# LeakSanitizer cannot work under ptrace (a sanitizer build's mprof would
# exit 1)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	run_cmd 120 writes strace -f -qq -e trace=openat,write,writev,pwrite64,pwritev,close \
	-o "$WORK/writes.calls" "$MPROF" run -q -o "$WORK/t" -- /bin/sh -c '/bin/true; /bin/true; exit 0'
expect_eq "mprof run under strace exits 0" 0 "$RUN_STATUS"
expect_eq "three traces: sh and two of /bin/true" 3 "$(ls "$WORK"/t* | wc -l)"

# calls_and_chunks: one line a trace, "CALLS CHUNKS", the system calls that
# wrote to it and the chunks it holds: the launcher's collector writes the
# chunks, the analyzer appends symbols (descriptors taken per process: each
# has its own of the same numbers)
calls_and_chunks() {
	"$PYTHON" - "$WORK/writes.calls" "$WORK" <<'PYEOF'
import os, re, struct, sys
calls, work = sys.argv[1], sys.argv[2]
open_fds, count = {}, {}
# strace splits a call that another process's call interrupts into
# "PID call(args <unfinished ...>" and "PID <... call resumed>rest": joined
# here (strace pads short lines before " = "), or the open of a child's
# trace would go unseen
lines, pending = [], {}
for line in open(calls):
    line = line.rstrip("\n")
    m = re.match(r'(\d+) +(.*) <unfinished \.\.\.>$', line)
    if m:
        pending[m.group(1)] = m.group(2)
        continue
    m = re.match(r'(\d+) +<\.\.\. \w+ resumed>(.*)$', line)
    if m and m.group(1) in pending:
        line = m.group(1) + " " + pending.pop(m.group(1)) + m.group(2)
    lines.append(line)
for line in lines:
    m = re.match(r'(\d+) +openat\(AT_FDCWD, "([^"]*)", O_(WRONLY|RDWR)[^)]*\) += (\d+)', line)
    if m and os.path.dirname(m.group(2)) == work:
        open_fds[m.group(1), m.group(4)] = m.group(2)
        count.setdefault(m.group(2), 0)
        continue
    m = re.match(r'(\d+) +(write|writev|pwrite64|pwritev)\((\d+),', line)
    if m and (m.group(1), m.group(3)) in open_fds:
        count[open_fds[m.group(1), m.group(3)]] += 1
        continue
    m = re.match(r'(\d+) +close\((\d+)\)', line)
    if m:
        open_fds.pop((m.group(1), m.group(2)), None)
for path in sorted(count):
    data = open(path, "rb").read()
    off, chunks = 64, 0
    while off + 24 <= len(data):
        chunks += 1
        off += 24 + struct.unpack_from("<I", data, off + 8)[0]
    print(count[path], chunks)
PYEOF
}
calls_and_chunks >"$WORK/counts"
expect_eq "the writes of three traces were counted" 3 "$(wc -l <"$WORK/counts")"
n=0
while read -r calls chunks; do
	n=$((n + 1))
	expect_range "trace $n holds chunks" 3 100 "$chunks"
	expect_eq "trace $n: one write call for its header and one a chunk" \
		"$((chunks + 1))" "$calls"
done <"$WORK/counts"
finish
