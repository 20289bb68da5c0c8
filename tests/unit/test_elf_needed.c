/*
 * tests/unit/test_elf_needed.c - the DT_NEEDED walk of trace/elf_needed.h
 * on ELF images built in memory: a string table named after the DT_NEEDED
 * entries, a dynamic section longer than one batch, a name cut by DT_STRSZ,
 * and the files it must give up on (no dynamic section, 32-bit, truncated,
 * a string table outside every PT_LOAD segment), and a walk from headers
 * the caller has already read.
 */
#include <CUnit/Basic.h>
#include <stdint.h>
#include <string.h>

#include "trace/elf_needed.h"

#define IMAGE_BYTES 0x1000
#define LOAD_VADDR 0x400000u
#define DYN_OFF 0x200u
#define STR_OFF 0x800u

static unsigned char image[IMAGE_BYTES];
static size_t image_len; /* bytes readable: less than IMAGE_BYTES for a truncated file */

static unsigned header_reads; /* reads of the file or program headers */

/* The read function over image; fd is unused. */
static int image_read(int fd, void *buf, size_t size, uint64_t off)
{
	(void)fd;
	header_reads += off < sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr);
	if (off > image_len || size > image_len - off)
		return -1;
	memcpy(buf, image + off, size);
	return 0;
}

/* An image with one PT_LOAD segment over the whole file, a PT_DYNAMIC
 * segment of dyn_n entries (written by the caller at DYN_OFF), and the
 * string table strs (strs_len bytes) at STR_OFF. */
static void image_make(unsigned dyn_n, const char *strs, size_t strs_len)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)image;
	Elf64_Phdr *ph = (Elf64_Phdr *)(image + sizeof(*eh));
	const uint16_t one = 1;

	memset(image, 0, sizeof(image));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = *(const unsigned char *)&one == 1 ? ELFDATA2LSB : ELFDATA2MSB;
	eh->e_type = ET_DYN;
	eh->e_phoff = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 2;
	ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_offset = 0, .p_vaddr = LOAD_VADDR,
			      .p_filesz = IMAGE_BYTES, .p_memsz = IMAGE_BYTES };
	ph[1] = (Elf64_Phdr){ .p_type = PT_DYNAMIC, .p_offset = DYN_OFF,
			      .p_vaddr = LOAD_VADDR + DYN_OFF, .p_filesz = dyn_n * sizeof(Elf64_Dyn) };
	memcpy(image + STR_OFF, strs, strs_len);
	image_len = IMAGE_BYTES;
}

static Elf64_Dyn *dyn_at(unsigned i)
{
	return (Elf64_Dyn *)(image + DYN_OFF) + i;
}

static void dyn_put(unsigned i, int64_t tag, uint64_t val)
{
	dyn_at(i)->d_tag = tag;
	dyn_at(i)->d_un.d_val = val;
}

/* "\0libm.so.6\0liblsan.so.0\0libc.so.6\0": offsets 1, 11, 24; 34 bytes */
static const char strs[] = "\0libm.so.6\0liblsan.so.0\0libc.so.6";

static const char *sanitizer(char *soname, size_t size)
{
	return elf_needed_sanitizer(0, image_read, soname, size);
}

static void test_strtab_after_the_needed_entries_is_found(void)
{
	char soname[64];

	image_make(6, strs, sizeof(strs));
	dyn_put(0, DT_NEEDED, 1);
	dyn_put(1, DT_NEEDED, 11);
	dyn_put(2, DT_NEEDED, 24);
	dyn_put(3, DT_STRTAB, LOAD_VADDR + STR_OFF);
	dyn_put(4, DT_STRSZ, sizeof(strs));
	dyn_put(5, DT_NULL, 0);
	CU_ASSERT_STRING_EQUAL(sanitizer(soname, sizeof(soname)), "LeakSanitizer");
	CU_ASSERT_STRING_EQUAL(soname, "liblsan.so.0");
	CU_ASSERT_STRING_EQUAL(sanitizer(soname, 6), "LeakSanitizer");
	CU_ASSERT_STRING_EQUAL(soname, "libls"); /* cut to fit */
	CU_ASSERT_STRING_EQUAL(sanitizer(NULL, 0), "LeakSanitizer");
}

static void test_needed_past_one_batch_and_after_null_ignored(void)
{
	unsigned i;

	image_make(40, strs, sizeof(strs));
	dyn_put(0, DT_STRTAB, LOAD_VADDR + STR_OFF);
	dyn_put(1, DT_STRSZ, sizeof(strs));
	for (i = 2; i < 20; i++)
		dyn_put(i, DT_DEBUG, 0);
	dyn_put(20, DT_NEEDED, 1);
	dyn_put(21, DT_NULL, 0);
	dyn_put(22, DT_NEEDED, 11); /* after DT_NULL: not an entry */
	CU_ASSERT_PTR_NULL(sanitizer(NULL, 0));
	dyn_put(21, DT_NEEDED, 11);
	dyn_put(22, DT_NULL, 0);
	CU_ASSERT_STRING_EQUAL(sanitizer(NULL, 0), "LeakSanitizer");
}

static void test_needed_past_the_first_sixteen_names(void)
{
	unsigned i;

	image_make(24, strs, sizeof(strs));
	dyn_put(0, DT_STRTAB, LOAD_VADDR + STR_OFF);
	dyn_put(1, DT_STRSZ, sizeof(strs));
	for (i = 2; i < 22; i++)
		dyn_put(i, DT_NEEDED, 1); /* 20 times libm.so.6 */
	dyn_put(23, DT_NULL, 0);
	dyn_put(22, DT_NULL, 0);
	CU_ASSERT_PTR_NULL(sanitizer(NULL, 0));
	dyn_put(19, DT_NEEDED, 11); /* the 18th name */
	CU_ASSERT_STRING_EQUAL(sanitizer(NULL, 0), "LeakSanitizer");
	dyn_put(19, DT_NEEDED, 1);
	dyn_put(22, DT_NEEDED, 11); /* the 21st, after the second batch of names */
	CU_ASSERT_STRING_EQUAL(sanitizer(NULL, 0), "LeakSanitizer");
}

