/*
 * tests/unit/test_protobuf.c - the protobuf encoder (analyze/output/protobuf.c)
 * against byte sequences of the wire format's documentation, and the string
 * table (analyze/output/string_table.c) that the pprof writer numbers its
 * strings with.
 */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

#include "analyze/output/protobuf.h"
#include "analyze/output/string_table.h"

/* b holds exactly the n bytes of want. */
static int pb_equals(const struct pb_buf *b, const uint8_t *want, size_t n)
{
	return b->len == n && memcmp(b->data, want, n) == 0;
}

static void test_varints_take_seven_bits_a_byte(void)
{
	struct pb_buf b;
	static const uint8_t want[] = {0x00, 0x01, 0x7f, 0x80, 0x01, 0xac, 0x02, 0xff, 0xff,
				       0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};

	pb_buf_init(&b);
	pb_put_varint(&b, 0);
	pb_put_varint(&b, 1);
	pb_put_varint(&b, 127);
	pb_put_varint(&b, 128);
	pb_put_varint(&b, 300);
	pb_put_varint(&b, UINT64_MAX);
	CU_ASSERT(pb_equals(&b, want, sizeof(want)));
	CU_ASSERT_EQUAL(pb_varint_size(0), 1);
	CU_ASSERT_EQUAL(pb_varint_size(127), 1);
	CU_ASSERT_EQUAL(pb_varint_size(128), 2);
	CU_ASSERT_EQUAL(pb_varint_size(UINT64_MAX), 10);
	CU_ASSERT_EQUAL(pb_buf_error(&b), 0);
	pb_buf_free(&b);
}

/* The documentation's examples: field 1 = 150 is 08 96 01, field 2 =
 * "testing" is 12 07 74 65 73 74 69 6e 67; int64 -2 takes ten bytes. */
static void test_fields_carry_key_and_wire_type(void)
{
	struct pb_buf b;
	static const uint8_t want[] = {0x08, 0x96, 0x01, 0x12, 0x07, 't', 'e', 's', 't', 'i',
				       'n', 'g', 0x18, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff,
				       0xff, 0xff, 0xff, 0x01, 0x22, 0x00, 0xa0, 0x01, 0x05};

	pb_buf_init(&b);
	pb_put_uint(&b, 1, 150);
	pb_put_string(&b, 2, "testing");
	pb_put_int(&b, 3, -2);
	pb_put_bytes(&b, 4, "", 0);
	pb_put_uint(&b, 20, 5); /* a field number above 15 takes a two-byte key */
	CU_ASSERT(pb_equals(&b, want, sizeof(want)));
	pb_buf_free(&b);
}

/* Packed repeated field 4 = {3, 270, 86942}: 22 06 03 8e 02 9e a7 05. */
static void test_packed_values_are_one_length_delimited_field(void)
{
	struct pb_buf b;
	static const uint64_t values[] = {3, 270, 86942};
	static const uint8_t want[] = {0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05};

	pb_buf_init(&b);
	pb_put_packed(&b, 4, values, 3);
	pb_put_packed(&b, 5, values, 0); /* nothing at all */
	CU_ASSERT(pb_equals(&b, want, sizeof(want)));
	pb_buf_free(&b);
}

/* Field 3 = a message holding field 1 = 150: 1a 03 08 96 01; messages
 * nest; a body of 200 bytes moves to make room for a two-byte length. */
static void test_nested_messages_get_their_length_in_front(void)
{
	struct pb_buf b;
	static const uint8_t want[] = {0x1a, 0x07, 0x08, 0x96, 0x01, 0x12, 0x02, 0x08, 0x05};
	char body[199];
	size_t outer, inner;

	pb_buf_init(&b);
	outer = pb_msg_begin(&b, 3);
	pb_put_uint(&b, 1, 150);
	inner = pb_msg_begin(&b, 2);
	pb_put_uint(&b, 1, 5);
	pb_msg_end(&b, inner);
	pb_msg_end(&b, outer);
	CU_ASSERT(pb_equals(&b, want, sizeof(want)));

	pb_buf_clear(&b);
	memset(body, 'x', sizeof(body));
	outer = pb_msg_begin(&b, 1);
	pb_put_bytes(&b, 2, body, sizeof(body) - 2); /* 1 + 2 + 197 = 200 bytes */
	pb_msg_end(&b, outer);
	CU_ASSERT_EQUAL(b.len, 1 + 2 + 200);
	CU_ASSERT_EQUAL(b.data[0], 0x0a);
	CU_ASSERT_EQUAL(b.data[1], 0xc8); /* 200 = c8 01 */
	CU_ASSERT_EQUAL(b.data[2], 0x01);
	CU_ASSERT_EQUAL(b.data[3], 0x12);
	CU_ASSERT_EQUAL(b.data[4], 0xc5); /* 197 = c5 01 */
	CU_ASSERT_EQUAL(b.data[5], 0x01);
	CU_ASSERT_EQUAL(b.data[6], 'x');
	CU_ASSERT_EQUAL(b.data[b.len - 1], 'x');
	pb_buf_free(&b);
}

static void test_string_table_numbers_strings_in_order_once(void)
{
	struct string_table t;
	char name[32];

	string_table_init(&t);
	CU_ASSERT_EQUAL(string_table_find(&t, ""), -1);
	CU_ASSERT_EQUAL(string_table_intern(&t, ""), 0);
	CU_ASSERT_EQUAL(string_table_intern(&t, "malloc"), 1);
	CU_ASSERT_EQUAL(string_table_intern(&t, "mallo"), 2);
	CU_ASSERT_EQUAL(string_table_intern(&t, "malloc"), 1);
	CU_ASSERT_EQUAL(string_table_find(&t, "mallo"), 2);
	CU_ASSERT_EQUAL(string_table_find(&t, "mall"), -1);
	/* past several growths of the index and the arena */
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		CU_ASSERT_EQUAL(string_table_intern(&t, name), 3 + i);
	}
	CU_ASSERT_EQUAL(t.count, 5003);
	CU_ASSERT_EQUAL(string_table_intern(&t, "f4321"), 3 + 4321);
	CU_ASSERT_STRING_EQUAL(string_table_get(&t, 3 + 4999), "f4999");
	CU_ASSERT_STRING_EQUAL(string_table_get(&t, 0), "");
	CU_ASSERT_STRING_EQUAL(string_table_get(&t, 1), "malloc");
	string_table_free(&t);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("protobuf", NULL, NULL);
	CU_add_test(s, "varints take seven bits a byte", test_varints_take_seven_bits_a_byte);
	CU_add_test(s, "fields carry key and wire type", test_fields_carry_key_and_wire_type);
	CU_add_test(s, "packed values are one length-delimited field",
		    test_packed_values_are_one_length_delimited_field);
	CU_add_test(s, "nested messages get their length in front",
		    test_nested_messages_get_their_length_in_front);
	CU_add_test(s, "string table numbers strings in order, once",
		    test_string_table_numbers_strings_in_order_once);
	CU_basic_set_mode(CU_BRM_NORMAL);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
