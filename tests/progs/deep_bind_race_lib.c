/*
 * deep_bind_race_lib.c - the library tests/progs/deep_bind_race_main.c
 * loads again and again with dlopen(RTLD_NOW | RTLD_DEEPBIND) while other
 * threads have mprof rescan the modules (tests/e2e/deep-bind-reloc-race.sh).
 * Built with -fno-plt, -z now and -z relro, its malloc and free slots are
 * GLOB_DATs among 4000 more in its RELRO pages, those of undefined weak
 * variables that no module defines: each is a lookup through every loaded
 * module that finds nothing, so the loader writes the page of malloc's slot
 * for a while after it bound that slot.  deep_bind_race_lib_run allocates 3
 * blocks of 40 bytes and frees them, and returns the variables' addresses
 * (all 0) folded together.
 */
#include <stdint.h>
#include <stdlib.h>

/* The 4000 variables, v0000 to v3999: R3(m) applies m to each number. */
#define RACE_V(n) extern int deep_bind_race_v##n __attribute__((weak));
#define RACE_SUM(n) ^(uintptr_t)&deep_bind_race_v##n
#define R0(m, p) m(p##0) m(p##1) m(p##2) m(p##3) m(p##4) m(p##5) m(p##6) m(p##7) m(p##8) m(p##9)
#define R1(m, p) R0(m, p##0) R0(m, p##1) R0(m, p##2) R0(m, p##3) R0(m, p##4) \
	R0(m, p##5) R0(m, p##6) R0(m, p##7) R0(m, p##8) R0(m, p##9)
#define R2(m, p) R1(m, p##0) R1(m, p##1) R1(m, p##2) R1(m, p##3) R1(m, p##4) \
	R1(m, p##5) R1(m, p##6) R1(m, p##7) R1(m, p##8) R1(m, p##9)
#define R3(m) R2(m, 0) R2(m, 1) R2(m, 2) R2(m, 3)

R3(RACE_V)

void *volatile deep_bind_race_lib_sink[3];

__attribute__((noinline)) void deep_bind_race_lib_alloc(void)
{
	for (int i = 0; i < 3; i++)
		deep_bind_race_lib_sink[i] = malloc(40);
}

unsigned long deep_bind_race_lib_run(void)
{
	deep_bind_race_lib_alloc();
	for (int i = 0; i < 3; i++)
		free(deep_bind_race_lib_sink[i]);
	return 0 R3(RACE_SUM);
}
