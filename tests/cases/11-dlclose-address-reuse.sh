#!/bin/bash
# Shared case 11: a dlclose()d plugin's address range is reused by the next
# plugin; each allocation is symbolized against the modules loaded when it
# happened (module epochs), never against what is mapped there later.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_setup 11-dlclose-address-reuse

want="plugin A leaked 6 blocks, plugin B leaked 2 blocks, same base address: yes"
for attempt in 1 2 3; do
	mprof_run 30 "$WORK/trace$attempt" -- "$CASE_DIR/prog"
	T="$WORK/trace$attempt"
	[ "$RUN_STATUS" -eq 0 ] && [ "$(cat "$RUN_OUT")" = "$want" ] && break
	echo "note: attempt $attempt: status $RUN_STATUS, stdout: $(cat "$RUN_OUT")"
done
expect_eq "1. exit status" 0 "$RUN_STATUS"
expect_eq "1. stdout (plugin B reused plugin A's address)" "$want" "$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$T"
R="$WORK/r.json"
expect_site "$R" a_inner 6 36000 6 36000
expect_eq "2. a_inner is called from plugin_a_leak" plugin_a_leak "$(q "$R" caller a_inner)"
expect_eq "2. a_inner frame: module" libplugA.so "$(q "$R" frame a_inner module)"
expect_site "$R" b_inner 2 4000 2 4000
expect_eq "3. b_inner is called from plugin_b_leak" plugin_b_leak "$(q "$R" caller b_inner)"
expect_eq "3. b_inner frame: module" libplugB.so "$(q "$R" frame b_inner module)"
expect_eq "4. no stack mixes plugin_b_leak and a_inner" 0 "$(q "$R" sites 'plugin_b_leak&a_inner')"
expect_eq "4. no stack mixes plugin_a_leak and b_inner" 0 "$(q "$R" sites 'plugin_a_leak&b_inner')"
expect_eq "4. plugin A's stacks: no unnamed frame in the plugin or prog" 0 \
	"$(q "$R" unnamed a_inner 'libplug|/prog$')"
expect_eq "4. plugin B's stacks: no unnamed frame in the plugin or prog" 0 \
	"$(q "$R" unnamed b_inner 'libplug|/prog$')"
finish
