// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kprobe events under their users' names: which function of tlbscope-probes(7) an event
 * probes (its __probe_ip symbol, its event name, a --probe-map line) and which of its fields
 * is each argument the decoder reads (the man page's name, a documented alias, the
 * position against the man page's definition, a --probe-map line).  Resolved once per
 * event and kept with the source, so a probe that lacks something is told once, with what
 * that hides, and never stops the reading.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "format.h"

/*
 * The definitions of tlbscope-probes(7): arguments in the man page's order, with the size
 * of their fetch type (x64: 8, u32: 4), other names users give them, and what is lost
 * without them.  A required argument missing makes the event unusable (counted by name
 * only); an optional one only loses that fact.
 */
#define MAX_ALIASES 10

struct arg_def {
	const char *name;
	int size;
	bool required;
	const char *aliases[MAX_ALIASES];
	const char *hides;
};

struct probe_def {
	const char *func;
	struct arg_def args[TS_PROBE_MAX_ARGS];
};

/*
 * The other names users give an argument, one list per argument name: an alias accepted
 * for one probe is accepted for every probe that has the argument.
 */
#define MM_ALIASES	{ "mm_ptr", "mmp", "mm_struct", "the_mm" }
#define MASK_ALIASES	{ "cpumask", "cpus", "cpu_mask", "mm_cpumask", "cmask", "targets" }
#define START_ALIASES	{ "addr", "start_addr", "va" }
#define END_ALIASES	{ "end_addr", "stop" }
#define SIZE_ALIASES	{ "len", "length", "sz", "bytes" }
#define STRIDE_ALIASES	{ "stride_size", "granule", "page_size" }
#define ASID_ALIASES	{ "asid_id" }
#define MASK_HIDES	"the kernel's own target mask: kernel flush targets and the kernel check"

static const struct probe_def defs[] = {
	{ "switch_mm", {
		{ "prev", 8, false, { "prev_mm", "old_mm", "from" },
		  "the mm each CPU had loaded when the trace began" },
		{ "next", 8, true, { "next_mm", "new_mm", "to", "mm" },
		  "mm pointers: address spaces are derived from pids and clone flags" },
		{ "next_mask", 8, false, { "next_cpumask", "nmask", "next_cpus", "mask", "cpumask",
					   "cpus", "cpu_mask", "mm_cpumask", "cmask", "targets" },
		  "mm_cpumask(next) before the switch (next_mask of tlbscope events)" } } },
	{ "__flush_tlb_range", {
		{ "mm", 8, true, MM_ALIASES, "which mm each request flushes" },
		{ "mask", 8, false, MASK_ALIASES, MASK_HIDES },
		{ "start", 8, false, START_ALIASES, "where each range starts" },
		{ "size", 8, true, SIZE_ALIASES,
		  "the size and scope (range, whole mm, kernel) of each request" },
		{ "stride", 8, false, STRIDE_ALIASES,
		  "the stride of each range" } } },
	{ "flush_tlb_mm", {
		{ "mm", 8, true, MM_ALIASES, "which mm each whole-mm request flushes" },
		{ "mask", 8, false, MASK_ALIASES, MASK_HIDES } } },
	{ "flush_tlb_mm_range", {
		{ "mm", 8, true, MM_ALIASES, "which mm each range request flushes" },
		{ "start", 8, true, START_ALIASES, "the range of each request" },
		{ "end", 8, true, END_ALIASES, "the range of each request" },
		{ "page_size", 4, false, { "stride", "psize" }, "nothing tlbscope uses" },
		{ "mask", 8, false, MASK_ALIASES, MASK_HIDES } } },
	{ "flush_tlb_page", {
		{ "vma", 8, false, { "vm_area" }, "nothing tlbscope uses" },
		{ "mm", 8, true, MM_ALIASES, "which mm each one-page request flushes" },
		{ "addr", 8, true, { "address", "start", "va", "uaddr" }, "the page of each request" },
		{ "mask", 8, false, MASK_ALIASES, MASK_HIDES } } },
	{ "flush_tlb_range", {
		{ "vma", 8, false, { "vm_area" }, "nothing tlbscope uses" },
		{ "mm", 8, true, MM_ALIASES, "which mm each vma range request flushes" },
		{ "start", 8, true, START_ALIASES, "the range of each request" },
		{ "end", 8, true, END_ALIASES, "the range of each request" },
		{ "mask", 8, false, MASK_ALIASES, MASK_HIDES } } },
	{ "flush_tlb_kernel_range", {
		{ "start", 8, true, START_ALIASES, "the kernel range of each request" },
		{ "end", 8, true, END_ALIASES, "the kernel range of each request" } } },
	{ "flush_tlb_all", { { NULL } } },
	/* a function only before the Svvptc series (6.12 made it inline): new vmalloc ranges */
	{ "flush_cache_vmap", {
		{ "start", 8, false, START_ALIASES,
		  "the size of each new vmalloc mapping" },
		{ "end", 8, false, END_ALIASES, "the size of each new vmalloc mapping" } } },
	{ "arch_tlbbatch_flush", {
		{ "batch", 8, false, { "b", "ubc" }, "nothing tlbscope uses" },
		{ "mask", 8, false, MASK_ALIASES, "the CPUs each batched flush targets" } } },
	{ "__ipi_flush_tlb_range_asid", {
		{ "info", 8, false, { "d", "data" }, "nothing tlbscope uses" },
		{ "asid", 8, false, ASID_ALIASES, "nothing tlbscope uses" },
		{ "start", 8, false, START_ALIASES, "where each flush starts" },
		{ "size", 8, true, SIZE_ALIASES,
		  "the flush each target (and the sender) runs" },
		{ "stride", 8, false, STRIDE_ALIASES, "the stride of each flush" } } },
	{ "sbi_remote_sfence_vma_asid", {
		{ "mask", 8, true, MASK_ALIASES,
		  "the harts of each SBI remote fence: no flush IPI can be counted from it" },
		{ "start", 8, false, START_ALIASES, "nothing tlbscope uses" },
		{ "size", 8, false, SIZE_ALIASES, "nothing tlbscope uses" },
		{ "asid", 8, false, ASID_ALIASES, "nothing tlbscope uses" } } },
	/* a lazy-flush kernel's (tlbscope-probes(7), "On a lazy-flush kernel") */
	{ "local_load_tlb_mm", {
		{ "mm", 8, true, MM_ALIASES, "when each CPU's table takes an mm" },
		{ "mask", 8, false, MASK_ALIASES, "nothing tlbscope uses" } } },
	{ "local_flush_tlb_mm", {
		{ "mm", 8, false, MM_ALIASES, "nothing tlbscope uses (counted)" },
		{ "mask", 8, false, MASK_ALIASES, "nothing tlbscope uses (counted)" } } },
	{ "lazy_tlb_defer", {
		{ "mm", 8, false, MM_ALIASES, "nothing tlbscope uses (counted)" },
		{ "cpu", 4, false, { "target", "tcpu" }, "nothing tlbscope uses (counted)" },
		{ "decision", 4, false, { "how", "what" }, "nothing tlbscope uses (counted)" } } },
	{ "lazy_tlb_reset_local", { { NULL } } },
	{ "lazy_tlb_exit_mm", {
		{ "mm", 8, true, MM_ALIASES,
		  "when an exiting mm leaves the tables (it is guessed from its exit then)" } } },
};
#define NDEFS (sizeof(defs) / sizeof(defs[0]))

static const struct probe_def *def_of(const char *func)
{
	for (size_t i = 0; func && i < NDEFS; i++)
		if (!strcmp(defs[i].func, func))
			return &defs[i];
	return NULL;
}

const char *ts_kprobe_func(const char *func)
{
	const struct probe_def *d = def_of(func);

	return d ? d->func : NULL;
}

/* ---- the --probe-map file: one for the process, read before any source opens ---- */

struct map_line {
	char *event;		/* an event name, or the function its events probe */
	char *field;		/* NULL: the line names the event's function */
	char *value;		/* the function, or the argument of tlbscope-probes(7) */
};

static struct map_line *map;
static size_t nmap, map_alloc;

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static bool is_ident(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '.'))
			return false;
	return true;
}

