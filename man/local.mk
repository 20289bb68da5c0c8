# man/: manual pages.
dist_man_MANS += man/mprof.1 man/mprof-run.1 man/mprof-report.1 man/mprof-trace.5 \
	man/mprof-diff.1 man/mprof.3
