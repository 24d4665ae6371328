// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of tlbscope's reading of kallsyms (parsers/tracedat-tep.c) against
 * libtraceevent's tep_parse_kallsyms() and tep_find_function(), which it stands in for:
 * every address at, around and between the symbols of hand-made tables (aliases of one
 * address, absolute and '$' symbols, modules, empty lines, lines out of order) and of this
 * machine's /proc/kallsyms must name the function libtraceevent names; lines of another
 * shape must be left to libtraceevent.
 */
#include <errno.h>
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
#include "../../parsers/tracedat-tep.h"

/* Every address near each symbol of @text: both readings must name the same function. */
static void compare(const char *text)
{
	struct tep_handle *tep = tep_alloc();
	struct tdc_ksyms *k = tdc_ksyms_new(text);
	const char *p = text;
	size_t checked = 0;

	assert_non_null(tep);
	assert_non_null(k);
	assert_int_equal(tep_parse_kallsyms(tep, text), 0);
	for (; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
		unsigned long long base = strtoull(p, NULL, 16);

		for (long long d = -2; d <= 2; d++) {
			unsigned long long a = base + (unsigned long long)d, got_at = a;
			const char *want = tep_find_function(tep, a);
			const char *got = tdc_ksyms_find(k, &got_at);

			if (!want != !got || (want && strcmp(want, got))) {
				fail_msg("address %llx: libtraceevent '%s', tlbscope '%s'", a,
					 want ? want : "(none)", got ? got : "(none)");
			}
			if (want)
				assert_int_equal(got_at, tep_find_function_address(tep, a));
			checked++;
		}
	}
	assert_true(checked > 0);
	tdc_ksyms_free(k);
	tep_free(tep);
}

static void test_sorted_with_aliases(void **state)
{
	(void)state;
	compare("0000000000000000 A fixed_percpu_data\n"
		"ffffffff81000000 T _stext\n"
		"ffffffff81000000 T _text\n"
		"ffffffff81000000 t startup_64\n"
		"ffffffff81000040 T secondary_startup_64\n"
		"\n"
		"ffffffff81000050 t $x\n"
		"ffffffff81000060 T alias_a\n"
		"ffffffff81000060 W alias_b\n"
		"ffffffff81000060 T alias_c\n"
		"ffffffff81000060 T alias_d\n"
		"ffffffff81000100 a absolute_local\n"
		"ffffffff81000200 T last_core\n"
		"ffffffffc0000000 t mod_init\t[some_mod]\n"
		"ffffffffc0000000 t mod_alias\t[some_mod]\n"
		"ffffffffc0000100 T mod_exit\t[other]\n");
}

static void test_out_of_order(void **state)
{
	(void)state;
	compare("ffffffff81000200 T b\n"
		"ffffffff81000100 T a\n"
		"ffffffff81000100 T a2\n"
		"ffffffffc0001000 t m2\t[m]\n"
		"ffffffffc0000000 t m1\t[m]\n"
		"ffffffff81000300 T c\n"
		"ffffffff81000100 T a3\n");
}

/* the last line without its newline: the table, sized from the newlines, holds it too */
static void test_no_last_newline(void **state)
{
	(void)state;
	compare("ffffffff81000000 T a\n"
		"ffffffff81000010 T b");
	compare("ffffffff81000010 T only");
}

/* one address many times: libtraceevent's search lands on one of them, ours must too */
static void test_many_aliases(void **state)
{
	char *text = NULL;
	size_t len = 0, alloc = 0;

	(void)state;
	for (int i = 0; i < 300; i++) {
		char line[64];
		int n = snprintf(line, sizeof(line), "ffffffff81%06x T f%d\n",
				 i < 100 ? 0x1000 : i < 200 ? 0x1000 + i : 0x9000, i);

		ALLOC_GROW(text, len + (size_t)n + 1, alloc);
		memcpy(text + len, line, (size_t)n + 1);
		len += (size_t)n;
	}
	compare(text);
	free(text);
}

/* shapes whose sscanf() reading only libtraceevent knows: not read here */
static void test_other_shapes(void **state)
{
	static const char *const shapes[] = {
		" ffffffff81000000 T lead_blank\n",
		"0xffffffff81000000 T hex_prefix\n",
		"ffffffff810000000 T seventeen_digits\n",
		"ffffffff81000000  T two_blanks\n",
		"ffffffff81000000 T\n",
		"ffffffff81000000\n",
		"not a line\n",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		assert_null(tdc_ksyms_new(shapes[i]));
}

/* this machine's kallsyms, when they show addresses (root, kptr_restrict) */
static void test_this_machine(void **state)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char *text = NULL;
	size_t len = 0, alloc = 0, n;

	(void)state;
	if (!f) {
		/* tests/run.sh puts the reason on cmocka's skip line */
		printf("# skip reason: /proc/kallsyms cannot be read (%s)\n", strerror(errno));
		skip();
	}
	do {
		ALLOC_GROW(text, len + 65536 + 1, alloc);
		n = fread(text + len, 1, 65536, f);
		len += n;
	} while (n);
	fclose(f);
	text[len] = '\0';
	if (len < 1000 || !strncmp(text, "0000000000000000", 16)) {
		printf("# skip reason: /proc/kallsyms shows this user no addresses (kptr_restrict: "
		       "root sees them)\n");
		free(text);
		skip();
	}
	compare(text);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sorted_with_aliases),
		cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_no_last_newline),
		cmocka_unit_test(test_many_aliases),
		cmocka_unit_test(test_other_shapes),
		cmocka_unit_test(test_this_machine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