static bool def_has_arg(const struct probe_def *d, const char *arg)
{
	for (int i = 0; i < TS_PROBE_MAX_ARGS && d->args[i].name; i++)
		if (!strcmp(d->args[i].name, arg))
			return true;
	return false;
}

static bool any_def_has_arg(const char *arg)
{
	for (size_t i = 0; i < NDEFS; i++)
		if (def_has_arg(&defs[i], arg))
			return true;
	return false;
}

void ts_probe_map_free(void)
{
	for (size_t i = 0; i < nmap; i++) {
		free(map[i].event);
		free(map[i].field);
		free(map[i].value);
	}
	free(map);
	map = NULL;
	nmap = map_alloc = 0;
}

int ts_probe_map_load(const char *path, char *err)
{
	char *buf, *line, *next;
	size_t len;
	unsigned lineno = 0;

	if (read_file(path, &buf, &len)) {
		snprintf(err, TS_ERR_LEN, "%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	if (memchr(buf, '\0', len)) {
		snprintf(err, TS_ERR_LEN, "%s: a NUL byte: not a probe map", path);
		goto out_bad;
	}
	/* read_file() does not terminate: the lines are read as one string */
	buf = xrealloc(buf, len + 1);
	buf[len] = '\0';
	for (line = buf; line && *line; line = next) {
		char *eq, *key, *val, *dot, *hash;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if ((hash = strchr(line, '#')))
			*hash = '\0';
		line = trim(line);
		if (!*line)
			continue;
		eq = strchr(line, '=');
		if (!eq) {
			snprintf(err, TS_ERR_LEN, "%s: line %u: expected 'EVENT = FUNCTION' or "
				 "'EVENT.FIELD = ARGUMENT'", path, lineno);
			goto out_bad;
		}
		*eq = '\0';
		key = trim(line);
		val = trim(eq + 1);
		dot = strchr(key, '.');
		if (dot)
			*dot = '\0';
		if (!is_ident(key) || (dot && !is_ident(dot + 1)) || !is_ident(val)) {
			snprintf(err, TS_ERR_LEN, "%s: line %u: names are letters, digits, '_', '-' "
				 "and '.'", path, lineno);
			goto out_bad;
		}
		if (!dot && !def_of(val)) {
			snprintf(err, TS_ERR_LEN, "%s: line %u: '%s' is not a function of "
				 "tlbscope-probes(7)", path, lineno, val);
			goto out_bad;
		}
		if (dot && !any_def_has_arg(val)) {
			snprintf(err, TS_ERR_LEN, "%s: line %u: '%s' is no argument of "
				 "tlbscope-probes(7)", path, lineno, val);
			goto out_bad;
		}
		ALLOC_GROW(map, nmap + 1, map_alloc);
		map[nmap].event = xstrdup(key);
		map[nmap].field = dot ? xstrdup(dot + 1) : NULL;
		map[nmap].value = xstrdup(val);
		nmap++;
	}
	free(buf);
	return 0;

out_bad:
	free(buf);
	ts_probe_map_free();
	return -1;
}

/* The function the map gives event @event, or NULL. */
static const char *map_func(const char *event)
{
	for (size_t i = 0; i < nmap; i++)
		if (!map[i].field && !strcmp(map[i].event, event))
			return ts_kprobe_func(map[i].value);
	return NULL;
}

/* The field the map names for argument @arg of @event (probing @func), or NULL. */
static const char *map_field(const char *event, const char *func, const char *arg)
{
	for (size_t i = 0; i < nmap; i++)
		if (map[i].field && !strcmp(map[i].value, arg) &&
		    (!strcmp(map[i].event, event) || !strcmp(map[i].event, func)))
			return map[i].field;
	return NULL;
}

/* ---- resolving one event ---- */

/*
 * A function of tlbscope-probes(7) whose name the event name holds between '_'s or its
 * ends ("p_switch_mm_8", "my__flush_tlb_range"), the longest one: NULL if none.
 */
static const char *func_in_name(const char *name)
{
	const char *best = NULL;

	for (size_t i = 0; i < NDEFS; i++) {
		size_t l = strlen(defs[i].func);

		for (const char *s = name; (s = strstr(s, defs[i].func)); s++) {
			bool left = s == name || s[-1] == '_' || s[-1] == '/' || s[-1] == ':';
			bool right = !s[l] || s[l] == '_' || s[l] == '.';

			/* "flush_tlb_range" inside "__flush_tlb_range": the longer name wins */
			if (left && right && (!best || l > strlen(best)))
				best = defs[i].func;
		}
	}
	return best;
}

static struct ts_probe *probe_find(struct ts_source *src, uint32_t name_id)
{
	for (size_t i = 0; i < src->nprobes; i++)
		if (src->probes[i].name_id == name_id)
			return &src->probes[i];
	return NULL;
}

static bool sizes_fit(int want, int have)
{
	/* text input has no sizes (0); a u32 argument fetched as x64 still holds it */
	return !have || have == want || (want == 4 && have == 8);
}

/*
 * Map the arguments of @p's function onto the event's fields (@names, @sizes, @n of them,
 * in the event's order): the map file, the man page's name, an alias, then what is left
 * by position against the man page's definition.
 */
static void map_args(struct ts_probe *p, const char *const *names, const int *sizes, int n)
{
	const struct probe_def *d = def_of(p->func);
	bool claimed[TS_PROBE_MAX_FIELDS] = { false };
	int na = 0, free_args = 0, free_fields = 0;

	for (; na < TS_PROBE_MAX_ARGS && d->args[na].name; na++) {
		struct ts_probe_arg *a = &p->args[na];
		const char *m = map_field(p->event, p->func, d->args[na].name);

		a->arg = d->args[na].name;
		a->required = d->args[na].required;
		a->hides = d->args[na].hides;
		a->how = TS_MAP_NONE;
		a->field = NULL;
		for (int k = 0; m && k < n; k++) {
			if (!claimed[k] && !strcmp(names[k], m)) {
				a->field = xstrdup(names[k]);
				a->how = TS_MAP_FILE;
				claimed[k] = true;
			}
		}
	}
	p->nargs = na;
	/* the man page's names first, over every argument, so an alias never takes one */
	for (int i = 0; i < na; i++) {
		for (int k = 0; !p->args[i].field && k < n; k++) {
			if (!claimed[k] && !strcmp(names[k], p->args[i].arg)) {
				p->args[i].field = xstrdup(names[k]);
				p->args[i].how = TS_MAP_NAME;
				claimed[k] = true;
			}
		}
	}
	for (int i = 0; i < na; i++) {
		for (int j = 0; !p->args[i].field && j < MAX_ALIASES && d->args[i].aliases[j]; j++) {
			for (int k = 0; k < n; k++) {
				if (!claimed[k] && !strcmp(names[k], d->args[i].aliases[j])) {
					p->args[i].field = xstrdup(names[k]);
					p->args[i].how = TS_MAP_ALIAS;
					claimed[k] = true;
					break;
				}
			}
		}
	}
	/*
	 * By position: the event has as many fields as the definition (a user's own names
	 * for the same fetches), or as many unclaimed fields as unmapped arguments; each
	 * taken in order when its size fits.
	 */
	for (int i = 0; i < na; i++)
		free_args += !p->args[i].field;
	for (int k = 0; k < n; k++)
		free_fields += !claimed[k];
	if (free_args && n == na) {
		for (int i = 0; i < na; i++) {
			if (p->args[i].field || claimed[i] || !sizes_fit(d->args[i].size, sizes[i]))
				continue;
			p->args[i].field = xstrdup(names[i]);
			p->args[i].how = TS_MAP_POSITION;
			claimed[i] = true;
		}
	} else if (free_args && free_args == free_fields) {
		int k = 0;

		for (int i = 0; i < na; i++) {
			if (p->args[i].field)
				continue;
			while (k < n && claimed[k])
				k++;
			if (k == n || !sizes_fit(d->args[i].size, sizes[k]))
				break;
			p->args[i].field = xstrdup(names[k]);
			p->args[i].how = TS_MAP_POSITION;
			claimed[k++] = true;
		}
	}
	p->nunused = 0;
	for (int k = 0; k < n && p->nunused < TS_PROBE_MAX_ARGS; k++)
		if (!claimed[k])
			p->unused[p->nunused++] = xstrdup(names[k]);
	p->usable = true;
	for (int i = 0; i < na; i++)
		if (p->args[i].required && !p->args[i].field)
			p->usable = false;
}

/*
 * The probe of kprobe event @name (string id @name_id): found, or resolved now from @f (its
 * fields and, when @f has a record, its __probe_ip symbol).  Never NULL.
 */
struct ts_probe *ts_probe_resolve(struct ts_source *src, const char *name, uint32_t name_id,
				  const struct tp_fields *f)
{
	struct ts_probe *p = probe_find(src, name_id);
	const char *names[TS_PROBE_MAX_FIELDS];
	int sizes[TS_PROBE_MAX_FIELDS], n;
	char sym[128];
	const char *func = NULL;
	uint8_t how = TS_MAP_NONE;

	if (p && p->resolved)
		return p;
	if (!p) {
		ALLOC_GROW(src->probes, src->nprobes + 1, src->probes_alloc);
		p = &src->probes[src->nprobes++];
		memset(p, 0, sizeof(*p));
		p->name_id = name_id;
		p->event = ts_source_str(src, name_id);
	}
	if (f && f->sym && f->sym(f->ctx, "__probe_ip", sym, sizeof(sym)) == 0 &&
	    (func = ts_kprobe_func(sym)))
		how = TS_MAP_SYMBOL;
	else if ((func = map_func(name)))
		how = TS_MAP_FILE;
	else if ((func = ts_kprobe_func(name)))
		how = TS_MAP_NAME;
	else if ((func = func_in_name(name)))
		how = TS_MAP_EVENT_NAME;
	/* with a record the symbol was tried: what this says holds from now on */
	p->resolved = f && f->sym;
	if (p->func == func && (p->fields_known || !f))
		return p;
	for (int i = 0; i < p->nargs; i++)
		free((char *)p->args[i].field);
	for (int i = 0; i < p->nunused; i++)
		free((char *)p->unused[i]);
	p->nargs = p->nunused = 0;
	p->func = func;
	p->func_id = func ? ts_source_intern(src, func) : 0;
	p->func_how = how;
	p->usable = false;
	if (!func)
		return p;
	n = f && f->list ? f->list(f->ctx, names, sizes, TS_PROBE_MAX_FIELDS) : -1;
	if (n < 0)
		return p;	/* defined, never recorded: its fields are unknown here */
	p->fields_known = true;
	map_args(p, names, sizes, n);
	return p;
}

void ts_probe_release_all(struct ts_source *src)
{
	for (size_t i = 0; i < src->nprobes; i++) {
		for (int a = 0; a < src->probes[i].nargs; a++)
			free((char *)src->probes[i].args[a].field);
		for (int a = 0; a < src->probes[i].nunused; a++)
			free((char *)src->probes[i].unused[a]);
	}
	free(src->probes);
	src->probes = NULL;
	src->nprobes = 0;
}

const struct ts_probe *ts_source_probes(const struct ts_source *src, size_t *n)
{
	*n = src->nprobes;
	return src->probes;
}

const struct ts_probe_arg *ts_probe_arg(const struct ts_probe *p, const char *arg)
{
	for (int i = 0; i < p->nargs; i++)
		if (!strcmp(p->args[i].arg, arg))
			return &p->args[i];
	return NULL;
}

const char *ts_map_how_name(enum ts_map_how how)
{
	static const char *const names[] = {
		[TS_MAP_NONE] = "unavailable", [TS_MAP_NAME] = "name",
		[TS_MAP_ALIAS] = "alias", [TS_MAP_POSITION] = "position",
		[TS_MAP_FILE] = "probe-map", [TS_MAP_SYMBOL] = "symbol",
		[TS_MAP_EVENT_NAME] = "event-name",
	};

	return how <= TS_MAP_EVENT_NAME ? names[how] : "?";
}

bool ts_map_how_exact(enum ts_map_how how)
{
	return how == TS_MAP_NAME || how == TS_MAP_FILE || how == TS_MAP_SYMBOL;
}
