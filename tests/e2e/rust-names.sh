#!/bin/bash
# rust-names.sh - Rust frames read as their source names, in both manglings:
# v0 ("_RNvCs..._10rust_names11make_buffer") and legacy
# ("_ZN10rust_names11make_buffer17h<hash>E") become rust_names::make_buffer,
# with no hash and no "$LT$"-style escapes; the frames of Rust's allocation
# layers (alloc::alloc, RawVec) are dropped as allocator wrappers, kept with
# --keep-wrappers; and the site's file:line is the Rust source line.
# Program and facts: tests/progs/rust_names.rs.  Needs rustc (Debian's
# rustc package; $RUSTC picks another); without libiberty (configure
# --without-libiberty) Rust names are not demangled and the test skips.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
grep -q '^#define HAVE_LIBIBERTY 1' "$abs_top_builddir/config.h" ||
	skip "mprof was configured --without-libiberty: Rust names stay mangled"
if [ -z "${RUSTC:-}" ]; then
	RUSTC=rustc
	[ -x /usr/bin/rustc ] && RUSTC=/usr/bin/rustc # Debian's, as on CI
fi
command -v "$RUSTC" >/dev/null 2>&1 || skip "rustc missing (Debian package rustc)"
make_work
SRC="$PROGS_DIR/rust_names.rs"
source_line "$SRC" "// site: make_buffer"
BUFFER_LINE=$SOURCE_LINE
source_line "$SRC" "// site: make_filled"
FILLED_LINE=$SOURCE_LINE

# check_mangling NAME RUSTC_FLAGS... : builds, runs and checks one build.
check_mangling() {
	local name=$1 exe="$WORK/rust_names_$1" R="$WORK/$1.json" pool filled
	shift
	"$RUSTC" -g -C opt-level=1 "$@" -o "$exe" "$SRC" >"$WORK/build.log" 2>&1 ||
		{ cat "$WORK/build.log"; hard_error "cannot compile $SRC ($name)"; }
	mprof_run 60 "$WORK/$name.trace" -- "$exe"
	expect_eq "$name: exit status" 0 "$RUN_STATUS"
	expect_eq "$name: stdout" "rust names done 5 4096 300 100" "$(cat "$RUN_OUT")"
	report_json "$R" "$WORK/$name.trace"

	expect_eq "$name: make_buffer allocations" 2 "$(q "$R" sum allocations rust_names::make_buffer)"
	expect_eq "$name: make_buffer bytes" 4196 "$(q "$R" sum allocated_bytes rust_names::make_buffer)"
	expect_eq "$name: make_buffer file" rust_names.rs "$(q "$R" frame rust_names::make_buffer file)"
	expect_eq "$name: make_buffer line" "$BUFFER_LINE" "$(q "$R" frame rust_names::make_buffer line)"
	if [ "$name" = v0 ]; then
		pool='<rust_names::Pool>::add_block'
		filled='rust_names::make_filled::<u64>'
	else
		pool='rust_names::Pool::add_block'
		filled='rust_names::make_filled'
	fi
	expect_eq "$name: $pool allocations" 5 "$(q "$R" sum allocations "$pool")"
	expect_eq "$name: $pool bytes" 5010 "$(q "$R" sum allocated_bytes "$pool")"
	expect_eq "$name: $filled bytes" 2400 "$(q "$R" sum allocated_bytes "$filled")"
	expect_eq "$name: $filled line" "$FILLED_LINE" "$(q "$R" frame "$filled" line)"
	expect_eq "$name: frames still mangled" 0 "$(q "$R" sites-re '^_R|^_ZN')"
	expect_eq "$name: frames with a hash" 0 "$(q "$R" sites-re '::h[0-9a-f]{16}$')"
	expect_eq "$name: frames with \$LT\$-style escapes" 0 \
		"$(q "$R" sites-re '\$(LT|GT|C|RF|BP|SP|u[0-9a-f]{2})\$')"
	expect_eq "$name: sites with an allocation layer frame" 0 \
		"$(q "$R" sites-re '^<?alloc::(alloc|raw_vec)::')"
	report_json "$WORK/$name-keep.json" "$WORK/$name.trace" --keep-wrappers
	expect_range "$name --keep-wrappers: sites with an allocation layer frame" 1 1000 \
		"$(q "$WORK/$name-keep.json" sites-re '^<?alloc::(alloc|raw_vec)::')"
}

check_mangling legacy
check_mangling v0 -C symbol-mangling-version=v0
finish
