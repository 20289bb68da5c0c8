# tests/: unit tests (CUnit) and end-to-end tests.

# ---- unit tests of the trace codec (trace/) ----
check_PROGRAMS += tests/unit/test_trace_codec
tests_unit_test_trace_codec_SOURCES = tests/unit/test_trace_codec.c analyze/read/slot_decoder.c \
	analyze/util/grow.c analyze/util/huge_array.c
tests_unit_test_trace_codec_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS) $(SANITIZE_CFLAGS)
tests_unit_test_trace_codec_LDFLAGS = $(SANITIZE_CFLAGS)
tests_unit_test_trace_codec_LDADD = trace/libmprof_trace.a $(ZLIB_LIBS) $(DEFLATE_LIBS) $(CUNIT_LIBS)
TESTS += tests/unit/test_trace_codec

# ---- unit tests of the protobuf encoder and string table (analyze/output/) ----
check_PROGRAMS += tests/unit/test_protobuf
tests_unit_test_protobuf_SOURCES = tests/unit/test_protobuf.c analyze/output/protobuf.c \
	analyze/output/string_table.c analyze/util/hash_seed.c
tests_unit_test_protobuf_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS) $(SANITIZE_CFLAGS)
tests_unit_test_protobuf_LDFLAGS = $(SANITIZE_CFLAGS)
tests_unit_test_protobuf_LDADD = $(CUNIT_LIBS)
TESTS += tests/unit/test_protobuf
# ---- unit tests of the launcher's window of new process IDs (cli/) ----
check_PROGRAMS += tests/unit/test_pid_window
tests_unit_test_pid_window_SOURCES = tests/unit/test_pid_window.c cli/pid_window.c
tests_unit_test_pid_window_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS) $(SANITIZE_CFLAGS)
tests_unit_test_pid_window_LDFLAGS = $(SANITIZE_CFLAGS)
tests_unit_test_pid_window_LDADD = $(CUNIT_LIBS)
TESTS += tests/unit/test_pid_window
# ---- unit tests of the secure-execution rule for file capabilities (trace/) ----
check_PROGRAMS += tests/unit/test_file_caps
tests_unit_test_file_caps_SOURCES = tests/unit/test_file_caps.c trace/file_caps.h
tests_unit_test_file_caps_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS) $(SANITIZE_CFLAGS)
tests_unit_test_file_caps_LDFLAGS = $(SANITIZE_CFLAGS)
tests_unit_test_file_caps_LDADD = $(CUNIT_LIBS)
TESTS += tests/unit/test_file_caps
check_PROGRAMS += tests/unit/test_elf_needed
tests_unit_test_elf_needed_SOURCES = tests/unit/test_elf_needed.c trace/elf_needed.h
tests_unit_test_elf_needed_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS) $(SANITIZE_CFLAGS)
tests_unit_test_elf_needed_LDFLAGS = $(SANITIZE_CFLAGS)
tests_unit_test_elf_needed_LDADD = $(CUNIT_LIBS)
TESTS += tests/unit/test_elf_needed
# ---- unit tests of the launcher's reading of process limits (cli/) ----
check_PROGRAMS += tests/unit/test_process_limit
tests_unit_test_process_limit_SOURCES = tests/unit/test_process_limit.c cli/process_limit.c
tests_unit_test_process_limit_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS) $(SANITIZE_CFLAGS)
tests_unit_test_process_limit_LDFLAGS = $(SANITIZE_CFLAGS)
tests_unit_test_process_limit_LDADD = $(CUNIT_LIBS)
TESTS += tests/unit/test_process_limit

# ---- unit tests of the recorder's sampler and its set of sampled blocks ----
# (compiled from preload/ sources into a plain binary: no preload, so the
# sanitizers, and ThreadSanitizer by hand, can watch them)
check_PROGRAMS += tests/unit/test_sample
tests_unit_test_sample_SOURCES = tests/unit/test_sample.c preload/sample.c preload/sample_set.c preload/clock.c \
	preload/sample_math.c preload/mem.c preload/populate.c preload/cancel_watch.c
tests_unit_test_sample_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS) $(SANITIZE_CFLAGS) -pthread
tests_unit_test_sample_LDFLAGS = $(SANITIZE_CFLAGS) -pthread
tests_unit_test_sample_LDADD = $(CUNIT_LIBS) -lm
TESTS += tests/unit/test_sample

