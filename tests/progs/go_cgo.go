// go_cgo.go - a Go program with cgo and goroutines: 4 goroutines each call
// into C (on threads of the Go runtime's own, made with pthread_create by
// runtime/cgo), where cgo_make_blocks mallocs BLOCKS blocks of 200 bytes,
// frees all but KEEP of them and returns a checksum.  The Go heap itself is
// the runtime's (mmap), so the only malloc calls are cgo's, the runtime's
// thread starts and ours.
//
// Expected facts (tests/e2e/real-go.sh):
//   cgo_make_blocks: 4 x 500 = 2000 allocations of 200 bytes (400000
//   bytes); 4 x 3 = 12 blocks (2400 bytes) live at exit.
// stdout: "goroutines 4, blocks 2000, kept 12, checksum 502000\n"
// (each call adds 0 + 1 + ... + 499 = 124750 and 500 x its goroutine
// number t); exit status 5.
package main

/*
#include <stdlib.h>

enum { BLOCKS = 500, BLOCK_BYTES = 200, KEEP = 3 };

static void *kept[4][KEEP];

__attribute__((noinline)) static long cgo_make_blocks(int t)
{
	void *blocks[BLOCKS];
	long sum = 0;
	for (int i = 0; i < BLOCKS; i++) {
		long *p = malloc(BLOCK_BYTES);
		if (!p)
			abort();
		p[0] = t + i;
		blocks[i] = p;
	}
	for (int i = 0; i < BLOCKS; i++) {
		sum += *(long *)blocks[i];
		if (i < KEEP)
			kept[t][i] = blocks[i];
		else
			free(blocks[i]);
	}
	return sum;
}
*/
import "C"

import (
	"fmt"
	"os"
	"sync"
)

const goroutines = 4

func main() {
	var wg sync.WaitGroup
	sums := make([]int64, goroutines)
	for t := 0; t < goroutines; t++ {
		wg.Add(1)
		go func(t int) {
			defer wg.Done()
			sums[t] = int64(C.cgo_make_blocks(C.int(t)))
		}(t)
	}
	wg.Wait()
	var checksum int64
	for _, s := range sums {
		checksum += s
	}
	fmt.Printf("goroutines %d, blocks %d, kept %d, checksum %d\n",
		goroutines, goroutines*C.BLOCKS, goroutines*C.KEEP, checksum)
	os.Exit(5)
}
