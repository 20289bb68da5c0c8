# cli/: the mprof command (launcher, collector, dispatcher).
bin_PROGRAMS += cli/mprof
cli_mprof_SOURCES = \
	cli/main.c \
	cli/help.c cli/help.h \
	cli/die.c cli/die.h \
	cli/diag_digest.c cli/diag_digest.h \
	cli/paths.c cli/paths.h \
	cli/elf_check.c cli/elf_check.h \
	cli/exec_target.c cli/exec_target.h \
	cli/spawn.c cli/spawn.h \
	cli/signals.c cli/signals.h \
	cli/run.c cli/run.h \
	cli/run_table.c cli/run_table.h \
	cli/session_dir.c cli/session_dir.h \
	cli/launcher_alive.c cli/launcher_alive.h \
	cli/launcher_wake.c cli/launcher_wake.h \
	cli/collector.c cli/collector.h \
	cli/proc_file.c cli/proc_file.h \
	cli/pid_info.c cli/pid_info.h \
	cli/pid_lineage.c cli/pid_lineage.h \
	cli/pid_find.c cli/pid_find.h \
	cli/pid_guard.c cli/pid_guard.h \
	cli/late_starters.c cli/late_starters.h \
	cli/pid_window.c cli/pid_window.h \
	cli/trace_files.c cli/trace_files.h \
	cli/rezip.c cli/rezip.h \
	cli/rss_sampler.c cli/rss_sampler.h \
	cli/kept_images.c cli/kept_images.h \
	cli/std_fds.c cli/std_fds.h \
	cli/process_limit.c cli/process_limit.h \
	cli/analyzer.c cli/analyzer.h \
	cli/self_command.c cli/self_command.h
# Where the other parts are installed; cli/paths.c also finds them relative
# to the running binary (build tree, DESTDIR copies).
cli_mprof_CPPFLAGS = $(AM_CPPFLAGS) \
	-DMPROF_PREFIX='"$(prefix)"' \
	-DMPROF_BINDIR='"$(bindir)"' \
	-DMPROF_PKGLIBDIR='"$(pkglibdir)"' \
	-DMPROF_PKGLIBEXECDIR='"$(pkglibexecdir)"'
cli_mprof_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS) $(DEFLATE_CFLAGS) $(SANITIZE_CFLAGS)
cli_mprof_LDFLAGS = $(SANITIZE_CFLAGS)
cli_mprof_LDADD = trace/libmprof_trace.a $(ZLIB_LIBS) $(DEFLATE_LIBS) -lpthread
