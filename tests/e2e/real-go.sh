#!/bin/bash
# real-go.sh - a Go program with cgo and goroutines, built with Debian's Go
# (dynamically linked because of cgo; the Go runtime starts its threads with
# pthread_create): output and exit status unchanged, no hang, a whole
# trace, and the mallocs that the C part makes on 4 goroutines counted
# exactly.  Program and facts: tests/progs/go_cgo.go.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
# Debian's own, explicitly (apt package golang-go)
GO=/usr/bin/go
[ -x "$GO" ] || skip "Debian's Go is not installed ($GO; apt package golang-go)"
make_work
mkdir -p "$WORK/go" && cp "$PROGS_DIR/go_cgo.go" "$WORK/go/" || hard_error "cannot copy go_cgo.go"
# offline, with the build cache and GOPATH in the scratch directory, and no
# go env file of the user's
(cd "$WORK/go" && env GOENV=off GOCACHE="$WORK/go/cache" GOPATH="$WORK/go/path" \
	GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=1 CC="$CC" \
	"$GO" build -o "$WORK/go_cgo" go_cgo.go) >"$WORK/build.log" 2>&1 ||
	{ cat "$WORK/build.log"; hard_error "cannot build go_cgo.go"; }

expect_as_native 60 goroutines 5 "$WORK/trace" "$WORK/go_cgo"
expect_eq "stdout" "goroutines 4, blocks 2000, kept 12, checksum 502000" \
	"$(cat "$WORK/mprof-goroutines.out")"
expect_eq "one trace (no child process)" "$WORK/trace" "$(ls -d "$WORK/trace"*)"
report_json "$WORK/r.json" "$WORK/trace" || finish
R="$WORK/r.json"
# the runtime ("Go") is checked by go-frames.sh, a known failure
expect_whole_trace report "$R" 5 -
#                             allocs bytes  leak-blocks leak-bytes
expect_site "$R" cgo_make_blocks 2000 400000 12 2400
expect_eq "cgo_make_blocks: every block of 200 bytes" 200 "$(q "$R" sizes cgo_make_blocks)"
finish
