# tests/: unit tests (CUnit) and end-to-end tests.

# ---- unit tests of the trace codec (trace/) ----
check_PROGRAMS += tests/unit/test_trace_codec
tests_unit_test_trace_codec_SOURCES = tests/unit/test_trace_codec.c analyze/slot_decoder.c
tests_unit_test_trace_codec_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS) $(SANITIZE_CFLAGS)
tests_unit_test_trace_codec_LDFLAGS = $(SANITIZE_CFLAGS)
tests_unit_test_trace_codec_LDADD = trace/libmprof_trace.a $(ZLIB_LIBS) $(CUNIT_LIBS)
TESTS += tests/unit/test_trace_codec

# ---- end-to-end tests ----
