/*
 * tests/unit/test_file_caps.c - whether a file's capabilities put its exec
 * in secure-execution mode (trace/file_caps.h), on attributes built as
 * setcap(8) writes them: revision 2 (20 bytes), revision 1 (12 bytes); and
 * whether its set-ID bits and the caller's IDs do.
 */
#include <CUnit/Basic.h>
#include <stdint.h>
#include <string.h>

#include "trace/file_caps.h"

#define CAP_NET_RAW 13
#define CAP_CHECKPOINT_RESTORE 40
#define ALL_CAPS ((UINT64_C(1) << 41) - 1) /* a bounding set with caps 0-40 */

/* A revision-2 attribute: magic_etc (revision 2, the effective flag when
 * effective), then the permitted and inheritable words, low then high. */
static void caps_v2(uint8_t raw[20], uint64_t permitted, uint64_t inheritable, int effective)
{
	uint32_t words[5] = { 0x02000000u | (effective ? 1u : 0u), (uint32_t)permitted,
			      (uint32_t)inheritable, (uint32_t)(permitted >> 32),
			      (uint32_t)(inheritable >> 32) };

	for (int w = 0; w < 5; w++)
		for (int b = 0; b < 4; b++)
			raw[w * 4 + b] = (uint8_t)(words[w] >> (8 * b));
}

static void test_ping_caps_are_secure_for_a_user_not_for_root(void)
{
	uint8_t raw[20];

	caps_v2(raw, UINT64_C(1) << CAP_NET_RAW, 0, 1); /* cap_net_raw=ep */
	CU_ASSERT_TRUE(file_caps_secure_exec(raw, 20, false, 0, ALL_CAPS));
	CU_ASSERT_FALSE(file_caps_secure_exec(raw, 20, true, 0, ALL_CAPS));
}

static void test_no_attribute_or_short_one_is_not_secure(void)
{
	uint8_t raw[20] = { 0 };

	CU_ASSERT_FALSE(file_caps_secure_exec(raw, -1, false, ALL_CAPS, ALL_CAPS));
	CU_ASSERT_FALSE(file_caps_secure_exec(raw, 8, false, ALL_CAPS, ALL_CAPS));
}

static void test_permitted_counts_only_inside_the_bounding_set(void)
{
	uint8_t raw[20];

	caps_v2(raw, UINT64_C(1) << CAP_NET_RAW, 0, 0); /* cap_net_raw=p */
	CU_ASSERT_TRUE(file_caps_secure_exec(raw, 20, false, 0, ALL_CAPS));
	CU_ASSERT_FALSE(file_caps_secure_exec(raw, 20, false, 0,
					      ALL_CAPS & ~(UINT64_C(1) << CAP_NET_RAW)));
}

static void test_inheritable_counts_only_where_the_caller_has_it(void)
{
	uint8_t raw[20];

	caps_v2(raw, 0, UINT64_C(1) << CAP_NET_RAW, 0); /* cap_net_raw=i */
	CU_ASSERT_FALSE(file_caps_secure_exec(raw, 20, false, 0, ALL_CAPS));
	CU_ASSERT_TRUE(file_caps_secure_exec(raw, 20, false, UINT64_C(1) << CAP_NET_RAW, 0));
}

static void test_high_word_is_read_in_revision_2_only(void)
{
	uint8_t raw[20];

	caps_v2(raw, UINT64_C(1) << CAP_CHECKPOINT_RESTORE, 0, 0);
	CU_ASSERT_TRUE(file_caps_secure_exec(raw, 20, false, 0, ALL_CAPS));
	/* a revision-1 attribute has the low words only: nothing granted */
	CU_ASSERT_FALSE(file_caps_secure_exec(raw, 12, false, 0, ALL_CAPS));
}

static void test_effective_flag_alone_is_secure(void)
{
	uint8_t raw[20];

	caps_v2(raw, 0, 0, 1);
	CU_ASSERT_TRUE(file_caps_secure_exec(raw, 20, false, 0, 0));
	caps_v2(raw, 0, 0, 0);
	CU_ASSERT_FALSE(file_caps_secure_exec(raw, 20, false, ALL_CAPS, ALL_CAPS));
}

#define USER 1000
#define OTHER 1001
#define ROOT 0

static const struct file_exec_ids plain_user = { USER, USER, USER, USER };

