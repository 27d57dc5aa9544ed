/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_splice.c - a walk by the tables that ended early, carried on
 * along the kernel's frame-pointer chain (unwind-int.h), on hand-built
 * walks, chains and stack copies: the chain taken from the frame whose
 * return address both read at one address (a frame too large for the
 * copy, under a leaf with and without a frame pointer), from past the
 * walk where the two never meet, the tables' frames kept where the chain
 * skips or misreads one, the chain's where the walk went astray, the
 * chain's past a record on another stack where the walk ended at it, and
 * no splice where the copy says the kernel's walk went elsewhere.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "stack/unwind-int.h"
#include "unit-helpers.h"
#include "util/array.h"

/* The copy: 32 words from BASE; a record beyond it at FAR. */
#define BASE 0x7ffc00001000ULL
#define FAR  (BASE + 0x10000)

#define PC_LEAF 0x401000ULL
#define RA_1	0x401100ULL
#define RA_2	0x401200ULL
#define RA_3	0x401300ULL
#define RA_4	0x401400ULL
#define JUNK	0x401777ULL

struct mem {
	uint64_t w[32];
};

static int mem_read(void *arg, uint64_t addr, uint64_t *v)
{
	struct mem *m = arg;

	if (addr < BASE || addr >= BASE + sizeof(m->w) || (addr & 7))
		return -EFAULT;
	*v = m->w[(addr - BASE) / 8];
	return 0;
}

static void put(struct mem *m, uint64_t addr, uint64_t v)
{
	m->w[(addr - BASE) / 8] = v;
}

/* A walk of the frames at ips[0, n) (copied into out), their slots, and how it ended. */
static void walk_of(struct unwind_walk *w, uint64_t *out, const uint64_t *ips, int n,
		    const uint64_t *slots, int nslots, enum unwind_end end, uint64_t bp)
{
	memcpy(out, ips, (size_t)n * sizeof(*ips));
	*w = (struct unwind_walk){.ips = out,
				  .n = n,
				  .max = 16,
				  .slots = slots,
				  .nslots = nslots,
				  .sp = BASE,
				  .bp = bp,
				  .bp_known = true,
				  .end = end};
}

static void splice(const struct unwind_walk *w, const uint64_t *chain, size_t nchain, struct mem *m,
		   struct unwind_result *res)
{
	memset(res, 0, sizeof(*res));
	unwind_splice(w, (const unsigned char *)chain, nchain, mem_read, m, res);
}

static void check_ips(const uint64_t *got, const struct unwind_result *res, const uint64_t *want,
		      int n)
{
	ck_assert_int_eq(res->n, n);
	for (int i = 0; i < n; i++)
		ck_assert_uint_eq(got[i], want[i]);
}

/*
 * The leaf's record in the copy points to its caller's at record, out of
 * the copy, where the walk ended reading the caller's return address
 * (record + 8): the chain goes on from there, every frame agreed.
 */
static void check_agreed_at(uint64_t record)
{
	static const uint64_t ips[] = {PC_LEAF, RA_1 - 1};
	static const uint64_t chain[] = {PC_LEAF, RA_1, RA_2, RA_3, 0};
	static const uint64_t want[] = {PC_LEAF, RA_1 - 1, RA_2 - 1, RA_3 - 1};
	const uint64_t slots[] = {BASE + 0x28, record + 8};
	struct unwind_walk w;
	struct unwind_result res;
	struct mem m = {0};
	uint64_t out[16];

	put(&m, BASE + 0x20, record);
	put(&m, BASE + 0x28, RA_1);
	walk_of(&w, out, ips, 2, slots, 2, UNWIND_SHORT_STACK, BASE + 0x20);
	splice(&w, chain, ARRAY_SIZE(chain), &m, &res);
	check_ips(out, &res, want, 4);
	ck_assert_int_eq(res.how, UNWIND_BY_SPLICE);
	ck_assert_int_eq(res.judge, UNWIND_AGREED);
	ck_assert_int_eq(res.end, UNWIND_COMPLETE);
}

/*
 * Go's shape: the leaf keeps a frame pointer; its caller's frame is too
 * large for the copy, and its record lies beyond it. The kernel read the
 * caller's return address where the tables put it (CFA - 8).
 */
START_TEST(test_splice_where_both_agree)
{
	check_agreed_at(FAR);
}
END_TEST

/*
 * The same under a leaf that keeps no frame pointer: the chain skips the
 * large frame (the leaf's rbp is its caller's), the tables have it; the
 * chain's first entry is read where the large frame's return address is.
 */
