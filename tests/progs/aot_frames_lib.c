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
