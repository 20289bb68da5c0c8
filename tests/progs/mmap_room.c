/*
 * mmap_room.c - where a program's own mappings go.  Prints how many
 * mappings of 1 GiB or more lie within 32 GiB below the lowest shared
 * library (where the kernel puts the program's next mappings, top-down),
 * then maps 64 pieces of 1 MiB and prints the span they cover, in MiB.
 * Facts: tests/e2e/mmap-room.sh.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define GIB ((uint64_t)1 << 30)

int main(void)
{
	uint64_t lib_low = UINT64_MAX, lo = UINT64_MAX, hi = 0;
	uint64_t starts[4096], ends[4096];
	unsigned n = 0, near = 0;
	char line[4096];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return 2;
	while (n < 4096 && fgets(line, sizeof(line), f)) {
		uint64_t a, b;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64, &a, &b) != 2)
			continue;
		starts[n] = a;
		ends[n++] = b;
		if (strstr(line, ".so") && a < lib_low)
			lib_low = a;
	}
	fclose(f);
	for (unsigned i = 0; i < n; i++)
		if (ends[i] - starts[i] >= GIB && ends[i] <= lib_low && ends[i] + 32 * GIB > lib_low)
			near++;
	printf("large mappings within 32 GiB below the libraries: %u\n", near);
	for (int i = 0; i < 64; i++) {
		char *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		if (p == MAP_FAILED)
			return 3;
		p[0] = 1;
		lo = (uint64_t)(uintptr_t)p < lo ? (uint64_t)(uintptr_t)p : lo;
		hi = (uint64_t)(uintptr_t)p + (1 << 20) > hi ? (uint64_t)(uintptr_t)p + (1 << 20) : hi;
	}
	printf("64 pieces of 1 MiB span %" PRIu64 " MiB\n", (hi - lo) >> 20);
	return 0;
}
