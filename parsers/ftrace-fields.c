// SPDX-License-Identifier: GPL-2.0-only
/*
 * An ftrace text event's printed values: its timestamp ("72.463764"), and its fields read
 * out of its payload ("prev_comm=bash prev_pid=12 ...") for tp_decode(): keys found by
 * name (with the few aliases the printers use), numbers, symbols "func+0x10/0x20",
 * cpumasks as hex or lists, and trace-cmd's sched_switch plugin line.  Values are spans
 * of the line; nothing is kept.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ftrace-fields.h"

const uint32_t ftext_ten_to[10] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
				     100000000, 1000000000 };

int ftext_parse_ts(const char *s, size_t len, uint64_t *ns)
{
	size_t ilen, flen;
	uint64_t sec = 0, frac = 0;
	unsigned d;

	/*
	 * "SECONDS.FRACTION": the first '.' ends the seconds, all digits on either side; the
	 * digits are summed as they are checked (up to 19 seconds digits cannot overflow)
	 */
	for (ilen = 0; ilen < len && (d = (unsigned char)s[ilen] - '0') < 10; ilen++)
		sec = sec * 10 + d;
	if (!ilen || ilen == len || s[ilen] != '.')
		return -1;
	flen = len - ilen - 1;
	if (!flen || flen > 9)
		return -1;
	for (size_t i = ilen + 1; i < len; i++) {
		d = (unsigned char)s[i] - '0';
		if (d > 9)
			return -1;
		frac = frac * 10 + d;
	}
	frac *= ftext_ten_to[9 - flen];
	if (ilen > 19 && span_u64(s, ilen, 10, &sec))	/* leading zeros, or past 64 bits */
		return -1;
	if (__builtin_mul_overflow(sec, 1000000000ULL, &sec) ||
	    __builtin_add_overflow(sec, frac, ns))
		return -1;
	return 0;
}

/* Names printed differently from the field names tp_decode asks for. */
static const struct {
	const char *event, *field, *key;
} aliases[] = {
	{ "sched_process_fork", "parent_pid", "pid" },
	{ "sched_process_fork", "parent_comm", "comm" },
};

/*
 * The bytes of a key, [a-z_][a-z0-9_]*: KEY_FIRST may start one, KEY_NEXT continue it;
 * KEY_LOCALE, a byte past ASCII, is the locale's islower() to judge, as it always was.
 */
enum { KEY_FIRST = 1, KEY_NEXT = 2, KEY_LOCALE = 4 };
static const unsigned char key_class[256] = {
	['a' ... 'z'] = KEY_FIRST | KEY_NEXT, ['_'] = KEY_FIRST | KEY_NEXT,
	['0' ... '9'] = KEY_NEXT, [0x80 ... 0xff] = KEY_LOCALE,
};

static inline bool key_byte(unsigned char c, unsigned what)
{
	unsigned k = key_class[c];

	return k & KEY_LOCALE ? islower(c) != 0 : (k & what) != 0;
}

/*
 * How long is the key at @s, if one ([a-z_][a-z0-9_]*) starts there?  0: none.  An ASCII
 * byte costs one table load and test; only one past ASCII asks the locale.
 */
static inline size_t key_len(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n;

	if (!key_byte(u[0], KEY_FIRST))
		return 0;
	for (n = 1;; n++) {
		unsigned k = key_class[u[n]];

		if (!(k & KEY_NEXT) && !((k & KEY_LOCALE) && islower(u[n])))
			return n;
	}
}

/* Does "key<sep>" start at @s, with key matching [a-z_][a-z0-9_]*? */
static inline bool at_key(const char *s, char sep)
{
	size_t n = key_len(s);

	return n && s[n] == sep;
}

/* One token start after the ' ' at @i; false when the index is full. */
static inline bool add_token(struct tf_index *x, size_t i)
{
	if (x->ntok == TF_TOKENS) {
		x->full = true;
		return false;
	}
	x->tok[x->ntok++] = (uint32_t)i + 1;
	return true;
}

/*
 * One pass over the payload: where its tokens start (struct tf_index).  Eight bytes at a
 * time: a byte of w ^ 0x20..20 is zero where a ' ' is, and the zero-byte mask below has
 * no carry from one byte into the next, so each set bit is a ' ' and every ' ' has one.
 */
