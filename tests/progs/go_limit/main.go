// tests/progs/go_limit/main.go - a Go program built with cgo that lowers its
// own RLIMIT_AS to 2 GiB (syscall.Setrlimit: a system call instruction of
// Go's runtime, no C library call), then grows its Go heap and allocates
// through C (tests/e2e/unseen-limit.sh).
//
// Facts (stdout, the same under mprof as without it; exit status 0):
//
//	set: <nil>
//	go blocks: 100
//	c blocks: 100
//
// Allocations recorded after the lowering: 100 x 1048576 B in c_blocks
// (freed).  The Go heap is mapped by the runtime (through the C library's
// mmap in a cgo program), not allocated with malloc.
package main

/*
#include <stdlib.h>
#include <string.h>

static __attribute__((noinline)) int c_blocks(int n)
{
	void *blocks[128];
	int made = 0;

	for (int i = 0; i < n && i < 128; i++) {
		blocks[i] = malloc(1 << 20);
		if (blocks[i]) {
			memset(blocks[i], 1, 1 << 20);
			made++;
		}
	}
	for (int i = 0; i < n && i < 128; i++)
		free(blocks[i]);
	return made;
}
*/
import "C"

import (
	"fmt"
	"syscall"
)

var keep [][]byte

func main() {
	var lim syscall.Rlimit

	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &lim); err != nil {
		panic(err)
	}
	lim.Cur = 2 << 30
	fmt.Println("set:", syscall.Setrlimit(syscall.RLIMIT_AS, &lim))
	for i := 0; i < 100; i++ {
		b := make([]byte, 1<<20)
		b[len(b)-1] = 1
		keep = append(keep, b)
	}
	fmt.Println("go blocks:", len(keep))
	fmt.Println("c blocks:", C.c_blocks(100))
}
