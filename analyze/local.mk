# analyze/: mprof-analyze, the analyzer (trace reader, aggregation,
# symbolization with libdw, reports).  Installed in pkglibexecdir; `mprof
# report` and `mprof run` start it.
pkglibexec_PROGRAMS += analyze/mprof-analyze

# The folders follow the data: read/ (trace file -> merged events, stack
# nodes, modules) -> aggregate/ (statistics) -> symbolize/ (addresses ->
# functions) -> profile/ (allocation sites and run facts: what every writer
# reads) -> output/ (one file per report format) -> diff/ (two profiles
# compared, the CI gate) -> cmd/ (the subcommands);
# util/ is below them all.
ANALYZE_UTIL_SOURCES = \
	analyze/util/error.h \
	analyze/util/hash_seed.h analyze/util/hash_seed.c \
	analyze/util/grow.h analyze/util/grow.c \
	analyze/util/saturate.h \
	analyze/util/huge_array.h analyze/util/huge_array.c

ANALYZE_READ_SOURCES = \
	analyze/read/alloc_event.h analyze/read/event_sink.h \
	analyze/read/slot_decoder.h analyze/read/slot_decoder.c \
	analyze/read/stack_nodes.h analyze/read/stack_nodes.c \
	analyze/read/module_tree.h analyze/read/module_tree.c \
	analyze/read/modules.h analyze/read/modules.c

ANALYZE_SYMBOL_SOURCES = \
	analyze/symbolize/symbolize.h analyze/symbolize/symbolize.c \
	analyze/symbolize/dw_loader.h analyze/symbolize/dw_loader.c \
	analyze/symbolize/symbol_table.h analyze/symbolize/symbol_table.c \
	analyze/symbolize/symbol_cache.h analyze/symbolize/symbol_cache.c \
	analyze/symbolize/debug_search.h analyze/symbolize/debug_search.c \
	analyze/symbolize/demangle.h analyze/symbolize/demangle.c \
	analyze/symbolize/symbol_shorten.h analyze/symbolize/symbol_shorten.c

# events -> statistics -> sites -> reports
ANALYZE_REPORT_SOURCES = \
	analyze/read/reorder.h analyze/read/reorder.c \
	analyze/read/slot_index.h analyze/read/slot_index.c \
	analyze/read/event_stream.h analyze/read/event_stream.c \
	analyze/read/chunk_prefetch.h analyze/read/chunk_prefetch.c \
	analyze/read/index_plan.h analyze/read/index_plan.c \
	analyze/read/rss_series.h analyze/read/rss_series.c \
	analyze/aggregate/block_table.h analyze/aggregate/block_table.c \
	analyze/aggregate/young_blocks.h analyze/aggregate/sample_figures.h \
	analyze/aggregate/stats_small.h analyze/aggregate/stats_small.c \
	analyze/aggregate/aggregate.h analyze/aggregate/aggregate.c \
	analyze/aggregate/timeline.h analyze/aggregate/timeline.c \
	analyze/aggregate/agg_thread.h analyze/aggregate/agg_thread.c \
	analyze/aggregate/agg_read.h analyze/aggregate/agg_read.c \
	analyze/aggregate/fork_points.h analyze/aggregate/fork_points.c \
	analyze/aggregate/window.h analyze/aggregate/window.c \
	analyze/profile/profile.h analyze/profile/profile.c \
	analyze/profile/inherit.h analyze/profile/inherit.c \
	analyze/profile/site_stats.h analyze/profile/site_stats.c \
	analyze/profile/sites.h analyze/profile/sites.c \
	analyze/profile/metric.h analyze/profile/metric.c \
	analyze/profile/summary.h analyze/profile/summary.c \
	analyze/profile/filter.h analyze/profile/filter.c \
	analyze/profile/suppressions.h analyze/profile/suppressions.c \
	analyze/profile/run_facts.h analyze/profile/run_facts.c \
	analyze/output/output.h analyze/output/formats.c \
	analyze/output/overview.h analyze/output/overview.c \
	analyze/output/frames.h analyze/output/frames.c \
	analyze/output/units.h analyze/output/units.c \
	analyze/output/text.c analyze/output/json.c analyze/output/html.c \
	analyze/output/massif.c \
	analyze/output/stack_tree.h analyze/output/stack_tree.c \
	analyze/output/folded.h analyze/output/folded.c \
	analyze/output/script_json.h analyze/output/script_json.c \
	analyze/output/html_text.h analyze/output/html_text.c \
	analyze/output/flamegraph.c \
	analyze/output/flame_data.h analyze/output/flame_data.c \
	analyze/output/pprof.c analyze/output/protobuf.h analyze/output/protobuf.c \
	analyze/output/string_table.h analyze/output/string_table.c \
	analyze/output/dhat.c analyze/output/dhat_json.c analyze/output/speedscope.c

