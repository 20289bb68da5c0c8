#!/bin/bash
# go-cgo.sh - a Go program built with cgo: Go frames get their own file and
# line.  In such a binary only the C units have .debug_aranges, and libdw
# 0.188 gave every Go address the unit of the nearest arange below it: each
# Go frame read "gcc_mmap.c:37" (runtime/cgo's C).  Checks the C function of
# the cgo preamble (c_make, main.go:LINE) and Go runtime frames (runtime.newm
# in proc.go, at a line that calls newm1; runtime.asmcgocall in asm_amd64.s).
# Go frames above the switch to the system stack (runtime.asmcgocall) are not
# unwound, so goMake itself is not seen.
# Program and facts: tests/progs/go_cgo/main.go.  Needs Debian's golang-go
# and a C compiler.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
[ "$(uname -m)" = x86_64 ] || skip "checks asm_amd64.s frames: x86-64 only"
make_work
SRC="$PROGS_DIR/go_cgo/main.go"
source_line "$SRC" "// site: c_make"
C_MAKE_LINE=$SOURCE_LINE

build_go "$WORK/go_cgo" "$SRC"
GOROOT_SRC="$(/usr/bin/go env GOROOT)/src"

mprof_run 60 "$WORK/trace" -- "$WORK/go_cgo"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "go cgo done 4" "$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"

expect_eq "c_make allocations" 1 "$(q "$R" sum allocations c_make)"
expect_eq "c_make bytes" 5000 "$(q "$R" sum allocated_bytes c_make)"
expect_eq "c_make file" main.go "$(q "$R" frame c_make file)"
expect_eq "c_make line" "$C_MAKE_LINE" "$(q "$R" frame c_make line)"
expect_eq "C.malloc allocations of 3000 B" 3 "$(q "$R" sum-size allocations 3000 runtime.asmcgocall)"

expect_eq "runtime.asmcgocall file" asm_amd64.s "$(q "$R" frame runtime.asmcgocall file | sort -u)"
expect_eq "runtime.newm file" proc.go "$(q "$R" frame runtime.newm file | sort -u)"
newm_lines=$(q "$R" frame runtime.newm line)
expect_match "runtime.newm has a line" '^[1-9][0-9]*$' "$newm_lines"
for l in $newm_lines; do
	expect_match "proc.go:$l calls newm1" 'newm1\(' "$(sed -n "${l}p" "$GOROOT_SRC/runtime/proc.go")"
done
expect_eq "Go frames said to be in runtime/cgo's gcc_mmap.c" "" \
	"$(q "$R" frame-re '^runtime\.' file | grep -F gcc_mmap.c)"

# The Go runtime exits by its own exit_group: no exit note, said plainly.
"$MPROF" report "$WORK/trace" > "$WORK/report.txt" 2>&1
expect_match "program line" "exited with status 0 \\(by the Go runtime's own exit system call\\)\$" \
	"$(grep '^program:' "$WORK/report.txt")"
expect_match "leaked line" '\(live at exit\)$' "$(grep '^leaked:' "$WORK/report.txt")"
finish
