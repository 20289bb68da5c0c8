#!/bin/bash
# real-go.sh - a Go program with cgo and goroutines, built with Debian's Go
# (dynamically linked because of cgo; the Go runtime starts its threads with
# pthread_create): output and exit status unchanged, no hang, a whole
# trace, and the mallocs that the C part makes on 4 goroutines counted
# exactly; Go frames with their own files, and Go named as a runtime with a
# heap of its own.  Program and facts: tests/progs/go_cgo.go.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_go "$WORK/go_cgo" "$PROGS_DIR/go_cgo.go"

expect_as_native 60 goroutines 5 "$WORK/trace" "$WORK/go_cgo"
expect_eq "stdout" "goroutines 4, blocks 2000, kept 12, checksum 502000" \
	"$(cat "$WORK/mprof-goroutines.out")"
expect_eq "one trace (no child process)" "$WORK/trace" "$(ls -d "$WORK/trace"*)"
report_json "$WORK/r.json" "$WORK/trace" || finish
R="$WORK/r.json"
expect_whole_trace report "$R" 5 Go
#                             allocs bytes  leak-blocks leak-bytes
expect_site "$R" cgo_make_blocks 2000 400000 12 2400
expect_eq "cgo_make_blocks: every block of 200 bytes" 200 "$(q "$R" sizes cgo_make_blocks)"
# Go frames name their own source files, as addr2line does (before the
# analyzer checked that libdw's unit holds the address, every runtime.*
# frame read runtime/cgo/gcc_mmap.c:37 and Go went unnamed as a runtime)
expect_eq "cgo_make_blocks: file (the cgo preamble's)" go_cgo.go \
	"$(q "$R" frame cgo_make_blocks file)"
expect_eq "runtime.asmcgocall (its caller): file" asm_amd64.s \
	"$(q "$R" frame-re '^runtime\.asmcgocall' file)"
expect_eq "files of runtime.* frames that are not Go or assembly source" "" \
	"$(q "$R" frame-re '^runtime\.' file | grep -Ev '\.(go|s)$')"
finish
