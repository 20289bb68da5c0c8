#!/bin/bash
# report-filter.sh - `mprof report --filter-function/--exclude-function`
# keep or drop the sites with a frame whose function matches a glob (the
# totals stay the whole program's; the report says what was left out), and
# `--suppressions FILE` (LeakSanitizer's leak:PATTERN lines) takes known
# leaks out of the leak ranking and the leak total, matching functions,
# source files and modules as LSan does.
# Program and facts: tests/progs/phases.c (three leaking functions:
# phase_one 100 x 1000 B with 40 leaked, phase_two 60 x 2000 B with 30,
# phase_three 30 x 3000 B with 20), run without sleeps.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/phases" "$PROGS_DIR/phases.c"

mprof_run 60 "$WORK/trace" -- "$WORK/phases" 0
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "phases done" "$(cat "$RUN_OUT")"
report_json "$WORK/all.json" "$WORK/trace"
expect_eq "three sites" 3 "$(q "$WORK/all.json" get sites_total)"
expect_eq "no filter key without filters" "no" \
	"$(q "$WORK/all.json" get filter >/dev/null 2>&1 && echo yes || echo no)"

# ---- --filter-function ----
F="$WORK/f.json"
report_json "$F" "$WORK/trace" --filter-function 'phase_t*'
expect_eq "filter phase_t*: sites" 2 "$(q "$F" get sites_total)"
expect_eq "filter phase_t*: phase_one gone" 0 "$(q "$F" sites phase_one)"
expect_site "$F" phase_two 60 120000 30 60000
expect_site "$F" phase_three 30 90000 20 60000
expect_eq "filter: sites before" 3 "$(q "$F" get filter.sites_before)"
expect_eq "filter: left out" "1 100 100000" \
	"$(q "$F" get filter.sites_left_out) $(q "$F" get filter.allocations_left_out) $(q "$F" get filter.allocated_bytes_left_out)"
expect_eq "filter: totals stay the program's" "190 310000 160000" \
	"$(q "$F" summary allocations) $(q "$F" summary allocated_bytes) $(q "$F" summary leaked_bytes)"
expect_eq "filter: no suppressions" "null 0" \
	"$(q "$F" get filter.suppressions) $(q "$F" get filter.suppressed_leaked_bytes)"
run_cmd 60 ftext "$MPROF" report "$WORK/trace" --filter-function 'phase_t*' -n 0
expect_match "filter (text): the header says so" \
	"^filtered:         showing 2 of 3 sites, 210000 B \(205.1 KiB\) of 310000 B \(302.7 KiB\) allocated \(left out: 1 site, 100 allocations\); the totals are the whole program's$" \
	"$(cat "$RUN_OUT")"
expect_match "filter (text): sites" '^sites:            2$' "$(cat "$RUN_OUT")"

# ---- --exclude-function, repeated, and with --filter-function ----
X="$WORK/x.json"
report_json "$X" "$WORK/trace" --exclude-function phase_one --exclude-function 'phase_tw?'
expect_eq "exclude two: sites" 1 "$(q "$X" get sites_total)"
expect_site "$X" phase_three 30 90000 20 60000
expect_eq "exclude two: left out" "2 160" \
	"$(q "$X" get filter.sites_left_out) $(q "$X" get filter.allocations_left_out)"
FX="$WORK/fx.json"
report_json "$FX" "$WORK/trace" --filter-function 'phase_*' --exclude-function phase_two
expect_eq "filter and exclude: sites" 2 "$(q "$FX" get sites_total)"
expect_eq "filter and exclude: phase_two gone" 0 "$(q "$FX" sites phase_two)"
N="$WORK/none.json"
report_json "$N" "$WORK/trace" --filter-function 'no_such_*'
expect_eq "no match: no site" "0 3" "$(q "$N" get sites_total) $(q "$N" get filter.sites_left_out)"
expect_eq "no match: totals stay" 190 "$(q "$N" summary allocations)"

# ---- --suppressions ----
cat >"$WORK/supp" <<'SUPP'
# known leaks
leak:phase_three

   leak:^phase_tw   
