#!/bin/bash
# process-tree.sh - a run that makes several traces ends with a table of its
# processes (program, pid, allocations, peak RSS, trace), most allocations
# first, and names the trace with the most allocations; `mprof report --all
# FIRST` (and a glob) prints the overview of the same traces before their
# reports.  The program is a wrapper script, as pyenv's shim is: the table
# finds the real program without knowing about wrappers.
# Programs and facts: tests/progs/tree_worker.c (exactly N allocations).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/tree_worker" "$PROGS_DIR/tree_worker.c"
mkdir "$WORK/a" "$WORK/b"

# A shell that runs the real program twice as its children, then works
# itself (its own allocations are whatever the shell makes).
cat >"$WORK/wrap.sh" <<WRAP
#!/bin/sh
"$WORK/tree_worker" 3000
"$WORK/tree_worker" 2000
i=0
while [ \$i -lt 20 ]; do i=\$((i + 1)); v="\$v.\$i"; done
WRAP
chmod +x "$WORK/wrap.sh"
T="$WORK/a/trace"
mprof_run 60 "$T" -- "$WORK/wrap.sh"
expect_eq "1. exit status" 0 "$RUN_STATUS"
ERR=$(cat "$RUN_ERR")
# table lines: "mprof:   PROGRAM PID ALLOCATIONS PEAK_RSS TRACE", where
# PEAK_RSS is "1.8 MiB" or "-"
row() { grep -E "^mprof:   .*tree_worker $1 +[0-9]+ +[0-9]+ " "$RUN_ERR"; }
allocs() { sed -E 's/.* ([0-9]+) +([0-9]+) +(-|[0-9.]+ [KMGT]iB) +[^ ]+$/\2/'; }
expect_eq "2. one table line for 'tree_worker 3000'" 1 "$(row 3000 | wc -l)"
expect_eq "2. one table line for 'tree_worker 2000'" 1 "$(row 2000 | wc -l)"
expect_eq "3. exact allocations of the first child" 3000 "$(row 3000 | allocs)"
expect_eq "3. exact allocations of the second child" 2000 "$(row 2000 | allocs)"
T3000=$(row 3000 | awk '{print $NF}')
T2000=$(row 2000 | awk '{print $NF}')
expect_match "4. its trace is FILE.PID" "^$T\.[0-9]+$" "$T3000"
expect_eq "5. header, then most allocations first" \
	"program pid allocations peak RSS trace|$T3000|$T2000" \
	"$(sed -n 's/^mprof:   //p' "$RUN_ERR" | head -3 | awk 'NR == 1 {$1 = $1; print; next} {print $NF}' | paste -sd '|')"
# The program is named in full, or without its folder when the line would be
# too long (how long depends on where the suite runs).
expect_match "6. the trace with the most allocations is named" \
	"^mprof: most allocations: $T3000 \(($WORK/)?tree_worker 3000\)\$" \
	"$(grep '^mprof: most allocations:' "$RUN_ERR")"
expect_eq "7. one line per trace" 3 "$(ls "$WORK/a" | wc -l)"
expect_eq "7. three processes recorded" "mprof: 3 processes recorded, most allocations first:" \
	"$(grep 'processes recorded' "$RUN_ERR")"
expect_match "8. the final hint says --all" "view them all with: $MPROF_HINT report --all $T\$" "$ERR"
# The wrapper's own row: the launcher's count is the report's.
wrap_count=$(grep -E "^mprof:   .*wrap\.sh +[0-9]+ +[0-9]+ .* $T\$" "$RUN_ERR" | allocs)
report_json "$WORK/wrap.json" "$T"
expect_eq "9. the wrapper's allocations in the table = its report's" \
	"$(q "$WORK/wrap.json" summary allocations)" "$wrap_count"

# mprof report --all FIRST: the overview, then the three reports.
run_cmd 60 all "$MPROF" report --all -n 1 "$T"
expect_eq "10. report --all: exit status" 0 "$RUN_STATUS"
expect_eq "11. overview heading" "mprof report: 3 traces, most allocations first" \
	"$(head -1 "$RUN_OUT")"
# the heap peak is named so, unlike the peak RSS of mprof run's table
expect_eq "11. overview columns" "program pid status allocations heap peak leaked trace" \
	"$(sed -n 2p "$RUN_OUT" | awk '{$1 = $1; print}')"
