#!/bin/bash
# tests/e2e/browser-harness.sh - the harness the page checks rest on
# (tests/browser/browser.mjs) sees a broken page: a console error, an
# uncaught exception and a network request each count as a problem, and a
# clean page has none.  Without this, a check that "found no error" could
# mean a harness that cannot see one.
source "$(dirname "$0")/lib.sh"
require_browser
make_work
run_cmd 120 selftest node "$BROWSER_DIR/selftest.mjs"
cat "$RUN_OUT"
expect_eq "selftest: exit status" 0 "$RUN_STATUS"
expect_eq "selftest: four checks passed" 4 "$(grep -c '^ok ' "$RUN_OUT")"
finish
