/*
 * trace/argv_quote.h - a command line as one line of text that keeps its
 * quoting: the form of the PROCESS record's and META's command (see
 * mprof-trace(5)), shared by the recorder and the launcher.
 *
 * Arguments are separated by one space; an argument made only of letters,
 * digits and "%+,-./:=@_" is written as it is, any other (empty, or with a
 * space, quote, newline or shell character) in single quotes, a single quote
 * inside it as '\'' , as sh(1) reads it back.  Header-only and
 * allocation-free, for the preload library.
 */
#ifndef MPROF_TRACE_ARGV_QUOTE_H
#define MPROF_TRACE_ARGV_QUOTE_H

#include <stdbool.h>
#include <stddef.h>

/* Whether c needs no quoting in a shell word. */
static inline int argv_quote_plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '%' || c == '+' || c == ',' || c == '-' || c == '.' || c == '/' ||
	       c == ':' || c == '=' || c == '@' || c == '_';
}

/*
 * Appends argument arg (arg_bytes long, NULs allowed: none occur in argv) to
 * out, which holds len bytes of cap, preceded by a space unless len is 0.
 * Returns the new length; when the quoted argument does not fit, out is cut
 * where it is full (cap bytes, no terminator added: the caller adds one).
 */
static inline size_t argv_quote_append(char *out, size_t cap, size_t len, const char *arg,
				       size_t arg_bytes)
{
	int plain = arg_bytes > 0;

#define ARGV_QUOTE_PUT(ch) do { if (len < cap) out[len++] = (ch); } while (0)
	for (size_t i = 0; i < arg_bytes && plain; i++)
		plain = argv_quote_plain((unsigned char)arg[i]);
	if (len)
		ARGV_QUOTE_PUT(' ');
	if (!plain)
		ARGV_QUOTE_PUT('\'');
	for (size_t i = 0; i < arg_bytes; i++) {
		if (arg[i] == '\'') {
			ARGV_QUOTE_PUT('\'');
			ARGV_QUOTE_PUT('\\');
			ARGV_QUOTE_PUT('\'');
		}
		ARGV_QUOTE_PUT(arg[i]);
	}
	if (!plain)
		ARGV_QUOTE_PUT('\'');
#undef ARGV_QUOTE_PUT
	return len;
}

/*
 * Quotes the NUL-separated arguments of raw (raw_bytes, as /proc/PID/cmdline
 * holds them, trailing NULs ignored) into out (cap bytes, cap > 0), NUL
 * terminated.  Returns the length written.
 */
static inline size_t argv_quote_cmdline(char *out, size_t cap, const char *raw, size_t raw_bytes)
{
	size_t len = 0, start = 0;

	while (raw_bytes && raw[raw_bytes - 1] == '\0')
		raw_bytes--;
	for (size_t i = 0; i <= raw_bytes; i++) {
		if (i < raw_bytes && raw[i] != '\0')
			continue;
		len = argv_quote_append(out, cap - 1, len, raw + start, i - start);
		start = i + 1;
	}
	if (!raw_bytes)
		len = 0;
	out[len] = '\0';
	return len;
}

/*
 * A quoted command line shortened to at most cols columns (cols > 1) for a
 * table, into out (size > 3 * cols, NUL terminated): as it is when it fits;
 * else without the directory of its first word ("/usr/bin/python3 x.py" ->
 * "python3 x.py"); else cut, ending in "…".  Returns the columns used
 * (a byte counts as a column, "…" as one).
 */
