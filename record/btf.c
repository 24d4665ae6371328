// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kprobe arguments of tlbscope record that read struct members (mm_cpumask, vma->vm_mm,
 * the flush_tlb_range_data fields): their offsets come from the running kernel's BTF
 * (/sys/kernel/btf/vmlinux), read here with no library, and fill the "@NAME" places of
 * the argument strings.  An offset the BTF does not give drops the arguments that need it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/lib.h"
#include "record-int.h"

struct btf {
	unsigned char *data;
	size_t len;
	const unsigned char *types, *strs;
	uint32_t types_len, strs_len;
	const unsigned char **type;	/* type[id] -> its struct btf_type; id 0 is void */
	uint32_t ntypes;
};

enum { BTF_STRUCT = 4, BTF_UNION = 5, BTF_TYPEDEF = 8, BTF_VOLATILE = 9, BTF_CONST = 10,
       BTF_RESTRICT = 11, BTF_TYPE_TAG = 18 };

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Bytes after the 12-byte struct btf_type header for this kind; -1 unknown. */
static long btf_extra(uint32_t info)
{
	uint32_t kind = (info >> 24) & 0x1f, vlen = info & 0xffff;

	switch (kind) {
	case 1: case 14: case 17: return 4;			/* int, var, decl_tag */
	case 3: return 12;					/* array */
	case 4: case 5: case 15: case 19: return 12L * vlen;	/* struct, union, datasec, enum64 */
	case 6: case 13: return 8L * vlen;			/* enum, func_proto */
	case 2: case 7: case 8: case 9: case 10: case 11: case 12: case 16: case 18: return 0;
	default: return -1;
	}
}

static void btf_free(struct btf *b)
{
	free(b->data);
	free(b->type);
	memset(b, 0, sizeof(*b));
}

/* Load the running kernel's BTF; 0 ok, -1 none or malformed (then @b is empty). */
static int btf_load(struct btf *b, const char *path)
{
	uint32_t hdr_len, type_off, type_len, str_off, str_len, alloc = 0;
	char *data;

	memset(b, 0, sizeof(*b));
	if (read_file(path, &data, &b->len))
		return -1;
	b->data = (unsigned char *)data;
	if (b->len < 24 || b->data[0] != 0x9f || b->data[1] != 0xeb)
		goto out_bad;
	hdr_len = rd32(b->data + 4);
	type_off = rd32(b->data + 8);
	type_len = rd32(b->data + 12);
	str_off = rd32(b->data + 16);
	str_len = rd32(b->data + 20);
	if ((uint64_t)hdr_len + type_off + type_len > b->len ||
	    (uint64_t)hdr_len + str_off + str_len > b->len)
		goto out_bad;
	b->types = b->data + hdr_len + type_off;
	b->types_len = type_len;
	b->strs = b->data + hdr_len + str_off;
	b->strs_len = str_len;
	ALLOC_GROW(b->type, 1, alloc);
	b->type[0] = NULL;
	b->ntypes = 1;
	for (uint32_t off = 0; off + 12 <= type_len;) {
		long extra = btf_extra(rd32(b->types + off + 4));

		if (extra < 0 || off + 12 + extra > type_len)
			goto out_bad;
		ALLOC_GROW(b->type, b->ntypes + 1, alloc);
		b->type[b->ntypes++] = b->types + off;
		off += 12 + extra;
	}
	return 0;
out_bad:
	btf_free(b);
	return -1;
}

static const char *btf_str(const struct btf *b, uint32_t off)
{
	return off < b->strs_len ? (const char *)b->strs + off : "";
}

/* Follow typedef/const/volatile to a struct or union id; 0 if it is neither. */
static uint32_t btf_resolve_aggregate(const struct btf *b, uint32_t id)
{
	for (int depth = 0; id && id < b->ntypes && depth < 16; depth++) {
		uint32_t kind = (rd32(b->type[id] + 4) >> 24) & 0x1f;

		if (kind == BTF_STRUCT || kind == BTF_UNION)
			return id;
		if (kind != BTF_TYPEDEF && kind != BTF_VOLATILE && kind != BTF_CONST &&
		    kind != BTF_RESTRICT && kind != BTF_TYPE_TAG)
			return 0;
		id = rd32(b->type[id] + 8);
	}
	return 0;
}