START_TEST(test_splice_frameless_leaf)
{
	static const uint64_t ips[] = {PC_LEAF, RA_1 - 1};
	static const uint64_t chain[] = {PC_LEAF, RA_2, RA_3};
	static const uint64_t want[] = {PC_LEAF, RA_1 - 1, RA_2 - 1, RA_3 - 1};
	const uint64_t slots[] = {BASE, FAR + 8};
	struct unwind_walk w;
	struct unwind_result res;
	struct mem m = {0};
	uint64_t out[16];

	put(&m, BASE, RA_1);
	walk_of(&w, out, ips, 2, slots, 2, UNWIND_SHORT_STACK, FAR);
	splice(&w, chain, ARRAY_SIZE(chain), &m, &res);
	check_ips(out, &res, want, 4);
	ck_assert_int_eq(res.how, UNWIND_BY_SPLICE);
	ck_assert_int_eq(res.judge, UNWIND_TABLES_SKIPPED);
	/* At most max frames. */
	w.max = 3;
	splice(&w, chain, ARRAY_SIZE(chain), &m, &res);
	check_ips(out, &res, want, 3);
	ck_assert_int_eq(res.end, UNWIND_TOO_DEEP);
}
END_TEST

/*
 * Where the tables cannot say where the last frame's return address is,
 * the chain's first entry further out than the walk reached carries it on.
 */
START_TEST(test_splice_past)
{
	static const uint64_t ips[] = {PC_LEAF, RA_1 - 1};
	static const uint64_t chain[] = {PC_LEAF, RA_2, RA_3};
	static const uint64_t want[] = {PC_LEAF, RA_1 - 1, RA_2 - 1, RA_3 - 1};
	const uint64_t slots[] = {BASE, 0};
	struct unwind_walk w;
	struct unwind_result res;
	struct mem m = {0};
	uint64_t out[16];

	put(&m, BASE, RA_1);
	walk_of(&w, out, ips, 2, slots, 2, UNWIND_NO_INFO, FAR);
	splice(&w, chain, ARRAY_SIZE(chain), &m, &res);
	check_ips(out, &res, want, 4);
	ck_assert_int_eq(res.how, UNWIND_BY_SPLICE_PAST);
}
END_TEST

/*
 * A frame with rbp used as a register: the chain reads a word in its
 * frame as a return address. The tables' frames stand, the chain's
 * beyond the walk are added; but where the walk ended in a bad frame and
 * the chain disagreed with it after the last frame both agree on, the
 * chain's are taken from there.
 */
START_TEST(test_splice_disagree)
{
	static const uint64_t ips[] = {PC_LEAF, RA_1 - 1, RA_2 - 1, RA_3 - 1};
	static const uint64_t chain[] = {PC_LEAF, RA_1, JUNK, RA_4};
	static const uint64_t tables[] = {PC_LEAF, RA_1 - 1, RA_2 - 1, RA_3 - 1, RA_4 - 1};
	static const uint64_t chain_won[] = {PC_LEAF, RA_1 - 1, JUNK - 1, RA_4 - 1};
	const uint64_t slots[] = {BASE + 0x28, BASE + 0x48, BASE + 0x68, BASE + 0x200};
	struct unwind_walk w;
	struct unwind_result res;
	struct mem m = {0};
	uint64_t out[16];

	put(&m, BASE + 0x20, BASE + 0x30); /* the leaf's record: rbp as its caller left it */
	put(&m, BASE + 0x28, RA_1);
	put(&m, BASE + 0x30, FAR);
	put(&m, BASE + 0x38, JUNK);
	put(&m, BASE + 0x48, RA_2);
	put(&m, BASE + 0x68, RA_3);
	walk_of(&w, out, ips, 4, slots, 4, UNWIND_SHORT_STACK, BASE + 0x20);
	splice(&w, chain, ARRAY_SIZE(chain), &m, &res);
	check_ips(out, &res, tables, 5);
	ck_assert_int_eq(res.how, UNWIND_BY_SPLICE_PAST);
	ck_assert_int_eq(res.judge, UNWIND_TABLES_NOT_RA);
	walk_of(&w, out, ips, 4, slots, 4, UNWIND_BAD_FRAME, BASE + 0x20);
	splice(&w, chain, ARRAY_SIZE(chain), &m, &res);
	check_ips(out, &res, chain_won, 4);
	ck_assert_int_eq(res.how, UNWIND_BY_SPLICE);
	ck_assert_int_eq(res.judge, UNWIND_CHAIN_WON);
}
END_TEST

/*
 * The walk read its last frame's return address and refused it (in no
 * mapping): the chain read the same word there; it goes on past it.
 */