ANALYZE_DIFF_SOURCES = \
	analyze/diff/diff.h analyze/diff/match.c analyze/diff/frames.c analyze/diff/gate.c \
	analyze/diff/formats.c analyze/diff/write_text.c analyze/diff/write_json.c \
	analyze/diff/write_folded.c \
	analyze/diff/write_flamegraph.c analyze/diff/write_html.c

ANALYZE_CMD_SOURCES = $(ANALYZE_DIFF_SOURCES) \
	analyze/symbolize/debuginfod_gate.c \
	analyze/cmd/report.h analyze/cmd/report.c \
	analyze/cmd/trace_set.h analyze/cmd/trace_set.c \
	analyze/cmd/diff.h analyze/cmd/diff.c \
	analyze/cmd/options.h analyze/cmd/options.c \
	analyze/cmd/symbolize.h analyze/cmd/symbolize.c

# The error printer is apart: the fuzzer brings a quiet one of its own.
ANALYZE_CORE_SOURCES = $(ANALYZE_UTIL_SOURCES) $(ANALYZE_READ_SOURCES) $(ANALYZE_SYMBOL_SOURCES)
ANALYZE_ERROR_SOURCES = analyze/util/error.c

analyze_mprof_analyze_SOURCES = analyze/main.c $(ANALYZE_CMD_SOURCES) \
	$(ANALYZE_REPORT_SOURCES) $(ANALYZE_CORE_SOURCES) $(ANALYZE_ERROR_SOURCES)
nodist_analyze_mprof_analyze_SOURCES = $(ANALYZE_ASSETS_C)
analyze_mprof_analyze_CFLAGS = $(AM_CFLAGS) $(DW_CFLAGS) $(ZLIB_CFLAGS) $(DEFLATE_CFLAGS) $(SANITIZE_CFLAGS)
analyze_mprof_analyze_LDFLAGS = $(SANITIZE_CFLAGS)
# libdw is not linked: dw_loader.c loads it when a module file is read
analyze_mprof_analyze_LDADD = trace/libmprof_trace.a $(ZLIB_LIBS) $(DEFLATE_LIBS) $(IBERTY_LIBS) $(DL_LIBS) -lpthread

# The pages' scripts and style sheets, embedded as C strings at build time.
ANALYZE_ASSETS = analyze/output/assets/report.css analyze/output/assets/report.js \
	analyze/output/assets/flamegraph.html analyze/output/assets/format.js \
	analyze/output/assets/diff.js
ANALYZE_ASSETS_C = analyze/output/assets.c
$(ANALYZE_ASSETS_C): $(ANALYZE_ASSETS:%=$(srcdir)/%) $(srcdir)/analyze/output/assets/embed.sh
	$(AM_V_GEN)$(SHELL) $(srcdir)/analyze/output/assets/embed.sh $(ANALYZE_ASSETS:%=$(srcdir)/%) >$@.tmp && mv $@.tmp $@
BUILT_SOURCES += $(ANALYZE_ASSETS_C)
CLEANFILES += $(ANALYZE_ASSETS_C)
EXTRA_DIST += $(ANALYZE_ASSETS) analyze/output/assets/embed.sh

# ---- unit tests of the report side (CUnit) ----
check_PROGRAMS += tests/unit/test_aggregate
tests_unit_test_aggregate_SOURCES = tests/unit/test_aggregate.c \
	$(ANALYZE_REPORT_SOURCES) $(ANALYZE_CORE_SOURCES) $(ANALYZE_ERROR_SOURCES)