# ---- unit test of runtime control, the set and the ring handoff ----
# (preload/control.c, sample.c, sample_set.c, ring.c in a plain binary with
# threads, a signal and a collector of its own, and toggle_signal.c;
# `make check-tsan` builds it and test_sample again with -fsanitize=thread
# and runs them)
check_PROGRAMS += tests/unit/test_control
tests_unit_test_control_SOURCES = tests/unit/test_control.c preload/control.c preload/sample.c preload/clock.c \
	preload/sample_math.c preload/sample_set.c preload/ring.c preload/stack_scrub.c preload/populate.c preload/timens.c preload/mem.c \
	preload/toggle_signal.c preload/cancel_watch.c
tests_unit_test_control_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS) $(SANITIZE_CFLAGS) -pthread
tests_unit_test_control_LDFLAGS = $(SANITIZE_CFLAGS) -pthread
tests_unit_test_control_LDADD = $(CUNIT_LIBS) -lm
TESTS += tests/unit/test_control

# tests/tools/trace_markers: the MARKER and CONTROL records of a trace in
# sequence order (tests/e2e/control-race.sh)
check_PROGRAMS += tests/tools/trace_markers
tests_tools_trace_markers_SOURCES = tests/tools/trace_markers.c
tests_tools_trace_markers_CFLAGS = $(AM_CFLAGS) $(SANITIZE_CFLAGS)
tests_tools_trace_markers_LDFLAGS = $(SANITIZE_CFLAGS)
tests_tools_trace_markers_LDADD = trace/libmprof_trace.a $(ZLIB_LIBS) $(DEFLATE_LIBS)

TSAN_UNIT_FLAGS = -std=gnu11 -O1 -g -fsanitize=thread -pthread -I$(srcdir) -I$(builddir)
.PHONY: check-tsan
check-tsan:
	$(CC) $(TSAN_UNIT_FLAGS) $(CUNIT_CFLAGS) -o tests/unit/test_control_tsan \
		$(srcdir)/tests/unit/test_control.c $(srcdir)/preload/control.c $(srcdir)/preload/clock.c \
		$(srcdir)/preload/sample.c $(srcdir)/preload/sample_math.c \
		$(srcdir)/preload/sample_set.c $(srcdir)/preload/ring.c $(srcdir)/preload/stack_scrub.c $(srcdir)/preload/populate.c $(srcdir)/preload/timens.c \
		$(srcdir)/preload/mem.c \
		$(srcdir)/preload/toggle_signal.c $(srcdir)/preload/cancel_watch.c $(CUNIT_LIBS) -lm
	$(CC) $(TSAN_UNIT_FLAGS) $(CUNIT_CFLAGS) -o tests/unit/test_sample_tsan \
		$(srcdir)/tests/unit/test_sample.c $(srcdir)/preload/sample.c $(srcdir)/preload/clock.c \
		$(srcdir)/preload/sample_math.c $(srcdir)/preload/sample_set.c $(srcdir)/preload/mem.c \
		$(srcdir)/preload/populate.c \
		$(srcdir)/preload/cancel_watch.c $(CUNIT_LIBS) -lm
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 tests/unit/test_control_tsan
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 tests/unit/test_sample_tsan
CLEANFILES += tests/unit/test_control_tsan tests/unit/test_sample_tsan
TESTS += tests/unit/tsan.sh
EXTRA_DIST += tests/unit/tsan.sh