SUPP
S="$WORK/s.json"
report_json "$S" "$WORK/trace" --suppressions "$WORK/supp"
expect_eq "suppressed: sites, bytes, blocks" "2 120000 50" \
	"$(q "$S" get filter.suppressed_sites) $(q "$S" get filter.suppressed_leaked_bytes) $(q "$S" get filter.suppressed_leaked_blocks)"
expect_eq "suppressed: the leak total" "40000 40" \
	"$(q "$S" summary leaked_bytes) $(q "$S" summary leaked_blocks)"
expect_site "$S" phase_two 60 120000 0 0
expect_site "$S" phase_three 30 90000 0 0
expect_site "$S" phase_one 100 100000 40 40000
expect_eq "suppressed: sites stay" 3 "$(q "$S" get sites_total)"
run_cmd 60 stext "$MPROF" report "$WORK/trace" --suppressions "$WORK/supp" -n 5
expect_match "suppressed (text): header" \
	"^suppressed:       120000 B \(117.2 KiB\) in 50 blocks at 2 sites \(--suppressions $WORK/supp\): known leaks, not in the leak total or ranking$" \
	"$(cat "$RUN_OUT")"
expect_match "suppressed (text): leak total" '^leaked:           40000 B \(39.1 KiB\) in 40 blocks \(live at exit\)$' \
	"$(cat "$RUN_OUT")"
expect_match "suppressed (text): leak ranking" '^== Leaked \(live at exit\): top 1 of 1 sites$' \
	"$(cat "$RUN_OUT")"

# patterns as LSan matches them: anywhere in a name unless anchored, '*'
supp_bytes() {
	printf '%s\n' "$1" >"$WORK/supp1"
	"$MPROF" report --format json "$WORK/trace" --suppressions "$WORK/supp1" \
		>"$WORK/s1.json" 2>&1 && q "$WORK/s1.json" get filter.suppressed_leaked_bytes
}
expect_eq "leak:three\$ (end anchor)" 60000 "$(supp_bytes 'leak:three$')"
expect_eq "leak:^three (start anchor, no match)" 0 "$(supp_bytes 'leak:^three')"
expect_eq "leak:pha*one (wildcard)" 40000 "$(supp_bytes 'leak:pha*one')"
expect_eq "leak:ase_tw (substring)" 60000 "$(supp_bytes 'leak:ase_tw')"
expect_eq "leak:phases.c (a source file: every site)" 160000 "$(supp_bytes 'leak:phases.c')"
expect_eq "leak:/phases\$ (the program's module: every site)" 160000 "$(supp_bytes 'leak:/phases$')"

# suppressions and a filter together: the leak total is the program's less
# the known leaks, shown or not
report_json "$WORK/sf.json" "$WORK/trace" --suppressions "$WORK/supp" --exclude-function phase_one
expect_eq "suppressed and filtered: leak total" 40000 "$(q "$WORK/sf.json" summary leaked_bytes)"
expect_eq "suppressed and filtered: sites" 2 "$(q "$WORK/sf.json" get sites_total)"

# ---- bad files ----
printf 'leak:phase_one\ninterceptor_via_fun:foo\n' >"$WORK/bad"
run_cmd 60 bad "$MPROF" report "$WORK/trace" --suppressions "$WORK/bad"
expect_eq "other type: exit status" 2 "$RUN_STATUS"
expect_eq "other type: one line naming file and line" \
	"mprof: report: --suppressions: $WORK/bad:2: not a suppression of the form leak:PATTERN" \
	"$(cat "$RUN_ERR")"
