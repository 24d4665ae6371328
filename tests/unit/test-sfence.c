// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of tuner/sfence.c: the sfence.vma account from site probes, the flush fences
 * by the kernel's rules, and the Svvptc what-if, on a hand-made JSON-lines stream whose
 * answers are computed by hand; and the cause a site probe's event name gives.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../lib/lib.h"
#include "../../tuner/tuner.h"

/*
 * Two CPUs run p1 (its mask: CPUs 0 and 1); the requester's own handler calls are "local".  CPU 0: three fences after new PTEs, one after
 * an access update, a 3-page request only it holds (3 local fences), a 100-page request to
 * both (one whole-ASID fence in each handler), a 5-page one (5 in each handler), a new
 * vmalloc mapping of 2 pages flushed on both CPUs (2 fences each), flush_tlb_all.
 */
static const char *const stream[] = {
	"{\"kind\":\"header\",\"version\":1,\"cpus\":2}",
	"{\"ts\":1000,\"cpu\":0,\"kind\":\"switch\",\"prev_pid\":0,\"next_pid\":10,"
	"\"next_comm\":\"a\",\"mm\":\"p1\"}",
	"{\"ts\":1100,\"cpu\":1,\"kind\":\"switch\",\"prev_pid\":0,\"next_pid\":11,"
	"\"next_comm\":\"a\",\"mm\":\"p1\"}",
	"{\"ts\":1200,\"cpu\":0,\"kind\":\"sfence\",\"cause\":\"pte_new\",\"site\":\"do_anonymous_page\"}",
	"{\"ts\":1300,\"cpu\":0,\"kind\":\"sfence\",\"cause\":\"pte_new\",\"count\":2,"
	"\"site\":\"set_pte_range\"}",
	"{\"ts\":1400,\"cpu\":0,\"kind\":\"sfence\",\"cause\":\"pte_access\",\"site\":\"handle_pte_fault\"}",
	"{\"ts\":1500,\"cpu\":0,\"kind\":\"flush\",\"mm\":\"p1\",\"scope\":\"range\",\"pages\":3,"
	"\"source\":\"kprobe\",\"probe\":\"__flush_tlb_range\",\"kernel_mask\":[0]}",
	"{\"ts\":1600,\"cpu\":0,\"kind\":\"flush\",\"mm\":\"p1\",\"scope\":\"range\",\"pages\":100,"
	"\"source\":\"kprobe\",\"probe\":\"__flush_tlb_range\",\"kernel_mask\":[0,1]}",
	"{\"ts\":1610,\"cpu\":0,\"kind\":\"flush\",\"role\":\"local\",\"mm\":\"p1\","
	"\"scope\":\"range\",\"pages\":100,\"source\":\"kprobe\",\"probe\":\"__ipi_flush_tlb_range_asid\"}",
	"{\"ts\":1620,\"cpu\":1,\"kind\":\"flush\",\"role\":\"received\",\"mm\":\"p1\","
	"\"scope\":\"range\",\"pages\":100,\"source\":\"kprobe\",\"probe\":\"__ipi_flush_tlb_range_asid\"}",
	"{\"ts\":1700,\"cpu\":0,\"kind\":\"flush\",\"mm\":\"p1\",\"scope\":\"range\",\"pages\":5,"
	"\"source\":\"kprobe\",\"probe\":\"__flush_tlb_range\",\"kernel_mask\":[0,1]}",
	"{\"ts\":1710,\"cpu\":0,\"kind\":\"flush\",\"role\":\"local\",\"mm\":\"p1\","
	"\"scope\":\"range\",\"pages\":5,\"source\":\"kprobe\",\"probe\":\"__ipi_flush_tlb_range_asid\"}",
	"{\"ts\":1720,\"cpu\":1,\"kind\":\"flush\",\"role\":\"received\",\"mm\":\"p1\","
	"\"scope\":\"range\",\"pages\":5,\"source\":\"kprobe\",\"probe\":\"__ipi_flush_tlb_range_asid\"}",
	"{\"ts\":1800,\"cpu\":0,\"kind\":\"vmalloc\",\"start\":4096,\"pages\":2}",
	"{\"ts\":1810,\"cpu\":0,\"kind\":\"flush\",\"mm\":null,\"scope\":\"kernel\",\"pages\":2,"
	"\"source\":\"kprobe\",\"probe\":\"__flush_tlb_range\",\"kernel_mask\":[0,1]}",
	"{\"ts\":1820,\"cpu\":0,\"kind\":\"flush\",\"role\":\"local\",\"mm\":null,"
	"\"scope\":\"kernel\",\"pages\":2,\"source\":\"kprobe\",\"probe\":\"__ipi_flush_tlb_range_asid\"}",
	"{\"ts\":1830,\"cpu\":1,\"kind\":\"flush\",\"role\":\"received\",\"mm\":null,"
	"\"scope\":\"kernel\",\"pages\":2,\"source\":\"kprobe\",\"probe\":\"__ipi_flush_tlb_range_asid\"}",
	"{\"ts\":1900,\"cpu\":1,\"kind\":\"flush\",\"mm\":null,\"scope\":\"all\","
	"\"source\":\"kprobe\",\"probe\":\"flush_tlb_all\"}",
	/* the flush fences as site probes count them: CPU 0 3 + 1 + 5 + 2, CPU 1 1 + 5 + 2 */
	"{\"ts\":2000,\"cpu\":0,\"kind\":\"sfence\",\"cause\":\"flush_range\",\"count\":11}",
	"{\"ts\":2001,\"cpu\":1,\"kind\":\"sfence\",\"cause\":\"flush_range\",\"count\":8}",
	"{\"ts\":2002,\"cpu\":0,\"kind\":\"sfence\",\"cause\":\"flush_all\"}",
	"{\"ts\":2003,\"cpu\":1,\"kind\":\"sfence\",\"cause\":\"flush_all\"}",
	"{\"ts\":2004,\"cpu\":1,\"kind\":\"sfence\",\"cause\":\"no_such_cause\"}",
};

