#!/bin/bash
# child-ends-start-time.sh - tests/e2e/child-ends.sh with the launcher's pid guard on its
# start-time path (MPROF_TEST_PID_GUARD=start-time, mprof-run(1)), which
# kernels without pidfds and a launcher out of descriptors take: the same
# facts hold there.
export MPROF_TEST_PID_GUARD=start-time
. "$abs_top_srcdir/tests/e2e/child-ends.sh"
