/*
 * tests/progs/aot_frames_lib.c - a library whose code no unwind table
 * covers, as mono's AOT images (mscorlib.dll.so): built with frame pointers,
 * without .eh_frame (-fno-asynchronous-unwind-tables) and linked without
 * .eh_frame_hdr (-Wl,--no-eh-frame-hdr), so its module has no
 * PT_GNU_EH_FRAME at all.  See tests/progs/aot_frames.c.
 */
#include <stddef.h>

/* Calls fn(i) from a frame-pointer frame of this module (noinline and a
 * sum after the call, so the call is no tail call). */
__attribute__((noinline)) int aot_call(int (*fn)(int), int i)
{
	return fn(i) + 1;
}

/* 64 call sites of fn in this module, site i % 64 for i: each is a return
 * address of its own, so each misses the recorder's rule cache once
 * (tests/progs/aot_fd_race.c; built -O0, so that no site is merged). */
#define AOT_SITE(n) \
	case n: \
		return fn(i) + n;
#define AOT_SITES8(n) \
	AOT_SITE(n) AOT_SITE(n + 1) AOT_SITE(n + 2) AOT_SITE(n + 3) AOT_SITE(n + 4) \
	AOT_SITE(n + 5) AOT_SITE(n + 6) AOT_SITE(n + 7)

__attribute__((noinline)) int aot_call_site(int (*fn)(int), int i)
{
	switch (i % 64) {
		AOT_SITES8(0)
		AOT_SITES8(8)
		AOT_SITES8(16)
		AOT_SITES8(24)
		AOT_SITES8(32)
		AOT_SITES8(40)
		AOT_SITES8(48)
		AOT_SITES8(56)
	}
	return 0;
}