nodist_tests_unit_test_aggregate_SOURCES = $(ANALYZE_ASSETS_C)
tests_unit_test_aggregate_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS) $(DW_CFLAGS) $(ZLIB_CFLAGS) $(DEFLATE_CFLAGS) \
	$(SANITIZE_CFLAGS)
tests_unit_test_aggregate_LDFLAGS = $(SANITIZE_CFLAGS)
tests_unit_test_aggregate_LDADD = trace/libmprof_trace.a $(ZLIB_LIBS) $(DEFLATE_LIBS) $(CUNIT_LIBS) \
	$(IBERTY_LIBS) $(DL_LIBS) -lpthread
TESTS += tests/unit/test_aggregate

check_PROGRAMS += tests/unit/test_window
tests_unit_test_window_SOURCES = tests/unit/test_window.c \
	$(ANALYZE_REPORT_SOURCES) $(ANALYZE_CORE_SOURCES) $(ANALYZE_ERROR_SOURCES)
nodist_tests_unit_test_window_SOURCES = $(ANALYZE_ASSETS_C)
tests_unit_test_window_CFLAGS = $(tests_unit_test_aggregate_CFLAGS)
tests_unit_test_window_LDFLAGS = $(SANITIZE_CFLAGS)
tests_unit_test_window_LDADD = $(tests_unit_test_aggregate_LDADD)
TESTS += tests/unit/test_window

# ---- unit tests of the symbolization side (CUnit); needs -g ----
check_PROGRAMS += tests/unit/test_symbols
tests_unit_test_symbols_SOURCES = tests/unit/test_symbols.c \
	analyze/cmd/symbolize.h analyze/cmd/symbolize.c \
	$(ANALYZE_CORE_SOURCES) $(ANALYZE_ERROR_SOURCES)
tests_unit_test_symbols_CFLAGS = $(AM_CFLAGS) -g $(CUNIT_CFLAGS) $(DW_CFLAGS) $(ZLIB_CFLAGS) $(DEFLATE_CFLAGS) \
	$(SANITIZE_CFLAGS)
tests_unit_test_symbols_LDFLAGS = $(SANITIZE_CFLAGS)
tests_unit_test_symbols_LDADD = trace/libmprof_trace.a $(ZLIB_LIBS) $(DEFLATE_LIBS) $(CUNIT_LIBS) \
	$(IBERTY_LIBS) $(DL_LIBS) -lpthread
TESTS += tests/unit/test_symbols

# ---- the heap timeline and the RSS series (CUnit) ----
check_PROGRAMS += tests/unit/test_timeline
tests_unit_test_timeline_SOURCES = tests/unit/test_timeline.c \
	analyze/aggregate/aggregate.c analyze/aggregate/stats_small.c analyze/aggregate/block_table.c \
	analyze/aggregate/timeline.c analyze/read/rss_series.c $(ANALYZE_UTIL_SOURCES)
tests_unit_test_timeline_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS) $(SANITIZE_CFLAGS)
tests_unit_test_timeline_LDFLAGS = $(SANITIZE_CFLAGS)
tests_unit_test_timeline_LDADD = $(CUNIT_LIBS)
TESTS += tests/unit/test_timeline

# ---- unit tests of the stack-shaped formats' shared pieces (CUnit) ----
check_PROGRAMS += tests/unit/test_stack_output
tests_unit_test_stack_output_SOURCES = tests/unit/test_stack_output.c \
	$(ANALYZE_REPORT_SOURCES) $(ANALYZE_CORE_SOURCES) $(ANALYZE_ERROR_SOURCES)
nodist_tests_unit_test_stack_output_SOURCES = $(ANALYZE_ASSETS_C)
tests_unit_test_stack_output_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS) $(DW_CFLAGS) $(ZLIB_CFLAGS) \
	$(DEFLATE_CFLAGS) $(SANITIZE_CFLAGS)
tests_unit_test_stack_output_LDFLAGS = $(SANITIZE_CFLAGS)
tests_unit_test_stack_output_LDADD = trace/libmprof_trace.a $(ZLIB_LIBS) $(DEFLATE_LIBS) $(CUNIT_LIBS) \
	$(IBERTY_LIBS) $(DL_LIBS) -lpthread
TESTS += tests/unit/test_stack_output