# ---- end-to-end tests ----
# Scripts (bash) in tests/e2e/ build their test programs from tests/progs/
# (cc -O1 -g, never stripped) into a scratch directory under
# $(abs_top_builddir)/tests/tmp, run them under `mprof run` and check exact
# facts with tests/e2e/query.py.  tests/cases/NN-name.sh check the facts of
# the hard case ../shared/cases/NN-name/EXPECT.md with our own program of
# that case, tests/progs/cases/NN-name*.  Exit 0 pass, 1 fail, 77 skip.
# MPROF_SYMBOL_CACHE is emptied here and each test gets a symbol cache of
# its own in its scratch directory (tests/e2e/lib.sh, make_work), so answers
# never come from an earlier build or another test, while the traces of one
# test share them, as a user's runs do.  (With no cache at all, hard case
# 07's 91 traces each read libc6-dbg's debug info again: 8.5 s of its 10 s
# bound under the sanitizers on a slow machine.)  intercept_tls_get_addr=0:
# GCC 12's sanitizer runtime takes a dynamic TLS block (libdw's and libelf's,
# dlopened by the analyzer) that starts 16 bytes into a page for a pre-2.25
# glibc header and reads a range from the words before it, and LeakSanitizer's
# tracer then can die at exit ("Tracer caught signal 11", once in CI).
TEST_EXTENSIONS = .sh
SH_LOG_COMPILER = bash
AM_TESTS_ENVIRONMENT = \
	MPROF='$(abs_top_builddir)/cli/mprof'; export MPROF; \
	MPROF_ANALYZE='$(abs_top_builddir)/analyze/mprof-analyze'; export MPROF_ANALYZE; \
	CC='$(CC)'; export CC; \
	CXX='$(CXX)'; export CXX; \
	abs_top_srcdir='$(abs_top_srcdir)'; export abs_top_srcdir; \
	abs_top_builddir='$(abs_top_builddir)'; export abs_top_builddir; \
	MPROF_SYMBOL_CACHE=; export MPROF_SYMBOL_CACHE; \
	ASAN_OPTIONS="verify_asan_link_order=0:intercept_tls_get_addr=0$${ASAN_OPTIONS:+:$$ASAN_OPTIONS}"; export ASAN_OPTIONS;

