/*
 * analyze/demangle.h - C++ symbol demangling through the C++ runtime's
 * __cxa_demangle (the analyzer links -lstdc++ for it).
 */
#ifndef MPROF_ANALYZE_DEMANGLE_H
#define MPROF_ANALYZE_DEMANGLE_H

/*
 * Demangles an Itanium C++ ABI name ("_ZN3foo3barEi" -> "foo::bar(int)").
 * Returns a malloc'd string the caller frees, or NULL when name is not a
 * mangled C++ name, does not demangle, or memory ran out (the caller then
 * shows name as it is).
 */
char *demangle_cxx(const char *name);

#endif
