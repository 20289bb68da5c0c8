#!/bin/bash
# real-python3.sh - a stock, stripped interpreter (Debian's python3 with
# libpython linked in): output and exit status unchanged under mprof, with
# PYTHONMALLOC=malloc (every object through malloc) and with the default
# allocator; the report names python's own functions (from .dynsym).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3) || skip "python3 is not installed"
make_work
cat >"$WORK/script.py" <<'PYEOF'
import sys, json
words = {}
for i in range(20000):
    k = "w%d" % (i % 997)
    words[k] = words.get(k, 0) + i
data = json.dumps(sorted(words.items())[:50])
print(len(words), sum(words.values()), len(data))
print("to stderr", file=sys.stderr)
sys.exit(4)
PYEOF

for mode in malloc default; do
	if [ $mode = malloc ]; then export PYTHONMALLOC=malloc; else unset PYTHONMALLOC; fi
	run_cmd 60 "native-$mode" "$PY" "$WORK/script.py"
	expect_eq "$mode: native exit status" 4 "$RUN_STATUS"
	RUN_NAME="mprof-$mode" mprof_run 120 "$WORK/trace-$mode" -- "$PY" "$WORK/script.py"
	expect_eq "$mode: exit status unchanged" 4 "$RUN_STATUS"
	expect_file_eq "$mode: stdout unchanged" "$WORK/native-$mode.out" "$WORK/mprof-$mode.out"
	program_stderr "$WORK/mprof-$mode.err" >"$WORK/mprof-$mode.progerr"
	expect_file_eq "$mode: stderr unchanged" "$WORK/native-$mode.err" "$WORK/mprof-$mode.progerr"
	report_json "$WORK/r-$mode.json" "$WORK/trace-$mode" || continue
	expect_range "$mode: sites with a frame named Py*/_Py* (from .dynsym)" 1 10000000 \
		"$(q "$WORK/r-$mode.json" sites-re '^_?Py[A-Za-z]')"
	expect_range "$mode: summary: allocations" 1000 1000000000 "$(q "$WORK/r-$mode.json" summary allocations)"
	expect_eq "$mode: summary: unmatched frees" 0 "$(q "$WORK/r-$mode.json" summary unmatched_frees)"
	expect_eq "$mode: runtime with a heap of its own" Python \
		"$(q "$WORK/r-$mode.json" summary own_heap_runtime)"
done
unset PYTHONMALLOC
# the trace cannot tell pymalloc from PYTHONMALLOC=malloc: the note says so
expect_match "the text note on Python's heap names PYTHONMALLOC=malloc" \
	'^note: +Python manages a heap of its own \(unless it runs with PYTHONMALLOC=malloc\);' \
	"$("$MPROF" report -n 0 "$WORK/trace-malloc" 2>&1)"
# -n bounds the JSON report: the sites among the top 2 of one of 5 rankings
if report_json "$WORK/top2.json" "$WORK/trace-default" -n 2; then
	expect_eq "-n 2: sites_total is every site" "$(q "$WORK/r-default.json" len sites)" \
		"$(q "$WORK/top2.json" get sites_total)"
	expect_range "-n 2: sites shown" 2 10 "$(q "$WORK/top2.json" len sites)"
	expect_eq "-n 2: sites_shown" "$(q "$WORK/top2.json" len sites)" \
		"$(q "$WORK/top2.json" get sites_shown)"
	expect_eq "-n 2: the site with most bytes comes first" \
		"$(q "$WORK/r-default.json" get sites.0.allocated_bytes)" \
		"$(q "$WORK/top2.json" get sites.0.allocated_bytes)"
fi
finish