E2E_TESTS = \
	tests/e2e/report-massif.sh \
	tests/e2e/entry-points.sh \
	tests/e2e/exported-names.sh \
	tests/e2e/libc-entry-points.sh \
	tests/e2e/next-wrappers.sh \
	tests/e2e/browser-harness.sh \
	tests/e2e/html-page.sh \
	tests/e2e/html-site-rows.sh \
	tests/e2e/hint-exec-wrapper.sh \
	tests/e2e/hint-retitled.sh \
	tests/e2e/hint-command.sh \
	tests/e2e/none-recorded.sh \
	tests/e2e/diff-gate.sh \
	tests/e2e/diff-pages.sh \
	tests/e2e/diff-lines.sh \
	tests/e2e/html-sampled.sh \
	tests/e2e/html-plurals.sh \
	tests/e2e/diff-sqlite3.sh \
	tests/e2e/cxx-new-delete.sh \
	tests/e2e/inlined-site.sh \
	tests/e2e/rbp-frames.sh \
	tests/e2e/rbp-callers.sh \
	tests/e2e/rbp-entry-points.sh \
	tests/e2e/rbp-new.sh \
	tests/e2e/no-cfi-frames.sh \
	tests/e2e/aot-frames.sh \
	tests/e2e/aot-fd-race.sh \
	tests/e2e/libunwind-late.sh \
	tests/e2e/foreign-ahead.sh \
	tests/e2e/thread-churn.sh \
	tests/e2e/slotless-threads.sh \
	tests/e2e/crowd-wait.sh \
	tests/e2e/slotless-frees.sh \
	tests/e2e/unrecorded-fork-handler.sh \
	tests/e2e/unrecorded-cut-copy.sh \
	tests/e2e/unrecorded-comm.sh \
	tests/e2e/real3-foreign-new.sh \
	tests/e2e/real4-second-recorder.sh \
	tests/e2e/real4-cancelled-calls.sh \
	tests/e2e/toggle-taken.sh \
	tests/e2e/toggle-replaced.sh \
	tests/e2e/toggle-vfork.sh \
	tests/e2e/toggle-raw.sh \
	tests/e2e/toggle-default.sh \
	tests/e2e/noaccess-segment.sh \
	tests/e2e/deep-stacks.sh \
	tests/e2e/shared-site.sh \
	tests/e2e/many-routes.sh \
	tests/e2e/fork-exec-children.sh \
	tests/e2e/late-children.sh \
	tests/e2e/ending-children.sh \
	tests/e2e/slow-start.sh \
	tests/e2e/process-tree.sh \
	tests/e2e/script-names.sh \
	tests/e2e/process-libraries.sh \
	tests/e2e/threads-handoff.sh \
	tests/e2e/control-race.sh \
	tests/e2e/idle-toggles.sh \
	tests/e2e/toggle-times.sh \
	tests/e2e/exec-toggles.sh \
	tests/e2e/pool-blocks.sh \
	tests/e2e/stored-chunks.sh \
	tests/e2e/neighbour-sizes.sh \
	tests/e2e/thread-first-use.sh \
	tests/e2e/signal-free.sh \
	tests/e2e/signal-allocs.sh \
	tests/e2e/sandboxed-exit.sh \
	tests/e2e/sandbox-allowlist.sh \
	tests/e2e/sandbox-kill-default.sh \
	tests/e2e/sandbox-exec-lookups.sh \
	tests/e2e/sandbox-fork-child.sh \
	tests/e2e/prctl-sandbox.sh \
	tests/e2e/own-tls-child.sh \
	tests/e2e/under-valgrind.sh \
	tests/e2e/membarrier-refused.sh \
	tests/e2e/mmap-refused-fork.sh \
	tests/e2e/seccomp-waits.sh \
	tests/e2e/quiet-unreachable.sh \
	tests/e2e/repeated-diagnostics.sh \
	tests/e2e/strict-mode.sh \
	tests/e2e/lowered-limit.sh \
	tests/e2e/tight-limit.sh \
	tests/e2e/fd-limit.sh \
	tests/e2e/full-session-dir.sh \
	tests/e2e/corrupt-process-file.sh \
	tests/e2e/time-namespace.sh \
	tests/e2e/unreachable-spawns.sh \
	tests/e2e/foreign-class.sh \
	tests/e2e/foreign-child.sh \
	tests/e2e/stack-limit.sh \
	tests/e2e/unseen-limit.sh \
	tests/e2e/mlock-all.sh \
	tests/e2e/mlock-limit.sh \
	tests/e2e/vanished-programs.sh \
	tests/e2e/leader-exit.sh \
	tests/e2e/dlmopen-namespace.sh \
	tests/e2e/own-malloc.sh \
	tests/e2e/fuzz-seeds.sh \
	tests/e2e/deep-bind.sh \
	tests/e2e/deep-bind-late.sh \
	tests/e2e/deep-bind-reloc-race.sh \
	tests/e2e/symbol-cache-copies.sh \
	tests/e2e/realloc-calls.sh \
	tests/e2e/wording-reallocs.sh \
	tests/e2e/wording-diff.sh \
	tests/e2e/wording-report.sh \
	tests/e2e/early-analyzer.sh \
	tests/e2e/early-analyzer-limits.sh \
	tests/e2e/fork-samples.sh \
	tests/e2e/fork-state.sh \
	tests/e2e/fork-after-threads.sh \
	tests/e2e/fork-pool.sh \
	tests/e2e/no-children.sh \
	tests/e2e/sample-seeds.sh \
	tests/e2e/many-stamps.sh \
	tests/e2e/sampled-temporary.sh \
	tests/e2e/estimates.sh \
	tests/e2e/cut-calls.sh \
	tests/e2e/end-states.sh \
	tests/e2e/pid-namespace.sh \
	tests/e2e/pid-reuse.sh \
	tests/e2e/pid-reuse-first.sh \
	tests/e2e/ring-wait-line.sh \
	tests/e2e/env-drop.sh \
	tests/e2e/exec-as-user.sh \
	tests/e2e/chroot-fork.sh \
	tests/e2e/chroot-exec.sh \
	tests/e2e/unseen-session.sh \
	tests/e2e/child-figures.sh \
	tests/e2e/child-ends.sh \
	tests/e2e/child-ends-start-time.sh \
	tests/e2e/pid-reuse-start-time.sh \
	tests/e2e/reaped-children.sh \
	tests/e2e/wait-bad-pointers.sh \
	tests/e2e/report-many-traces.sh \
	tests/e2e/raw-clones.sh \
	tests/e2e/raw-exec-exit.sh \
	tests/e2e/self-command-notes.sh \
	tests/e2e/small-stack-exec.sh \
	tests/e2e/small-stack-foreign-exec.sh \
	tests/e2e/exit-altstack.sh \
	tests/e2e/signal-safe-altstack.sh \
	tests/e2e/exec-bad-pointers.sh \
	tests/e2e/exec-unmap-race.sh \
	tests/e2e/preload-entry.sh \
	tests/e2e/wait-usage-split.sh \
	tests/e2e/reap-cancel.sh \
	tests/e2e/system-children.sh \
	tests/e2e/signal-commands.sh \
	tests/e2e/signal-stack.sh \
	tests/e2e/signal-frames.sh \
	tests/e2e/coroutine-stacks.sh \
	tests/e2e/boost-fibers.sh \
	tests/e2e/boehm-gc.sh \
	tests/e2e/mmap-room.sh \
	tests/e2e/sanitizer-programs.sh \
	tests/e2e/sanitizer-children.sh \
	tests/e2e/runtime-names.sh \
	tests/e2e/stack-residue.sh \
	tests/e2e/retitled-workers.sh \
	tests/e2e/sparse-lifetimes.sh \
	tests/e2e/time-resolution.sh \
	tests/e2e/exec-peak-rss.sh \
	tests/e2e/html-timeline.sh \
	tests/e2e/idle-launcher.sh \
	tests/e2e/proc-self-reads.sh \
	tests/e2e/start-dladdr.sh \
	tests/e2e/start-mappings.sh \
	tests/e2e/fork-mailbox-lazy.sh \
	tests/e2e/launcher-scans.sh \
	tests/e2e/launcher-slot-state.sh \
	tests/e2e/trace-writes.sh \
	tests/e2e/starved-launcher.sh \
	tests/e2e/stalled-tick.sh \
	tests/e2e/tsc-forbidden.sh \
	tests/e2e/many-stacks.sh \
	tests/e2e/thread-stacks.sh \
	tests/e2e/stack-scrub-calls.sh \
	tests/e2e/ring-size.sh \
	tests/e2e/block-references.sh \
	tests/e2e/foreign-allocator.sh \
	tests/e2e/exec-names.sh \
	tests/e2e/sampling.sh \
	tests/e2e/sample-margins.sh \
	tests/e2e/diff-sample-margins.sh \
	tests/e2e/sample-set-memory.sh \
	tests/e2e/deleted-binary.sh \
	tests/e2e/embedded-symbols.sh \
	tests/e2e/symbol-cache.sh \
	tests/e2e/symbolize-together.sh \
	tests/e2e/rust-names.sh \
	tests/e2e/go-cgo.sh \
	tests/e2e/separate-debug.sh \
	tests/e2e/transparency.sh \
	tests/e2e/run-signals.sh \
	tests/e2e/outside-signals.sh \
	tests/e2e/profiler-frames.sh \
	tests/e2e/retitled-exit.sh \
	tests/e2e/claimed-fds.sh \
	tests/e2e/pending-cancel.sh \
	tests/e2e/async-cancel.sh \
	tests/e2e/error-paths.sh \
	tests/e2e/missing-interpreter.sh \
	tests/e2e/write-errors.sh \
	tests/e2e/corrupt-traces.sh \
	tests/e2e/diff.sh \
	tests/e2e/diff-jit.sh \
	tests/e2e/diff-sampled.sh \
	tests/e2e/recorder-memory.sh \
	tests/e2e/report-window.sh \
	tests/e2e/markers-pause-pool.sh \
	tests/e2e/markers-real.sh \
	tests/e2e/report-filter.sh \
	tests/e2e/report-option-pairs.sh \
	tests/e2e/report-pprof.sh \
	tests/e2e/pprof-go.sh \
	tests/e2e/pprof-speedscope.sh \
	tests/e2e/report-dhat.sh \
	tests/e2e/dhat-viewer.sh \
	tests/e2e/report-speedscope.sh \
	tests/e2e/speedscope-viewer.sh \
	tests/e2e/dhat-sqlite3.sh \
	tests/e2e/real-sqlite3.sh \
	tests/e2e/real-python3.sh \
	tests/e2e/python-allocator.sh \
	tests/e2e/cxx-thread-local.sh \
	tests/e2e/real-go.sh \
	tests/e2e/real-node.sh \
	tests/e2e/real-rust.sh \
	tests/e2e/real-jvm.sh \
	tests/e2e/real-ruby.sh \
	tests/e2e/hostile-traces.sh \
	tests/e2e/impossible-totals.sh \
	tests/e2e/sparse-slots.sh \
	tests/e2e/cut-recording-rss.sh \
	tests/e2e/report-folded.sh \
	tests/e2e/report-folded-speedscope.sh \
	tests/e2e/report-flamegraph.sh

