// SPDX-License-Identifier: GPL-2.0-only
/*
 * export --format chrome: the export model's drawing as the Trace Event Format (JSON) that
 * ui.perfetto.dev and chrome://tracing open.  Tracks are threads of one process ("CPUs"),
 * slices "X" events, instants "i", flow arrows "s"/"f" (the end bound to the enclosing
 * slice), counters "C".  Times: microseconds with their nanoseconds as three decimals.
 */
#include <stdlib.h>

#include "../lib/lib.h"
#include "export.h"

struct chrome {
	FILE *out;
};

static void put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void put_str_or_null(FILE *f, const char *s)
{
	if (s)
		put_str(f, s);
	else
		fputs("null", f);
}

/* "ts": microseconds, exactly (ns as three decimals) */
static void put_ts(FILE *f, const char *key, uint64_t ns)
{
	fprintf(f, "\"%s\":%llu.%03llu", key, (unsigned long long)(ns / 1000),
		(unsigned long long)(ns % 1000));
}

static void *chrome_begin(FILE *out, const struct export_header *h)
{
	struct chrome *c = xcalloc(1, sizeof(*c));

	c->out = out;
	fprintf(out, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"trace\":");
	put_str(out, h->trace);
	fprintf(out, ",\"format\":");
	put_str(out, h->format);
	fprintf(out, ",\"flush_ipi_source\":");
	put_str_or_null(out, h->ipi_source);
	fprintf(out, ",\"first_ts_ns\":%llu,\"ts_offset_ns\":%llu,\"flow_end\":\"%s\","
		"\"lazy_model\":{\"T\":%d,\"Q\":%d}},\n"
		"\"traceEvents\":[\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,"
		"\"args\":{\"name\":\"CPUs\"}}", (unsigned long long)h->first_ts,
		(unsigned long long)h->base, h->entries ? "handler_entry" : "send", h->T, h->Q);
	for (int i = 0; i < h->ncpus; i++)
		fprintf(out, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":%d,"
			"\"args\":{\"name\":\"CPU %d\"}},\n{\"ph\":\"M\",\"name\":"
			"\"thread_sort_index\",\"pid\":0,\"tid\":%d,\"args\":{\"sort_index\":%d}}",
			i, i, i, i);
	return c;
}

static void put_slice(FILE *f, const struct export_draw *d)
{
	char name[TS_COMM_LEN + 16];

	if (d->u.slice.idle) {
		fputs(",\n{\"ph\":\"X\",\"cat\":\"idle\",\"name\":\"idle\"", f);
		fprintf(f, ",\"pid\":0,\"tid\":%d,", d->cpu);
		put_ts(f, "ts", d->ts);
		fputc(',', f);
		put_ts(f, "dur", d->u.slice.end - d->ts);
		fputc('}', f);
		return;
	}
	snprintf(name, sizeof(name), "%s %d", d->u.slice.comm, d->u.slice.pid);
	fputs(",\n{\"ph\":\"X\",\"cat\":\"sched\",\"name\":", f);
	put_str(f, name);
	fprintf(f, ",\"pid\":0,\"tid\":%d,", d->cpu);
	put_ts(f, "ts", d->ts);
	fputc(',', f);
	put_ts(f, "dur", d->u.slice.end - d->ts);
	fprintf(f, ",\"args\":{\"pid\":%d,\"tgid\":%d,\"mm\":", d->u.slice.pid, d->u.slice.tgid);
	put_str_or_null(f, d->u.slice.mm);
	fputs("}}", f);
}

static void put_request(FILE *f, const struct export_draw *d)
{
	fprintf(f, ",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"flush\",\"name\":\"flush request\","
		"\"pid\":0,\"tid\":%d,", d->cpu);
	put_ts(f, "ts", d->ts);
	fputs(",\"args\":{\"mm\":", f);
	put_str_or_null(f, d->u.request.mm);
	fputs(",\"scope\":", f);
	put_str(f, d->u.request.scope);
	if (d->u.request.pages)
		fprintf(f, ",\"pages\":%llu", (unsigned long long)d->u.request.pages);
	fputs(",\"event\":", f);
	put_str(f, d->u.request.event);
	fputs("}}", f);
}

static void put_ipi(FILE *f, const struct export_draw *d)
{
	fprintf(f, ",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"ipi\",\"name\":\"flush IPI\","
		"\"pid\":0,\"tid\":%d,", d->cpu);
	put_ts(f, "ts", d->ts);
	fprintf(f, ",\"args\":{\"from\":");
	if (d->u.ipi.from >= 0)
		fprintf(f, "%d", d->u.ipi.from);
	else
		fputs("null", f);
	fprintf(f, ",\"to\":%d,\"mm\":", d->u.ipi.to);
	put_str_or_null(f, d->u.ipi.mm);
	fputs("}}", f);
	if (!d->u.ipi.flow)
		return;
	fprintf(f, ",\n{\"ph\":\"s\",\"cat\":\"ipi\",\"name\":\"flush IPI\",\"id\":%llu,"
		"\"pid\":0,\"tid\":%d,", (unsigned long long)d->u.ipi.flow, d->cpu);
	put_ts(f, "ts", d->ts);
	fputc('}', f);
}

static void chrome_draw(void *state, const struct export_draw *d)
{
	FILE *f = ((struct chrome *)state)->out;

	switch (d->what) {
	case EXPORT_SLICE:
		put_slice(f, d);
		break;
	case EXPORT_REQUEST:
		put_request(f, d);
		break;
	case EXPORT_IPI:
		put_ipi(f, d);
		break;
	case EXPORT_FLOW_END:
		/* bound to the slice there, running or idle ("bp":"e") */
		fprintf(f, ",\n{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"ipi\",\"name\":\"flush IPI\","
			"\"id\":%llu,\"pid\":0,\"tid\":%d,", (unsigned long long)d->u.flow_end.id,
			d->cpu);
		put_ts(f, "ts", d->ts);
		fputc('}', f);
		break;
	case EXPORT_COUNTER:
		if (d->u.counter.which == EXPORT_IPIS_PER_S) {
			fputs(",\n{\"ph\":\"C\",\"name\":\"flush IPIs/s\",\"pid\":0,", f);
			put_ts(f, "ts", d->ts);
			fprintf(f, ",\"args\":{\"ipis\":%.0f}}", d->u.counter.per_s);
		} else {
			fputs(",\n{\"ph\":\"C\",\"name\":\"lazy deferrals/s\",\"pid\":0,", f);
			put_ts(f, "ts", d->ts);
			fprintf(f, ",\"args\":{\"deferrals\":%.0f}}", d->u.counter.per_s);
		}
		break;
	}
}

static void chrome_end(void *state, bool complete)
{
	struct chrome *c = state;

	if (complete)
		fputs("\n]}\n", c->out);
	free(c);
}

const struct export_renderer export_chrome = {
	.name = "chrome", .begin = chrome_begin, .draw = chrome_draw, .end = chrome_end,
};