ov_row() { sed -n 3,5p "$RUN_OUT" | grep -E "tree_worker $1 "; }
expect_eq "12. overview row: status, allocations, trace" "exit 0 3000 $T3000" \
	"$(ov_row 3000 | awk '{print $(NF-7), $(NF-6), $(NF-5), $NF}')"
expect_eq "12. overview row of the second child" "exit 0 2000 $T2000" \
	"$(ov_row 2000 | awk '{print $(NF-7), $(NF-6), $(NF-5), $NF}')"
expect_eq "13. overview: most allocations first" "$T3000" "$(sed -n 3p "$RUN_OUT" | awk '{print $NF}')"
expect_match "14. overview names the trace with the most allocations" \
	"^most allocations: $T3000 \(($WORK/)?tree_worker 3000\)\$" "$(sed -n 6p "$RUN_OUT")"
expect_eq "15. then the three reports, the first trace first" \
	"$T|$(ls "$WORK/a" | sort -V | sed -n '2,3s|^|'"$WORK/a/"'|p' | paste -sd '|')" \
	"$(sed -n 's/^mprof report: \(.*\) (exact.*/\1/p' "$RUN_OUT" | paste -sd '|')"

# The same traces through a glob, as JSON (schema mprof-report-set).
report_json "$WORK/set.json" "$WORK/a/trace*"
expect_eq "16. json: schema" mprof-report-set "$(q "$WORK/set.json" get schema)"
rv=$(schema_version OUTPUT_REPORT_SCHEMA_VERSION)
expect_eq "16. json: the schema version of the set and of each report" \
	"$(schema_version OUTPUT_REPORT_SET_SCHEMA_VERSION) $rv $rv $rv" \
	"$(for k in schema_version reports.0.schema_version reports.1.schema_version \
		reports.2.schema_version; do q "$WORK/set.json" get $k; done | paste -sd ' ')"
expect_eq "16. json: three processes, three reports" "3 3" \
	"$(q "$WORK/set.json" len processes) $(q "$WORK/set.json" len reports)"
expect_eq "17. json: most allocations first" "$T3000 3000 0 48000 48032" \
	"$(for k in trace allocations exit_status leaked_bytes peak_bytes; do q "$WORK/set.json" get processes.0.$k; done | paste -sd ' ')"
expect_eq "17. json: most_allocations" "$T3000" "$(q "$WORK/set.json" get most_allocations)"

# exec "$@": the wrapper's image and the program's share the pid; the
# program's trace is FILE.PID and has the most allocations.
printf '#!/bin/sh\nexec "$@"\n' >"$WORK/exec-wrap.sh"
chmod +x "$WORK/exec-wrap.sh"
RUN_NAME=exec mprof_run 60 "$WORK/b/trace" -- "$WORK/exec-wrap.sh" "$WORK/tree_worker" 1500
expect_eq "18. exec wrapper: exit status" 0 "$RUN_STATUS"
expect_match "19. exec wrapper: the program's trace has the most allocations" \
	"^mprof: most allocations: $WORK/b/trace\.[0-9]+ \(($WORK/)?tree_worker 1500\)\$" "$(cat "$RUN_ERR")"
expect_eq "19. exec wrapper: its allocations" 1500 \
	"$(grep -E "^mprof:   .*tree_worker 1500 " "$RUN_ERR" | allocs)"
# the wrapper's image ended in exec: what it held then is no leak, and the
# overview marks its figure so
run_cmd 60 exec-all "$MPROF" report --all "$WORK/b/trace"
expect_eq "19. exec wrapper: --all marks the image that executed" 1 \
	"$(grep -cE '^sh .* exec .*\+ '"$WORK"'/b/trace$' "$RUN_OUT")"
expect_eq "19. exec wrapper: and says what the mark means" 1 \
	"$(grep -c '^(+ live when the process executed another program' "$RUN_OUT")"
# A sampled run: the table's counts are sums of the samples' weights, and
# its first line says they are estimates.
mkdir "$WORK/c"
RUN_NAME=sampled mprof_run 60 "$WORK/c/trace" --sampled -- "$WORK/wrap.sh"
expect_eq "20. sampled: exit status" 0 "$RUN_STATUS"
expect_eq "20. sampled: the table says its counts are estimates" \
	"mprof: 3 processes recorded, most samples first (sampled: the allocation counts are estimates):" \
	"$(grep 'processes recorded' "$RUN_ERR")"
