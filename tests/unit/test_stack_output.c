/*
 * tests/unit/test_stack_output.c - unit tests of the pieces the
 * stack-shaped report formats share: the stack tree (stacks merged from the
 * root, depth-first order by key; sites added through a key map), frame
 * names made safe for folded stacks, a frame's place as the text formats
 * show it, JSON escaped for an HTML <script> element, and durations below
 * the clock's resolution written as such.
 */
#include <CUnit/Basic.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/output/folded.h"
#include "analyze/output/frames.h"
#include "analyze/output/script_json.h"
#include "analyze/output/stack_tree.h"
#include "analyze/output/units.h"
#include "trace/argv_quote.h"

/* The cleaned copy of name (a static buffer). */
static const char *cleaned(const char *name)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s", name);
	return output_folded_name_clean(buf);
}

static void test_folded_names_cleaned(void)
{
	CU_ASSERT_STRING_EQUAL(cleaned("main"), "main");
	CU_ASSERT_STRING_EQUAL(cleaned("operator new(unsigned long)"), "operator new(unsigned long)");
	/* Rust's array types: ';' would split the frame */
	CU_ASSERT_STRING_EQUAL(cleaned("<[u8; 32] as Debug>::fmt"), "<[u8: 32] as Debug>::fmt");
	CU_ASSERT_STRING_EQUAL(cleaned("a\tb\nc\rd\x7f"), "a_b_c_d_");
	/* a trailing " 2" reads as a second count in flamegraph.pl and inferno */
	CU_ASSERT_STRING_EQUAL(cleaned("alloc 2"), "alloc_2");
	CU_ASSERT_STRING_EQUAL(cleaned("alloc 2.5"), "alloc_2.5");
	CU_ASSERT_STRING_EQUAL(cleaned("alloc2"), "alloc2");
	CU_ASSERT_STRING_EQUAL(cleaned("alloc "), "alloc_");
	CU_ASSERT_STRING_EQUAL(cleaned("std::array<int, 3>"), "std::array<int, 3>");
	/* inferno trims lines and skips "# " comments */
	CU_ASSERT_STRING_EQUAL(cleaned(" lead"), "_lead");
	CU_ASSERT_STRING_EQUAL(cleaned("# x"), "_ x");
	CU_ASSERT_STRING_EQUAL(cleaned(""), "");
	CU_ASSERT_STRING_EQUAL(cleaned("42"), "42");
	/* valid UTF-8 stays; a C1 control (U+009B, ESC [ on some terminals)
	 * becomes "__", each byte that is not UTF-8 '?' (length kept) */
	CU_ASSERT_STRING_EQUAL(cleaned("caf\xc3\xa9 \xe2\x80\xa8"), "caf\xc3\xa9 \xe2\x80\xa8");
	CU_ASSERT_STRING_EQUAL(cleaned("a\xc2\x9b" "b"), "a__b");
	CU_ASSERT_STRING_EQUAL(cleaned("a\xff\xfe" "b\xc3"), "a??b?");
	CU_ASSERT_STRING_EQUAL(cleaned("\xe2\x80" "x\xed\xa0\x80"), "??x???");
}

/* The terminal escaper (trace/argv_quote.h) of text read from a trace. */
static const char *printable(const char *text, size_t cap)
{
	static char buf[256];

	argv_quote_printable(text, buf, cap);
	return buf;
}

static void test_terminal_text_escaped(void)
{
	CU_ASSERT_STRING_EQUAL(printable("main", 256), "main");
	CU_ASSERT_STRING_EQUAL(printable("a\nb\t\x1b[31m\x7f", 256), "a\\x0ab\\x09\\x1b[31m\\x7f");
	/* valid UTF-8 stays, a C1 control and bytes that are not UTF-8 do not */
	CU_ASSERT_STRING_EQUAL(printable("caf\xc3\xa9 \xe2\x80\xa6", 256), "caf\xc3\xa9 \xe2\x80\xa6");
	CU_ASSERT_STRING_EQUAL(printable("a\xc2\x9b" "b", 256), "a\\xc2\\x9bb");
	CU_ASSERT_STRING_EQUAL(printable("\xff\xfe" "x\xc3", 256), "\\xff\\xfex\\xc3");
	/* overlong, surrogate, past U+10FFFF, a lead byte cut short */
	CU_ASSERT_STRING_EQUAL(printable("\xc0\xaf\xed\xa0\x80", 256),
			       "\\xc0\\xaf\\xed\\xa0\\x80");
	CU_ASSERT_STRING_EQUAL(printable("\xf4\x90\x80\x80", 256), "\\xf4\\x90\\x80\\x80");
	CU_ASSERT_STRING_EQUAL(printable("\xe2\x80" "a", 256), "\\xe2\\x80a");
	/* cut where a whole character no longer fits */
	CU_ASSERT_STRING_EQUAL(printable("abc\xc3\xa9", 5), "abc");
	CU_ASSERT_STRING_EQUAL(printable("a\xff", 5), "a");
}