printf 'leak:\n' >"$WORK/bad"
run_cmd 60 bad "$MPROF" report "$WORK/trace" --suppressions "$WORK/bad"
expect_eq "empty pattern: exit status" 2 "$RUN_STATUS"
run_cmd 60 missing "$MPROF" report "$WORK/trace" --suppressions "$WORK/no-such-file"
expect_eq "missing file: exit status" 2 "$RUN_STATUS"
expect_eq "missing file: one line" 1 "$(wc -l <"$RUN_ERR")"
mkdir "$WORK/supp-dir"
run_cmd 60 dir "$MPROF" report "$WORK/trace" --suppressions "$WORK/supp-dir"
expect_eq "a directory: exit status" 2 "$RUN_STATUS"
expect_eq "a directory: one line that says why" \
	"mprof: report: --suppressions: cannot read $WORK/supp-dir: Is a directory" "$(cat "$RUN_ERR")"
# a file that is not text ends at once: /dev/zero gave empty lines for ever
# (the report never came), a NUL byte in a file was a line's end
run_cmd 20 zero "$MPROF" report "$WORK/trace" --suppressions /dev/zero
expect_eq "/dev/zero: exit status" 2 "$RUN_STATUS"
expect_eq "/dev/zero: one line that says why" \
	"mprof: report: --suppressions: /dev/zero:1: a NUL byte: not a text file" "$(cat "$RUN_ERR")"
printf '# known\nleak:phase_one\0leak:phase_two\n' >"$WORK/bad"
run_cmd 60 nul "$MPROF" report "$WORK/trace" --suppressions "$WORK/bad"
expect_eq "a NUL byte: exit status" 2 "$RUN_STATUS"
expect_eq "a NUL byte: one line naming file and line" \
	"mprof: report: --suppressions: $WORK/bad:2: a NUL byte: not a text file" "$(cat "$RUN_ERR")"
# a line longer than the reader takes was cut into two, the first a
# pattern of its own
{ printf 'leak:phase_one'; head -c 5000 /dev/zero | tr '\0' x; echo; } >"$WORK/bad"
run_cmd 60 long "$MPROF" report "$WORK/trace" --suppressions "$WORK/bad"
expect_eq "a long line: exit status" 2 "$RUN_STATUS"
expect_eq "a long line: one line naming file and line" \
	"mprof: report: --suppressions: $WORK/bad:1: a line longer than 4095 bytes" "$(cat "$RUN_ERR")"
run_cmd 60 diffs "$MPROF" diff "$WORK/trace" "$WORK/trace" --filter-function x
expect_eq "diff does not take --filter-function" 2 "$RUN_STATUS"

# ---- the exports that sum the kept sites say they were filtered ----
NOTE="filtered (--filter-function, --exclude-function): 2 of 3 sites kept; these sums leave out 1 site with 100 allocations"
run_cmd 60 pprof "$MPROF" report "$WORK/trace" --filter-function 'phase_t*' -f pprof -o "$WORK/f.pb.gz"
expect_eq "pprof: the comment" "$NOTE" \
	"$("$PYTHON" "$E2E_DIR/pprof.py" "$WORK/f.pb.gz" get comments | grep '^filtered')"
run_cmd 60 ss "$MPROF" report "$WORK/trace" --filter-function 'phase_t*' -f speedscope
expect_match "speedscope: the name" "\\[mprof: filtered \\(--filter-function" \
	"$("$PYTHON" -c 'import json, sys; print(json.load(sys.stdin)["name"])' <"$RUN_OUT")"
run_cmd 60 dj "$MPROF" report "$WORK/trace" --filter-function 'phase_t*' -f dhat-json
expect_match "dhat-json: the command" " \\[mprof: filtered \\(--filter-function, --exclude-function\\): 2 of 3 sites kept" \
	"$("$PYTHON" -c 'import json, sys; print(json.load(sys.stdin)["cmd"])' <"$RUN_OUT")"
run_cmd 60 fg "$MPROF" report "$WORK/trace" --filter-function 'phase_t*' -f flamegraph
expect_match "flame graph: the note" "2 of 3 sites kept" "$(cat "$RUN_OUT")"
run_cmd 60 ssall "$MPROF" report "$WORK/trace" -f speedscope
expect_no_match "speedscope, no filter: no note" "mprof: filtered" \
	"$("$PYTHON" -c 'import json, sys; print(json.load(sys.stdin)["name"])' <"$RUN_OUT")"
finish
