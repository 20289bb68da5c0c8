#!/bin/bash
# Hard case 22: C++ exceptions thrown and caught around allocations (program:
# tests/progs/cases/22-cxx-exceptions.cpp): no crash, exception objects,
# their messages and the storage of failed constructions are freed, a failed
# new is not an allocation, the one real leak is exact.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_start 22-cxx-exceptions
build_cxx prog "$CASE_SRC/22-cxx-exceptions.cpp" -pthread

mprof_run "$HANG_LIMIT" "$WORK/trace" -- ./prog
expect_eq "1. exit status" 0 "$RUN_STATUS"
expect_eq "1. stdout" "runtime_error caught: 2000, gadget failures: 1000, bad_alloc caught: 1" \
	"$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"
for f in parse_record parse_field build_gadget Gadget::Gadget ask_for_too_much; do
	expect_eq "2. $f: bytes live at exit" 0 "$(q "$R" sum leaked_bytes $f)"
done
expect_eq "2. parse_field: exception objects (one per throw, 4 threads)" 2000 \
	"$(q "$R" sum allocations '__cxa_allocate_exception&parse_field')"
expect_eq "2. parse_record: blocks live at exit" 0 "$(q "$R" sum leaked_blocks parse_record)"
expect_eq "3. build_gadget: 256-byte allocations (new Gadget)" 1000 \
	"$(q "$R" sum-size allocations 256 build_gadget)"
expect_eq "3. build_gadget: 256-byte allocations outside the constructor" 1000 \
	"$(($(q "$R" sum allocations build_gadget) - $(q "$R" sum allocations Gadget::Gadget)))"
expect_eq "3. Gadget::Gadget: exception objects (one per throw)" 1000 \
	"$(q "$R" sum allocations '__cxa_allocate_exception&Gadget::Gadget')"
expect_eq "3. build_gadget: blocks live at exit" 0 "$(q "$R" sum leaked_blocks build_gadget)"
expect_range "4. no site has 2^40 bytes or more" 0 1099511627775 "$(q "$R" max allocated_bytes)"
# The only allocation under ask_for_too_much is the std::bad_alloc object.
expect_eq "4. ask_for_too_much: the bad_alloc exception object" 1 \
	"$(q "$R" sum allocations '__cxa_allocate_exception&ask_for_too_much')"
expect_eq "4. ask_for_too_much: allocations besides the bad_alloc object" 0 \
	"$(($(q "$R" sum allocations ask_for_too_much) - \
		$(q "$R" sum allocations '__cxa_allocate_exception&ask_for_too_much')))"
expect_site "$R" leak_on_purpose 1 400 1 400
expect_eq "5. no 'operator new' frame shown" 0 "$(q "$R" sites-re '^operator new')"
finish