static void test_terminal_text_backslash_before_hex_escaped(void)
{
	/* a name holding the four characters \x41 cannot read as "A" */
	CU_ASSERT_STRING_EQUAL(printable("f\\x41", 256), "f\\x5cx41");
	CU_ASSERT_STRING_EQUAL(printable("\\xfF\\xAb", 256), "\\x5cxfF\\x5cxAb");
	/* a backslash that starts no escape stays */
	CU_ASSERT_STRING_EQUAL(printable("a\\b \\x4 \\xg1 \\X41 \\", 256),
			       "a\\b \\x4 \\xg1 \\X41 \\");
	/* before an escaped byte, or a backslash itself */
	CU_ASSERT_STRING_EQUAL(printable("\\\n", 256), "\\\\x0a");
	CU_ASSERT_STRING_EQUAL(printable("\\\\x41", 256), "\\\\x5cx41");
	/* the escape is cut whole */
	CU_ASSERT_STRING_EQUAL(printable("ab\\x41", 6), "ab");
	CU_ASSERT_EQUAL(argv_quote_cols("f\\x41\n\xc3\xa9\xc2\x9b"), 1 + 4 + 3 + 4 + 1 + 8);
	CU_ASSERT_TRUE(argv_quote_is_plain_ascii("a b/c"));
	CU_ASSERT_FALSE(argv_quote_is_plain_ascii("a\\b"));
	CU_ASSERT_FALSE(argv_quote_is_plain_ascii("\xc3\xa9"));
}

static void test_c1_controls_named(void)
{
	const unsigned char *u = (const unsigned char *)"\xc2\x80\xc2\x9b\xc2\x9f";

	CU_ASSERT_TRUE(argv_quote_is_c1(u));
	CU_ASSERT_TRUE(argv_quote_is_c1(u + 2));
	CU_ASSERT_TRUE(argv_quote_is_c1(u + 4));
	/* U+00A0 and U+00C0 are printable; a lone continuation, a cut lead byte
	 * and ASCII are not C1 */
	CU_ASSERT_FALSE(argv_quote_is_c1((const unsigned char *)"\xc2\xa0"));
	CU_ASSERT_FALSE(argv_quote_is_c1((const unsigned char *)"\xc3\x80"));
	CU_ASSERT_FALSE(argv_quote_is_c1((const unsigned char *)"\x9b"));
	CU_ASSERT_FALSE(argv_quote_is_c1((const unsigned char *)"\xc2"));
	CU_ASSERT_FALSE(argv_quote_is_c1((const unsigned char *)"\xc2" "a"));
	CU_ASSERT_FALSE(argv_quote_is_c1((const unsigned char *)"a"));
}