static void index_payload(struct text_fields *tf)
{
	const uint64_t ones7 = 0x7f7f7f7f7f7f7f7fULL, spaces = 0x2020202020202020ULL;
	struct tf_index *x = &tf->idx;
	const char *p = tf->payload;
	size_t len = strlen(p), i = 0;

	x->done = true;
	x->len = len;
	x->full = false;
	x->tok[0] = 0;
	x->ntok = 1;
	for (; i + 8 <= len; i += 8) {
		uint64_t w, z;

		memcpy(&w, p + i, 8);
		w ^= spaces;
		z = ~(((w & ones7) + ones7) | w | ones7);
		while (z) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			size_t b = (size_t)__builtin_ctzll(z) / 8;

			z &= z - 1;
#else
			size_t b = (size_t)__builtin_clzll(z) / 8;

			z &= ~(0x80ULL << (56 - 8 * b));
#endif
			if (!add_token(x, i + b))
				return;
		}
	}
	for (; i < len; i++)
		if (p[i] == ' ' && !add_token(x, i))
			return;
}

/* The value from @v to @e, trimmed as find_sep() says. */
static const char *trim_value(const char *v, const char *e, size_t *vlen)
{
	while (v < e && is_blank(*v))
		v++;
	while (e > v && (is_blank(e[-1]) || e[-1] == ','))
		e--;
	*vlen = (size_t)(e - v);
	return v;
}

/*
 * find_sep() through the index: the first token that is @key (@klen bytes, of the shape
 * at_key() accepts) and @sep; its value ends at the first ' ' after it that starts a
 * " key<sep>" or a " ==> ", which can only be a ' ' before a later token.
 */
static const char *find_indexed(const struct text_fields *tf, const char *key, size_t klen,
				char sep, size_t *vlen)
{
	const struct tf_index *x = &tf->idx;
	const char *p = tf->payload;
	size_t len = x->len;

	for (int i = 0; i < x->ntok; i++) {
		size_t t = x->tok[i], e = len;

		if (t + klen >= len || p[t + klen] != sep || p[t] != key[0] ||
		    memcmp(p + t, key, klen))
			continue;
		for (int j = i + 1; j < x->ntok; j++) {
			size_t b = x->tok[j] - 1;	/* the ' ' */

			if (at_key(p + b + 1, sep) || (len - b >= 5 && !memcmp(p + b, " ==> ", 5))) {
				e = b;
				break;
			}
		}
		return trim_value(p + t + klen + 1, p + e, vlen);
	}
	return NULL;
}

/*
 * Find "key<sep>value" in @p at a token start.  A value runs to the next " key<sep>" (it
 * may hold blanks: comms, symbolic names) or " ==> "; trailing blanks and commas dropped.
 * Keys of the usual shape are looked up in the payload's index, built once per line.
 */
static const char *find_sep(struct text_fields *tf, const char *key, char sep, size_t *vlen)
{
	const char *p = tf->payload;
	size_t klen = key_len(key);

	if (klen && !key[klen]) {
		if (!tf->idx.done)
			index_payload(tf);
		if (!tf->idx.full)
			return find_indexed(tf, key, klen, sep, vlen);
	} else {
		klen = strlen(key);
	}

	for (const char *s = p; (s = strstr(s, key)); s++) {
		const char *v, *e;

		if ((s != p && s[-1] != ' ') || s[klen] != sep)
			continue;
		v = s + klen + 1;
		for (e = v; *e; e++)
			if (*e == ' ' && (at_key(e + 1, sep) || !strncmp(e, " ==> ", 5)))
				break;
		return trim_value(v, e, vlen);
	}
	return NULL;
}

static const char *find_value(struct text_fields *tf, const char *field, size_t *vlen)
{
	const char *v = find_sep(tf, field, '=', vlen);

	/* tlb_flush prints "pages:%ld reason:%s (%d)" */
	if (!v)
		v = find_sep(tf, field, ':', vlen);
	for (size_t i = 0; !v && i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(tf->event, aliases[i].event) && !strcmp(field, aliases[i].field))
			v = find_sep(tf, aliases[i].key, '=', vlen);
	return v;
}

/* "S", "D|W", "R+" -> TASK_* bits as sched_switch reports them; -1 not a state. */
static int parse_state(const char *s, size_t len, int64_t *out)
{
	static const char letters[] = "SDTtXZPI";	/* bit i is 1 << i */
	int64_t v = 0;
	size_t i = 0;

	if (!len)
		return -1;
	while (i < len) {
		const char *l = memchr(letters, s[i], sizeof(letters) - 1);

		if (s[i] == 'R')
			;	/* running, 0 */
		else if (l)
			v |= 1LL << (l - letters);
		else if (!isalpha((unsigned char)s[i]))
			return -1;
		/* other letters (older kernels' W, K, N ...) carry no bit we know */
		i++;
		if (i < len && s[i] == '+')	/* preempted: still runnable */
			i++;
		if (i < len && s[i] != '|')
			return -1;
		if (i < len)
			i++;
	}
	*out = v;
	return 0;
}