static void test_prefix_only_matches_whole_soname_start(void)
{
	static const char hw[] = "\0libhwasan.so.0\0xlibasan.so.8";
	char soname[64];

	image_make(5, hw, sizeof(hw));
	dyn_put(0, DT_STRTAB, LOAD_VADDR + STR_OFF);
	dyn_put(1, DT_STRSZ, sizeof(hw));
	dyn_put(2, DT_NEEDED, 16); /* "xlibasan.so.8": no runtime */
	dyn_put(3, DT_NEEDED, 1);
	dyn_put(4, DT_NULL, 0);
	CU_ASSERT_STRING_EQUAL(sanitizer(soname, sizeof(soname)), "HWAddressSanitizer");
	CU_ASSERT_STRING_EQUAL(soname, "libhwasan.so.0");
}

static void test_name_is_cut_at_strsz(void)
{
	image_make(4, strs, sizeof(strs));
	dyn_put(0, DT_STRTAB, LOAD_VADDR + STR_OFF);
	dyn_put(1, DT_STRSZ, 15); /* "liblsan.so.0" cut to "libl" */
	dyn_put(2, DT_NEEDED, 11);
	dyn_put(3, DT_NULL, 0);
	CU_ASSERT_PTR_NULL(sanitizer(NULL, 0));
	dyn_put(1, DT_STRSZ, 11); /* the name starts at the table's end */
	CU_ASSERT_PTR_NULL(sanitizer(NULL, 0));
}

static void test_unreadable_files_give_up(void)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)image;
	Elf64_Phdr *ph = (Elf64_Phdr *)(image + sizeof(*eh));

	image_make(4, strs, sizeof(strs));
	dyn_put(0, DT_STRTAB, LOAD_VADDR + STR_OFF);
	dyn_put(1, DT_STRSZ, sizeof(strs));
	dyn_put(2, DT_NEEDED, 11);
	dyn_put(3, DT_NULL, 0);
	CU_ASSERT_PTR_NOT_NULL(sanitizer(NULL, 0));
	image_len = STR_OFF + 12; /* truncated in the name */
	CU_ASSERT_PTR_NULL(sanitizer(NULL, 0));
	image_len = IMAGE_BYTES;
	ph[0].p_filesz = STR_OFF; /* the table outside every PT_LOAD */
	CU_ASSERT_PTR_NULL(sanitizer(NULL, 0));
	ph[0].p_filesz = IMAGE_BYTES;
	ph[1].p_type = PT_NOTE; /* static: no dynamic section */
	CU_ASSERT_EQUAL(elf_needed_walk(0, image_read, elf_needed_sanitizer_visit,
					&(struct elf_needed_found){ 0 }),
			-1);
	ph[1].p_type = PT_DYNAMIC;
	eh->e_ident[EI_CLASS] = ELFCLASS32;
	CU_ASSERT_PTR_NULL(sanitizer(NULL, 0));
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_phnum = ELF_NEEDED_PHDR_LIMIT + 1;
	CU_ASSERT_PTR_NULL(sanitizer(NULL, 0));
}

static void test_walk_from_reads_no_header_again(void)
{
	Elf64_Ehdr eh;
	Elf64_Phdr first[ELF_NEEDED_BATCH];

	image_make(4, strs, sizeof(strs));
	dyn_put(0, DT_STRTAB, LOAD_VADDR + STR_OFF);
	dyn_put(1, DT_STRSZ, sizeof(strs));
	dyn_put(2, DT_NEEDED, 11);
	dyn_put(3, DT_NULL, 0);
	header_reads = 0;
	CU_ASSERT_EQUAL(elf_needed_head(0, image_read, &eh, first), 0);
	CU_ASSERT_EQUAL(header_reads, 2);
	CU_ASSERT_STRING_EQUAL(elf_needed_sanitizer_from(0, image_read, &eh, first),
			       "LeakSanitizer");
	CU_ASSERT_EQUAL(header_reads, 2);
	dyn_put(2, DT_NEEDED, 1); /* libm: none */
	CU_ASSERT_PTR_NULL(elf_needed_sanitizer_from(0, image_read, &eh, first));
	((Elf64_Ehdr *)image)->e_ident[EI_CLASS] = ELFCLASS32;
	CU_ASSERT_EQUAL(elf_needed_head(0, image_read, &eh, first), -1);
}

int main(void)
{
	CU_pSuite s;
	unsigned failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("elf_needed", NULL, NULL);
	CU_add_test(s, "a string table after the needed entries is found",
		    test_strtab_after_the_needed_entries_is_found);
	CU_add_test(s, "a needed entry past one batch counts, one after DT_NULL does not",
		    test_needed_past_one_batch_and_after_null_ignored);
	CU_add_test(s, "names past the first sixteen are read",
		    test_needed_past_the_first_sixteen_names);
	CU_add_test(s, "a runtime's prefix matches the start of a soname only",
		    test_prefix_only_matches_whole_soname_start);
	CU_add_test(s, "a name is cut at DT_STRSZ", test_name_is_cut_at_strsz);
	CU_add_test(s, "unreadable files give up", test_unreadable_files_give_up);
	CU_add_test(s, "a walk from headers already read reads neither again",
		    test_walk_from_reads_no_header_again);
	CU_basic_set_mode(CU_BRM_NORMAL);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