static void test_fit_cuts_between_characters(void)
{
	char out[64];

	/* 5 columns: 4 characters (the 2-byte e-acute one) and the ellipsis */
	CU_ASSERT_EQUAL(argv_quote_fit("abc\xc3\xa9" "defgh", 5, out, sizeof(out)), 5);
	CU_ASSERT_STRING_EQUAL(out, "abc\xc3\xa9\xe2\x80\xa6");
	/* 6 characters in 12 bytes fit 6 columns whole */
	CU_ASSERT_EQUAL(argv_quote_fit("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 6, out,
				       sizeof(out)), 6);
	CU_ASSERT_STRING_EQUAL(out, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
	/* a directory is dropped by characters too */
	CU_ASSERT_EQUAL(argv_quote_fit("/d/\xc3\xa9\xc3\xa9\xc3\xa9 x", 5, out, sizeof(out)), 5);
	CU_ASSERT_STRING_EQUAL(out, "\xc3\xa9\xc3\xa9\xc3\xa9 x");
}

static void test_fit_counts_escapes_as_written(void)
{
	char out[64];

	/* the newline will read \x0a: 4 columns; the text stays raw */
	CU_ASSERT_EQUAL(argv_quote_fit("a\nb", 6, out, sizeof(out)), 6);
	CU_ASSERT_STRING_EQUAL(out, "a\nb");
	CU_ASSERT_EQUAL(argv_quote_fit("a\nbcdef", 7, out, sizeof(out)), 7);
	CU_ASSERT_STRING_EQUAL(out, "a\nb\xe2\x80\xa6");
	/* an escape is never cut: the newline does not fit with the "…" */
	CU_ASSERT_EQUAL(argv_quote_fit("ab\ncdef", 5, out, sizeof(out)), 3);
	CU_ASSERT_STRING_EQUAL(out, "ab\xe2\x80\xa6");
	/* a cut \x41 no longer reads as an escape: its backslash is 1 column */
	CU_ASSERT_EQUAL(argv_quote_fit("a\\x41bcdef", 8, out, sizeof(out)), 5);
	CU_ASSERT_STRING_EQUAL(out, "a\\x4\xe2\x80\xa6");
}

/* A script started through its #! line ("/bin/sh /a/b/wrap.sh x") keeps
 * its script's name when the interpreter's folder is not enough. */
static void test_fit_drops_the_scripts_folder(void)
{
	char out[64];

	/* fits whole, or without the interpreter's folder */
	CU_ASSERT_EQUAL(argv_quote_fit("/bin/sh /a/b/wrap.sh x", 22, out, sizeof(out)), 22);
	CU_ASSERT_STRING_EQUAL(out, "/bin/sh /a/b/wrap.sh x");
	CU_ASSERT_EQUAL(argv_quote_fit("/bin/sh /a/b/wrap.sh x", 17, out, sizeof(out)), 17);
	CU_ASSERT_STRING_EQUAL(out, "sh /a/b/wrap.sh x");
	/* then without the script's folder too */
	CU_ASSERT_EQUAL(argv_quote_fit("/bin/sh /a/b/wrap.sh x", 16, out, sizeof(out)), 12);
	CU_ASSERT_STRING_EQUAL(out, "sh wrap.sh x");
	CU_ASSERT_EQUAL(argv_quote_fit("/bin/sh /a/b/wrap.sh x", 8, out, sizeof(out)), 8);
	CU_ASSERT_STRING_EQUAL(out, "sh wrap\xe2\x80\xa6");
	/* a quoted second word, or one without a folder, is kept */
	CU_ASSERT_EQUAL(argv_quote_fit("sh '/a/b c' x", 8, out, sizeof(out)), 8);
	CU_ASSERT_STRING_EQUAL(out, "sh '/a/\xe2\x80\xa6");
	CU_ASSERT_EQUAL(argv_quote_fit("sh -c /a/b", 8, out, sizeof(out)), 8);
	CU_ASSERT_STRING_EQUAL(out, "sh -c /\xe2\x80\xa6");
}

/* Only an interpreter's second word is a script whose folder may go: any
 * other command keeps it ("diff /dev/fd/63 /dev/fd/62" once read "diff 63
 * /dev/fd/62"). */
static void test_fit_keeps_a_commands_second_word(void)
{
	char out[64];

	CU_ASSERT_EQUAL(argv_quote_fit("/usr/bin/diff /dev/fd/63 /dev/fd/62", 20, out, sizeof(out)),
			20);
	CU_ASSERT_STRING_EQUAL(out, "diff /dev/fd/63 /de\xe2\x80\xa6");
	CU_ASSERT_EQUAL(argv_quote_fit("cat /proc/1/maps", 10, out, sizeof(out)), 10);
	CU_ASSERT_STRING_EQUAL(out, "cat /proc\xe2\x80\xa6");
	/* a versioned interpreter, or one named by its folder, is one */
	CU_ASSERT_EQUAL(argv_quote_fit("/usr/bin/python3.12 /a/b/run.py", 14, out, sizeof(out)), 14);
	CU_ASSERT_STRING_EQUAL(out, "python3.12 ru\xe2\x80\xa6");
	CU_ASSERT_EQUAL(argv_quote_fit("/usr/bin/python3.12 /a/b/run.py", 17, out, sizeof(out)), 17);
	CU_ASSERT_STRING_EQUAL(out, "python3.12 run.py");
	CU_ASSERT_EQUAL(argv_quote_fit("bash /a/b/w.sh", 9, out, sizeof(out)), 9);
	CU_ASSERT_STRING_EQUAL(out, "bash w.sh");
	/* a name that only starts like one is not */
	CU_ASSERT_EQUAL(argv_quote_fit("shred /a/b/f", 9, out, sizeof(out)), 9);
	CU_ASSERT_STRING_EQUAL(out, "shred /a\xe2\x80\xa6");
	CU_ASSERT_TRUE(argv_quote_is_interpreter("/bin/dash x"));
	CU_ASSERT_TRUE(argv_quote_is_interpreter("perl5.36"));
	CU_ASSERT_FALSE(argv_quote_is_interpreter("diff /dev/fd/63"));
	CU_ASSERT_FALSE(argv_quote_is_interpreter("'sh' x"));
	CU_ASSERT_FALSE(argv_quote_is_interpreter("/usr/sh/busybox x"));
	/* after a process name in brackets the second word is the program */
	CU_ASSERT_EQUAL(argv_quote_fit("[w] ./a/prog x", 10, out, sizeof(out)), 10);
	CU_ASSERT_STRING_EQUAL(out, "[w] prog x");
	CU_ASSERT_TRUE(argv_quote_is_bracketed("[demo-quick] ./p"));
	CU_ASSERT_FALSE(argv_quote_is_bracketed("[ x"));
	CU_ASSERT_FALSE(argv_quote_is_bracketed("[x y]"));
}

/* U+7A0B and U+5E8F (CJK), U+AC00 (Hangul), U+FF21 (fullwidth A) and
 * U+1F600 (an emoji) take two terminal columns each; U+00E9 one. */
static void test_fit_counts_wide_characters_as_two(void)
{
	char out[64];

	CU_ASSERT_EQUAL(argv_quote_cols("\xe7\xa8\x8b"), 2);
	CU_ASSERT_EQUAL(argv_quote_cols("a\xea\xb0\x80\xc3\xa9\xef\xbc\xa1\xf0\x9f\x98\x80"),
			1 + 2 + 1 + 2 + 2);
	/* written as they are */
	CU_ASSERT_STRING_EQUAL(printable("\xe7\xa8\x8b\xe5\xba\x8f", 256), "\xe7\xa8\x8b\xe5\xba\x8f");
	/* 8 columns whole; in 5, two characters and the "…" */
	CU_ASSERT_EQUAL(argv_quote_fit("\xe7\xa8\x8b\xe5\xba\x8f\xe7\xa8\x8b\xe5\xba\x8f", 8, out,
				       sizeof(out)), 8);
	CU_ASSERT_EQUAL(argv_quote_fit("\xe7\xa8\x8b\xe5\xba\x8f\xe7\xa8\x8b\xe5\xba\x8f", 5, out,
				       sizeof(out)), 5);
	CU_ASSERT_STRING_EQUAL(out, "\xe7\xa8\x8b\xe5\xba\x8f\xe2\x80\xa6");
	/* a wide character that would end on the ellipsis's column is left out */
	CU_ASSERT_EQUAL(argv_quote_fit("a\xe7\xa8\x8b\xe5\xba\x8f", 4, out, sizeof(out)), 4);
	CU_ASSERT_STRING_EQUAL(out, "a\xe7\xa8\x8b\xe2\x80\xa6");
}

/* A command line's first word: a quoted title whole, with its quotes. */
static void test_first_word_keeps_quotes(void)
{
	CU_ASSERT_EQUAL(argv_quote_word_len("/usr/bin/prog -x"), 13);
	CU_ASSERT_EQUAL(argv_quote_word_len("prog"), 4);
	CU_ASSERT_EQUAL(argv_quote_word_len(""), 0);
	CU_ASSERT_EQUAL(argv_quote_word_len("'postgres: checkpointer '"), 25);
	CU_ASSERT_EQUAL(argv_quote_word_len("'nginx: worker process' -g x"), 23);
	CU_ASSERT_EQUAL(argv_quote_word_len("'it'\\''s a' b"), 11);
	CU_ASSERT_EQUAL(argv_quote_word_len("[name] prog"), 6);
}

static void test_stack_tree_merges_and_orders(void)
{
	struct stack_tree t;
	const uint32_t a[] = {1, 5, 3}, b[] = {1, 5, 3}, c[] = {1, 2}, d[] = {1, 5};
	/* node keys in depth-first order, children by key: 1, 2, 5, 3 */
	const uint32_t want_keys[] = {STACK_TREE_NONE, 1, 2, 5, 3};
	const uint32_t want_depth[] = {0, 1, 2, 2, 3};

	CU_ASSERT_EQUAL_FATAL(stack_tree_init(&t, 2), 0);
	CU_ASSERT_EQUAL(stack_tree_add(&t, a, 3, (const uint64_t[]){10, 1}), 0);
	CU_ASSERT_EQUAL(stack_tree_add(&t, b, 3, (const uint64_t[]){5, 2}), 0);
	CU_ASSERT_EQUAL(stack_tree_add(&t, c, 2, (const uint64_t[]){7, 3}), 0);
	CU_ASSERT_EQUAL(stack_tree_add(&t, d, 2, (const uint64_t[]){1, 4}), 0);
	CU_ASSERT_EQUAL(stack_tree_add(&t, NULL, 0, (const uint64_t[]){2, 5}), 0);
	CU_ASSERT_EQUAL_FATAL(t.count, 5);
	CU_ASSERT_EQUAL_FATAL(stack_tree_sort(&t), 0);
	for (size_t i = 0; i < 5; i++) {
		const struct stack_tree_node *n = &t.nodes[t.order[i]];

		CU_ASSERT_EQUAL(n->key, want_keys[i]);
		CU_ASSERT_EQUAL(t.depth[t.order[i]], want_depth[i]);
		if (n->key == 3) {
			CU_ASSERT_EQUAL(stack_tree_values(&t, t.order[i])[0], 15);
			CU_ASSERT_EQUAL(stack_tree_values(&t, t.order[i])[1], 3);
		}
		if (n->key == 5)
			CU_ASSERT_EQUAL(stack_tree_values(&t, t.order[i])[0], 1);
	}
	CU_ASSERT_EQUAL(stack_tree_values(&t, STACK_TREE_ROOT)[0], 2);
	CU_ASSERT_EQUAL(stack_tree_values(&t, STACK_TREE_ROOT)[1], 5);
	stack_tree_free(&t);
}

static void test_stack_tree_grows(void)
{
	struct stack_tree t;
	uint32_t keys[2];
	uint64_t sum = 0;

	CU_ASSERT_EQUAL_FATAL(stack_tree_init(&t, 1), 0);
	for (uint32_t i = 0; i < 5000; i++) {
		keys[0] = i % 7;
		keys[1] = i;
		CU_ASSERT_EQUAL_FATAL(stack_tree_add(&t, keys, 2, (const uint64_t[]){i}), 0);
	}
	CU_ASSERT_EQUAL(t.count, 1 + 7 + 5000);
	CU_ASSERT_EQUAL_FATAL(stack_tree_sort(&t), 0);
	for (size_t i = 0; i < t.count; i++)
		sum += stack_tree_values(&t, t.order[i])[0];
	CU_ASSERT_EQUAL(sum, 4999ull * 5000 / 2);
	stack_tree_free(&t);
}

static bool site_id_value(const struct site *s, uint64_t *values, void *ctx)
{
	(void)ctx;
	values[0] = s->id;
	values[1] = 1;
	return s->id != 4; /* site 4 is left out */
}

/* Sites as stacks: frames root first through the key map, the stackless
 * ones under their own keys, a site the callback declines left out. */
static void test_stack_tree_of_sites(void)
{
	/* frame links: node 1 = frame 2 (outermost, "main"), node 2 = frame 1
	 * under it, node 3 = frame 0 (innermost) under that */
	uint32_t links[] = {0, 0, 0, 2, 1, 1, 2, 0};
	struct site sites[] = {
		{.id = 1, .frame_node = 3, .frame_count = 3},
		{.id = 2, .frame_node = 2, .frame_count = 2},
		{.id = 3, .unknown_stack = true},
		{.id = 4, .frame_node = 3, .frame_count = 3},
		{.id = 5, .inherited = true},
	};
	struct site_table t;
	/* frames 0..2, then [no stack], [inherited at fork] */
	const uint32_t key_of[] = {10, 11, 12, 20, 21};
	const uint32_t want_keys[] = {STACK_TREE_NONE, 12, 11, 10, 20, 21};
	const uint64_t want_value[] = {0, 0, 2, 1, 3, 5};
	struct stack_tree tree;

	memset(&t, 0, sizeof(t));
	t.sites = sites;
	t.count = 5;
	t.frame_count = 3;
	t.frame_links = links;
	CU_ASSERT_EQUAL_FATAL(stack_tree_of_sites(&tree, &t, key_of, 2, site_id_value, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(tree.count, 6);
	for (size_t i = 0; i < tree.count; i++) {
		uint32_t node = tree.order[i];

		CU_ASSERT_EQUAL(tree.nodes[node].key, want_keys[i]);
		CU_ASSERT_EQUAL(stack_tree_values(&tree, node)[0], want_value[i]);
		CU_ASSERT_EQUAL(stack_tree_values(&tree, node)[1], want_value[i] ? 1 : 0);
	}
	stack_tree_free(&tree);
	/* without a key map the keys are the frame ids (and 3, 4) */
	CU_ASSERT_EQUAL_FATAL(stack_tree_of_sites(&tree, &t, NULL, 1, site_id_value, NULL), 0);
	CU_ASSERT_EQUAL(tree.nodes[tree.order[1]].key, 2);
	CU_ASSERT_EQUAL(tree.nodes[tree.order[tree.count - 1]].key, 4);
	stack_tree_free(&tree);
	CU_ASSERT_EQUAL(stack_tree_init(&tree, STACK_TREE_MAX_VALUES + 1), -EINVAL);
	stack_tree_free(&tree);
}

/* What out gets when text is written to a script_json stream in pieces of
 * piece bytes. */
static char *through_script_json(const char *text, size_t piece)
{
	char *buf = NULL;
	size_t bytes = 0;
	FILE *mem = open_memstream(&buf, &bytes);
	FILE *js = output_script_json_open(mem);
	size_t n = strlen(text);

	CU_ASSERT_PTR_NOT_NULL_FATAL(js);
	setvbuf(js, NULL, _IONBF, 0); /* every fwrite reaches the filter as it is */
	for (size_t i = 0; i < n; i += piece)
		fwrite(text + i, 1, n - i < piece ? n - i : piece, js);
	fclose(js);
	fclose(mem);
	return buf;
}

static void test_script_json_escapes(void)
{
	const char *in = "{\"a\":\"</script><!--&\xe2\x80\xa8|\xe2\x80\xa9|\xe2\x80\x94|\xe2\xe2\x80\xa8\"}";
	const char *want = "{\"a\":\"\\u003c/script\\u003e\\u003c!--\\u0026\\u2028|\\u2029|\xe2\x80\x94|"
			   "\xe2\\u2028\"}";

	for (size_t piece = 1; piece <= 4; piece++) {
		char *out = through_script_json(in, piece);

		CU_ASSERT_STRING_EQUAL(out, want);
		free(out);
	}
	{
		/* a sequence cut at the end of the stream is written as it was */
		char *out = through_script_json("x\xe2\x80", 1);

		CU_ASSERT_STRING_EQUAL(out, "x\xe2\x80");
		free(out);
	}
}

static const char *measured(uint64_t ns, uint64_t resolution_ns)
{
	static char buf[32];

	return output_fmt_time_ns(buf, sizeof(buf), ns, resolution_ns);
}

/* f's place with lines_differ, "(none)" for NULL (a static buffer). */
static const char *place(const char *file, uint32_t line, bool lines_differ)
{
	static char buf[64];
	struct site_frame f = {.function = "parse", .file = file, .module = "/bin/p", .line = line};
	const char *r = output_frame_place(&f, lines_differ, buf, sizeof(buf));

	return r ? r : "(none)";
}

static void test_frame_place(void)
{
	CU_ASSERT_STRING_EQUAL(place("/src/a/parse.c", 12, false), "parse.c:12");
	CU_ASSERT_STRING_EQUAL(place("/src/a/parse.c", 0, false), "parse.c");
	CU_ASSERT_STRING_EQUAL(place("parse.c", 7, false), "parse.c:7");
	CU_ASSERT_STRING_EQUAL(place(NULL, 0, false), "(none)");
	CU_ASSERT_STRING_EQUAL(place(NULL, 12, false), "(none)");
	/* a diff's frame standing for several lines, or several files */
	CU_ASSERT_STRING_EQUAL(place("/src/a/parse.c", 12, true), "parse.c, lines differ");
	CU_ASSERT_STRING_EQUAL(place(NULL, 0, true), "files differ");
	/* cut to fit, NUL-terminated */
	{
		char small[6];
		struct site_frame f = {.file = "/src/parse.c", .line = 12};

		CU_ASSERT_STRING_EQUAL(output_frame_place(&f, false, small, sizeof(small)), "parse");
	}
}

static void test_time_below_resolution(void)
{
	/* below the tick: the tick without trailing zeros */
	CU_ASSERT_STRING_EQUAL(measured(0, 4000000), "< 4 ms");
	CU_ASSERT_STRING_EQUAL(measured(3999999, 4000000), "< 4 ms");
	CU_ASSERT_STRING_EQUAL(measured(0, 3333333), "< 3.33 ms");
	CU_ASSERT_STRING_EQUAL(measured(0, 2500000), "< 2.5 ms");
	CU_ASSERT_STRING_EQUAL(measured(0, 10000000), "< 10 ms");
	CU_ASSERT_STRING_EQUAL(measured(5, 10000000000ull), "< 10 s");
	CU_ASSERT_STRING_EQUAL(measured(0, 20), "< 20 ns");
	/* at or above it, or no resolution: the figure as output_fmt_ns */
	CU_ASSERT_STRING_EQUAL(measured(4000000, 4000000), "4.00 ms");
	CU_ASSERT_STRING_EQUAL(measured(50123456, 4000000), "50.12 ms");
	CU_ASSERT_STRING_EQUAL(measured(0, 0), "0 ns");
	CU_ASSERT_STRING_EQUAL(measured(1500, 0), "1.5 us");
}

/* The grain as "run time:" and DHAT's text name it: the form "< grain"
 * shows, so the two read alike. */
static void test_grain_named_as_below_shows_it(void)
{
	char buf[32];

	CU_ASSERT_STRING_EQUAL(output_fmt_grain_ns(buf, sizeof(buf), 2000000), "2 ms");
	CU_ASSERT_STRING_EQUAL(output_fmt_grain_ns(buf, sizeof(buf), 3333333), "3.33 ms");
	CU_ASSERT_STRING_EQUAL(output_fmt_grain_ns(buf, sizeof(buf), 10000000000ull), "10 s");
	CU_ASSERT_STRING_EQUAL(output_fmt_grain_ns(buf, sizeof(buf), 20), "20 ns");
	CU_ASSERT_STRING_EQUAL(measured(0, 2097152), "< 2.1 ms");
	CU_ASSERT_STRING_EQUAL(output_fmt_grain_ns(buf, sizeof(buf), 2097152), "2.1 ms");
}

int main(void)
{
	CU_pSuite s;
	unsigned failures;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite("stack_output", NULL, NULL);
	CU_add_test(s, "folded names cleaned", test_folded_names_cleaned);
	CU_add_test(s, "terminal text escaped", test_terminal_text_escaped);
	CU_add_test(s, "C1 controls named", test_c1_controls_named);
	CU_add_test(s, "terminal text: a backslash before hex escaped",
		    test_terminal_text_backslash_before_hex_escaped);
	CU_add_test(s, "fit cuts between characters", test_fit_cuts_between_characters);
	CU_add_test(s, "fit counts escapes as written", test_fit_counts_escapes_as_written);
	CU_add_test(s, "fit counts wide characters as two", test_fit_counts_wide_characters_as_two);
	CU_add_test(s, "fit drops the script's folder", test_fit_drops_the_scripts_folder);
	CU_add_test(s, "fit keeps a command's second word", test_fit_keeps_a_commands_second_word);
	CU_add_test(s, "first word keeps quotes", test_first_word_keeps_quotes);
	CU_add_test(s, "stack tree merges and orders", test_stack_tree_merges_and_orders);
	CU_add_test(s, "stack tree grows", test_stack_tree_grows);
	CU_add_test(s, "stack tree of sites", test_stack_tree_of_sites);
	CU_add_test(s, "frame place", test_frame_place);
	CU_add_test(s, "script JSON escapes", test_script_json_escapes);
	CU_add_test(s, "time below the resolution", test_time_below_resolution);
	CU_add_test(s, "grain named as below shows it", test_grain_named_as_below_shows_it);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failures = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failures ? 1 : 0;
}
