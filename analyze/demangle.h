/*
 * analyze/demangle.h - C++ symbol demangling through the C++ runtime's
 * __cxa_demangle (libstdc++.so.6, or libc++abi.so.1, loaded at the first
 * mangled name).
 */
#ifndef MPROF_ANALYZE_DEMANGLE_H
#define MPROF_ANALYZE_DEMANGLE_H

/*
 * Demangles an Itanium C++ ABI name ("_ZN3foo3barEi" -> "foo::bar(int)").
 * Returns a malloc'd string the caller frees, or NULL when name is not a
 * mangled C++ name, does not demangle, no C++ runtime can be loaded, or
 * memory ran out (the caller then shows name as it is).  Thread-safe.
 */
char *demangle_cxx(const char *name);

#endif
