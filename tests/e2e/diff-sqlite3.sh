#!/bin/bash
# diff-sqlite3.sh - `mprof diff` of a stock program (Debian's sqlite3) on a
# light and a heavier script (tests/e2e/gen-sql.sh 1000 and 8000 rows): the
# totals grow, the growth is attributed to sites (their changes add up to
# the totals' in every number), the site that grew most in allocated bytes
# is one of the sqlite3 library's and is ranked first, and the gate holds
# on that growth and not on a smaller one.
source "$(dirname "$0")/lib.sh"
require_mprof
SQLITE3=$(command -v sqlite3) || skip "sqlite3 is not installed"
make_work
"$E2E_DIR/gen-sql.sh" 1000 >"$WORK/light.sql"
"$E2E_DIR/gen-sql.sh" 8000 >"$WORK/heavy.sql"
RUN_STDIN="$WORK/light.sql" RUN_NAME=light mprof_run 120 "$WORK/tl" -- "$SQLITE3" :memory:
expect_eq "light: exit status" 0 "$RUN_STATUS"
RUN_STDIN="$WORK/heavy.sql" RUN_NAME=heavy mprof_run 120 "$WORK/th" -- "$SQLITE3" :memory:
expect_eq "heavy: exit status" 0 "$RUN_STATUS"

run_cmd 120 j "$MPROF" diff --format json "$WORK/tl" "$WORK/th"
expect_eq "json: exit status" 0 "$RUN_STATUS"
jd() {
	"$PYTHON" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$WORK/j.out" "$1" 2>&1
}
expect_eq "the allocated bytes grew" True "$(jd 'd["totals"]["delta"]["allocated_bytes"] > 0')"
for k in allocations allocated_bytes peak_bytes leaked_bytes temporary; do
	expect_eq "the sites' changes add up to the totals' ($k)" True \
		"$(jd "sum(s['delta']['$k'] for s in d['sites']) == d['totals']['delta']['$k']")"
done
top=$(jd 'max(d["sites"], key=lambda s: s["delta"]["allocated_bytes"])["delta"]["allocated_bytes"]')
expect_eq "the largest growth in allocated bytes is first in the JSON" "$top" \
	"$(jd 'd["sites"][0]["delta"]["allocated_bytes"]')"
expect_match "it lies in the sqlite3 library" '^libsqlite3\.so' \
	"$(jd 'd["sites"][0]["frames"][0]["module"].rsplit("/", 1)[-1]')"

run_cmd 120 t "$MPROF" diff -n 1 --metric allocated "$WORK/tl" "$WORK/th"
expect_match "text: the same site ranks first in growth" "^    allocated bytes [0-9]+ -> [0-9]+ \\(\\+$top\\); " \
	"$(sed -n '/^== Grown in allocated bytes/,$p' "$WORK/t.out" | sed -n 3p)"
run_cmd 120 gate "$MPROF" diff -n 0 --fail-if "site:allocated>=+$top" "$WORK/tl" "$WORK/th"
expect_eq "gate site:allocated>=+TOP: holds" 1 "$RUN_STATUS"
expect_match "gate: names exactly one site" "condition held: site:allocated>=\\+$top: 1 site\$" "$(cat "$RUN_ERR")"
run_cmd 120 gate2 "$MPROF" diff -n 0 --fail-if "site:allocated>+$top" "$WORK/tl" "$WORK/th"
expect_eq "gate site:allocated>+TOP: does not hold" 0 "$RUN_STATUS"
finish
