// SPDX-License-Identifier: GPL-2.0-only
/*
 * tdc_pread() through a cursor's window of the file (parsers/tracedat-cur.c) gives what
 * pread() gives at every offset and length: inside the window, across its end, a read too
 * large for it, near and past the end of the file (short, then nothing), and through a
 * copy of the cursor that moves the shared window.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../lib/lib.h"
#include "../../parsers/tracedat-cur.h"

#define FILE_SIZE	(3 * CUR_WIN_SIZE + 1234)

static int file_fd(void)
{
	char tmpl[] = "/tmp/tlbscope-test-cur-XXXXXX";
	int fd = mkstemp(tmpl);
	char *data = xmalloc(FILE_SIZE);

	assert_true(fd >= 0);
	unlink(tmpl);
	for (size_t i = 0; i < FILE_SIZE; i++)
		data[i] = (char)(i * 7 + i / 251);
	assert_int_equal(write(fd, data, FILE_SIZE), FILE_SIZE);
	free(data);
	return fd;
}

/* tdc_pread() of @n at @off against pread(), bytes and result */
static void same(struct cur *c, uint64_t off, size_t n)
{
	char *want = xcalloc(1, n + 1), *got = xcalloc(1, n + 1);
	ssize_t w = pread(c->fd, want, n, (off_t)off);
	ssize_t g = tdc_pread(c, got, n, off);

	if (w != g || (w > 0 && memcmp(want, got, (size_t)w)))
		fail_msg("offset %llu, %zu bytes: pread %zd, tdc_pread %zd",
			 (unsigned long long)off, n, w, g);
	free(want);
	free(got);
}

static void test_window_reads(void **state)
{
	struct cur_win win = { .buf = xmalloc(CUR_WIN_SIZE) };
	struct cur c = { .fd = file_fd(), .size = FILE_SIZE, .win = &win }, copy;
	static const size_t lens[] = { 1, 4, 8, 417, 4096, CUR_WIN_SIZE / 2,
				       CUR_WIN_SIZE / 2 + 1, CUR_WIN_SIZE, 2 * CUR_WIN_SIZE };

	(void)state;
	/* in order, as a walk of the headers reads */
	for (uint64_t off = 0; off < FILE_SIZE; off += 421)
		same(&c, off, 8);
	/* every length at offsets inside, at and across a window's end, and near the file's */
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		const uint64_t offs[] = { 0, 10, CUR_WIN_SIZE - 3, CUR_WIN_SIZE, 2 * CUR_WIN_SIZE + 5,
					  FILE_SIZE - 100, FILE_SIZE - 1, FILE_SIZE, FILE_SIZE + 9 };

		for (size_t k = 0; k < sizeof(offs) / sizeof(offs[0]); k++)
			same(&c, offs[k], lens[i]);
	}
	/* backwards, then a copy's read moves the window the original reads through */
	for (uint64_t off = FILE_SIZE; off >= 977; off -= 977)
		same(&c, off - 50, 40);
	copy = c;
	same(&copy, 2 * CUR_WIN_SIZE, 16);
	same(&c, 100, 16);
	same(&copy, 2 * CUR_WIN_SIZE + 8, 16);
	close(c.fd);
	free(win.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_reads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
