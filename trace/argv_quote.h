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
 * The length of the first word of command, a command line as
 * argv_quote_append writes it: up to the first space outside single
 * quotes, so that a quoted word stays whole with its quotes
 * ("'demo: worker 1' -x" -> 16, "'it'\''s' x" -> 9).
 */
static inline size_t argv_quote_word_len(const char *command)
{
	bool quoted = false;
	size_t n = 0;

	for (; command[n]; n++) {
		if (command[n] == '\'')
			quoted = !quoted;
		else if (command[n] == '\\' && !quoted && command[n + 1])
			n++;
		else if (command[n] == ' ' && !quoted)
			break;
	}
	return n;
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

/* Whether c is a hex digit (either case): what may follow "\x". */
static inline bool argv_quote_is_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/*
 * Whether the character at c is a backslash that would read as the start
 * of an escape: it is followed by 'x' and two hex digits ("\x41" in a
 * name).  Reads no further than a NUL.
 */
static inline bool argv_quote_backslash_ambiguous(const unsigned char *c)
{
	return c[0] == '\\' && c[1] == 'x' && argv_quote_is_hex(c[2]) && argv_quote_is_hex(c[3]);
}

/* The code point of the valid UTF-8 character of len bytes (1 to 4) at c. */
static inline unsigned argv_quote_utf8_code(const unsigned char *c, size_t len)
{
	static const unsigned char lead_bits[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	unsigned code = c[0] & lead_bits[len];

	for (size_t i = 1; i < len; i++)
		code = code << 6 | (c[i] & 0x3f);
	return code;
}

/*
 * Whether a terminal gives the code point two columns: the blocks Unicode's
 * East Asian Width calls wide or fullwidth (Hangul, CJK, kana, Yi,
 * fullwidth forms, the main emoji blocks).  Narrower than wcwidth(3), which
 * needs a UTF-8 locale; the rest counts as one column.
 */
static inline bool argv_quote_is_wide(unsigned code)
{
	static const unsigned range[][2] = {
		{ 0x1100, 0x115f },   { 0x2e80, 0x303e },   { 0x3041, 0x33ff },
		{ 0x3400, 0x4dbf },   { 0x4e00, 0x9fff },   { 0xa000, 0xa4cf },
		{ 0xac00, 0xd7a3 },   { 0xf900, 0xfaff },   { 0xfe10, 0xfe19 },
		{ 0xfe30, 0xfe6f },   { 0xff00, 0xff60 },   { 0xffe0, 0xffe6 },
		{ 0x1f300, 0x1f64f }, { 0x1f900, 0x1f9ff }, { 0x20000, 0x2fffd },
		{ 0x30000, 0x3fffd },
	};

	for (size_t i = 0; i < sizeof(range) / sizeof(range[0]); i++)
		if (code >= range[i][0] && code <= range[i][1])
			return true;
	return false;
}

/*
 * Whether argv_quote_printable writes the character of len bytes at c (len
 * from argv_quote_utf8_len; 0: a byte that starts none) as \xNN escapes.
 */
static inline bool argv_quote_char_escaped(const unsigned char *c, size_t len)
{
	if (len == 0)
		return true;
	if (len > 1)
		return argv_quote_is_c1(c);
	return *c < 0x20 || *c == 0x7f || argv_quote_backslash_ambiguous(c);
}

/*
 * How argv_quote_printable writes the character that starts at c (not NUL):
 * sets *bytes to the bytes of c it stands for and returns the terminal
 * columns it takes: 4 for each byte written as \xNN, 2 for a wide character
 * (argv_quote_is_wide), else 1.
 */
static inline size_t argv_quote_char_cols(const unsigned char *c, size_t *bytes)
{
	size_t len = argv_quote_utf8_len(c);

	*bytes = len ? len : 1; /* the next byte may start a valid character */
	if (argv_quote_char_escaped(c, len))
		return 4 * *bytes;
	return len > 1 && argv_quote_is_wide(argv_quote_utf8_code(c, len)) ? 2 : 1;
}

/* The terminal columns text (NULL: none) takes as argv_quote_printable
 * writes it, uncut (argv_quote_char_cols). */
static inline size_t argv_quote_cols(const char *text)
{
	size_t cols = 0, len;

	for (const unsigned char *c = (const unsigned char *)(text ? text : ""); *c; c += len)
		cols += argv_quote_char_cols(c, &len);
	return cols;
}

/* Whether text is printable ASCII that argv_quote_printable writes as it
 * is: a quick test before escaping. */
static inline bool argv_quote_is_plain_ascii(const char *text)
{
	for (const unsigned char *c = (const unsigned char *)text; *c; c++)
		if (*c < 0x20 || *c >= 0x7f || *c == '\\')
			return false;
	return true;
}

/*
 * Text read from a trace (a command line, a path, a function's name) made
 * safe for a terminal and for a line of output, into out (cap > 4 bytes,
 * NUL terminated, cut where a character no longer fits): control
 * characters, the C1 controls in UTF-8 (U+009B starts an escape sequence on
 * some terminals, written as two \xNN), every byte that is not part of a
 * valid UTF-8 character, and a backslash followed by 'x' and two hex digits
 * (\x5c, so that the text cannot read as an escape) are written as \xNN;
 * the rest, valid UTF-8, as it is.  Returns the length written.
 */
static inline size_t argv_quote_printable(const char *text, char *out, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0, len, cols;

	for (const unsigned char *c = (const unsigned char *)(text ? text : ""); *c; c += len) {
		cols = argv_quote_char_cols(c, &len);
		if (!argv_quote_char_escaped(c, argv_quote_utf8_len(c))) {
			if (n + len >= cap)
				break;
			for (size_t i = 0; i < len; i++)
				out[n++] = (char)c[i];
			continue;
		}
		if (n + cols >= cap)
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

/* The last '/' of the word at c (up to a space) when it holds one before
 * its last character and is not quoted, else NULL. */
static inline const char *argv_quote_word_slash(const char *c)
{
	const char *slash = NULL;

	for (size_t i = 0; c[0] != '\'' && c[i] && c[i] != ' ' && c[i + 1] && c[i + 1] != ' '; i++)
		if (c[i] == '/')
			slash = c + i;
	return slash;
}

/*
 * Whether the first word of c (up to a space; its folder ignored) names an
 * interpreter that runs a script given as its next word, as a #! line
 * starts it: sh, ash, bash, dash, ksh, mksh, zsh, python, perl, ruby, node,
 * php, lua, tclsh, each optionally with a version ("python3.12").
 */
static inline bool argv_quote_is_interpreter(const char *c)
{
	static const char *const names[] = { "sh",   "ash",  "bash", "dash", "ksh",
					     "mksh", "zsh",  "python", "perl", "ruby",
					     "node", "php",  "lua",  "tclsh" };
	size_t start = 0, end = 0;

	if (c[0] == '\'')
		return false;
	for (; c[end] && c[end] != ' '; end++)
		if (c[end] == '/')
			start = end + 1;
	while (end > start && ((c[end - 1] >= '0' && c[end - 1] <= '9') || c[end - 1] == '.'))
		end--;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = 0;

		while (names[i][n] && start + n < end && names[i][n] == c[start + n])
			n++;
		if (!names[i][n] && start + n == end)
			return true;
	}
	return false;
}

/* Whether the first word of c (up to a space) is a process name in
 * brackets that trace/proc_name.h puts before a command ("[demo-quick]
 * ./prog x"): the second word is then the program. */
static inline bool argv_quote_is_bracketed(const char *c)
{
	size_t n = 0;

	while (c[n] && c[n] != ' ')
		n++;
	return n >= 2 && c[0] == '[' && c[n - 1] == ']';
}

/* The columns of text's first bytes (argv_quote_char_cols). */
static inline size_t argv_quote_cols_n(const char *text, size_t bytes)
{
	size_t cols = 0, len;

	for (const unsigned char *c = (const unsigned char *)text;
	     *c && c < (const unsigned char *)text + bytes; c += len)
		cols += argv_quote_char_cols(c, &len);
	return cols;
}

/*
 * A command line (or a name) as a trace holds it, shortened to at most cols
 * columns (cols > 1) as argv_quote_printable writes it, for a table: into
 * out (size > 4 * cols + 3, NUL terminated), still to be written through
 * argv_quote_printable: as it is when it fits; else without the directory
 * of its first word ("/usr/bin/python3 x.py" -> "python3 x.py"); else also
 * without that of its second when the first names an interpreter
 * (argv_quote_is_interpreter), the script it runs ("/bin/sh /a/b/wrap.sh x"
 * -> "sh wrap.sh x", a script started through its #! line), or is a
 * process name in brackets before the program ("[w] /a/prog x" -> "[w]
 * prog x"); any other command keeps its second word whole ("diff
 * /dev/fd/63 /dev/fd/62" would read wrong as "diff 63 /dev/fd/62"); else cut between characters, ending in "…".  Returns the columns
 * out takes once escaped (argv_quote_cols: a wide character counts as two,
 * "…" as one).
 */
static inline size_t argv_quote_fit(const char *command, size_t cols, char *out, size_t size)
{
	const char *c = command && command[0] ? command : "?", *slash, *rest = NULL;
	size_t total = argv_quote_cols(c), word = 0, used = 0, n = 0, len, w, first;
	bool cut = false;

	if (total > cols && (slash = argv_quote_word_slash(c))) {
		c = slash + 1;
		total = argv_quote_cols(c);
	}
	while (c[word] && c[word] != ' ')
		word++;
	first = c[word] ? word + 1 : word; /* the first word and its space */
	if (total > cols && c[word] &&
	    (argv_quote_is_interpreter(c) || argv_quote_is_bracketed(c)) &&
	    (slash = argv_quote_word_slash(c + first))) {
		rest = slash + 1;
		total = argv_quote_cols_n(c, first) + argv_quote_cols(rest);
	}
	for (const unsigned char *p = (const unsigned char *)c; *p; p += len) {
		if (rest && p == (const unsigned char *)c + first)
			p = (const unsigned char *)rest;
		w = argv_quote_char_cols(p, &len);
		/* room for "…" and the NUL unless all of it fits */
		if (used + w + (total > cols) > cols || n + len + 4 > size) {
			cut = true;
			break;
		}
		for (size_t i = 0; i < len; i++)
			out[n++] = (char)p[i];
		used += w;
	}
	if (total > cols || cut) {
		out[n++] = '\xe2'; /* U+2026 HORIZONTAL ELLIPSIS in UTF-8 */
		out[n++] = '\x80';
		out[n++] = '\xa6';
	}
	out[n] = '\0';
	/* a cut "\x41" no longer reads as an escape: its backslash is one column */
	return argv_quote_cols(out);
}

#endif
