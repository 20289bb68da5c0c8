#!/bin/bash
# go-frames.sh - the frames of a Go program (cgo, Debian's Go) name their
# Go source files, as addr2line does, so the report names Go as a runtime
# with a heap of its own.  (Before the analyzer checked that libdw's unit
# holds the address, every runtime.* frame read runtime/cgo/gcc_mmap.c:37.)
# Program: tests/progs/go_cgo.go (real-go.sh checks its counts).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
GO=/usr/bin/go
[ -x "$GO" ] || skip "Debian's Go is not installed ($GO; apt package golang-go)"
make_work
mkdir -p "$WORK/go" && cp "$PROGS_DIR/go_cgo.go" "$WORK/go/" || hard_error "cannot copy go_cgo.go"
(cd "$WORK/go" && env GOENV=off GOCACHE="$WORK/go/cache" GOPATH="$WORK/go/path" \
	GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=1 CC="$CC" \
	"$GO" build -o "$WORK/go_cgo" go_cgo.go) >"$WORK/build.log" 2>&1 ||
	{ cat "$WORK/build.log"; hard_error "cannot build go_cgo.go"; }

mprof_run 60 "$WORK/trace" -- "$WORK/go_cgo"
expect_eq "exit status" 5 "$RUN_STATUS"
report_json "$WORK/r.json" "$WORK/trace" || finish
R="$WORK/r.json"
expect_eq "cgo_make_blocks: file (the cgo preamble's)" go_cgo.go \
	"$(q "$R" frame cgo_make_blocks file)"
expect_eq "runtime.asmcgocall (its caller): file" asm_amd64.s \
	"$(q "$R" frame-re '^runtime\.asmcgocall' file)"
expect_eq "files of runtime.* frames that are not Go or assembly source" "" \
	"$(q "$R" frame-re '^runtime\.' file | grep -Ev '\.(go|s)$')"
expect_eq "runtime with a heap of its own" Go "$(q "$R" summary own_heap_runtime)"
finish
