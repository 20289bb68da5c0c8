#!/bin/bash
# Hard case 11: a dlclose()d plugin's address range is reused by the next
# plugin (same layout, so same return addresses, but other frame sizes);
# each allocation is symbolized against the modules loaded when it happened
# (module epochs), never against what is mapped there later, and unwound
# with the rules of the plugin that runs.
# Program and facts: tests/progs/cases/11-dlclose-address-reuse.c and
# 11-dlclose-address-reuse-plugin.c (built twice: libalpha.so, libomega.so).
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_start 11-dlclose-address-reuse

PLUGIN_SRC="$CASE_SRC/11-dlclose-address-reuse-plugin.c"
build_c "$CASE_DIR/prog" "$CASE_SRC/11-dlclose-address-reuse.c" -ldl
build_c "$CASE_DIR/libalpha.so" "$PLUGIN_SRC" -fPIC -shared \
	-DPLUGIN=alpha -DPLUGIN_BLOCKS=5 -DPLUGIN_BYTES=4000 -DPLUGIN_FRAME_BYTES=4000
build_c "$CASE_DIR/libomega.so" "$PLUGIN_SRC" -fPIC -shared \
	-DPLUGIN=omega -DPLUGIN_BLOCKS=3 -DPLUGIN_BYTES=1500 -DPLUGIN_FRAME_BYTES=200

# The loader usually maps omega where alpha was; when it did not, the run
# did not exercise the reuse: run again (at most 3 times).
want="alpha leaked 5 blocks, omega leaked 3 blocks, same base: yes, same offsets: yes"
for attempt in 1 2 3; do
	T="$WORK/trace$attempt"
	mprof_run "$HANG_LIMIT" "$T" -- "$CASE_DIR/prog" "$CASE_DIR"
	[ "$RUN_STATUS" -eq 0 ] && [ "$(cat "$RUN_OUT")" = "$want" ] && break
	echo "note: attempt $attempt: status $RUN_STATUS, stdout: $(cat "$RUN_OUT")"
done
expect_eq "1. exit status" 0 "$RUN_STATUS"
expect_eq "1. stdout (omega loaded at alpha's address, same layout)" "$want" "$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$T"
R="$WORK/r.json"
source_line "$PLUGIN_SRC" "/* PLUGIN_MALLOC_LINE */"
MALLOC_LINE=$SOURCE_LINE

# check_plugin FACT NAME ALLOCATIONS BYTES: NAME_stash's blocks, all live
# at exit, with file:line and module libNAME.so, called from NAME_run, which
# load_and_run called.
check_plugin() {
	local n=$1 name=$2
	expect_site "$R" "${name}_stash" "$3" "$4" "$3" "$4"
	expect_eq "$n. ${name}_stash frame: module" "lib$name.so" "$(q "$R" frame "${name}_stash" module)"
	expect_eq "$n. ${name}_stash frame: line" "$MALLOC_LINE" "$(q "$R" frame "${name}_stash" line)"
	expect_eq "$n. ${name}_stash is called from ${name}_run" "${name}_run" \
		"$(q "$R" caller "${name}_stash")"
	expect_eq "$n. ${name}_run frame: module" "lib$name.so" "$(q "$R" frame "${name}_run" module)"
	expect_eq "$n. ${name}_run is called from load_and_run" load_and_run \
		"$(q "$R" caller "${name}_run")"
}
check_plugin 2 alpha 5 20000
check_plugin 3 omega 3 4500

expect_eq "4. no stack mixes omega_run and alpha_stash" 0 "$(q "$R" sites 'omega_run&alpha_stash')"
expect_eq "4. no stack mixes alpha_run and omega_stash" 0 "$(q "$R" sites 'alpha_run&omega_stash')"
expect_eq "4. no stack mixes alpha_run and omega_run" 0 "$(q "$R" sites 'alpha_run&omega_run')"
# An unnamed frame in the plugins or the program, or one outside any
# module (empty module), would be the "unknown module" of the bug report.
expect_eq "4. alpha's stacks: no unnamed frame in the plugins, prog or no module" 0 \
	"$(q "$R" unnamed alpha_stash 'lib(alpha|omega)\.so$|/prog$|^$')"
expect_eq "4. omega's stacks: no unnamed frame in the plugins, prog or no module" 0 \
	"$(q "$R" unnamed omega_stash 'lib(alpha|omega)\.so$|/prog$|^$')"
finish