# Ranked by samples, not by estimated counts: at 16 KiB, 20,000 blocks of
# 8 bytes give about 10 samples weighing 2,048 each (an estimate of 20,000
# +- 6,400), 1,000 blocks of 16 KiB about 632 samples weighing 1.58 (1,000
# +- 25).  A sample of a tiny block weighs so much that estimated counts
# rank a process with one sample above the one that does the work.
mkdir "$WORK/s"
RUN_NAME=rank mprof_run 60 "$WORK/s/trace" --sample-rate 16K -- \
	sh -c "\"$WORK/tree_worker\" 20000 8; \"$WORK/tree_worker\" 1000 16384"
expect_eq "22. ranked: exit status" 0 "$RUN_STATUS"
expect_match "22. ranked: the process with the most samples is named" \
	"^mprof: most samples: $WORK/s/trace\.[0-9]+ \(($WORK/)?tree_worker 1000 16384\)\$" \
	"$(grep '^mprof: most samples:' "$RUN_ERR")"
named=$(sed -n 's/^mprof: most samples: \([^ ]*\) .*/\1/p' "$RUN_ERR")
expect_eq "22. ranked: it is the table's first row" "$named" \
	"$(grep -A2 'processes recorded' "$RUN_ERR" | tail -1 | awk '{print $NF}')"
run_cmd 60 rank-all "$MPROF" report --all "$WORK"/s/trace*
expect_eq "22. ranked: --all heading" \
	"mprof report: 3 traces, most samples first (sampled: the allocation counts are estimates)" \
	"$(sed -n 1p "$RUN_OUT")"
expect_match "22. ranked: --all names it" "^most samples: .*\(($WORK/)?tree_worker 1000 16384\)\$" \
	"$(grep '^most samples:' "$RUN_OUT")"
# A command line with a newline inside a quoted argument: its row is one
# line, the newline written as \x0a, as the reports write it.
mkdir "$WORK/d"
RUN_NAME=nl mprof_run 60 "$WORK/d/trace" -- sh -c "x=1
\"$WORK/tree_worker\" 10"
expect_eq "21. newline: exit status" 0 "$RUN_STATUS"
expect_eq "21. newline: the shell's row is one line" 1 \
	"$(grep -c "^mprof:   sh -c 'x=1\\\\x0a" "$RUN_ERR")"
# A program named in UTF-8 (75 characters in 145 bytes): the table counts
# columns in characters, so its row is cut to 59 characters and "…" and
# lines up with the others (counted in bytes, it was cut to 28 "ä" and the
# rest of the row came 28 columns early).  The same in the overview, cut to
# 40 columns.
mkdir "$WORK/u"
A70=$(printf 'ä%.0s' $(seq 70))
cp "$WORK/tree_worker" "$WORK/u/$A70"
(cd "$WORK/u" && COLUMNS=300 RUN_NAME=utf8 mprof_run 60 "$WORK/u/trace" -- \
	sh -c "./$A70 20; ./$A70 30")
RUN_ERR=$WORK/utf8.err
expect_eq "23. UTF-8: the rows, cut by characters" \
	"'./$(printf 'ä%.0s' $(seq 56))… 30|'./$(printf 'ä%.0s' $(seq 56))… 20" \
	"$(sed -n -E 's/^mprof:   (.*[^ ]) +[0-9]+ +(20|30) +.*/\1 \2/p' "$RUN_ERR" | paste -sd '|')"
# the table's lines, header included, the same characters up to the trace
lined_up() { "$PYTHON" -c 'import sys
lines = [l for l in open(sys.argv[1], encoding="utf-8").read().splitlines() if l.startswith(sys.argv[2])]
print(len(lines), len({len(l) - len(l.split(" ")[-1]) for l in lines}))' "$@"; }
expect_eq "23. UTF-8: 4 lines of the table, lined up" "4 1" "$(lined_up "$RUN_ERR" "mprof:   ")"
run_cmd 60 utf8-all "$MPROF" report --all "$WORK/u/trace"
expect_eq "23. UTF-8: --all's rows, cut by characters" \
	"'./$(printf 'ä%.0s' $(seq 36))… 30|'./$(printf 'ä%.0s' $(seq 36))… 20" \
	"$(sed -n -E 's/^(.*[^ ]) +[0-9]+  exit 0 +(20|30) .*/\1 \2/p' "$RUN_OUT" | paste -sd '|')"
sed -n 2,5p "$RUN_OUT" >"$WORK/utf8-all.table"
expect_eq "23. UTF-8: --all's header and 3 rows, lined up" "4 1" "$(lined_up "$WORK/utf8-all.table" "")"
finish
