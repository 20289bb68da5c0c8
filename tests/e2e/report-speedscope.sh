#!/bin/bash
# report-speedscope.sh - `mprof report --format speedscope` of leak_count 5:
# valid by speedscope's own JSON schema (its npm package's
# file-format-schema.json), one sampled profile per metric whose weights
# sum to the JSON report's totals, every site's weight and root-first
# frames equal to the JSON report's (dhat_check.py); --metric picks the
# profile shown first, and adds a blocks metric as a sixth.  speedscope
# itself loading the file: speedscope-viewer.sh.
# Program and facts: tests/progs/leak_count.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/leak_count" "$PROGS_DIR/leak_count.c"
CHECK="$E2E_DIR/dhat_check.py"
mprof_run 60 "$WORK/trace" -- "$WORK/leak_count" 5
expect_eq "exit status" 0 "$RUN_STATUS"
report_json "$WORK/r.json" "$WORK/trace"
SITES=$("$PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["sites_total"])' "$WORK/r.json")

run_cmd 60 ss "$MPROF" report --format speedscope -o "$WORK/leak.speedscope.json" "$WORK/trace"
S="$WORK/leak.speedscope.json"
expect_eq "speedscope: exit status" 0 "$RUN_STATUS"
expect_eq "speedscope: stderr empty" "" "$(cat "$RUN_ERR")"
jd() {
	"$PYTHON" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$1" "$2" 2>&1
}
expect_eq "profiles and their units" \
	"peak bytes:bytes leaked bytes:bytes allocated bytes:bytes allocations:none temporary:none" \
	"$(jd "$S" '" ".join("%s:%s" % (p["name"], p["unit"]) for p in d["profiles"])')"
expect_eq "temporary: churn's 100 allocations, all of them" "100 100" \
	"$(jd "$S" '"%d %d" % (d["profiles"][4]["endValue"], d["profiles"][4]["weights"][0])')"
expect_eq "peak shown first by default" 0 "$(jd "$S" 'd["activeProfileIndex"]')"
expect_eq "leak_blocks' sample, root first, in the leaked profile" "5120 main leak_blocks" \
	"$(jd "$S" '" ".join(str(w) + " " + " ".join(d["shared"]["frames"][x]["name"] for x in s[-2:]) for s, w in zip(d["profiles"][1]["samples"], d["profiles"][1]["weights"]) if d["shared"]["frames"][s[-1]]["name"] == "leak_blocks")')"

SCHEMA="$BROWSER_DIR/node_modules/speedscope/dist/release/file-format-schema.json"
SCHEMA_PY=
for py in "$PYTHON" /usr/bin/python3; do
	if "$py" -c 'import jsonschema' 2>/dev/null; then
		SCHEMA_PY=$py
		break
	fi
done
if [ ! -f "$SCHEMA" ]; then
	echo "skip: the schema check: speedscope's npm package is not installed (tests/install-deps.sh)"
	SCHEMA=
elif [ -z "$SCHEMA_PY" ]; then
	echo "skip: the schema check: python3's jsonschema is not installed (apt package python3-jsonschema)"
	SCHEMA=
fi
run_cmd 60 check "${SCHEMA_PY:-$PYTHON}" "$CHECK" speedscope "$S" "$WORK/r.json" $SCHEMA
cat "$RUN_OUT"
expect_eq "round trip (and schema): no difference from the JSON report" "checked $SITES sites" \
	"$(grep -v '^display ' "$RUN_OUT")"
if [ -n "$SCHEMA" ]; then
	# the schema check can fail: a weight that is not a number
	sed 's/"weights":\[/"weights":["x",/' "$S" >"$WORK/bad.json"
	run_cmd 60 check-bad "$SCHEMA_PY" "$CHECK" speedscope "$WORK/bad.json" "$WORK/r.json" "$SCHEMA"
	expect_match "a weight that is a string: the schema rejects it" '^FAIL schema: ' "$(cat "$RUN_OUT")"
fi

# --metric: the profile shown first; a blocks metric comes as a sixth
run_cmd 60 ss-leaked "$MPROF" report --format speedscope --metric leaked "$WORK/trace"
expect_eq "--metric leaked: shown first" 1 "$(jd "$WORK/ss-leaked.out" 'd["activeProfileIndex"]')"
run_cmd 60 ss-pb "$MPROF" report --format speedscope --metric peak-blocks "$WORK/trace"
expect_eq "--metric peak-blocks: a sixth profile, shown first" "5 peak blocks none 6" \
	"$(jd "$WORK/ss-pb.out" '"%d %s %s %d" % (d["activeProfileIndex"], d["profiles"][5]["name"], d["profiles"][5]["unit"], sum(d["profiles"][5]["weights"]))')"
finish
