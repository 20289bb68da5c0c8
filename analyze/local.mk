# analyze/: mprof-analyze, the analyzer (trace reader, aggregation,
# symbolization with libdw, reports).  Installed in pkglibexecdir; `mprof
# report` and `mprof run` start it.
pkglibexec_PROGRAMS += analyze/mprof-analyze

# The report side (events -> statistics -> sites -> text/JSON).
ANALYZE_REPORT_SOURCES = \
	analyze/alloc_event.h \
	analyze/reorder.h analyze/reorder.c \
	analyze/block_table.h analyze/block_table.c analyze/young_blocks.h \
	analyze/aggregate.h analyze/aggregate.c \
	analyze/event_stream.h analyze/event_stream.c \
	analyze/chunk_prefetch.h analyze/chunk_prefetch.c \
	analyze/agg_thread.h analyze/agg_thread.c \
	analyze/sites.h analyze/sites.c \
	analyze/report.h analyze/report.c analyze/report_overview.c \
	analyze/site_rank.h analyze/site_rank.c \
	analyze/report_text.c analyze/report_json.c

# Shared by both sides: trace decoding, and the seed of the hash tables
# keyed by what a trace says.
ANALYZE_DECODE_SOURCES = \
	analyze/hash_seed.h analyze/hash_seed.c \
	analyze/grow.h analyze/grow.c analyze/huge_array.h analyze/huge_array.c \
	analyze/slot_decoder.h analyze/slot_decoder.c \
	analyze/stack_nodes.h analyze/stack_nodes.c

# The symbolization side (module maps, libdw, embedded SYMBOLS chunks).
ANALYZE_SYMBOL_SOURCES = \
	analyze/modules.h analyze/modules.c \
	analyze/symbols.h analyze/symbolize.c \
	analyze/dw_loader.h analyze/dw_loader.c \
	analyze/symbol_table.h analyze/symbol_table.c \
	analyze/symbol_cache.h analyze/symbol_cache.c \
	analyze/demangle.h analyze/demangle.c \
	analyze/symbol_shorten.h analyze/symbol_shorten.c

analyze_mprof_analyze_SOURCES = analyze/main.c analyze/debuginfod_gate.c \
	analyze/commands.h analyze/cmd_report.c analyze/trace_sites.h \
	analyze/trace_set.h analyze/trace_set.c \
	analyze/cmd_diff.h analyze/cmd_diff.c analyze/options.h analyze/options.c \
	analyze/cmd_symbolize.h analyze/cmd_symbolize.c \
	$(ANALYZE_REPORT_SOURCES) $(ANALYZE_DECODE_SOURCES) $(ANALYZE_SYMBOL_SOURCES)
analyze_mprof_analyze_CFLAGS = $(AM_CFLAGS) $(DW_CFLAGS) $(ZLIB_CFLAGS) $(DEFLATE_CFLAGS) $(SANITIZE_CFLAGS)
analyze_mprof_analyze_LDFLAGS = $(SANITIZE_CFLAGS)
# libdw is not linked: dw_loader.c loads it when a module file is read
analyze_mprof_analyze_LDADD = trace/libmprof_trace.a $(ZLIB_LIBS) $(DEFLATE_LIBS) $(IBERTY_LIBS) $(DL_LIBS) -lpthread

# ---- unit tests of the report side (CUnit) ----
check_PROGRAMS += tests/unit/test_aggregate
tests_unit_test_aggregate_SOURCES = tests/unit/test_aggregate.c \
	$(ANALYZE_REPORT_SOURCES) $(ANALYZE_DECODE_SOURCES) $(ANALYZE_SYMBOL_SOURCES)
tests_unit_test_aggregate_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS) $(DW_CFLAGS) $(ZLIB_CFLAGS) $(DEFLATE_CFLAGS) \
	$(SANITIZE_CFLAGS)
tests_unit_test_aggregate_LDFLAGS = $(SANITIZE_CFLAGS)
tests_unit_test_aggregate_LDADD = trace/libmprof_trace.a $(ZLIB_LIBS) $(DEFLATE_LIBS) $(CUNIT_LIBS) \
	$(IBERTY_LIBS) $(DL_LIBS) -lpthread
TESTS += tests/unit/test_aggregate

# ---- unit tests of the symbolization side (CUnit); needs -g ----
check_PROGRAMS += tests/unit/test_symbols
tests_unit_test_symbols_SOURCES = tests/unit/test_symbols.c \
	analyze/cmd_symbolize.h analyze/cmd_symbolize.c \
	$(ANALYZE_DECODE_SOURCES) $(ANALYZE_SYMBOL_SOURCES)
tests_unit_test_symbols_CFLAGS = $(AM_CFLAGS) -g $(CUNIT_CFLAGS) $(DW_CFLAGS) $(ZLIB_CFLAGS) $(DEFLATE_CFLAGS) \
	$(SANITIZE_CFLAGS)
tests_unit_test_symbols_LDFLAGS = $(SANITIZE_CFLAGS)
tests_unit_test_symbols_LDADD = trace/libmprof_trace.a $(ZLIB_LIBS) $(DEFLATE_LIBS) $(CUNIT_LIBS) \
	$(IBERTY_LIBS) $(DL_LIBS) -lpthread
TESTS += tests/unit/test_symbols
