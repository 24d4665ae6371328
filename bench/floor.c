// SPDX-License-Identifier: GPL-2.0-only
/*
 * The floor of reading a trace.dat: libtracecmd opens the file and iterates every record
 * of every CPU in time order with a callback that does nothing.  No decoding, no output.
 * `tlbscope report` on the same file divided by this is the cost of everything tlbscope
 * adds (bench/run.sh).  Prints the record count so that the loop cannot be elided.
 *   usage: floor TRACE.dat
 */
#include <stdio.h>

#include <trace-cmd.h>

static int count(struct tracecmd_input *handle, struct tep_record *record, int cpu, void *data)
{
	(*(unsigned long long *)data)++;
	return 0;
}

int main(int argc, char **argv)
{
	struct tracecmd_input *handle;
	unsigned long long n = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: floor TRACE.dat\n");
		return 2;
	}
	handle = tracecmd_open(argv[1], 0);
	if (!handle) {
		fprintf(stderr, "floor: %s: cannot open\n", argv[1]);
		return 2;
	}
	tracecmd_iterate_events(handle, NULL, 0, count, &n);
	tracecmd_close(handle);
	printf("%llu records\n", n);
	return 0;
}