static bool value_is(const char *v, size_t len, const char *lit)
{
	return len == strlen(lit) && !memcmp(v, lit, len);
}

/* Value text -> number: decimal, 0x hex, pointers, "(nil)", true/false, "name (N)". */
static int value_num(const char *field, const char *v, size_t len, int64_t *out)
{
	char tmp[VAL_LEN];
	uint64_t u;
	const char *open;
	bool hex;

	if (value_is(v, len, "(nil)") || value_is(v, len, "(null)") || value_is(v, len, "false")) {
		*out = 0;
		return 0;
	}
	if (value_is(v, len, "true")) {
		*out = 1;
		return 0;
	}
	/* %p and %llx fields print hex, mostly without "0x" (strtoull takes either) */
	hex = (field[0] == 'c' && (!strcmp(field, "csd") || !strcmp(field, "clone_flags"))) ||
	      (len > 2 && v[0] == '0' && v[1] == 'x');
	/* plain digits without a copy; anything else goes to parse_u64() / parse_s64() */
	if (hex && !hex_u64(v, len, &u)) {
		*out = (int64_t)u;
		return 0;
	}
	if (!hex && len && len <= 19 && !dec_u64(v + (v[0] == '-'), len - (v[0] == '-'), &u) &&
	    u <= INT64_MAX) {
		*out = v[0] == '-' ? -(int64_t)u : (int64_t)u;
		return 0;
	}
	if (len >= sizeof(tmp))
		return -1;
	/*
	 * __print_symbolic with the number after it, "flush on task switch (0)", without the
	 * copy when its digits are plain: what the end of this function takes from the copy
	 * (a line holds no NUL, so strrchr() there finds the same '(')
	 */
	if (!hex && len >= 3 && v[len - 1] == ')' && (unsigned)(v[0] | 0x20) - 'a' < 26 &&
	    (open = memrchr(v, '(', len - 1))) {
		size_t n = len - 1 - (size_t)(open + 1 - v);

		if (n <= 18 && !dec_u64(open + 1, n, &u)) {
			*out = (int64_t)u;
			return 0;
		}
	}
	memcpy(tmp, v, len);
	tmp[len] = '\0';
	if (hex) {
		if (parse_u64(tmp, 16, &u))
			return -1;
		*out = (int64_t)u;
		return 0;
	}
	/* strtoll() takes no letter first: "flush on task switch (0)" is not worth its call */
	if ((unsigned)(tmp[0] | 0x20) - 'a' >= 26 && !parse_s64(tmp, 10, out))
		return 0;
	/* __print_symbolic with the number after it: "flush on task switch (0)" */
	if (len >= 3 && tmp[len - 1] == ')' && (open = strrchr(tmp, '('))) {
		size_t n = len - 1 - (size_t)(open + 1 - tmp);

		if (n <= 18 && !dec_u64(open + 1, n, &u)) {
			*out = (int64_t)u;
			return 0;
		}
		tmp[len - 1] = '\0';
		return parse_s64(open + 1, 10, out);
	}
	return -1;
}

int ftext_num(void *ctx, const char *field, int64_t *val)
{
	struct text_fields *tf = ctx;
	const char *v;
	size_t len;

	if (tf->plugin) {
		if (field[0] != 'p' && field[0] != 'n')	/* "__probe_ip", asked of every event */
			return -1;
		if (!strcmp(field, "prev_pid"))
			*val = tf->sw.prev_pid;
		else if (!strcmp(field, "next_pid"))
			*val = tf->sw.next_pid;
		else if (!strcmp(field, "prev_state"))
			return parse_state(tf->sw.state, tf->sw.state_len, val);
		else
			return -1;
		return 0;
	}
	if (field[0] == '_' && !strcmp(field, "__probe_ip")) {
		/*
		 * a kprobe event prints its probe address first: "(ffffffff8000b29a) prev=..."
		 * (trace-cmd), or symbolic, "(switch_mm+0x8/0x64) prev=..." (tracefs), whose
		 * address is not known: 0, and tf_sym() gives the function
		 */
		char tmp[24];
		const char *e = tf->payload[0] == '(' ? strchr(tf->payload, ')') : NULL;
		uint64_t u;

		len = e ? (size_t)(e - tf->payload - 1) : 0;
		if (!len)
			return -1;
		if (!hex_u64(tf->payload + 1, len, &u)) {
			*val = (int64_t)u;
			return 0;
		}
		if (len < sizeof(tmp)) {
			memcpy(tmp, tf->payload + 1, len);
			tmp[len] = '\0';
			if (!parse_u64(tmp, 16, &u)) {
				*val = (int64_t)u;
				return 0;
			}
		}
		if (!memchr(tf->payload + 1, '+', len))
			return -1;
		*val = 0;
		return 0;
	}
	v = find_value(tf, field, &len);
	if (!v)
		return -1;
	if (!strcmp(field, "prev_state") && !parse_state(v, len, val))
		return 0;
	return value_num(field, v, len, val);
}

