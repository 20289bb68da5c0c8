/*
 * iconv_unload.c - glibc loads and unloads its iconv modules by itself
 * (__libc_dlopen, __libc_dlclose), past any interposed dlclose: a
 * conversion to UTF-16 loads UTF-16.so, whose gconv_init allocates one
 * block; six conversions to ISO-8859-2 then age UTF-16.so out (glibc
 * unloads a module unused for more than two releases of others), and
 * three conversions to UTF-32 load UTF-32.so, of the same size, which the
 * loader maps where UTF-16.so was.
 *
 * Usage: iconv_unload split|same: split converts to UTF-16 and UTF-32 in
 * functions of their own (convert_utf16, convert_utf32); same converts to
 * every charset from one call site (convert_each), so that UTF-32.so's
 * gconv_init, whose malloc call lies at the same offset as UTF-16.so's,
 * makes its block through the very call stack UTF-16.so's block had.
 * Prints "utf-16 unloaded: yes|no" and "utf-32 where utf-16 was: yes|no"
 * (read from /proc/self/maps); exits 2 when a conversion cannot be opened.
 *
 * Expected facts (tests/e2e/iconv-unload.sh): of the blocks that gconv_init
 * makes, one lies in UTF-16.so and 3 in UTF-32.so (split: the one under
 * convert_utf16, the 3 under convert_utf32); none is live at exit.
 */
#include <iconv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Converts a short text to charset to; the module's gconv_init allocates
 * a block that iconv_close frees. */
static void convert(const char *to)
{
	char in[] = "hello", out[64], *ip = in, *op = out;
	size_t il = strlen(in), ol = sizeof(out);
	iconv_t cd = iconv_open(to, "UTF-8");

	if (cd == (iconv_t)-1) {
		perror(to);
		exit(2);
	}
	iconv(cd, &ip, &il, &op, &ol);
	iconv_close(cd);
}

static __attribute__((noinline)) void convert_utf16(void)
{
	convert("UTF-16");
}

static __attribute__((noinline)) void convert_utf32(void)
{
	convert("UTF-32");
}

/* The start of the executable mapping of the file whose name ends in
 * name, 0 when there is none. */
static unsigned long text_start(const char *name)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned long start = 0, s, e;
	char perms[8];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, "\n");

		line[n] = 0;
		if (n >= strlen(name) && !strcmp(line + n - strlen(name), name) &&
		    sscanf(line, "%lx-%lx %7s", &s, &e, perms) == 3 && perms[2] == 'x')
			start = s;
	}
	fclose(f);
	return start;
}

/* Converts to each of the charsets of the split mode from one call site;
 * where UTF-16.so was mapped into *utf16. */
static __attribute__((noinline)) void convert_each(unsigned long *utf16)
{
	static const char *const to[] = { "UTF-16", "ISO-8859-2", "ISO-8859-2", "ISO-8859-2",
					  "ISO-8859-2", "ISO-8859-2", "ISO-8859-2", "UTF-32",
					  "UTF-32", "UTF-32" };

	for (unsigned i = 0; i < sizeof(to) / sizeof(to[0]); i++) {
		if (i == 7)
			printf("utf-16 unloaded: %s\n", text_start("/UTF-16.so") ? "no" : "yes");
		convert(to[i]);
		if (i == 0)
			*utf16 = text_start("/UTF-16.so");
	}
}

int main(int argc, char **argv)
{
	unsigned long utf16 = 0;

	if (argc > 1 && !strcmp(argv[1], "same")) {
		convert_each(&utf16);
	} else {
		convert_utf16();
		utf16 = text_start("/UTF-16.so");
		for (int i = 0; i < 6; i++)
			convert("ISO-8859-2");
		printf("utf-16 unloaded: %s\n", text_start("/UTF-16.so") ? "no" : "yes");
		for (int i = 0; i < 3; i++)
			convert_utf32();
	}
	printf("utf-32 where utf-16 was: %s\n",
	       utf16 && text_start("/UTF-32.so") == utf16 ? "yes" : "no");
	return 0;
}
