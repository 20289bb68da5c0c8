#!/bin/bash
# pprof-go.sh - the real client: Debian's `go tool pprof` reads `mprof
# report --format pprof`.  Per sample type, -top's "of X total" is the JSON
# report's total and a known function has its exact value; the default is
# inuse_space; -traces shows the inlined make_record as "(inline)" above
# fill_table; -raw shows the period type and the main program's mapping
# with its build-id; -diff_base compares two profiles.  Offline: no
# toolchain download, no module proxy, HOME, the Go cache and pprof's files
# in the scratch directory.
# Programs and facts: tests/progs/inlined_site.c, tests/progs/leak_count.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
[ -x /usr/bin/go ] || skip "Debian's Go is not installed (/usr/bin/go; apt package golang-go)"
make_work
build_c "$WORK/inlined_site" "$PROGS_DIR/inlined_site.c" -O2
build_c "$WORK/leak_count" "$PROGS_DIR/leak_count.c"
RUN_NAME=inl mprof_run 60 "$WORK/inl.trace" -- "$WORK/inlined_site"
expect_eq "inlined_site: stdout" "records: 6" "$(cat "$RUN_OUT")"
RUN_NAME=lc mprof_run 60 "$WORK/lc.trace" -- "$WORK/leak_count" 7
expect_eq "leak_count: stdout" "leak_count 7" "$(cat "$RUN_OUT")"
for name in inl lc; do
	run_cmd 60 "pprof-$name" "$MPROF" report "$WORK/$name.trace" --format pprof \
		-o "$WORK/$name.pb.gz"
	expect_eq "$name: --format pprof exit status" 0 "$RUN_STATUS"
	report_json "$WORK/$name.json" "$WORK/$name.trace"
done

mkdir -p "$WORK/home" "$WORK/pprof-tmp" || hard_error "cannot create $WORK/home"
# gp NAME PPROF_ARGS...: go tool pprof -symbolize=none, output in $WORK/NAME.out
gp() {
	local name=$1
	shift
	run_cmd 60 "$name" env -u GOFLAGS GOENV=off GOTOOLCHAIN=local GOPROXY=off \
		HOME="$WORK/home" GOCACHE="$WORK/go-cache" PPROF_TMPDIR="$WORK/pprof-tmp" \
		/usr/bin/go tool pprof -symbolize=none "$@"
}

# TYPE:JSON summary field:unit flag, per sample type
TYPES="alloc_objects:allocations: alloc_space:allocated_bytes:-unit=B
inuse_objects:leaked_blocks: inuse_space:leaked_bytes:-unit=B
peak_objects:peak.blocks: peak_space:peak.bytes:-unit=B temporary:temporary:"
for name in inl lc; do
	for t in $TYPES; do
		type=${t%%:*} rest=${t#*:}
		field=${rest%%:*} unit=${rest#*:}
		total=$(q "$WORK/$name.json" summary "$field")
		[ -n "$unit" ] && total=${total}B
		gp "top-$name-$type" -top -sample_index="$type" ${unit:+"$unit"} "$WORK/$name.pb.gz"
		expect_eq "$name $type: pprof exit status" 0 "$RUN_STATUS"
		expect_match "$name $type: pprof names the type" "^Type: $type\$" "$(cat "$RUN_OUT")"
		expect_match "$name $type: pprof's total is the report's ($total)" \
			"^Showing nodes accounting for $total, (100|0)% of $total total\$" "$(cat "$RUN_OUT")"
	done
done

# known functions, exact values (flat column)
gp top-inl-default -top -unit=B "$WORK/inl.pb.gz"
expect_match "default sample type: inuse_space" '^Type: inuse_space$' "$(cat "$RUN_OUT")"
expect_match "make_record (inlined): 24000 B in use" '^ +24000B +[0-9.]+% +[0-9.]+% +24000B +[0-9.]+% +make_record \(inline\)$' \
	"$(cat "$RUN_OUT")"
gp top-inl-allocs -top -sample_index=alloc_objects "$WORK/inl.pb.gz"
expect_match "make_record: 6 allocations" '^ +6 +[0-9.]+% +[0-9.]+% +6 +[0-9.]+% +make_record \(inline\)$' \
	"$(cat "$RUN_OUT")"
gp top-lc-inuse -top -unit=B -sample_index=inuse_space "$WORK/lc.pb.gz"
expect_match "leak_blocks: 7168 B in use" '^ +7168B .* leak_blocks$' "$(cat "$RUN_OUT")"
gp top-lc-temp -top -sample_index=temporary "$WORK/lc.pb.gz"
expect_match "churn: 100 temporary allocations" '^ +100 +100% +100% +100 +100% +churn$' \
	"$(cat "$RUN_OUT")"
gp top-lc-alloc -top -unit=B -sample_index=alloc_space "$WORK/lc.pb.gz"
expect_match "churn: 6400 B allocated" '^ +6400B .* churn$' "$(cat "$RUN_OUT")"

# the inlined frame in -traces, the mapping in -raw
# lines: "$1" and the two after it, spaces squeezed, joined by '|'
three_lines() {
	grep -A2 -E -- "$1" "$RUN_OUT" | sed 's/^ *//' | tr -s ' ' | paste -sd '|'
}
gp traces-inl -traces -unit=B "$WORK/inl.pb.gz"
expect_eq "-traces: make_record (inline) then fill_table then main" \
	"24000B make_record (inline)|fill_table|main" "$(three_lines 'make_record')"
gp raw-inl -raw "$WORK/inl.pb.gz"
BUILD_ID=$(readelf -n "$WORK/inlined_site" | sed -n 's/^ *Build ID: *//p')
expect_match "-raw: period type" '^PeriodType: space bytes$' "$(cat "$RUN_OUT")"
expect_match "-raw: mapping 1 is the program, with its build-id and symbols" \
	"^1: 0x[0-9a-f]+/0x[0-9a-f]+/0x0 $WORK/inlined_site $BUILD_ID \\[FN\\]\\[FL\\]\\[LN\\]\\[IN\\]\$" \
	"$(cat "$RUN_OUT")"
expect_match "-raw: make_record and fill_table in one location" \
	'M=1 make_record [^ ]*inlined_site\.c:[0-9]+ s=0\|fill_table [^ ]*inlined_site\.c:[0-9]+ s=0\|[0-9]+: ' \
	"$(three_lines 'M=1 make_record')"

# two profiles are comparable (the same sample and period types): leak_count
# 7 against leak_count 1 leaks 6 blocks of 1024 bytes more at leak_blocks
RUN_NAME=lc1 mprof_run 60 "$WORK/lc1.trace" -- "$WORK/leak_count" 1
run_cmd 60 pprof-lc1 "$MPROF" report "$WORK/lc1.trace" --format pprof -o "$WORK/lc1.pb.gz"
gp diff-base -top -unit=B -diff_base="$WORK/lc1.pb.gz" "$WORK/lc.pb.gz"
expect_eq "-diff_base: exit status" 0 "$RUN_STATUS"
expect_match "-diff_base: leak_blocks +6144 B" '^ +6144B .* leak_blocks$' "$(cat "$RUN_OUT")"

# pprof's own error is seen: a damaged profile is refused
head -c 100 "$WORK/inl.pb.gz" >"$WORK/cut.pb.gz"
gp top-cut -top "$WORK/cut.pb.gz"
expect_ne "a cut profile: pprof fails" 0 "$RUN_STATUS"
finish