# the chunk index and --from seeking (issue 24 item 3)
E2E_TESTS += tests/e2e/chunk-index.sh
E2E_TESTS += tests/e2e/hostile-names.sh
E2E_TESTS += tests/e2e/hostile-json.sh
E2E_TESTS += tests/e2e/help-docs.sh
EXTRA_DIST += tests/e2e/hostile_names.py tests/progs/hostile_names.c tests/progs/hostile_names_lib.c \
	tests/browser/hostile-page.mjs
EXTRA_DIST += tests/e2e/chunk_index.py tests/e2e/trace_craft.py tests/progs/long_laps.c bench/seek.py

# module maps written as deltas (MODULES_DELTA)
E2E_TESTS += tests/e2e/module-deltas.sh
E2E_TESTS += tests/e2e/module-map-loss.sh
E2E_TESTS += tests/e2e/module-threads.sh
E2E_TESTS += tests/e2e/module-reuse.sh
E2E_TESTS += tests/e2e/module-reload-places.sh
E2E_TESTS += tests/e2e/iconv-unload.sh
EXTRA_DIST += tests/e2e/module_records.py tests/e2e/drop_module_delta.py tests/progs/dlopen_chain.c tests/progs/dlopen_chain_lib.c tests/progs/dlopen_threads.c tests/progs/dlopen_reuse.c tests/progs/plugin_call.h \
	tests/progs/iconv_unload.c

