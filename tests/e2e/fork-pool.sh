#!/bin/bash
# fork-pool.sh - a report of a pre-fork server's traces reads the parent's
# trace once for all its workers, and each worker still starts with the
# blocks live in the parent at its own fork.  `mprof report --all` read the
# parent up to the fork once per child: a parent of 10^6 allocations with
# 50 workers took 8.3 s against 0.23 s for the parent alone.  Counted with
# strace: the opens of the parent's trace, the same for five workers as for
# one.  Program and facts: tests/progs/fork_pool.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/fork_pool" "$PROGS_DIR/fork_pool.c" -fno-builtin

N=1000
K=5
mkdir "$WORK/p"
mprof_run 120 "$WORK/p/t" -q -- "$WORK/fork_pool" "$N" "$K"
expect_eq "exit status" 0 "$RUN_STATUS"
set -- "$WORK"/p/t.*
expect_eq "a trace per worker" "$K" "$#"
FIRST_CHILD=$1

# ---- each worker's figures, from one report of all the traces ----
report_json "$WORK/all.json" --all "$WORK/p/t"
# worker k (k + 1 allocations) inherits N - k - 1 blocks of 32 B and k + 1
# of 1000..1000 + k B, frees k + 2 of them, leaks its k + 1 blocks of 100 B
workers() {
	"$PYTHON" -c 'import json, sys
d = json.load(open(sys.argv[1]))
for r in sorted(d.get("reports", [d]), key=lambda r: r["summary"]["allocations"]):
    if not r["summary"]["inherited"]["seeded"]:
        continue
    s = r["summary"]
    own = [x for x in r["sites"] if x["frames"] and x["frames"][0]["function"] == "worker_leak"]
    inh = [x for x in r["sites"] if x["inherited"]]
    print(s["allocations"] - 1, s["inherited"]["blocks"], s["inherited"]["bytes"],
          s["calls"]["free"], s["unmatched_frees"], s["leaked_blocks"], s["leaked_bytes"],
          own[0]["leaked_blocks"], own[0]["leaked_bytes"], inh[0]["freed"], inh[0]["leaked_blocks"])' "$1"
}
expected() {
	local k=0 inherited
	while [ "$k" -lt "$K" ]; do
		inherited=$((32 * (N - k - 1) + 1000 * (k + 1) + k * (k + 1) / 2))
		echo "$k $N $inherited $((k + 2)) 0 $((N - 1))" \
			"$((inherited - 32 * (k + 1) - (1000 + k) + 100 * (k + 1)))" \
			"$((k + 1)) $((100 * (k + 1))) $((k + 2)) $((N - k - 2))"
		k=$((k + 1))
	done
}
echo "k, inherited blocks and bytes, frees, unmatched, leaked blocks and bytes, worker_leak's leaked blocks and bytes, inherited blocks freed and leaked:"
expect_eq "--all: each worker's inherited blocks, frees of them and leaks" "$(expected)" \
	"$(workers "$WORK/all.json")"
# and as a report of one worker's trace alone has them
report_json "$WORK/one.json" "$FIRST_CHILD"
expect_eq "alone: the first worker's figures" "$(expected | head -n 1)" \
	"$(workers "$WORK/one.json")"
run_cmd 120 text "$MPROF" report -n 0 --all "$WORK/p/t"
expect_eq "--all text: report status" 0 "$RUN_STATUS"
expect_eq "--all text: five workers that inherited $N blocks each" "$K" \
	"$(grep -Ec "^inherited: .* in $N blocks live in the parent at the fork\$" "$RUN_OUT")"

# ---- the parent's trace read once for all the workers ----
if command -v strace >/dev/null 2>&1; then
	# opens_of_parent NAME TRACE...: how many times the analyzer opened
	# the parent's trace for a report of TRACE...
	opens_of_parent() {
		local name=$1
		shift
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			run_cmd 300 "$name" strace -f -qq -e trace=open,openat \
			-o "$WORK/$name.calls" "$MPROF_ANALYZE" report -n 0 "$@"
		grep -cF "\"$WORK/p/t\"" "$WORK/$name.calls"
	}
	ONE=$(opens_of_parent one "$WORK/p/t" "$FIRST_CHILD")
	ALL=$(opens_of_parent all --all "$WORK/p/t")
	echo "opens of the parent's trace: $ONE with one worker, $ALL with $K"
	expect_eq "opens of the parent's trace: as many for $K workers as for one" "$ONE" "$ALL"
else
	echo "note: strace is not installed: the opens of the parent's trace are not counted"
fi
finish
