/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_hmap.c - the hash map: insertion, lookup and removal against a
 * plain array model, with keys chosen to collide, through growth, in a
 * plain map and an ids map; and hash_fast, the hash of call chains and
 * stacks.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "unit-helpers.h"
#include "util/array.h"
#include "util/hash.h"
#include "util/hmap.h"

START_TEST(test_basic)
{
	struct hmap h;
	bool added;
	uint64_t v = 0;

	hmap_init(&h);
	ck_assert_ptr_null(hmap_find(&h, 5));
	ck_assert(!hmap_remove(&h, 5, NULL));
	hmap_insert(&h, 5, &added)->val = 50;
	ck_assert(added);
	ck_assert_uint_eq(hmap_insert(&h, 5, &added)->val, 50);
	ck_assert(!added);
	ck_assert(hmap_remove(&h, 5, &v));
	ck_assert_uint_eq(v, 50);
	ck_assert_uint_eq(h.count, 0);
	ck_assert_ptr_null(hmap_find(&h, 5));
	hmap_release(&h);
}
END_TEST

/*
 * Random inserts and removes of keys from a small range (so that runs
 * form and wrap), checked against a model after every step.
 */
/* _i 0: a plain map; 1: an ids map (hmap_init_ids), whose keys 0..KEYS crowd their homes. */
START_TEST(test_random_model)
{
	enum { KEYS = 700 };
	static uint64_t model[KEYS + 1]; /* 0: absent, else value + 1 */
	struct hmap h;
	uint64_t seed = 7;
	size_t present = 0;

	memset(model, 0, sizeof(model));
	if (_i)
		hmap_init_ids(&h);
	else
		hmap_init(&h);
	for (int step = 0; step < 40000; step++) {
		uint64_t k = unit_rand(&seed) % (KEYS + 1), v; /* 0 included */
		bool added;

		if (unit_rand(&seed) % 3) {
			struct hmap_slot *s = hmap_insert(&h, k, &added);

			ck_assert(added == !model[k]);
			if (added)
				present++;
			s->val = unit_rand(&seed);
			model[k] = s->val + 1;
		} else {
			bool had = hmap_remove(&h, k, &v);

			ck_assert(had == !!model[k]);
			if (had) {
				ck_assert_uint_eq(v + 1, model[k]);
				present--;
			}
			model[k] = 0;
		}
		ck_assert_uint_eq(h.count, present);
		if (step % 97 == 0) {
			/* Counted, then checked once: a Check assertion costs a system call. */
			struct hmap_slot *s;
			size_t seen = 0, wrong = 0;

			for (uint64_t j = 0; j <= KEYS; j++) {
				s = hmap_find(&h, j);
				if (!!s != !!model[j] || (s && s->val + 1 != model[j]))
					wrong++;
			}
			/* Every entry once, key 0 among them. */
			for (size_t pos = 0; (s = hmap_next(&h, &pos));) {
				if (s->key > KEYS || s->val + 1 != model[s->key])
					wrong++;
				seen++;
			}
			ck_assert_uint_eq(wrong, 0);
			ck_assert_uint_eq(seen, present);
		}
	}
	hmap_release(&h);
}
END_TEST

/* An ids map keeps a run of 8 ids side by side, through growth and release. */
START_TEST(test_ids_side_by_side)
{
	struct hmap h;

	hmap_init_ids(&h);
	for (int round = 0; round < 2; round++) {
		/* 4000 more entries first: the table grows past its first size. */
		for (uint64_t k = 100000; k < 104000; k++)
			hmap_insert(&h, k, NULL)->val = k;
		for (uint64_t k = 4096; k < 4104; k++)
			hmap_insert(&h, k, NULL)->val = k;
		for (uint64_t k = 4097; k < 4104; k++)
			ck_assert_ptr_eq(hmap_find(&h, k), hmap_find(&h, k - 1) + 1);
		for (uint64_t k = 100000; k < 104000; k++)
			ck_assert_uint_eq(hmap_find(&h, k)->val, k);
		hmap_release(&h);
		ck_assert(h.ids);
	}
}
END_TEST

