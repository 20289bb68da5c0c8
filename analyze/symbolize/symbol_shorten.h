/*
 * analyze/symbolize/symbol_shorten.h - shortening long demangled function names for
 * the text report (the JSON report keeps them whole).
 */
#ifndef MPROF_ANALYZE_SYMBOL_SHORTEN_H
#define MPROF_ANALYZE_SYMBOL_SHORTEN_H

#include <stddef.h>

/* The widest function name, in characters, the text report prints whole. */
#define SYMBOL_TEXT_MAX_CHARS 120

/*
 * A shorter form of name when it has more than max_chars characters, each
 * step taken only while the name is still too long:
 *  1. template argument lists nested 3, then 2, then 1 deep become "<…>"
 *     ("std::vector<std::pair<int, long>, std::allocator<...> >::f" ->
 *     "std::vector<…>::f");
 *  2. parameter lists become "(…)" ("f(int, long)" -> "f(…)"; "()" and
 *     "(anonymous namespace)" stay);
 *  3. the middle is cut out, "…" in its place: the first third of
 *     max_chars kept and the end, which holds the function's own name.
 * A name starting with '<' (Rust's "<T as Trait>::f") keeps that pair;
 * operator<, operator<<, operator-> and operator() are names, not brackets.
 * Returns a malloc'd string the caller frees, or NULL when name fits (or is
 * NULL, or max_chars is below 8, or memory ran out): print name itself.
 */
char *symbol_shorten(const char *name, size_t max_chars);

#endif
