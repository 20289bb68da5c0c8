/*
 * tests/unit/test_process_limit.c - the free process slots of a cgroup
 * hierarchy (cli/process_limit.c), read from a made-up tree of pids.max
 * and pids.current files: the least over the cgroup and its ancestors up
 * to the mount, none where no level sets a limit.
 */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/process_limit.h"

static char root[64];

/* Writes text into root/rel/name, making root/rel first. */
static void put(const char *rel, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s%s/%s", root, rel, name);
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

static long long headroom(const char *rel)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s%s", root, rel);
	return process_limit_cgroup_headroom(root, dir);
}

static void test_no_limit_anywhere(void)
{
	put("", "pids.current", "7\n");
	put("/a", "pids.max", "max\n");
	put("/a", "pids.current", "5\n");
	put("/a/b", "pids.max", "max\n");
	put("/a/b", "pids.current", "3\n");
	CU_ASSERT_EQUAL(headroom("/a/b"), -1);
	CU_ASSERT_EQUAL(headroom(""), -1);
}

static void test_ancestor_limit_counts(void)
{
	put("/a", "pids.max", "300\n");
	put("/a", "pids.current", "10\n");
	CU_ASSERT_EQUAL(headroom("/a/b"), 290);
	CU_ASSERT_EQUAL(headroom("/a"), 290);
	CU_ASSERT_EQUAL(headroom(""), -1);
}

static void test_least_level_wins(void)
{
	put("/a/b", "pids.max", "2000\n");
	put("/a/b", "pids.current", "1995\n");
	CU_ASSERT_EQUAL(headroom("/a/b"), 5);
	put("/a/b", "pids.max", "5000\n");
	CU_ASSERT_EQUAL(headroom("/a/b"), 290);
}

/* A limit lowered below what runs (the kernel allows that) leaves none. */
static void test_over_the_limit_is_zero(void)
{
	put("/a/b", "pids.max", "2\n");
	CU_ASSERT_EQUAL(headroom("/a/b"), 0);
}

/* The mount's own level counts too; above it nothing is read. */
static void test_mount_level_counts_not_above(void)
{
	put("/a/b", "pids.max", "max\n");
	put("/a", "pids.max", "max\n");
	put("", "pids.max", "50\n");
	CU_ASSERT_EQUAL(headroom("/a/b"), 43);
	CU_ASSERT_EQUAL(process_limit_cgroup_headroom("/nonexistent-mprof", "/nonexistent-mprof/x"), -1);
}

int main(void)
{
	CU_pSuite s;
	char cmd[128];

	snprintf(root, sizeof(root), "/tmp/mprof-cgroup-XXXXXX");
	if (!mkdtemp(root) || CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("process_limit", NULL, NULL);
	CU_add_test(s, "no limit anywhere: none", test_no_limit_anywhere);
	CU_add_test(s, "an ancestor's limit counts", test_ancestor_limit_counts);
	CU_add_test(s, "the least level wins", test_least_level_wins);
	CU_add_test(s, "over the limit is zero", test_over_the_limit_is_zero);
	CU_add_test(s, "the mount's level counts, nothing above", test_mount_level_counts_not_above);
	CU_basic_set_mode(CU_BRM_NORMAL);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		failed++;
	return failed ? 1 : 0;
}
