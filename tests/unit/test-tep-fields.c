// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the binary readers' field getters (parsers/tep-fields.c) on a sched_switch
 * record built by hand, in the format of Linux 6.x: many() must give what the single
 * getters give, byte for byte into a zeroed event (as ts_source_next() hands it), for a
 * task name ending at every place, with no NUL in its 16 bytes, with bytes past its NUL and
 * bytes of any value before it; and a record cut short inside a task name, not read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <event-parse.h>

#include "../../lib/lib.h"
#include "../../parsers/tep-fields.h"

#define SWITCH_ID	372

static const char switch_format[] =
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d ==> next_comm=%s next_pid=%d\", "
	"REC->prev_comm, REC->prev_pid, REC->next_comm, REC->next_pid\n";

struct fixture {
	struct tep_handle *tep;
	struct tep_field_cache cache;
	struct ts_source src;
	unsigned char data[64];
	struct tep_record rec;
	struct tep_fields c;
	struct tp_fields f;
};

static int setup(void **state)
{
	struct fixture *x = xcalloc(1, sizeof(*x));

	x->tep = tep_alloc();
	assert_non_null(x->tep);
	tep_set_file_bigendian(x->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(x->tep, TEP_LITTLE_ENDIAN);
	assert_int_equal(tep_parse_event(x->tep, switch_format, sizeof(switch_format) - 1,
					 "sched"), 0);
	x->src.strs = strtab_new();
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *x = *state;

	strtab_free(x->src.strs);
	tep_free(x->tep);
	free(x);
	return 0;
}

/* The record: a switch from @prev (16 bytes as they lie) to pid 7 "next". */
static void record(struct fixture *x, const unsigned char prev[16])
{
	uint16_t type = SWITCH_ID;
	int32_t pid = 42, prio = 120, npid = 7;
	int64_t state = 1;

	memset(x->data, 0, sizeof(x->data));
	memcpy(x->data, &type, 2);
	memcpy(x->data + 4, &pid, 4);
	memcpy(x->data + 8, prev, 16);
	memcpy(x->data + 24, &pid, 4);
	memcpy(x->data + 28, &prio, 4);
	memcpy(x->data + 32, &state, 8);
	memcpy(x->data + 40, "next\0\x7f\x80\xff", 8);
	memcpy(x->data + 56, &npid, 4);
	memcpy(x->data + 60, &prio, 4);
	x->rec = (struct tep_record){ .data = x->data, .size = 64, .cpu = 0, .ts = 1 };
	assert_non_null(tep_event_of(&x->cache, x->tep, &x->rec));
	x->c = (struct tep_fields){ .tep = x->tep, .cache = &x->cache, .bigendian = false,
				    .event = tep_event_of(&x->cache, x->tep, &x->rec),
				    .rec = &x->rec };
	tep_fields_bind(&x->f, &x->c, &x->src);
}

/* many() of @prev's record equals num() and str(), byte for byte into zeroed buffers. */
static void check(struct fixture *x, const unsigned char prev[16])
{
	static const char *const names[] = { "prev_pid", "next_pid", "prev_state",
					     "prev_comm", "next_comm" };
	char one[2][TS_COMM_LEN], all[2][TS_COMM_LEN];
	char *strs[] = { all[0], all[1] };
	int64_t nums[3], v;

	record(x, prev);
	memset(one, 0, sizeof(one));
	memset(all, 0, sizeof(all));
	assert_int_equal(x->f.many(x->f.ctx, names, 3, nums, 2, strs, TS_COMM_LEN), 1);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(x->f.num(x->f.ctx, names[i], &v), 0);
		assert_int_equal(nums[i], v);
	}
	assert_int_equal(x->f.str(x->f.ctx, "prev_comm", one[0], TS_COMM_LEN), 0);
	assert_int_equal(x->f.str(x->f.ctx, "next_comm", one[1], TS_COMM_LEN), 0);
	assert_memory_equal(one, all, sizeof(one));
	/* and what str() means: the bytes before the NUL, 15 at most, then zeros */
	for (int i = 0, end = 0; i < TS_COMM_LEN; i++) {
		end |= i == TS_COMM_LEN - 1 || !prev[i];
		assert_int_equal((unsigned char)all[0][i], end ? 0 : prev[i]);
	}
}

static void test_many_comm_ends(void **state)
{
	struct fixture *x = *state;
	unsigned char prev[16];

	for (int nul = 0; nul <= 16; nul++) {
		/* every byte value before the NUL, something after it */
		for (int fill = 1; fill < 256; fill += 17) {
			for (int i = 0; i < 16; i++) {
				unsigned char b = (unsigned char)(fill + i * 29);

				prev[i] = i < nul ? (b ? b : 0x80) : i == nul ? 0 : (unsigned char)(i + 1);
			}
			check(x, prev);
		}
	}
}

static void test_many_comm_random(void **state)
{
	struct fixture *x = *state;
	unsigned char prev[16];

	srand(28);
	for (int n = 0; n < 20000; n++) {
		for (int i = 0; i < 16; i++)
			/* bytes 0, 1, 0x80 and 0xff are where a word-wise search could err */
			prev[i] = "\x00\x01\x80\xff"[rand() % 4] ^ (rand() % 3 ? 0 : rand());
		check(x, prev);
	}
}

/*
 * A record cut short inside prev_comm (a malformed one): neither str() nor many() reads
 * the field, whose 16 bytes run past the record's end (allocated to its size: valgrind
 * or AddressSanitizer would see a read past it).
 */
static void test_comm_cut_short(void **state)
{
	struct fixture *x = *state;
	static const unsigned char prev[16] = "abc";
	char one[TS_COMM_LEN], *strs[] = { one, one };
	static const char *const names[] = { "prev_comm", "next_comm" };
	unsigned char *data = malloc(12);

	assert_non_null(data);
	record(x, prev);
	memcpy(data, x->data, 12);
	x->rec.data = data;
	x->rec.size = 12;
	assert_int_equal(x->f.str(x->f.ctx, "prev_comm", one, TS_COMM_LEN), -1);
	assert_int_equal(x->f.many(x->f.ctx, names, 0, NULL, 2, strs, TS_COMM_LEN), 0);
	x->rec.data = x->data;
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many_comm_ends),
		cmocka_unit_test(test_many_comm_random),
		cmocka_unit_test(test_comm_cut_short),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
