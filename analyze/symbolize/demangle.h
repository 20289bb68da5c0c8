/*
 * analyze/symbolize/demangle.h - symbol demangling: C++ through the C++ runtime's
 * __cxa_demangle (libstdc++.so.6, or libc++abi.so.1, loaded at the first
 * mangled name), Rust (v0 and legacy) through libiberty's rust_demangle
 * when mprof was configured with libiberty (the default).
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

/*
 * Demangles a Rust name, v0 ("_RNvCs1234_7mycrate3foo" -> "mycrate::foo")
 * or legacy ("_ZN7mycrate3foo17h0123456789abcdefE" -> "mycrate::foo": the
 * hash is left out, "$LT$"-style escapes decoded).  Returns a malloc'd
 * string the caller frees, or NULL when name is not a Rust name, mprof was
 * built without libiberty, or memory ran out.  Thread-safe.
 */
char *demangle_rust(const char *name);

/*
 * Demangles name as Rust first (a legacy Rust name is also a valid C++
 * name, with the hash as its last component), then as C++.  Returns a
 * malloc'd string the caller frees, or NULL (name is then shown as it is).
 * Thread-safe.
 */
char *demangle_symbol(const char *name);

#endif
