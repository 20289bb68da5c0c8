#!/bin/bash
# report-pprof.sh - `mprof report --format pprof` read back by a decoder of
# our own (tests/e2e/pprof.py: gzip, then protobuf by hand): every site of
# `--format json` of the same trace is one sample with the same stack and
# the same seven values, and the totals are the report's, exactly; Go's heap
# sample types and units, period type space/bytes, period 1, default sample
# type inuse_space or --metric's; the inlined make_record is a line of the
# same location as fill_table, first; the main program's mapping carries
# its build-id and holds the addresses of its locations; time and duration
# from the trace; the same bytes on stdout and with -o.
# A C++ name of 2000 characters stays whole; a fork child's inherited blocks
# are one location "[inherited at fork]".
# Programs and facts: tests/progs/inlined_site.c, tests/progs/leak_count.c,
# tests/progs/long_name.cpp, tests/progs/fork_exec.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/inlined_site" "$PROGS_DIR/inlined_site.c" -O2
build_c "$WORK/leak_count" "$PROGS_DIR/leak_count.c"

RUN_NAME=inl mprof_run 60 "$WORK/inl.trace" -- "$WORK/inlined_site"
expect_eq "inlined_site: stdout" "records: 6" "$(cat "$RUN_OUT")"
RUN_NAME=lc mprof_run 60 "$WORK/lc.trace" -- "$WORK/leak_count" 7
expect_eq "leak_count: stdout" "leak_count 7" "$(cat "$RUN_OUT")"

# pp PROFILE COMMAND ARGS...: tests/e2e/pprof.py
pp() {
	"$PYTHON" "$E2E_DIR/pprof.py" "$@" 2>&1
}

for name in inl lc; do
	P="$WORK/$name.pb.gz"
	run_cmd 60 "pprof-$name" "$MPROF" report "$WORK/$name.trace" --format pprof -o "$P"
	expect_eq "$name: exit status" 0 "$RUN_STATUS"
	expect_eq "$name: nothing on stderr" "" "$(cat "$RUN_ERR")"
	expect_eq "$name: nothing on stdout with -o" "" "$(cat "$RUN_OUT")"
	expect_eq "$name: gzip" "1f8b" "$(head -c 2 "$P" | od -An -tx1 | tr -d ' \n')"
	expect_eq "$name: well formed" ok "$(pp "$P" check)"
	report_json "$WORK/$name.json" "$WORK/$name.trace"
	expect_eq "$name: every site one sample with its stack and values; totals exact" \
		"ok $(q "$WORK/$name.json" get sites_total) samples" "$(pp "$P" compare "$WORK/$name.json")"
	expect_eq "$name: every address inside its mapping" ok "$(pp "$P" addresses)"
	expect_eq "$name: time_nanos is the start of the trace" \
		"$(q "$WORK/$name.json" summary meta.start_time_unix_ns)" "$(pp "$P" get time_nanos)"
	expect_eq "$name: duration_nanos is the run time" \
		"$(q "$WORK/$name.json" summary run_time_ns)" "$(pp "$P" get duration_nanos)"
	run_cmd 60 "stdout-$name" "$MPROF" report "$WORK/$name.trace" --format pprof
	expect_eq "$name: the same bytes on stdout" "$(sha256sum <"$P")" "$(sha256sum <"$RUN_OUT")"
done

# the comparison can fail: leak_count's profile against inlined_site's report
expect_match "compare tells another report apart" '^site not in the profile' \
	"$(pp "$WORK/lc.pb.gz" compare "$WORK/inl.json")"

P="$WORK/inl.pb.gz"
expect_eq "sample types: Go's four, then peak and temporary" \
	"alloc_objects/count alloc_space/bytes inuse_objects/count inuse_space/bytes peak_objects/count peak_space/bytes temporary/count" \
	"$(pp "$P" types)"
expect_eq "period type" space/bytes "$(pp "$P" get period_type)"
expect_eq "period: exact counts" 1 "$(pp "$P" get period)"
expect_eq "default sample type without --metric" inuse_space "$(pp "$P" get default)"
expect_match "comment: inuse is live at exit" \
	"inuse_objects, inuse_space: blocks live at the program's exit \(leaked\)" \
	"$(pp "$P" get comments)"
expect_match "make_record, inlined into fill_table, one location: 24000 bytes in use" \
	'^24000\|make_record\+inline;fill_table;main;' "$(pp "$P" stacks)"
