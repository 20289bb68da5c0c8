#!/bin/bash
# missing-interpreter.sh - a program that exists but whose interpreter does
# not (a script's "#!" line names a missing file, or an ELF program's
# dynamic loader is absent: a musl- or 32-bit-built binary on a glibc host)
# gets the exit status a shell gives it, 127, and a message that names the
# missing interpreter.  The exec's ENOENT was read as a missing program:
# "mprof: ./p: command not found" about a file that is there.  A missing
# program still reads "command not found".  No trace is left behind.
# Program: tests/progs/small_leak.c (its copy with a loader that is not there).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/small_leak" "$PROGS_DIR/small_leak.c"

# an ELF program whose PT_INTERP names a file that does not exist (same
# length, so the headers stay as they were)
loader=$("$PYTHON" - "$WORK/small_leak" "$WORK/bin/lost_loader" <<'PY'
import os, struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
assert data[:4] == b"\x7fELF" and data[4] == 2, "a 64-bit ELF program is wanted"
phoff, = struct.unpack_from("<Q", data, 32)
phentsize, phnum = struct.unpack_from("<HH", data, 54)
for i in range(phnum):
    ptype, = struct.unpack_from("<I", data, phoff + i * phentsize)
    if ptype == 3:  # PT_INTERP
        off, = struct.unpack_from("<Q", data, phoff + i * phentsize + 8)
        size, = struct.unpack_from("<Q", data, phoff + i * phentsize + 32)
        name = b"/no-such-dir/" + b"l" * (size - 14)
        data[off:off + size] = name + b"\0"
        os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
        open(sys.argv[2], "wb").write(data)
        os.chmod(sys.argv[2], 0o755)
        print(name.decode())
        sys.exit(0)
sys.exit("no PT_INTERP")
PY
) || hard_error "cannot make lost_loader"
printf '#!/no-such-dir/interp -x\necho never\n' >"$WORK/bin/lost_interp.sh"
printf '#!%s\necho never\n' "$WORK/bin/lost_interp.sh" >"$WORK/bin/lost_chain.sh"
chmod +x "$WORK/bin/lost_interp.sh" "$WORK/bin/lost_chain.sh"

# expect_refused NAME STATUS MESSAGE -- PROGRAM: mprof run's status, its one
# line, nothing on stdout and no trace
expect_refused() {
	local name=$1 status=$2 message=$3
	shift 4
	RUN_NAME=$name mprof_run 30 "$WORK/t-$name" -- "$@"
	expect_eq "$name: exit status" "$status" "$RUN_STATUS"
	expect_eq "$name: the message" "$message" "$(cat "$RUN_ERR")"
	expect_eq "$name: stdout empty" "" "$(cat "$RUN_OUT")"
	expect_eq "$name: no trace left behind" no "$([ -e "$WORK/t-$name" ] && echo yes || echo no)"
}

expect_refused script 127 \
	"mprof: $WORK/bin/lost_interp.sh: cannot execute: its interpreter /no-such-dir/interp is missing" \
	-- "$WORK/bin/lost_interp.sh"
expect_refused loader 127 \
	"mprof: $WORK/bin/lost_loader: cannot execute: its interpreter $loader is missing" \
	-- "$WORK/bin/lost_loader"
# found through PATH
PATH="$WORK/bin:$PATH" expect_refused path 127 \
	"mprof: lost_interp.sh: cannot execute: its interpreter /no-such-dir/interp is missing" \
	-- lost_interp.sh
# the interpreter is there but cannot start itself: the kernel does not say
# which file was missing
expect_refused chain 127 \
	"mprof: $WORK/bin/lost_chain.sh: cannot execute: No such file or directory (the file exists: a file it needs to start is missing)" \
	-- "$WORK/bin/lost_chain.sh"
expect_refused missing 127 "mprof: $WORK/bin/no-such-program: command not found" \
	-- "$WORK/bin/no-such-program"
finish
