// tests/progs/go_cgo/main.go - a Go program that allocates through cgo, for
// tests/e2e/go-cgo.sh.  Facts: c_make (C, in the preamble below) mallocs
// 5000 B once, called from Go; C.malloc 3 blocks of 3000 B; the Go runtime
// starts threads through cgo, so runtime.newm (proc.go) calls into C.
package main

/*
#include <stdlib.h>
static void *c_make(size_t n)
{
	return malloc(n); // site: c_make
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

//go:noinline
func goMake(n int) unsafe.Pointer {
	return C.malloc(C.size_t(n))
}

func main() {
	var ps []unsafe.Pointer
	for i := 0; i < 3; i++ {
		ps = append(ps, goMake(3000))
	}
	ps = append(ps, C.c_make(5000))
	for _, p := range ps {
		C.free(p)
	}
	fmt.Println("go cgo done", len(ps))
}