START_TEST(test_key_zero)
{
	struct hmap h;
	struct hmap_slot *s;
	bool added;
	uint64_t v = 0;
	size_t n = 0;

	hmap_init(&h);
	ck_assert_ptr_null(hmap_find(&h, 0));
	hmap_insert(&h, 0, &added)->val = 7;
	ck_assert(added);
	hmap_insert(&h, 1, &added)->val = 8;
	ck_assert_uint_eq(h.count, 2);
	ck_assert_uint_eq(hmap_insert(&h, 0, &added)->val, 7);
	ck_assert(!added);
	ck_assert_uint_eq(hmap_find(&h, 0)->val, 7);
	for (size_t pos = 0; (s = hmap_next(&h, &pos));)
		n += s->key == 0 ? 100 : 1;
	ck_assert_uint_eq(n, 101);
	ck_assert(hmap_remove(&h, 0, &v));
	ck_assert_uint_eq(v, 7);
	ck_assert_ptr_null(hmap_find(&h, 0));
	ck_assert_uint_eq(h.count, 1);
	hmap_release(&h);
	ck_assert_ptr_null(hmap_find(&h, 0));
}
END_TEST

/* Interned strings: equal ones share an entry, through forced collisions. */
static const char *const words[] = {"alpha", "beta", "gamma", "delta", "alpha", "gamma"};

static bool same_word(uint64_t val, const void *arg)
{
	return strcmp(words[val], arg) == 0;
}

START_TEST(test_intern)
{
	struct hmap h;
	size_t distinct = 0;

	hmap_init(&h);
	for (size_t i = 0; i < ARRAY_SIZE(words); i++) {
		bool added;
		/* Every word under one hash: each lookup walks the rehash chain. */
		struct hmap_slot *s = hmap_intern(&h, 42, same_word, words[i], &added);

		if (added) {
			s->val = i;
			distinct++;
		}
		ck_assert_str_eq(words[s->val], words[i]);
		ck_assert(added == (i < 4));
	}
	ck_assert_uint_eq(distinct, 4);
	ck_assert_uint_eq(h.count, 4);
	hmap_release(&h);
}
END_TEST

/* Strings by their bytes and length: a prefix, and bytes after a NUL, tell them apart. */
static const char pieces[] = "ab\0abc\0ab\0c";
static const size_t piece_at[][2] = {{0, 2}, {3, 3}, {0, 5}, {7, 2}, {3, 2}, {10, 1}};

static const char *piece_text(uint64_t val, const void *ctx, size_t *len)
{
	const size_t(*at)[2] = ctx;

	*len = at[val][1];
	return pieces + at[val][0];
}

START_TEST(test_intern_str)
{
	/* The pieces' first holders: "ab", "abc", "ab\0ab", "ab" again, "ab" again, "c". */
	static const uint64_t want[] = {0, 1, 2, 0, 0, 5};
	struct hmap h;

	hmap_init(&h);
	for (size_t i = 0; i < ARRAY_SIZE(piece_at); i++) {
		bool added;
		struct hmap_slot *s = hmap_intern_str(&h, pieces + piece_at[i][0], piece_at[i][1],
						      piece_text, piece_at, &added);

		if (added)
			s->val = i;
		ck_assert_uint_eq(s->val, want[i]);
		ck_assert(added == (want[i] == i));
	}
	ck_assert_uint_eq(h.count, 4);
	hmap_release(&h);
}
END_TEST

/*
 * hash_fast: independent of alignment; every length and every single bit
 * counts; call-chain-like inputs (return addresses differing in a few
 * low bits) spread evenly over the 1024 slots of a direct-mapped cache.
 */