static void test_setuid_file_of_another_user_is_secure(void)
{
	mode_t mode = S_IFREG | S_ISUID | 0755;

	CU_ASSERT_EQUAL(file_setid_secure_exec(mode, ROOT, USER, false, &plain_user),
			FILE_SETID_USER);
	/* the caller's own set-user-ID file changes nothing */
	CU_ASSERT_EQUAL(file_setid_secure_exec(mode, USER, USER, false, &plain_user),
			FILE_SETID_NONE);
	/* root running another user's set-user-ID file loses its effective root */
	CU_ASSERT_EQUAL(file_setid_secure_exec(mode, OTHER, ROOT, false,
					       &(struct file_exec_ids){ ROOT, ROOT, ROOT, ROOT }),
			FILE_SETID_USER);
}

static void test_setgid_file_needs_group_execute(void)
{
	CU_ASSERT_EQUAL(file_setid_secure_exec(S_IFREG | S_ISGID | 0755, USER, OTHER, false,
					       &plain_user),
			FILE_SETID_GROUP);
	/* S_ISGID without group execute marks mandatory locking, not set-group-ID */
	CU_ASSERT_EQUAL(file_setid_secure_exec(S_IFREG | S_ISGID | 0745, USER, OTHER, false,
					       &plain_user),
			FILE_SETID_NONE);
	CU_ASSERT_EQUAL(file_setid_secure_exec(S_IFREG | S_ISGID | 0755, USER, USER, false,
					       &plain_user),
			FILE_SETID_NONE);
}

static void test_setuid_comes_before_setgid(void)
{
	CU_ASSERT_EQUAL(file_setid_secure_exec(S_IFREG | S_ISUID | S_ISGID | 0755, OTHER, OTHER,
					       false, &plain_user),
			FILE_SETID_USER);
}

static void test_nosuid_mount_ignores_the_bits(void)
{
	CU_ASSERT_EQUAL(file_setid_secure_exec(S_IFREG | S_ISUID | S_ISGID | 0755, OTHER, OTHER,
					       true, &plain_user),
			FILE_SETID_NONE);
}

static void test_mixed_ids_are_secure_unless_the_file_resets_them(void)
{
	const struct file_exec_ids seteuid = { USER, OTHER, USER, USER };
	const struct file_exec_ids setegid = { USER, USER, USER, OTHER };

	CU_ASSERT_EQUAL(file_setid_secure_exec(S_IFREG | 0755, USER, USER, false, &seteuid),
			FILE_SETID_MIXED_IDS);
	CU_ASSERT_EQUAL(file_setid_secure_exec(S_IFREG | 0755, USER, USER, false, &setegid),
			FILE_SETID_MIXED_IDS);
	/* a set-user-ID file of the real user sets the effective ID back */
	CU_ASSERT_EQUAL(file_setid_secure_exec(S_IFREG | S_ISUID | 0755, USER, USER, false,
					       &seteuid),
			FILE_SETID_NONE);
	/* the same file on a nosuid mount keeps the mixed IDs */
	CU_ASSERT_EQUAL(file_setid_secure_exec(S_IFREG | S_ISUID | 0755, USER, USER, true,
					       &seteuid),
			FILE_SETID_MIXED_IDS);
	/* a set-user-ID file leaves a mixed group ID as it was */
	CU_ASSERT_EQUAL(file_setid_secure_exec(S_IFREG | S_ISUID | 0755, USER, USER, false,
					       &setegid),
			FILE_SETID_MIXED_IDS);
}

int main(void)
{
	CU_pSuite s;
	unsigned failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("file_caps", NULL, NULL);
	CU_add_test(s, "ping's caps are secure for a user, not for root",
		    test_ping_caps_are_secure_for_a_user_not_for_root);
	CU_add_test(s, "no attribute or a short one is not secure",
		    test_no_attribute_or_short_one_is_not_secure);
	CU_add_test(s, "permitted counts only inside the bounding set",
		    test_permitted_counts_only_inside_the_bounding_set);
	CU_add_test(s, "inheritable counts only where the caller has it",
		    test_inheritable_counts_only_where_the_caller_has_it);
	CU_add_test(s, "the high word is read in revision 2 only",
		    test_high_word_is_read_in_revision_2_only);
	CU_add_test(s, "the effective flag alone is secure", test_effective_flag_alone_is_secure);
	CU_add_test(s, "a set-user-ID file of another user is secure",
		    test_setuid_file_of_another_user_is_secure);
	CU_add_test(s, "a set-group-ID file needs group execute",
		    test_setgid_file_needs_group_execute);
	CU_add_test(s, "set-user-ID comes before set-group-ID", test_setuid_comes_before_setgid);
	CU_add_test(s, "a nosuid mount ignores the bits", test_nosuid_mount_ignores_the_bits);
	CU_add_test(s, "mixed IDs are secure unless the file resets them",
		    test_mixed_ids_are_secure_unless_the_file_resets_them);
	CU_basic_set_mode(CU_BRM_NORMAL);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
