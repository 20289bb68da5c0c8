#!/bin/bash
# tests/unit/tsan.sh - `make check-tsan` inside `make check`: the recorder's
# runtime control, sample set and ring handoff (tests/unit/test_control.c,
# test_sample.c) built with -fsanitize=thread in binaries of their own, apart
# from the sanitized build, and run; a data race fails the test.  Skips (77)
# when the compiler cannot build a ThreadSanitizer program.
set -u
scratch=$(mktemp -d "${TMPDIR:-/tmp}/mprof-tsan.XXXXXX") || exit 99
trap 'rm -rf "$scratch"' EXIT
printf 'int main(void) { return 0; }\n' >"$scratch/probe.c"
if ! "${CC:-cc}" -fsanitize=thread -o "$scratch/probe" "$scratch/probe.c" 2>/dev/null ||
	! "$scratch/probe"; then
	echo "SKIP: ${CC:-cc} cannot build or run a ThreadSanitizer program"
	exit 77
fi
# The outer make's jobserver descriptors are not this make's.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$abs_top_builddir" check-tsan