/* the prices run() gives the account (NULL: unpriced) */
static const struct platform *run_pf;

/* Feed @lines (without the sfence events when @no_sites) to a new account. */
static void run(const char *const *lines, size_t n, bool no_sites,
		const struct sfence_result **out, struct sfence **sp, struct ts_source **srcp,
		struct timeline **tlp)
{
	char path[] = "/tmp/tlbscope-sfence-XXXXXX", err[TS_ERR_LEN];
	int fd = mkstemp(path);
	FILE *f;
	struct ts_event ev;
	struct sfence_opts o = { 0 };

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	for (size_t i = 0; i < n; i++)
		if (!no_sites || !strstr(lines[i], "\"sfence\""))
			fprintf(f, "%s\n", lines[i]);
	fclose(f);
	*srcp = ts_source_open(path, err);
	unlink(path);
	assert_non_null(*srcp);
	o.src = *srcp;
	o.flush_all_threshold = 64;
	o.pf = run_pf;
	*sp = sfence_new(&o);
	*tlp = timeline_new(*srcp, NULL);
	while (ts_source_next(*srcp, &ev) > 0)
		timeline_feed(*tlp, &ev, sfence_feed, *sp);
	timeline_finish(*tlp, sfence_feed, *sp);
	*out = sfence_result(*sp, 2);
}

