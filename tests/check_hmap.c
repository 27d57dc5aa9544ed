/*
 * check_hmap.c - the hash map: insertion, lookup and removal against a
 * plain array model, with keys chosen to collide, through growth.
 */
#include "config.h"

#include <stdlib.h>

#include "util/hmap.h"
#include "unit-helpers.h"
#include "util/util.h"

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
START_TEST(test_random_model)
{
	enum { KEYS = 700 };
	static uint64_t model[KEYS + 1]; /* 0: absent, else value + 1 */
	struct hmap h;
	uint64_t seed = 7;
	size_t present = 0;

	memset(model, 0, sizeof(model));
	hmap_init(&h);
	for (int step = 0; step < 40000; step++) {
		uint64_t k = 1 + unit_rand(&seed) % KEYS, v;
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
		if (step % 97 == 0)
			for (uint64_t j = 1; j <= KEYS; j++) {
				struct hmap_slot *s = hmap_find(&h, j);

				ck_assert(!!s == !!model[j]);
				if (s)
					ck_assert_uint_eq(s->val + 1, model[j]);
			}
	}
	hmap_release(&h);
}
END_TEST

static Suite *hmap_suite(void)
{
	Suite *s = suite_create("hmap");
	TCase *tc = tcase_create("map");

	tcase_add_test(tc, test_basic);
	tcase_add_test(tc, test_random_model);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(hmap_suite());
}