# Slowest first, so that `make check -j2` overlaps them with the rest.
CASE_TESTS = \
	tests/cases/25-huge-trace.sh \
	tests/cases/02-fork-while-threads-allocate.sh \
	tests/cases/19-thousands-of-threads.sh \
	tests/cases/01-atexit-lock-first-alloc.sh \
	tests/cases/03-fork-child-keeps-allocating.sh \
	tests/cases/06-close-all-fds.sh \
	tests/cases/07-vfork-posix-spawn.sh \
	tests/cases/08-early-calloc-bootstrap.sh \
	tests/cases/11-dlclose-address-reuse.sh \
	tests/cases/13-aligned-alloc-family.sh \
	tests/cases/14-realloc-edge-cases.sh \
	tests/cases/15-sigkill-midrun.sh \
	tests/cases/16-exit-without-atexit.sh \
	tests/cases/22-cxx-exceptions.sh \
	tests/cases/23-exe-defines-malloc.sh \
	tests/cases/26-unwritable-cwd.sh \
	tests/cases/27-static-binary.sh \
	tests/cases/28-setuid-binary.sh

TESTS += $(CASE_TESTS) $(E2E_TESTS)

# ---- synthetic traces with markers, recording stops and pool blocks ----
# (written by the codec's encoders for tests/e2e/markers-pause-pool.sh)
check_PROGRAMS += tests/unit/write_trace
tests_unit_write_trace_SOURCES = tests/unit/write_trace.c
tests_unit_write_trace_CFLAGS = $(AM_CFLAGS) $(SANITIZE_CFLAGS)
tests_unit_write_trace_LDFLAGS = $(SANITIZE_CFLAGS)
EXTRA_DIST += tests/progs/markers_pool.c
EXTRA_DIST += tests/progs/procfile_scribble.c
EXTRA_DIST += tests/progs/stalled_tick.c tests/progs/stalled_tick_shim.c tests/progs/tsc_forbidden.c
EXTRA_DIST += tests/progs/fd_limit_children.c tests/progs/spawn_unreachable.c tests/progs/foreign_class.c tests/progs/foreign_child.c tests/progs/spawn_mixed_ids.c tests/progs/static_linger.c
tests_unit_write_trace_LDADD = trace/libmprof_trace.a $(ZLIB_LIBS) $(DEFLATE_LIBS)