static inline size_t argv_quote_fit(const char *command, size_t cols, char *out, size_t size)
{
	const char *c = command && command[0] ? command : "?", *slash = NULL;
	size_t len = 0, word = 0;

	while (c[len])
		len++;
	while (word < len && c[word] != ' ')
		word++;
	for (size_t i = 0; len > cols && c[0] != '\'' && i + 1 < word; i++)
		if (c[i] == '/')
			slash = c + i;
	if (slash) {
		len -= (size_t)(slash + 1 - c);
		c = slash + 1;
	}
	if (len <= cols) {
		for (size_t i = 0; i < len && i + 1 < size; i++)
			out[i] = c[i];
		out[len < size ? len : size - 1] = '\0';
		return len;
	}
	len = cols - 1;
	if (len + 4 > size)
		len = size - 4;
	while (len && ((unsigned char)c[len] & 0xc0) == 0x80)
		len--; /* not inside a UTF-8 character */
	for (size_t i = 0; i < len; i++)
		out[i] = c[i];
	out[len] = '\xe2'; /* U+2026 HORIZONTAL ELLIPSIS in UTF-8 */
	out[len + 1] = '\x80';
	out[len + 2] = '\xa6';
	out[len + 3] = '\0';
	return len + 1;
}

/*
 * The length of the UTF-8 character that starts at c (1 to 4), or 0 when the
 * bytes there are not one (a stray continuation byte, a lead byte without
 * its continuations, an overlong form, a surrogate, past U+10FFFF).  Reads
 * no further than a NUL.
 */
static inline size_t argv_quote_utf8_len(const unsigned char *c)
{
	size_t n;
	unsigned lo = 0x80, hi = 0xbf; /* the second byte's range */

	if (c[0] < 0x80)
		return 1;
	if (c[0] >= 0xc2 && c[0] <= 0xdf)
		n = 2;
	else if (c[0] >= 0xe0 && c[0] <= 0xef)
		n = 3;
	else if (c[0] >= 0xf0 && c[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (c[0] == 0xe0)
		lo = 0xa0; /* overlong */
	else if (c[0] == 0xed)
		hi = 0x9f; /* surrogates */
	else if (c[0] == 0xf0)
		lo = 0x90; /* overlong */
	else if (c[0] == 0xf4)
		hi = 0x8f; /* past U+10FFFF */
	if (c[1] < lo || c[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (c[i] < 0x80 || c[i] > 0xbf)
			return 0;
	return n;
}

/*
 * Whether the character that starts at c is a C1 control in UTF-8 (U+0080
 * to U+009F: 0xc2 then 0x80-0x9f; U+009B starts an escape sequence on some
 * terminals).  Reads c[1] only when c[0] is 0xc2, so not past a NUL.
 */
static inline bool argv_quote_is_c1(const unsigned char *c)
{
	return c[0] == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f;
}

/*
 * Text read from a trace (a command line, a path, a function's name) made
 * safe for a terminal and for a line of output, into out (cap > 4 bytes,
 * NUL terminated, cut where a character no longer fits): control
 * characters, the C1 controls in UTF-8 (0xc2 0x80-0x9f: U+009B starts an
 * escape sequence on some terminals, written as two \xNN) and every byte
 * that is not part of a valid UTF-8 character are written as \xNN; the
 * rest, valid UTF-8, as it is.  Returns the length written.
 */
static inline size_t argv_quote_printable(const char *text, char *out, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0, len;

	for (const unsigned char *c = (const unsigned char *)(text ? text : ""); *c; c += len) {
		len = argv_quote_utf8_len(c);
		if (len == 1 && *c >= 0x20 && *c != 0x7f) {
			if (n + 1 >= cap)
				break;
			out[n++] = (char)*c;
			continue;
		}
		if (len > 1 && !argv_quote_is_c1(c)) {
			if (n + len >= cap)
				break;
			for (size_t i = 0; i < len; i++)
				out[n++] = (char)c[i];
			continue;
		}
		if (len == 0)
			len = 1; /* the next byte may start a valid character */
		if (n + 4 * len >= cap)
			break;
		for (size_t i = 0; i < len; i++) {
			out[n++] = '\\';
			out[n++] = 'x';
			out[n++] = hex[c[i] >> 4];
			out[n++] = hex[c[i] & 15];
		}
	}
	out[n] = '\0';
	return n;
}

#endif