static void test_account(void **state)
{
	const struct sfence_result *r;
	struct sfence *s;
	struct ts_source *src;
	struct timeline *tl;
	struct sfence_whatif w;
	struct platform pf = { .v[PF_SFENCE_PAGE] = 10, .v[PF_LOCAL_ASID_FLUSH] = 100 };

	(void)state;
	run_pf = &pf;
	run(stream, sizeof(stream) / sizeof(stream[0]), false, &r, &s, &src, &tl);
	run_pf = NULL;
	assert_true(r->probed);
	assert_int_equal(r->by_cause[TS_SF_PTE_NEW], 3);
	assert_int_equal(r->by_cause[TS_SF_PTE_ACCESS], 1);
	assert_int_equal(r->by_cause[TS_SF_FLUSH_RANGE], 19);
	assert_int_equal(r->by_cause[TS_SF_FLUSH_ALL], 2);
	assert_int_equal(r->by_cause[TS_SF_UNCLASSIFIED], 1);
	assert_int_equal(r->total, 26);
	assert_int_equal(r->by_cpu[0], 16);
	assert_int_equal(r->by_cpu[1], 10);
	/* the kernel's rules give the same flush fences as the site probes */
	assert_true(r->flush_known);
	assert_true(r->rules_complete);
	assert_int_equal(r->inferred_range, 19);
	assert_int_equal(r->inferred_all, 2);
	assert_int_equal(r->remote_requests, 3);
	assert_int_equal(r->kmask_unknown, 0);
	assert_true(r->vmalloc_known);
	assert_int_equal(r->vmalloc_maps, 1);
	assert_int_equal(r->vmalloc_fences, 4);
	assert_int_equal(r->vmalloc_remote, 1);
	/* p1 runs on both CPUs: Svvptc's flush_tlb_page would fence both and send one IPI */
	assert_int_equal(r->access_flush_fences, 2);
	assert_int_equal(r->access_flush_ipis, 1);
	/* sites, by count: the unnamed ones (22), set_pte_range (2), then the two of 1 */
	assert_int_equal(r->nsites, 4);
	assert_int_equal(r->sites[0].site, 0);
	assert_int_equal(r->sites[0].count, 22);
	assert_string_equal(ts_source_str(src, r->sites[1].site), "set_pte_range");
	assert_int_equal(r->sites[1].count, 2);
	/* both CPUs ran p1 throughout: every fence is its */
	assert_int_equal(r->nmms, 1);
	assert_int_equal(r->mms[0].count, 26);
	assert_string_equal(timeline_mm(tl, r->mms[0].site)->name, "p1");
	sfence_whatif_svvptc(r, &w);
	assert_int_equal(w.removed_pte, 4);
	assert_int_equal(w.removed_vmalloc, 4);
	assert_int_equal(w.sfence, 18);
	assert_int_equal(w.sfence_max, 20);
	assert_int_equal(w.ipis_removed, 1);
	assert_int_equal(w.ipis_added_max, 1);
	assert_int_equal(w.faults_added_max, 3 + 2);
	/*
	 * the result carries the same what-if, and the fences priced: the 2 full ones at
	 * 100 ns, the other 24 at 10 ns a page; Svvptc removes 26 - 18 page fences
	 */
	assert_memory_equal(&r->svvptc, &w, sizeof(w));
	assert_true(r->fences_ns == 2 * 100 + 24 * 10);
	assert_true(r->svvptc_saved_ns == (26 - 18) * 10);
	sfence_free(s);
	timeline_free(tl);
	ts_source_close(src);
}

/* Without site probes nothing is probed; the flush rules still count. */
static void test_flush_rules_only(void **state)
{
	const struct sfence_result *r;
	struct sfence *s;
	struct ts_source *src;
	struct timeline *tl;

	(void)state;
	run(stream, sizeof(stream) / sizeof(stream[0]), true, &r, &s, &src, &tl);
	assert_false(r->probed);
	assert_int_equal(r->total, 0);
	assert_int_equal(r->inferred_range, 19);
	assert_int_equal(r->inferred_all, 2);
	assert_int_equal(r->vmalloc_fences, 4);
	sfence_free(s);
	timeline_free(tl);
	ts_source_close(src);
}

/*
 * A lazy-flush kernel that queued every remote target fences the requester directly (no
 * handler): counted; an SBI remote fence does the requester's in the firmware: not.
 */
