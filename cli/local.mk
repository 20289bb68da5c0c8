# cli/: the mprof command (launcher, collector, dispatcher).
bin_PROGRAMS += cli/mprof
cli_mprof_SOURCES = cli/main.c
cli_mprof_CFLAGS = $(AM_CFLAGS) $(SANITIZE_CFLAGS)
cli_mprof_LDFLAGS = $(SANITIZE_CFLAGS)
cli_mprof_LDADD = trace/libmprof_trace.a $(ZLIB_LIBS)
