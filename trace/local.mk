# trace/: the trace-format codec, a static library for cli/ and analyze/, and
# the symbolize step's request that cli/ sends to analyze/.
# preload/ uses only the header-only encoders (trace/record.h), not this library:
# the decoder in record.c, which the shim never calls, was 16 KB of its 84 KB of
# code once its steps were inlined.
noinst_LIBRARIES += trace/libmprof_trace.a
trace_libmprof_trace_a_SOURCES = \
	trace/varint.h trace/format.h trace/record.h trace/record_decode.h trace/record.c \
	trace/chunk.h trace/chunk.c trace/split.h trace/split.c trace/recode.h trace/recode.c trace/chunk_index.h trace/chunk_index.c trace/session.h \
	trace/modules_delta.h trace/modules_delta.c \
	trace/argv_quote.h trace/plural.h trace/event_clock.h trace/timens.h trace/proc_name.h trace/elf_needed.h \
	trace/symbolize_request.h trace/symbolize_request.c
trace_libmprof_trace_a_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS) $(DEFLATE_CFLAGS) $(SANITIZE_CFLAGS)
