#!/bin/bash
# help-docs.sh - `mprof CMD --help`, README.md and man/mprof-CMD.1 list the
# same options: every option `mprof run|report|diff --help` defines is in
# the command's usage in README.md (by either spelling, as "-f|--format"
# where both work) and in its man page (both spellings); every environment
# variable README.md says the program sees is in `mprof run --help` and
# mprof-run(1).  A fresh-clone reader found README's diff usage without
# --alloc-fn and --keep-wrappers, and MPROF_LAUNCHER_TIMENS_NS missing
# from the help.  Every key of a JSON report's summary and quality is in
# the schema comment (analyze/output/json.c) and mprof-report(1).  A fork
# child's sampler seed is worded alike in the help, the man page and README.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work

for cmd in run report diff; do
	"$MPROF" "$cmd" --help >"$WORK/help-$cmd.txt" 2>&1
done
# prints one line per omission: WHERE: WHAT
"$PYTHON" - "$WORK" "$abs_top_srcdir" >"$WORK/missing.txt" <<'PY' || hard_error "cannot compare the docs"
import re, sys
work, top = sys.argv[1], sys.argv[2]
readme = open(top + "/README.md", encoding="utf-8").read()
def roff(path):
    t = open(path, encoding="utf-8").read()
    return re.sub(r"\\f[BIRP]|\\&", "", t.replace("\\-", "-"))
for cmd in ("run", "report", "diff"):
    helptext = open("%s/help-%s.txt" % (work, cmd), encoding="utf-8").read()
    man = roff("%s/man/mprof-%s.1" % (top, cmd))
    # the usage: from "- `mprof CMD " to its closing backquote
    m = re.search(r"^- `mprof %s ([^`]*)`" % cmd, readme, re.M)
    usage = m.group(1) if m else ""
    if not m:
        print("README: no usage of mprof %s" % cmd)
    for short, long in re.findall(r"^ {2,6}(?:(-[a-zA-Z]), )?(--[a-z][a-z0-9-]*)", helptext, re.M):
        if long == "--help":
            continue
        tokens = set(re.findall(r"-{1,2}[a-zA-Z][a-z0-9-]*", usage))
        if long not in tokens and (not short or short not in tokens):
            print("README's usage of mprof %s: %s" % (cmd, long))
        if short and long in tokens and "%s|%s" % (short, long) not in usage:
            print("README's usage of mprof %s: %s without %s" % (cmd, long, short))
        if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(long), man):
            print("mprof-%s.1: %s" % (cmd, long))
        if short and not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(short), man):
            print("mprof-%s.1: %s" % (cmd, short))
# the variables the program sees, as README.md lists them
m = re.search(r"The program sees(.*?)which carry the recording", readme, re.S)
if not m:
    print("README: no list of the variables the program sees")
else:
    helptext = open(work + "/help-run.txt", encoding="utf-8").read()
    man = roff(top + "/man/mprof-run.1")
    for v in sorted(set(re.findall(r"MPROF_[A-Z_]+|LD_PRELOAD", m.group(1)))):
        if v not in helptext:
            print("mprof run --help: %s" % v)
        if v not in man:
            print("mprof-run.1: %s" % v)
PY
expect_eq "options and variables one lists and another lacks" "" "$(cat "$WORK/missing.txt")"
# What mprof does with stdin and stdout is said once, and truly: the help
# said they were "left alone" and, 50 lines on, that mprof "lets go of"
# them when the program ends (cli/std_fds.c closes mprof's own copies).
std_sentences=$(tr '\n' ' ' <"$WORK/help-run.txt" | tr -s ' ' | grep -o '[^.]*stdin[^.]*\.')
expect_eq "run --help: stdin and stdout in one sentence" 1 "$(printf '%s\n' "$std_sentences" | grep -c .)"
expect_match "run --help: that sentence says mprof closes its own copies" \
	"never reads stdin or writes stdout, and closes its own copies of the two when PROGRAM ends" \
	"$std_sentences"

# A fork child's sampler seed is said the one way in the three places: the
# help said "(a fork child N and its fork's number)", which a reader took
# for two seeds; it is the parent's seed mixed with the fork's number.
flat() { tr '\n' ' ' | sed 's/\\-/-/g; s/^\.[A-Z]* //; s/ \.[A-Z]* / /g' | tr -s ' '; }
seed_words="parent's seed mixed with the fork's number \\(1 for the parent's first fork"
expect_match "run --help: a fork child's seed" "$seed_words" "$(flat <"$WORK/help-run.txt")"
expect_match "mprof-run.1: a fork child's seed" "$seed_words" \
	"$(flat <"$abs_top_srcdir/man/mprof-run.1")"
expect_match "README.md: a fork child's seed" "parent's seed mixed with the fork's number: 1 for the parent's first fork" \
	"$(flat <"$abs_top_srcdir/README.md")"

# README.md opens with what mprof is and the quick start, and the test
# suite's text comes after them (it opened with the test suite, 50 lines
# before a reader learnt what mprof is); CI runs README's test command
# exactly (.ci/run).
readme=$abs_top_srcdir/README.md
expect_eq "README: its sections, in order, up to the commands" \
	"## Quick start|## Building and running the tests|## Commands and options" \
	"$(grep '^## ' "$readme" | head -n 3 | paste -sd'|')"
expect_match "README: the paragraph under the title says what mprof is" \
	"^mprof tells you where a native program's heap goes" "$(sed -n 3p "$readme")"
test_cmd=$(sed -n '/^## Building and running the tests/,/^## /p' "$readme" |
	grep -m 1 '^\./tests/install-deps\.sh ')
expect_eq ".ci/run: calls README's test command exactly" 1 \
	"$(grep -cxF -- "$test_cmd || status=\$?" "$abs_top_srcdir/.ci/run")"

# every key of a report's summary and its quality is in the schema, both in
# analyze/output/json.c's comment and mprof-report(1)'s JSON synopsis
# (stop 57 added quality keys; this keeps the next ones documented)
mprof_run 60 "$WORK/t" -q -- /bin/true
report_json "$WORK/r.json" "$WORK/t" || finish
"$PYTHON" - "$WORK/r.json" "$abs_top_srcdir" >"$WORK/undocumented.txt" <<'PY' || hard_error "cannot read the schema"
import json, re, sys
d = json.load(open(sys.argv[1]))
top = sys.argv[2]
schema = open(top + "/analyze/output/json.c", encoding="utf-8").read().split("#define", 1)[0]
man = open(top + "/man/mprof-report.1", encoding="utf-8").read().replace("\\-", "-")
m = re.search(r'"schema": "mprof-report",(.*?)^\.fi', man, re.S | re.M)
synopsis = m.group(1) if m else ""
if not m:
    print("mprof-report.1: no JSON synopsis")
for where, obj in (("summary", d["summary"]), ("summary.quality", d["summary"]["quality"])):
    for key in obj:
        if '"%s"' % key not in schema:
            print("json.c's schema: %s.%s" % (where, key))
        if '"%s"' % key not in synopsis:
            print("mprof-report.1's synopsis: %s.%s" % (where, key))
PY
expect_eq "JSON keys the schema does not document" "" "$(cat "$WORK/undocumented.txt")"
finish