EXTRA_DIST += $(E2E_TESTS) $(CASE_TESTS) \
	tests/e2e/massif.py tests/progs/heap_phases.c tests/browser/heap-chart.mjs \
	tests/e2e/lib.sh tests/e2e/query.py tests/e2e/pprof.py tests/e2e/rusage.py tests/e2e/gen-sql.sh \
	tests/browser/package.json tests/browser/package-lock.json tests/browser/browser.mjs \
	tests/browser/selftest.mjs tests/browser/report-page.mjs tests/browser/site-rows.mjs \
	tests/e2e/folded.py tests/browser/speedscope-folded.mjs tests/browser/flamegraph-check.mjs \
	tests/browser/speedscope-import.mjs \
	tests/progs/entry_points.c tests/progs/libc_entry.c tests/progs/libc_entry.h \
	tests/progs/libc_entry_lib.c tests/progs/libc_wrap.c tests/progs/libc_behind.c tests/progs/next_wrap.c tests/progs/next_wrap.h tests/progs/next_wrap_lib.c tests/progs/cxx_new_delete.cpp tests/progs/diff_versions.c tests/progs/diff_lines.c tests/progs/thread_crowd.c \
	tests/progs/long_name.cpp \
	tests/progs/inlined_site.c tests/progs/fork_exec.c tests/progs/tree_worker.c tests/progs/shared_callee.c \
	tests/progs/retitled_hint.c \
	tests/progs/thread_handoff.c tests/progs/transparency.c tests/progs/run_signals.c tests/progs/retitled_exit.c tests/progs/busy_bursts.c tests/progs/lead_then_run.c \
	tests/progs/claimed_fds.c tests/progs/no_cfi_alloc.h tests/progs/pending_cancel.c tests/progs/async_cancel.c tests/progs/own_fds.c \
	tests/progs/clone_child.c tests/progs/exit_threads.c tests/progs/partial_recording.c \
	tests/progs/preload_hello.c tests/progs/small_leak.c tests/progs/thread_pairs.c tests/progs/valgrind_leaks.c \
	tests/progs/leak_count.c tests/progs/one_each.c tests/progs/fake_python.c tests/progs/fake_python_main.c tests/progs/symbol_probe.c tests/progs/rbp_frames.c tests/progs/rbp_callers.c tests/progs/rbp_entry_points.c tests/progs/rbp_new.cpp tests/progs/no_cfi_frames.c tests/progs/aot_frames.c tests/progs/aot_frames_lib.c tests/progs/aot_fd_race.c tests/progs/cfi_expression.c tests/progs/foreign_ahead.c tests/progs/dladdr_count.c tests/progs/thread_churn.c tests/progs/slotless_threads.c tests/progs/crowd_wait.c tests/progs/slotless_frees.c tests/progs/free_null_count.c tests/progs/deflate_alloc_count.c tests/progs/unrecorded_fork.c tests/progs/unrecorded_fork_lib.c tests/progs/unrecorded_comm.c tests/progs/own_new_alloc.c tests/progs/own_new_user.cpp tests/progs/own_new_forms.cpp tests/progs/own_new_plugin.cpp tests/progs/own_new_reload.cpp tests/progs/second_recorder.c tests/progs/toggle_taken.c tests/progs/toggle_replace.c tests/progs/toggle_vfork.c tests/progs/toggle_raw.c tests/progs/toggle_default.c tests/progs/noaccess_lib.c tests/progs/noaccess_main.c tests/progs/noaccess_first.lds \
	tests/progs/valgrind_passing.c \
	tests/progs/deep_stacks.c tests/progs/shared_site.c tests/progs/many_routes.c tests/progs/debug_lib.c \
	tests/progs/late_children.c tests/progs/ending_children.c tests/progs/slow_start.c tests/progs/old_block_reuse.c \
	tests/progs/guard_alloc.c tests/progs/free_in_order.c tests/progs/thread_first_use.c tests/progs/signal_free.c tests/progs/signal_allocs.c \
	tests/progs/raising_alloc.c tests/progs/sandboxed_exit.c tests/progs/sandbox_allowlist.c tests/progs/sandbox_exec_lookups.c tests/progs/sandbox_fork_child.c tests/progs/sandbox_kill_default.c tests/progs/prctl_sandbox.c tests/progs/own_tls_child.c \
	tests/progs/membarrier_refused.c tests/progs/mmap_refused_fork.c tests/progs/seccomp_waits.c tests/progs/launcher_stop.h tests/progs/strict_mode.c tests/progs/seccomp_raw.h tests/progs/lowered_limit.c tests/progs/tight_limit.c tests/progs/unseen_limit.c tests/progs/mlock_all.c tests/progs/mlock_limit.c tests/progs/status_kib.h tests/progs/nest_alloc.h tests/progs/vanished_program.c tests/progs/leader_exit.c tests/progs/dlmopen_main.c tests/progs/dlmopen_lib.c tests/progs/own_malloc.c tests/progs/audit_lib.c tests/progs/deep_bind_main.c tests/progs/deep_bind_lib.c tests/progs/deep_bind_late_main.c tests/progs/deep_bind_late_lib.c tests/progs/deep_bind_race_main.c tests/progs/deep_bind_race_lib.c tests/progs/no_pwrite_exec.c tests/progs/cache_copies_main.c tests/progs/cache_copies_lib.c tests/progs/realloc_calls.c tests/progs/wording_reallocs.c tests/progs/wording_diff.c tests/progs/wording_max_live.c tests/progs/early_analyzer.c tests/progs/limit_blocks.h \
	tests/progs/fork_samples.c tests/progs/fork_state.c tests/progs/fork_pool.c tests/progs/env_drop.c tests/progs/exec_it.c tests/progs/sample_seeds.c \
	tests/progs/end_states.c tests/progs/child_figures.c tests/progs/child_ends.c tests/progs/reaped_children.c tests/progs/wait_bad_pointers.c tests/progs/trace_sizes.c tests/progs/raw_clones.c tests/progs/raw_exec_exit.c tests/progs/exec_bad_pointers.c tests/progs/reap_cancel.c tests/progs/system_children.c tests/progs/system_failed.c tests/progs/signal_commands.c tests/progs/signal_stack.c tests/progs/signal_frames.c tests/progs/coroutine_stacks.c tests/progs/boost_fibers.cpp tests/progs/boehm_gc.c tests/progs/mmap_room.c tests/progs/sanitized_leak.c tests/progs/runtime_names.c tests/progs/stack_residue.c tests/progs/retitled_workers.c tests/progs/exec_unmap_race.c tests/progs/small_stack_exec.c tests/progs/signal_safe_altstack.c tests/progs/preload_entry.c tests/progs/wait_usage_split.c \
	tests/progs/sparse_lifetimes.c tests/progs/tick_lives.c tests/progs/exec_at_once.c tests/progs/many_stacks.c tests/progs/thread_stacks.c tests/progs/sample_sites.c tests/progs/sample_margins.c tests/progs/stack_scrub_calls.c \
	tests/progs/phases.c tests/progs/control_race.c tests/progs/idle_toggles.c tests/progs/toggle_times.c tests/progs/exec_toggles.c tests/progs/static_catcher.c tests/progs/pid_file.h tests/progs/pool_blocks.c \
	tests/progs/cut_calls.c tests/progs/drop_user.c tests/progs/exec_as_user.c tests/progs/chroot_fork.c tests/progs/chroot_exec.c tests/progs/unseen_session.c tests/progs/jit_frames.c tests/progs/fork_execs.c \
	tests/progs/pid_namespace.c tests/progs/pid_reuse.c tests/progs/ring_wait_named.c tests/progs/starved_launcher.c \
	tests/e2e/dhat_check.py tests/browser/dhat-view.mjs tests/browser/speedscope-view.mjs \
	tests/progs/ruby_threads.rb \
	tests/progs/JavaThreads.java \
	tests/progs/rust_threads.rs \
	tests/progs/node_workers.js \
	tests/progs/go_cgo.go \
	tests/progs/cxx_threads.cpp \
	tests/progs/rust_names.rs \
	tests/progs/go_cgo/main.go \
	tests/progs/go_limit/main.go \
	tests/progs/cases/01-atexit-lock-first-alloc.c \
	tests/progs/cases/02-fork-while-threads-allocate.c \
	tests/progs/cases/03-fork-child-keeps-allocating.c tests/progs/cases/06-close-all-fds.c \
	tests/progs/cases/07-vfork-posix-spawn.c \
	tests/progs/cases/08-early-calloc-bootstrap-lib.c \
	tests/progs/cases/08-early-calloc-bootstrap.c \
	tests/progs/cases/11-dlclose-address-reuse-plugin.c \
	tests/progs/cases/11-dlclose-address-reuse.c tests/progs/cases/13-aligned-alloc-family.c \
	tests/progs/cases/14-realloc-edge-cases.c tests/progs/cases/15-sigkill-midrun.c \
	tests/progs/cases/16-exit-without-atexit.c tests/progs/cases/19-thousands-of-threads.c \
	tests/progs/cases/22-cxx-exceptions.cpp tests/progs/cases/23-exe-defines-malloc.c \
	tests/progs/cases/25-huge-trace.c tests/progs/cases/26-unwritable-cwd.c \
	tests/progs/cases/27-static-binary.c tests/progs/cases/28-setuid-binary.c

clean-local: clean-local-e2e
clean-local-e2e:
	-chmod -R u+w tests/tmp 2>/dev/null; rm -rf tests/tmp
.PHONY: clean-local-e2e
# mprof diff's pages (tests/e2e/diff-pages.sh)
EXTRA_DIST += tests/browser/diff-check.mjs