int ftext_str(void *ctx, const char *field, char *buf, size_t size)
{
	struct text_fields *tf = ctx;
	const char *v;
	size_t len;

	if (tf->plugin) {
		if (!strcmp(field, "prev_comm"))
			return copy_out(tf->sw.prev_comm, tf->sw.prev_comm_len, buf, size);
		if (!strcmp(field, "next_comm"))
			return copy_out(tf->sw.next_comm, tf->sw.next_comm_len, buf, size);
		return -1;
	}
	/* a print event (trace_marker) has no keys: its text is the "buf" field */
	if (!strcmp(field, "buf") &&
	    (!strcmp(tf->event, "print") || !strcmp(tf->event, "tracing_mark_write")))
		return copy_out(tf->payload, strlen(tf->payload), buf, size);
	v = find_value(tf, field, &len);
	return v ? copy_out(v, len, buf, size) : -1;
}

/* "flush_tlb_func", "on_each_cpu_cond_mask+0x20/0x60 [mod]" -> the bare name */
int ftext_sym(void *ctx, const char *field, char *buf, size_t size)
{
	struct text_fields *tf = ctx;
	const char *v;
	size_t len, n, hex = 0;

	if (tf->plugin)
		return -1;
	if (!strcmp(field, "__probe_ip")) {
		/* tracefs: "(switch_mm+0x8/0x64)"; trace-cmd's "(ffffffff8000b29a)" has none */
		const char *e = tf->payload[0] == '(' ? strchr(tf->payload, ')') : NULL;
		const char *plus = e ? memchr(tf->payload, '+', (size_t)(e - tf->payload)) : NULL;

		if (!plus || plus == tf->payload + 1)
			return -1;
		return copy_out(tf->payload + 1, (size_t)(plus - tf->payload - 1), buf, size);
	}
	v = find_value(tf, field, &len);
	if (!v || !len)
		return -1;
	for (n = 0; n < len && v[n] != '+' && v[n] != '/' && !is_blank(v[n]); n++)
		if (isxdigit((unsigned char)v[n]))
			hex++;
	/* an address without a symbol: 0x..., a hashed %p, (nil) */
	if (!n || v[0] == '(' || (n > 2 && v[0] == '0' && v[1] == 'x') || (hex == n && n >= 8))
		return -1;
	return copy_out(v, n, buf, size);
}

/*
 * A bitmap printed as its raw bytes, "02, 00, 00, 00, 00, 00, 00, 00]" after "ARRAY[" (perf
 * for an event whose print format it cannot parse): little-endian words, as on riscv and x86.
 */
static int array_mask(const char *s, struct ts_cpumask *m)
{
	int byte = 0;

	memset(m, 0, sizeof(*m));
	for (;;) {
		char *end;
		unsigned long v = strtoul(s, &end, 16);

		if (end == s || v > 0xff)
			return -1;
		for (int b = 0; b < 8; b++) {
			if (!(v & (1u << b)))
				continue;
			if (byte * 8 + b >= TS_MAX_CPUS)
				return -1;
			ts_cpumask_set(m, byte * 8 + b);
		}
		byte++;
		s = end;
		if (*s == ']')
			return 0;
		if (*s != ',')
			return -1;
		s++;
		while (*s == ' ')
			s++;
	}
}