BUILD_ID=$(readelf -n "$WORK/inlined_site" | sed -n 's/^ *Build ID: *//p')
expect_match "the main program has a build-id" '^[0-9a-f]{40}$' "$BUILD_ID"
expect_match "mapping 1: the main program, its build-id, with functions" \
	"^$WORK/inlined_site $BUILD_ID [0-9a-f]+ [0-9a-f]+ 1\$" "$(pp "$P" mappings | head -n 1)"

# --metric chooses the default sample type
for pair in peak:peak_space leaked:inuse_space allocated:alloc_space \
	allocations:alloc_objects temporary:temporary peak-blocks:peak_objects \
	leaked-blocks:inuse_objects; do
	run_cmd 60 "metric-${pair%%:*}" "$MPROF" report "$WORK/lc.trace" --format pprof \
		--metric "${pair%%:*}" -o "$WORK/m.pb.gz"
	expect_eq "--metric ${pair%%:*}: default sample type" "${pair#*:}" \
		"$(pp "$WORK/m.pb.gz" get default)"
done
P="$WORK/lc.pb.gz"
run_cmd 60 metric-temporary "$MPROF" report "$WORK/lc.trace" --format pprof --metric temporary \
	-o "$WORK/t.pb.gz"
expect_match "churn: 100 temporary allocations" '^100\|churn;main;' "$(pp "$WORK/t.pb.gz" stacks)"
expect_match "leak_blocks: 7168 bytes in use" '^7168\|leak_blocks;main;' "$(pp "$P" stacks)"
expect_eq "leak_blocks: the whole stack is one sample" 1 "$(pp "$P" stacks | grep -c 'leak_blocks')"

# a function name of 2000 characters stays whole (C++ templates)
build_cxx "$WORK/long_name" "$PROGS_DIR/long_name.cpp"
RUN_NAME=ln mprof_run 60 "$WORK/ln.trace" -- "$WORK/long_name"
expect_eq "long_name: stdout" "kept 3" "$(cat "$RUN_OUT")"
run_cmd 60 pprof-ln "$MPROF" report "$WORK/ln.trace" --format pprof -o "$WORK/ln.pb.gz"
report_json "$WORK/ln.json" "$WORK/ln.trace"
expect_eq "long_name: every site one sample with its stack and values" \
	"ok $(q "$WORK/ln.json" get sites_total) samples" "$(pp "$WORK/ln.pb.gz" compare "$WORK/ln.json")"
LONG=$(pp "$WORK/ln.pb.gz" stacks | sed -n 's/^144|\(void\* keep_one<Node<Node<[^;]*\);main;.*/\1/p')
expect_range "long_name: keep_one's whole name (characters)" 1001 100000 "${#LONG}"

# a fork child's blocks inherited from its parent: one location, no mapping
build_c "$WORK/fork_exec" "$PROGS_DIR/fork_exec.c"
RUN_NAME=fe mprof_run 60 "$WORK/fe.trace" -- "$WORK/fork_exec"
FORK_PID=$(sed -n 's/^fork child \([0-9]*\) status.*/\1/p' "$RUN_OUT")
expect_match "fork_exec: the fork child's pid" '^[0-9]+$' "$FORK_PID"
run_cmd 60 pprof-fork "$MPROF" report "$WORK/fe.trace.$FORK_PID" --format pprof -o "$WORK/fork.pb.gz"
report_json "$WORK/fork.json" "$WORK/fe.trace.$FORK_PID"
expect_eq "fork child: every site one sample with its stack and values" \
	"ok $(q "$WORK/fork.json" get sites_total) samples" \
	"$(pp "$WORK/fork.pb.gz" compare "$WORK/fork.json")"
expect_eq "fork child: the parent's 1000 bytes live at the fork, inherited" "1000|[inherited at fork]" \
	"$(pp "$WORK/fork.pb.gz" stacks | grep -F '[inherited at fork]')"

# one trace only
run_cmd 60 two "$MPROF" report "$WORK/inl.trace" "$WORK/lc.trace" --format pprof -o "$WORK/two.pb.gz"
expect_eq "two traces: usage error" 2 "$RUN_STATUS"
expect_match "two traces: says why" 'format pprof takes one trace' "$(cat "$RUN_ERR")"
finish