/* Byte offset of @member in aggregate @id, looking into anonymous members; -1 absent. */
static long btf_member_offset(const struct btf *b, uint32_t id, const char *member, int depth)
{
	const unsigned char *t = b->type[id];
	uint32_t info = rd32(t + 4), vlen = info & 0xffff;
	bool kflag = info >> 31;

	if (depth > 8)
		return -1;
	for (uint32_t i = 0; i < vlen; i++) {
		const unsigned char *m = t + 12 + 12 * i;
		uint32_t bits = rd32(m + 8) & (kflag ? 0xffffff : 0xffffffff);
		uint32_t sub;
		long o;

		if (rd32(m) && !strcmp(btf_str(b, rd32(m)), member))
			return bits / 8;
		if (!rd32(m) && (sub = btf_resolve_aggregate(b, rd32(m + 4))) &&
		    (o = btf_member_offset(b, sub, member, depth + 1)) >= 0)
			return bits / 8 + o;
	}
	return -1;
}

/* Offset of @structname.@member in the kernel's BTF; -1 when it cannot be found. */
static long btf_offset(const struct btf *b, const char *structname, const char *member)
{
	for (uint32_t id = 1; id < b->ntypes; id++) {
		uint32_t info = rd32(b->type[id] + 4);
		long o;

		if (((info >> 24) & 0x1f) != BTF_STRUCT || !(info & 0xffff) ||
		    strcmp(btf_str(b, rd32(b->type[id])), structname))
			continue;
		o = btf_member_offset(b, id, member, 0);
		if (o >= 0)
			return o;
	}
	return -1;
}

static const struct {
	const char *macro, *structname, *member;
} btf_offsets[] = {
	{ "MM_CPUMASK", "mm_struct", "cpu_bitmap" },
	{ "VMA_MM", "vm_area_struct", "vm_mm" },
	{ "BATCH_MASK", "arch_tlbflush_unmap_batch", "cpumask" },
	{ "FTD_ASID", "flush_tlb_range_data", "asid" },
	{ "FTD_START", "flush_tlb_range_data", "start" },
	{ "FTD_SIZE", "flush_tlb_range_data", "size" },
	{ "FTD_STRIDE", "flush_tlb_range_data", "stride" },
};
_Static_assert(sizeof(btf_offsets) / sizeof(btf_offsets[0]) == RECORD_N_OFFS,
	       "one offset per @NAME");
#define N_OFFS RECORD_N_OFFS

char *record_kprobe_args(const char *args, const long *offs, char *dropped, size_t dlen)
{
	size_t cap = strlen(args) + 64, len = 0;
	char *out = xmalloc(cap);

	out[0] = '\0';
	for (const char *next = args; *next;) {
		size_t alen = strcspn(next, " ");
		const char *arg = next, *end = next + alen;
		char piece[256];
		size_t plen = 0;
		bool ok = true;

		next = *end ? end + 1 : end;
		if (!alen)
			continue;
		for (const char *p = arg; p < end && plen + 24 < sizeof(piece);) {
			size_t k;

			if (*p != '@') {
				piece[plen++] = *p++;
				continue;
			}
			for (k = 0; k < N_OFFS; k++) {
				size_t ml = strlen(btf_offsets[k].macro);

				if (!strncmp(p + 1, btf_offsets[k].macro, ml)) {
					if (offs[k] < 0)
						ok = false;
					else
						plen += snprintf(piece + plen, sizeof(piece) - plen, "%ld",
								 offs[k]);
					p += 1 + ml;
					break;
				}
			}
			if (k == N_OFFS)
				piece[plen++] = *p++;
		}
		piece[plen] = '\0';
		if (!ok) {
			size_t dl = strlen(dropped);

			snprintf(dropped + dl, dlen - dl, "%s%.*s", dl ? ", " : "",
				 (int)strcspn(arg, "= "), arg);
			continue;
		}
		ALLOC_GROW(out, len + plen + 2, cap);
		len += snprintf(out + len, cap - len, "%s%s", len ? " " : "", piece);
	}
	return out;
}

bool record_btf_offsets(long offs[RECORD_N_OFFS])
{
	struct btf btf;
	bool have = !btf_load(&btf, "/sys/kernel/btf/vmlinux");

	for (size_t k = 0; k < N_OFFS; k++)
		offs[k] = have ? btf_offset(&btf, btf_offsets[k].structname,
					    btf_offsets[k].member) : -1;
	if (have)
		btf_free(&btf);
	return have;
}
