# preload/: libmprof_preload.so, the LD_PRELOAD shim.  Never built with
# sanitizers (it runs inside arbitrary targets).
pkglib_LTLIBRARIES += preload/libmprof_preload.la
preload_libmprof_preload_la_SOURCES = \
	preload/shim.c \
	trace/record.c
preload_libmprof_preload_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden -ftls-model=initial-exec
preload_libmprof_preload_la_LDFLAGS = -module -avoid-version -shared -no-undefined
preload_libmprof_preload_la_LIBADD = $(DL_LIBS) -lpthread