static const char *const direct[] = {
	"{\"kind\":\"header\",\"version\":1,\"cpus\":2}",
	"{\"ts\":1000,\"cpu\":0,\"kind\":\"switch\",\"prev_pid\":0,\"next_pid\":10,"
	"\"next_comm\":\"a\",\"mm\":\"p1\"}",
	"{\"ts\":1100,\"cpu\":0,\"kind\":\"flush\",\"mm\":\"p1\",\"scope\":\"range\",\"pages\":7,"
	"\"source\":\"kprobe\",\"probe\":\"__flush_tlb_range\",\"kernel_mask\":[0,1]}",
	"{\"ts\":1200,\"cpu\":0,\"kind\":\"flush\",\"mm\":\"p1\",\"scope\":\"range\",\"pages\":5,"
	"\"source\":\"kprobe\",\"probe\":\"__flush_tlb_range\",\"kernel_mask\":[0,1]}",
	"{\"ts\":1210,\"cpu\":0,\"kind\":\"ipi\",\"targets\":[0,1],\"tlb\":true,"
	"\"func\":\"sbi_remote_sfence_vma_asid\",\"source\":\"sbi_remote_fence\"}",
	"{\"ts\":1300,\"cpu\":0,\"kind\":\"switch\",\"prev_pid\":10,\"next_pid\":0,"
	"\"next_comm\":\"swapper/0\",\"mm\":null}",
};

static void test_direct_local(void **state)
{
	const struct sfence_result *r;
	struct sfence *s;
	struct ts_source *src;
	struct timeline *tl;

	(void)state;
	run(direct, sizeof(direct) / sizeof(direct[0]), false, &r, &s, &src, &tl);
	assert_int_equal(r->inferred_range, 7);
	assert_int_equal(r->sbi_requests, 1);
	assert_int_equal(r->remote_requests, 2);
	sfence_free(s);
	timeline_free(tl);
	ts_source_close(src);
}

static void test_range_rules(void **state)
{
	struct ts_event ev = { .kind = TS_EV_FLUSH };

	(void)state;
	ev.u.flush.scope = TS_SCOPE_RANGE;
	ev.u.flush.pages = 1;
	assert_int_equal(sfence_range_fences(&ev, 64), 1);
	ev.u.flush.pages = 64;
	assert_int_equal(sfence_range_fences(&ev, 64), 64);
	ev.u.flush.pages = 65;
	assert_int_equal(sfence_range_fences(&ev, 64), 1);
	/* a 2 MiB stride: 1024 pages are two entries */
	ev.u.flush.pages = 1024;
	ev.u.flush.stride = 2 << 20;
	assert_int_equal(sfence_range_fences(&ev, 64), 2);
	ev.u.flush.scope = TS_SCOPE_MM;
	assert_int_equal(sfence_range_fences(&ev, 64), 1);
}

static void test_cause_names(void **state)
{
	(void)state;
	assert_int_equal(ts_sfence_cause_of("sfence_pte_new"), TS_SF_PTE_NEW);
	assert_int_equal(ts_sfence_cause_of("sfence_pte_access"), TS_SF_PTE_ACCESS);
	assert_int_equal(ts_sfence_cause_of("my_sfence_flush_range_3"), TS_SF_FLUSH_RANGE);
	assert_int_equal(ts_sfence_cause_of("sfence_lazy_evict"), TS_SF_LAZY_EVICT);
	assert_int_equal(ts_sfence_cause_of("sfence"), TS_SF_UNCLASSIFIED);
	assert_int_equal(ts_sfence_cause_of("sfence_pte_newish"), TS_SF_UNCLASSIFIED);
	/* the SBI remote fence is a probe of tlbscope-probes(7), not a site */
	assert_int_equal(ts_sfence_cause_of("sbi_remote_sfence_vma_asid"), -1);
	assert_int_equal(ts_sfence_cause_of("switch_mm"), -1);
	assert_string_equal(ts_sfence_cause_name(TS_SF_FLUSH_ALL), "flush_all");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_account),
		cmocka_unit_test(test_flush_rules_only),
		cmocka_unit_test(test_direct_local),
		cmocka_unit_test(test_range_rules),
		cmocka_unit_test(test_cause_names),
	};

	return cmocka_run_group_tests_name("sfence", tests, NULL, NULL);
}
