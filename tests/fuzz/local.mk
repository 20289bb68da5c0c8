# tests/fuzz/: the libFuzzer target of the trace reader and the analyzer
# (fuzz_trace.c).  Never built by `make` or `make check`: in a tree
# configured with CC=clang, `make fuzz` builds tests/fuzz/fuzz-trace, with
# the trace codec and the analyzer compiled in (instrumented for coverage
# and under AddressSanitizer and UndefinedBehaviorSanitizer).  README.md,
# "Fuzzing the trace reader", says how to run it.
EXTRA_PROGRAMS += tests/fuzz/fuzz-trace
tests_fuzz_fuzz_trace_SOURCES = tests/fuzz/fuzz_trace.c \
	$(trace_libmprof_trace_a_SOURCES) \
	$(ANALYZE_CMD_SOURCES) $(ANALYZE_REPORT_SOURCES) $(ANALYZE_CORE_SOURCES)
FUZZ_CFLAGS = -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
nodist_tests_fuzz_fuzz_trace_SOURCES = $(ANALYZE_ASSETS_C)
tests_fuzz_fuzz_trace_CFLAGS = $(AM_CFLAGS) $(DW_CFLAGS) $(ZLIB_CFLAGS) $(DEFLATE_CFLAGS) \
	$(FUZZ_CFLAGS)
tests_fuzz_fuzz_trace_LDFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_trace_LDADD = $(ZLIB_LIBS) $(DEFLATE_LIBS) $(IBERTY_LIBS) $(DL_LIBS) -lpthread
CLEANFILES += tests/fuzz/fuzz-trace
EXTRA_DIST += tests/fuzz/trace.dict tests/fuzz/trace_to_seed.py tests/fuzz/seed_to_trace.py tests/fuzz/seeds/module-deltas-report \
	tests/fuzz/seeds/module-deltas-json tests/fuzz/seeds/module-deltas-symbolize \
	tests/fuzz/seeds/module-deltas-fork-child tests/fuzz/seeds/dlopen-churn-json \
	tests/fuzz/seeds/sampled-threads-fork-child
.PHONY: fuzz
fuzz: tests/fuzz/fuzz-trace$(EXEEXT)