int ftext_mask(void *ctx, const char *field, struct ts_cpumask *m)
{
	struct text_fields *tf = ctx;
	char tmp[VAL_LEN];
	const char *v;
	size_t len;

	if (tf->plugin)
		return -1;
	v = find_value(tf, field, &len);
	if (!v || !len || len >= sizeof(tmp))
		return -1;
	memcpy(tmp, v, len);
	tmp[len] = '\0';
	if (!strncmp(tmp, "ARRAY[", 6))
		return array_mask(tmp + 6, m);
	/*
	 * The kernel prints a cpumask field as %*pb hex ("e", "00000001,0000000e"), while
	 * libtraceevent (trace-cmd report) prints a CPU list ("1,3", "0-3"): "3" means CPUs
	 * 0-1 in the one and CPU 3 in the other, so the printer decides, not the digits.
	 */
	if (tf->report)
		return ts_cpumask_parse_list(m, tmp) ? ts_cpumask_parse_hex(m, tmp) : 0;
	if (!ts_cpumask_parse_hex(m, tmp))
		return 0;
	return ts_cpumask_parse_list(m, tmp);
}

int ftext_many(void *ctx, const char *const *names, int nn, int64_t *vals, int ns,
	       char **strs, size_t len)
{
	static const char *const fields[] = { "prev_pid", "next_pid", "prev_state", "prev_comm",
					      "next_comm" };
	struct text_fields *tf = ctx;

	if (!tf->plugin || !tf->switch_names)
		return 0;
	if (*tf->switch_names != names) {
		if (nn != 3 || ns != 2)
			return 0;
		for (int i = 0; i < 5; i++)
			if (strcmp(names[i], fields[i]))
				return 0;
		*tf->switch_names = names;
	}
	/* as ftext_num() and ftext_str() answer them on this line */
	if (parse_state(tf->sw.state, tf->sw.state_len, &vals[2]))
		return 0;
	vals[0] = tf->sw.prev_pid;
	vals[1] = tf->sw.next_pid;
	copy_out(tf->sw.prev_comm, tf->sw.prev_comm_len, strs[0], len);
	copy_out(tf->sw.next_comm, tf->sw.next_comm_len, strs[1], len);
	return 1;
}

/*
 * The keys of the payload in order, for a kprobe event's fields: "(ffffffff8000ad62)
 * mm=0x.. cpus=0x8" gives mm, cpus.  Text has no sizes (0).
 */
int ftext_list(void *ctx, const char **names, int *sizes, int max)
{
	struct text_fields *tf = ctx;
	const char *p = tf->payload;
	size_t used = 0;
	int n = 0;

	if (tf->plugin)
		return -1;
	if (*p == '(' && (p = strchr(p, ')')))
		p++;
	else
		p = tf->payload;
	for (; p && *p && n < max; p++) {
		const char *e;
		size_t l;

		if (p != tf->payload && p[-1] != ' ')
			continue;
		if (!at_key(p, '='))
			continue;
		e = strchr(p, '=');
		l = (size_t)(e - p);
		if (used + l + 1 > sizeof(tf->names))
			break;
		memcpy(tf->names + used, p, l);
		tf->names[used + l] = '\0';
		names[n] = tf->names + used;
		sizes[n++] = 0;
		used += l + 1;
		p = e;
	}
	return n;
}

/* "COMM:PID [PRIO]" in [@s, @end); the comm may hold ':' and blanks. */
static int plugin_task(const char *s, const char *end, const char **comm, size_t *comm_len,
		       int *pid)
{
	const char *br, *colon;

	end = s + rtrim(s, (size_t)(end - s));
	if (end <= s || end[-1] != ']')
		return -1;
	for (br = end - 1; br > s && br[0] != '['; br--)
		;
	if (br == s || br[-1] != ' ')
		return -1;
	br--;
	for (colon = br; colon > s && colon[0] != ':'; colon--)
		;
	if (colon[0] != ':' || span_int(colon + 1, (size_t)(br - colon - 1), pid) || *pid < 0)
		return -1;
	while (s < colon && is_blank(*s))
		s++;
	*comm = s;
	*comm_len = (size_t)(colon - s);
	return 0;
}

int ftext_parse_plugin_switch(const char *p, struct plugin_switch *sw)
{
	const char *arrow = strstr(p, " ==> "), *st;

	if (!arrow)
		return -1;
	for (st = arrow; st > p && !is_blank(st[-1]); st--)
		;
	sw->state = st;
	sw->state_len = (size_t)(arrow - st);
	if (!sw->state_len || st == p)
		return -1;
	if (plugin_task(p, st - 1, &sw->prev_comm, &sw->prev_comm_len, &sw->prev_pid))
		return -1;
	return plugin_task(arrow + 5, arrow + 5 + strlen(arrow + 5), &sw->next_comm,
			   &sw->next_comm_len, &sw->next_pid);
}
