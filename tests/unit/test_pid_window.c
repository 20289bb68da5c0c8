/*
 * tests/unit/test_pid_window.c - the window of process IDs given out since
 * a point in time (cli/pid_window.c): its cyclic range, and on this
 * machine a child forked after the window opened is in it while this
 * process's parent and init are not.
 */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/pid_window.h"

static void test_range_after_first_up_to_last(void)
{
	struct pid_window w = { .first = 1000, .last = 1005 };

	CU_ASSERT_FALSE(pid_window_holds(&w, 999));
	CU_ASSERT_FALSE(pid_window_holds(&w, 1000));
	CU_ASSERT_TRUE(pid_window_holds(&w, 1001));
	CU_ASSERT_TRUE(pid_window_holds(&w, 1005));
	CU_ASSERT_FALSE(pid_window_holds(&w, 1006));
	CU_ASSERT_FALSE(pid_window_holds(&w, 1));
}

static void test_range_wraps_at_pid_max(void)
{
	struct pid_window w = { .first = 32000, .last = 400 };

	CU_ASSERT_TRUE(pid_window_holds(&w, 32001));
	CU_ASSERT_TRUE(pid_window_holds(&w, 32767));
	CU_ASSERT_TRUE(pid_window_holds(&w, 300));
	CU_ASSERT_TRUE(pid_window_holds(&w, 400));
	CU_ASSERT_FALSE(pid_window_holds(&w, 401));
	CU_ASSERT_FALSE(pid_window_holds(&w, 32000));
	CU_ASSERT_FALSE(pid_window_holds(&w, 20000));
}

static void test_nothing_given_holds_nothing_all_holds_all(void)
{
	struct pid_window w = { .first = 500, .last = 500 };

	CU_ASSERT_FALSE(pid_window_holds(&w, 500));
	CU_ASSERT_FALSE(pid_window_holds(&w, 501));
	w.all = true;
	CU_ASSERT_TRUE(pid_window_holds(&w, 500));
	CU_ASSERT_TRUE(pid_window_holds(&w, 1));
}

/* A round of the cycle skips the IDs in use: with 24,000 tasks alive,
 * 7,946 new ones can go round a pid_max of 32768 (a probe's run did), so
 * the window must give up; with few alive it holds for thousands. */
static void test_cycle_safe_counts_ids_in_use(void)
{
	CU_ASSERT_FALSE(pid_window_cycle_safe(7946, 24000, 32768));
	CU_ASSERT_TRUE(pid_window_cycle_safe(1001, 24000, 32768));
	CU_ASSERT_TRUE(pid_window_cycle_safe(100, 200, 32768));
	CU_ASSERT_TRUE(pid_window_cycle_safe(14000, 200, 32768));
	CU_ASSERT_FALSE(pid_window_cycle_safe(14200, 200, 32768));
	CU_ASSERT_TRUE(pid_window_cycle_safe(1000000, 5000, 4194304));
	CU_ASSERT_FALSE(pid_window_cycle_safe(0, 0, 300));
	CU_ASSERT_FALSE(pid_window_cycle_safe(40000, 0, 32768));
}

static void test_child_in_window_parent_not(void)
{
	struct pid_window w;
	pid_t child;
	int status;

	pid_window_start(&w);
	child = fork();
	if (child == 0)
		_exit(0);
	CU_ASSERT_FATAL(child > 0);
	pid_window_update(&w);
	CU_ASSERT_TRUE(pid_window_holds(&w, (unsigned)child));
	if (w.all) {
		/* /proc could not tell: every ID is in the window */
		printf("\n  (the window holds every ID on this machine)\n");
		CU_ASSERT_TRUE(pid_window_holds(&w, 1));
	} else {
		CU_ASSERT_FALSE(pid_window_holds(&w, (unsigned)getpid()));
		CU_ASSERT_FALSE(pid_window_holds(&w, (unsigned)getppid()));
		CU_ASSERT_FALSE(pid_window_holds(&w, 1));
	}
	waitpid(child, &status, 0);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("pid_window", NULL, NULL);
	CU_add_test(s, "range after first up to last", test_range_after_first_up_to_last);
	CU_add_test(s, "range wraps at pid_max", test_range_wraps_at_pid_max);
	CU_add_test(s, "nothing given holds nothing, all holds all",
		    test_nothing_given_holds_nothing_all_holds_all);
	CU_add_test(s, "the cycle's bound counts the IDs in use", test_cycle_safe_counts_ids_in_use);
	CU_add_test(s, "a child forked after the start is in it, the parent not",
		    test_child_in_window_parent_not);
	CU_basic_set_mode(CU_BRM_NORMAL);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
