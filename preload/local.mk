# preload/: libmprof_preload.so, the LD_PRELOAD shim.  Never built with
# sanitizers (it runs inside arbitrary targets).  Only the allocator API (and
# the C library's __libc_malloc and kin),
# dlclose, the exec family and posix_spawn, the wait family, system, popen
# and pclose, _exit and _Exit, prctl, syscall and clone, the setrlimit
# family, mmap, mlockall, sigaction, signal and their kin, and the mprof_api_
# functions are exported (-fvisibility=hidden; preload/exported.h says
# which files mark them).
pkglib_LTLIBRARIES += preload/libmprof_preload.la
preload_libmprof_preload_la_SOURCES = \
	preload/announce.c preload/announce.h \
	preload/api.c \
	preload/control.c preload/control.h \
	preload/toggle_signal.c preload/toggle_signal.h \
	preload/signal_wrap.c preload/signal_wrap.h \
	preload/bootstrap.c preload/bootstrap.h \
	preload/cfi_cache.c preload/cfi_cache.h \
	preload/cfi_parse.c preload/cfi_parse.h \
	preload/diag.c preload/diag.h \
	preload/drop_watch.c preload/drop_watch.h \
	preload/event.c preload/event.h \
	preload/exec_reach.c preload/exec_reach.h \
	preload/exec_watch.c preload/exec_watch.h \
	preload/exec_args.c preload/exec_args.h \
	preload/exit_note.c preload/exit_note.h \
	preload/exported.h preload/next_sym.h \
	preload/fallback.c preload/fallback.h \
	preload/fork.c preload/fork.h \
	preload/import_bind.c preload/import_bind.h \
	preload/deep_bind.c preload/deep_bind.h preload/phdr.h \
	preload/new_bind.c preload/new_bind.h preload/slot_table.c preload/slot_table.h \
	preload/new_wrap.c preload/new_wrap.h \
	preload/record_path.h \
	preload/init.c preload/init.h \
	preload/interpose.c \
	preload/launcher_alive.c preload/launcher_alive.h \
	preload/libunwind_fds.c preload/libunwind_fds.h \
	preload/lock.h \
	preload/wait.h \
	preload/wait_copy.c preload/wait_copy.h \
	preload/mem.c preload/mem.h \
	preload/namespaces.c preload/namespaces.h \
	preload/meta.c preload/meta.h \
	preload/mlock_watch.c preload/mlock_watch.h \
	preload/nested_heap.c preload/nested_heap.h \
	preload/own_call.c preload/own_call.h \
	preload/pidns.c preload/pidns.h \
	preload/modules.c preload/modules.h preload/module_view.c preload/module_view.h \
	preload/populate.c preload/populate.h \
	preload/timens.c preload/timens.h \
	preload/process.c preload/process.h \
	preload/procfile.c preload/procfile.h \
	preload/real.c preload/real.h \
	preload/cancel_watch.c preload/cancel_watch.h \
	preload/reap_note.c preload/reap_note.h \
	preload/reap_call.c \
	preload/rec_stack.c preload/rec_stack.h \
	preload/rlimit.c preload/rlimit.h \
	preload/ring.c preload/ring.h \
	preload/sample.c preload/sample.h \
	preload/sample_math.c preload/sample_math.h \
	preload/sample_set.c preload/sample_set.h \
	preload/seccomp_watch.c preload/seccomp_watch.h \
	preload/raw_fork.c preload/raw_fork.h \
	preload/syscall_wrap.c \
	preload/seq.c preload/seq.h \
	preload/stack_scrub.c preload/stack_scrub.h \
	preload/settings.c preload/settings.h \
	preload/stack_room.c preload/stack_room.h \
	preload/stack_sites.c preload/stack_sites.h \
	preload/stack_table.c preload/stack_table.h \
	preload/own_read.h \
	preload/sys.h preload/clock.c preload/clock.h \
	preload/text.h \
	preload/thread.c preload/thread.h \
	preload/thread_id.c preload/thread_id.h \
	preload/thread_pointer.c preload/thread_pointer.h \
	preload/unwind.c preload/unwind.h \
	preload/unwind_fast.c preload/unwind_fast.h
preload_libmprof_preload_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden -ftls-model=initial-exec
preload_libmprof_preload_la_LDFLAGS = -module -avoid-version -shared -no-undefined -Wl,-z,now
preload_libmprof_preload_la_LIBADD = $(DL_LIBS) -lpthread

# mprof.h: the header-only API (runtime start/stop, markers, pool blocks;
# man/mprof.3) and its pkg-config file (Cflags only: nothing to link).
include_HEADERS = include/mprof.h
pkgconfigdir = $(libdir)/pkgconfig
pkgconfig_DATA = mprof.pc
EXTRA_DIST += mprof.pc.in