START_TEST(test_splice_refused)
{
	static const uint64_t ips[] = {PC_LEAF, RA_1 - 1};
	static const uint64_t chain[] = {PC_LEAF, RA_1, 0x1234, RA_3};
	static const uint64_t want[] = {PC_LEAF, RA_1 - 1, RA_3 - 1};
	const uint64_t slots[] = {BASE + 0x28, BASE + 0x48};
	struct unwind_walk w;
	struct unwind_result res;
	struct mem m = {0};
	uint64_t out[16];

	put(&m, BASE + 0x20, BASE + 0x40);
	put(&m, BASE + 0x28, RA_1);
	put(&m, BASE + 0x40, FAR);
	put(&m, BASE + 0x48, 0x1234);
	walk_of(&w, out, ips, 2, slots, 2, UNWIND_BAD_FRAME, BASE + 0x20);
	w.refused = true;
	splice(&w, chain, ARRAY_SIZE(chain), &m, &res);
	check_ips(out, &res, want, 3);
	ck_assert_int_eq(res.how, UNWIND_BY_SPLICE_PAST);
	ck_assert_int_eq(res.judge, UNWIND_AGREED);
}
END_TEST

/*
 * Go's vDSO calls: the leaf's record is on the thread's system stack,
 * the copy's; its caller's record on the goroutine's stack, below the
 * copy. The walk ended (short) reading its last frame's return address
 * there, where the kernel read the chain's next entry: the chain goes on
 * from it. Not where the walk ended reading elsewhere, nor where it ended
 * in a bad frame.
 */
START_TEST(test_splice_other_stack)
{
	static const uint64_t ips[] = {PC_LEAF, RA_1 - 1};
	static const uint64_t chain[] = {PC_LEAF, RA_1, RA_2, RA_3, 0};
	const uint64_t other = 0xc000040000ULL;
	uint64_t slots[] = {BASE + 0x28, other + 8};
	struct unwind_walk w;
	struct unwind_result res;
	struct mem m = {0};
	uint64_t out[16];

	check_agreed_at(other);
	put(&m, BASE + 0x20, other);
	put(&m, BASE + 0x28, RA_1);
	walk_of(&w, out, ips, 2, slots, 2, UNWIND_BAD_FRAME, BASE + 0x20);
	splice(&w, chain, ARRAY_SIZE(chain), &m, &res);
	ck_assert_int_eq(res.n, 2);
	slots[1] = other + 0x18;
	walk_of(&w, out, ips, 2, slots, 2, UNWIND_SHORT_STACK, BASE + 0x20);
	splice(&w, chain, ARRAY_SIZE(chain), &m, &res);
	ck_assert_int_eq(res.n, 2);
}
END_TEST

/*
 * No splice: a whole walk; no chain; a chain whose entry is not the word
 * the copy holds where it would have been read (the kernel's walk went
 * elsewhere); a frame pointer below the stack pointer.
 */
START_TEST(test_splice_none)
{
	static const uint64_t ips[] = {PC_LEAF, RA_1 - 1};
	static const uint64_t chain[] = {PC_LEAF, RA_2, RA_3};
	const uint64_t slots[] = {BASE + 0x28, FAR + 8};
	struct unwind_walk w;
	struct unwind_result res;
	struct mem m = {0};
	uint64_t out[16];

	put(&m, BASE + 0x20, FAR);
	put(&m, BASE + 0x28, RA_1);
	walk_of(&w, out, ips, 2, slots, 2, UNWIND_COMPLETE, BASE + 0x20);
	splice(&w, chain, ARRAY_SIZE(chain), &m, &res);
	ck_assert_int_eq(res.n, 2);
	ck_assert_int_eq(res.how, UNWIND_BY_CFI);
	ck_assert_int_eq(res.judge, UNWIND_UNJUDGED);
	walk_of(&w, out, ips, 2, slots, 2, UNWIND_SHORT_STACK, BASE + 0x20);
	splice(&w, chain, 0, &m, &res);
	ck_assert_int_eq(res.n, 2);
	ck_assert_int_eq(res.end, UNWIND_SHORT_STACK);
	splice(&w, chain, ARRAY_SIZE(chain), &m, &res); /* RA_2 where the copy has RA_1 */
	ck_assert_int_eq(res.n, 2);
	ck_assert_int_eq(res.how, UNWIND_BY_CFI);
	ck_assert_int_eq(res.end, UNWIND_SHORT_STACK);
	walk_of(&w, out, ips, 2, slots, 2, UNWIND_SHORT_STACK, BASE - 0x40);
	splice(&w, chain, ARRAY_SIZE(chain), &m, &res);
	ck_assert_int_eq(res.n, 2);
}
END_TEST

static Suite *splice_suite(void)
{
	Suite *s = suite_create("splice");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_splice_where_both_agree);
	tcase_add_test(tc, test_splice_frameless_leaf);
	tcase_add_test(tc, test_splice_past);
	tcase_add_test(tc, test_splice_disagree);
	tcase_add_test(tc, test_splice_refused);
	tcase_add_test(tc, test_splice_other_stack);
	tcase_add_test(tc, test_splice_none);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(splice_suite());
}
