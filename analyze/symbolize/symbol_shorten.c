/*
 * analyze/symbolize/symbol_shorten.c - long demangled names made short enough to
 * read in the text report (a C++ frame of std::vector<std::pair<...>>::
 * _M_realloc_insert can take 600 characters).  Works on the text alone;
 * owns nothing but the strings it returns, and never changes a name that
 * fits: the JSON report and the symbol tables always keep the full name.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/symbolize/symbol_shorten.h"

#define ELLIPSIS "\xe2\x80\xa6" /* U+2026, one character of three bytes */

/* Characters, not bytes: UTF-8 continuation bytes do not count. */
static size_t text_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* The length of an operator name's symbol at s, right after "operator"
 * ("<<", "<=>", "->", "()"), whose brackets are not brackets. */
static size_t operator_symbol_len(const char *s)
{
	size_t n = 0;

	if (s[0] == '(' && s[1] == ')')
		return 2;
	while (s[n] && strchr("<>=-!*", s[n]))
		n++;
	return n;
}

/* Where the bracket group opening at s[i] ('<' or '(') ends: the index of
 * its closing bracket, or of the terminating NUL when it does not close. */
static size_t group_end(const char *s, size_t i)
{
	int depth = 0;

	for (; s[i]; i++) {
		if (strncmp(s + i, "operator", 8) == 0) {
			i += 7 + operator_symbol_len(s + i + 8);
			continue;
		}
		if (s[i] == '<' || s[i] == '(')
			depth++;
		else if ((s[i] == '>' || s[i] == ')') && --depth == 0)
			return i;
	}
	return i;
}

/*
 * Copies in to out (room for 2.5 times strlen(in) + 1: "<>" becomes the 5
 * bytes of "<…>"), writing "<…>" for every template argument
 * list nested min_depth deep or deeper (counted in '<' brackets; 0: none)
 * and, when params, "(…)" for every non-empty parenthesized list outside
 * them ("(anonymous namespace)" stays).  A name that starts with '<' (Rust's
 * "<T as Trait>::f") keeps that first pair: it is the path, not arguments.
 */
static void collapse(const char *in, char *out, int min_depth, bool params)
{
	size_t lead_end = in[0] == '<' ? group_end(in, 0) : 0;
	size_t i = 0, j = 0;
	int depth = 0;

	while (in[i]) {
		size_t end;

		if (strncmp(in + i, "operator", 8) == 0) {
			size_t n = 8 + operator_symbol_len(in + i + 8);

			memcpy(out + j, in + i, n);
			i += n;
			j += n;
			continue;
		}
		if ((i == 0 && lead_end) || (i == lead_end && lead_end)) {
			out[j++] = in[i++];
			continue;
		}
		if (in[i] == '<' && min_depth > 0 && depth + 1 >= min_depth) {
			end = group_end(in, i);
			memcpy(out + j, "<" ELLIPSIS ">", 5);
			j += 5;
			i = in[end] ? end + 1 : end;
			continue;
		}
		if (in[i] == '(' && params && depth == 0 && in[i + 1] != ')' &&
		    strncmp(in + i, "(anonymous namespace)", 21) != 0) {
			end = group_end(in, i);
			memcpy(out + j, "(" ELLIPSIS ")", 5);
			j += 5;
			i = in[end] ? end + 1 : end;
			continue;
		}
		if (in[i] == '<')
			depth++;
		else if (in[i] == '>' && depth > 0)
			depth--;
		out[j++] = in[i++];
	}
	out[j] = 0;
}

/* Cuts the middle out of s (in place) so it has max_chars characters: the
 * head keeps the namespace, the tail the function's own name. */
static void cut_middle(char *s, size_t max_chars)
{
	size_t len = strlen(s), head = max_chars / 3, tail = max_chars - head - 1;
	size_t h = 0, t = len, n;

	for (n = 0; n < head && s[h]; n++) /* head characters */
		for (h++; ((unsigned char)s[h] & 0xc0) == 0x80; h++)
			;
	for (n = 0; n < tail && t > h; n++) /* tail characters, from the end */
		while (--t > h && ((unsigned char)s[t] & 0xc0) == 0x80)
			;
	memmove(s + h + 3, s + t, len - t + 1);
	memcpy(s + h, ELLIPSIS, 3);
}

char *symbol_shorten(const char *name, size_t max_chars)
{
	size_t cap;
	char *a, *b;

	if (!name || max_chars < 8 || text_chars(name) <= max_chars)
		return NULL;
	cap = 3 * strlen(name) + 8; /* "<>" becomes "<…>": 5 bytes for 2 */
	a = malloc(cap);
	b = malloc(cap);
	if (!a || !b) {
		free(a);
		free(b);
		return NULL;
	}
	strcpy(a, name);
	/* Deepest template arguments first, then all of them, then the
	 * parameter lists; each step only if the last did not suffice. */
	for (int depth = 3; depth >= 1 && text_chars(a) > max_chars; depth--) {
		collapse(a, b, depth, false);
		strcpy(a, b);
	}
	if (text_chars(a) > max_chars) {
		collapse(a, b, 0, true);
		strcpy(a, b);
	}
	if (text_chars(a) > max_chars)
		cut_middle(a, max_chars);
	free(b);
	return a;
}
