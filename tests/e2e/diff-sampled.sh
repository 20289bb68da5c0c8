#!/bin/bash
# diff-sampled.sh - `mprof diff` of an exact trace and a sampled one: a
# site that a sampled side lacks is counted and marked "not in B's samples"
# (or A's), never "vanished" or "new" (sampling misses sites that allocate
# little: an exact and a sampled run of a node program called 12363 of
# 12455 sites vanished); the html page's site counts and badges say the
# same (headless chromium).  The sampled run uses a 1 MiB rate on a program
# allocating under 8 KiB in all, so it samples nothing, whatever the seed.
# Program and facts: tests/progs/diff_versions.c (version A: 4 sites
# with the stdout buffer; 81 allocations).
source "$(dirname "$0")/lib.sh"
require_mprof
require_browser
make_work
build_c "$WORK/prog" "$PROGS_DIR/diff_versions.c"

RUN_NAME=ex mprof_run 60 "$WORK/exact" -- "$WORK/prog"
expect_eq "exact: stdout" "diff_versions A" "$(cat "$RUN_OUT")"
RUN_NAME=sa mprof_run 60 "$WORK/sampled" --sample-rate 1048576 --sample-seed 3 -- "$WORK/prog"
expect_eq "sampled: stdout" "diff_versions A" "$(cat "$RUN_OUT")"
expect_eq "exact: 4 sites, 81 allocations" "4 81" \
	"$(json_eval <("$MPROF" report --format json "$WORK/exact") \
		'"%d %d" % (len(d["sites"]), d["summary"]["allocations"])')"

# ---- text: B sampled, then A sampled ----
run_cmd 60 t "$MPROF" diff "$WORK/exact" "$WORK/sampled"
expect_eq "text, B sampled: exit status" 0 "$RUN_STATUS"
expect_eq "text, B sampled: the sites line" \
	"sites:            0 changed, 0 new, 4 only in A (not in B's samples: B is sampled, so not known to have vanished), 0 same (4 in A, 0 in B)" \
	"$(grep '^sites:' "$WORK/t.out")"
expect_eq "text, B sampled: no entry marked vanished" 0 "$(grep -c '^#[0-9]*  vanished' "$WORK/t.out")"
expect_eq "text, B sampled: 2 shrunk entries marked not in B's samples" 2 \
	"$(grep -c "^#[0-9]*  not in B's samples (only in A: site [0-9]*)$" "$WORK/t.out")"
run_cmd 60 r "$MPROF" diff "$WORK/sampled" "$WORK/exact"
expect_eq "text, A sampled: the sites line" \
	"sites:            0 changed, 4 only in B (not in A's samples: A is sampled, so not known to be new), 0 vanished, 0 same (0 in A, 4 in B)" \
	"$(grep '^sites:' "$WORK/r.out")"
expect_eq "text, A sampled: no entry marked new" 0 "$(grep -c '^#[0-9]*  new' "$WORK/r.out")"

# ---- JSON ----
run_cmd 60 j "$MPROF" diff --format json "$WORK/exact" "$WORK/sampled"
expect_eq "json, B sampled: counts" "0 0 4 0 4" \
	"$(json_eval "$WORK/j.out" '" ".join(str(d["counts"][k]) for k in ["changed", "added", "removed", "same", "not_sampled"])')"
expect_eq "json, B sampled: every removed site not_sampled" "removed True 4" \
	"$(json_eval "$WORK/j.out" '" ".join(sorted(set("%s %s" % (s["status"], s["not_sampled"]) for s in d["sites"]))) + " %d" % len(d["sites"])')"
run_cmd 60 e "$MPROF" diff --format json "$WORK/exact" "$WORK/exact"
expect_eq "json, both exact: counts, none not_sampled" "0 0 0 4 0" \
	"$(json_eval "$WORK/e.out" '" ".join(str(d["counts"][k]) for k in ["changed", "added", "removed", "same", "not_sampled"])')"

# ---- html: the page says what the text says (it called them new and vanished) ----
run_cmd 60 h "$MPROF" diff --format html -o "$WORK/b.html" "$WORK/exact" "$WORK/sampled"
expect_eq "html, B sampled: exit status" 0 "$RUN_STATUS"
run_cmd 120 hb node "$BROWSER_DIR/diff-check.mjs" sites "$WORK/b.html" allocated
cat "$RUN_OUT" "$RUN_ERR"
val() { grep "^$1=" "$RUN_OUT" | head -1 | cut -d= -f2-; }
expect_eq "html, B sampled: the site counts" \
	"sites: 0 changed, 0 new (only in B), 4 only in A (not in B's samples: B is sampled, so not known to have vanished); the others are the same." \
	"$(val site_counts)"
expect_eq "html, B sampled: the 4 sites that shrank in allocated marked not in B's samples" "not in B's samples 4" \
	"$(val badges) $(val badge_count)"
expect_eq "html, B sampled: no console error, page error or request" 0 "$(val problems)"
run_cmd 60 h2 "$MPROF" diff --format html -o "$WORK/a.html" "$WORK/sampled" "$WORK/exact"
run_cmd 120 ha node "$BROWSER_DIR/diff-check.mjs" sites "$WORK/a.html" allocated
cat "$RUN_OUT" "$RUN_ERR"
expect_eq "html, A sampled: the site counts" \
	"sites: 0 changed, 4 only in B (not in A's samples: A is sampled, so not known to be new), 0 vanished (only in A); the others are the same." \
	"$(val site_counts)"
expect_eq "html, A sampled: the 4 sites that grew in allocated marked not in A's samples" "not in A's samples 4" \
	"$(val badges) $(val badge_count)"
finish