/* Pointers as values and as keys: what is stored comes back the same, NULL for absent. */
START_TEST(test_ptr)
{
	static int objs[3];
	struct hmap h;
	struct hmap_slot *s;
	bool added;
	size_t n = 0;

	hmap_init(&h);
	ck_assert_ptr_null(hmap_get_ptr(&h, 7));
	hmap_put_ptr(&h, 7, &objs[0]);
	hmap_put_ptr(&h, 0, &objs[1]);
	ck_assert_ptr_eq(hmap_get_ptr(&h, 7), &objs[0]);
	ck_assert_ptr_eq(hmap_get_ptr(&h, 0), &objs[1]);
	ck_assert_ptr_null(hmap_get_ptr(&h, 8));
	/* put replaces what was there. */
	hmap_put_ptr(&h, 7, &objs[2]);
	ck_assert_ptr_eq(hmap_get_ptr(&h, 7), &objs[2]);
	ck_assert_uint_eq(h.count, 2);
	/* A stored NULL reads back as NULL, present all the same. */
	hmap_put_ptr(&h, 9, NULL);
	ck_assert_ptr_nonnull(hmap_find(&h, 9));
	ck_assert_ptr_null(hmap_get_ptr(&h, 9));
	/* Slots and values give the same pointers. */
	s = hmap_insert(&h, hmap_key_ptr(&objs[1]), &added);
	ck_assert(added);
	hmap_set_ptr(s, &objs[1]);
	ck_assert_ptr_eq(hmap_ptr(hmap_find(&h, hmap_key_ptr(&objs[1]))), &objs[1]);
	ck_assert_ptr_eq(hmap_val_ptr(hmap_find(&h, 7)->val), &objs[2]);
	ck_assert_uint_ne(hmap_key_ptr(&objs[0]), hmap_key_ptr(&objs[1]));
	ck_assert_uint_eq(hmap_key_ptr(NULL), 0);
	for (size_t pos = 0; (s = hmap_next(&h, &pos));)
		n += hmap_ptr(s) != NULL;
	ck_assert_uint_eq(n, 3);
	hmap_release(&h);
}
END_TEST

/* Reserved room holds that many entries without growing; what was in stays. */
START_TEST(test_reserve)
{
	struct hmap h;
	bool added;
	size_t cap;

	hmap_init(&h);
	hmap_insert(&h, 7, &added)->val = 70;
	hmap_reserve(&h, 1000);
	cap = h.cap;
	ck_assert_uint_ge(cap, 2000);
	ck_assert_uint_eq(hmap_find(&h, 7)->val, 70);
	for (uint64_t k = 100; k < 1099; k++)
		hmap_insert(&h, k, &added)->val = k;
	ck_assert_uint_eq(h.count, 1000);
	ck_assert_uint_eq(h.cap, cap);
	/* Less than it holds: nothing changes. */
	hmap_reserve(&h, 10);
	ck_assert_uint_eq(h.cap, cap);
	for (uint64_t k = 100; k < 1099; k++)
		ck_assert_uint_eq(hmap_find(&h, k)->val, k);
	hmap_release(&h);
}
END_TEST

START_TEST(test_hash_fast)
{
	unsigned char buf[80 + 8], *moved = buf + 3;
	uint64_t seed = 7;
	uint32_t slots[1024] = {0}, most = 0;

	for (size_t i = 0; i < 80; i++)
		buf[i] = (unsigned char)unit_rand(&seed);
	for (size_t n = 0; n <= 80; n++) {
		uint64_t h = hash_fast(buf, n);

		memmove(moved, buf, n);
		ck_assert_uint_eq(hash_fast(moved, n), h);
		memmove(buf, moved, n);
		if (n)
			ck_assert_uint_ne(hash_fast(buf, n - 1), h);
		for (size_t bit = 0; bit < n * 8; bit++) {
			buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
			ck_assert_uint_ne(hash_fast(buf, n), h);
			buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
		}
	}
	for (uint64_t i = 0; i < 102400; i++) {
		uint64_t chain[6] = {0x401000 + (i % 64) * 4,
				     0x401200 + (i / 64 % 40) * 8,
				     0x7f0000012345ULL,
				     0x7f0000054321ULL + (i / 2560) * 16,
				     0x401500,
				     0x401600};
		uint32_t c = ++slots[hash_fast(chain, sizeof(chain)) & 1023];

		if (c > most)
			most = c;
	}
	/* 100 a slot on average; a poor hash piles them up. */
	ck_assert_uint_lt(most, 160);
}
END_TEST

static Suite *hmap_suite(void)
{
	Suite *s = suite_create("hmap");
	TCase *tc = tcase_create("map");

	tcase_add_test(tc, test_basic);
	tcase_add_loop_test(tc, test_random_model, 0, 2);
	tcase_add_test(tc, test_ids_side_by_side);
	tcase_add_test(tc, test_key_zero);
	tcase_add_test(tc, test_intern);
	tcase_add_test(tc, test_intern_str);
	tcase_add_test(tc, test_ptr);
	tcase_add_test(tc, test_hash_fast);
	tcase_add_test(tc, test_reserve);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(hmap_suite());
}
