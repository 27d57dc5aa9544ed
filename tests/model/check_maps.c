/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_maps.c - the mapping tree: lookups at the edges, replacement of
 * overlapped mappings (trim, split, pgoff kept consistent), clone, and
 * thousands of random operations against a page-granular model.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "model/maps.h"
#include "model/module.h"
#include "unit-helpers.h"
#include "util/array.h"

/* Modules are only compared by pointer here. */
/* Modules of no set: each counts the mappings of it (maps.c). */
static struct module modules[3];
#define mod_a (&modules[0])
#define mod_b (&modules[1])
#define mod_c (&modules[2])

static void insert(struct maps *m, uint64_t start, uint64_t end, uint64_t pgoff, struct module *mod)
{
	struct mapping map = {
		.start = start,
		.end = end,
		.pgoff = pgoff,
		.prot = PROT_READ | PROT_EXEC,
		.mod = mod,
	};

	ck_assert_int_eq(maps_insert(m, &map), 0);
}

/* The mapping at addr must be exactly [start, end) from pgoff of mod. */
#define assert_map(m, addr, s, e, off, md)                                                     \
	do {                                                                                   \
		const struct mapping *_x = maps_find(m, addr);                                 \
		ck_assert_msg(_x != NULL, "no mapping at 0x%llx", (unsigned long long)(addr)); \
		ck_assert_uint_eq(_x->start, s);                                               \
		ck_assert_uint_eq(_x->end, e);                                                 \
		ck_assert_uint_eq(_x->pgoff, off);                                             \
		ck_assert_ptr_eq(_x->mod, md);                                                 \
	} while (0)

#define assert_none(m, addr) ck_assert_ptr_null(maps_find(m, addr))

START_TEST(test_find_edges)
{
	struct maps *m = maps_new();

	assert_none(m, 0x1000);
	insert(m, 0x400000, 0x401000, 0, mod_a);
	insert(m, 0x401000, 0x403000, 0x1000, mod_b); /* adjacent */
	insert(m, 0x7f0000000000ULL, 0x7f0000002000ULL, 0x3000, mod_c);
	ck_assert_uint_eq(maps_count(m), 3);

	assert_none(m, 0);
	assert_none(m, 0x3fffff);
	assert_map(m, 0x400000, 0x400000, 0x401000, 0, mod_a);
	assert_map(m, 0x400fff, 0x400000, 0x401000, 0, mod_a);
	assert_map(m, 0x401000, 0x401000, 0x403000, 0x1000, mod_b);
	assert_map(m, 0x402fff, 0x401000, 0x403000, 0x1000, mod_b);
	assert_none(m, 0x403000); /* end is outside */
	assert_none(m, 0x7effffffffffULL);
	assert_map(m, 0x7f0000000000ULL, 0x7f0000000000ULL, 0x7f0000002000ULL, 0x3000, mod_c);
	assert_map(m, 0x7f0000001fffULL, 0x7f0000000000ULL, 0x7f0000002000ULL, 0x3000, mod_c);
	assert_none(m, 0x7f0000002000ULL);
	assert_none(m, UINT64_MAX);
	maps_free(m);
}
END_TEST

START_TEST(test_overlaps)
{
	struct maps *m = maps_new();

	ck_assert(!maps_overlaps(m, 0, UINT64_MAX));
	insert(m, 0x400000, 0x401000, 0, mod_a);
	insert(m, 0x403000, 0x404000, 0, mod_b);
	ck_assert(!maps_overlaps(m, 0x3ff000, 0x400000)); /* ends where a starts */
	ck_assert(maps_overlaps(m, 0x3ff000, 0x400001));
	ck_assert(maps_overlaps(m, 0x400fff, 0x402000));
	ck_assert(!maps_overlaps(m, 0x401000, 0x403000)); /* the gap exactly */
	ck_assert(maps_overlaps(m, 0x401000, 0x403001));
	ck_assert(maps_overlaps(m, 0x300000, 0x500000)); /* holds both */
	ck_assert(maps_overlaps(m, 0x403800, 0x403900)); /* inside b */
	ck_assert(!maps_overlaps(m, 0x404000, UINT64_MAX));
	maps_free(m);
}
END_TEST

START_TEST(test_insert_invalid)
{
	struct maps *m = maps_new();
	struct mapping map = {.start = 0x2000, .end = 0x2000};

	ck_assert_int_eq(maps_insert(m, &map), -EINVAL);
	map.end = 0x1000;
	ck_assert_int_eq(maps_insert(m, &map), -EINVAL);
	ck_assert_uint_eq(maps_count(m), 0);
	maps_free(m);
	maps_free(NULL);
}
END_TEST

/* dlclose + dlopen at the same address: the new mapping wins. */
START_TEST(test_replace_same_range)
{
	struct maps *m = maps_new();

	insert(m, 0x1000, 0x5000, 0, mod_a);
	insert(m, 0x1000, 0x5000, 0x2000, mod_b);
	ck_assert_uint_eq(maps_count(m), 1);
	assert_map(m, 0x1000, 0x1000, 0x5000, 0x2000, mod_b);
	maps_free(m);
}
END_TEST

START_TEST(test_replace_covered)
{
	struct maps *m = maps_new();

	insert(m, 0x2000, 0x3000, 0, mod_a);
	insert(m, 0x3000, 0x4000, 0x1000, mod_a);
	insert(m, 0x5000, 0x6000, 0, mod_c);
	insert(m, 0x1000, 0x5000, 0x10000, mod_b); /* covers the first two exactly to 0x5000 */
	ck_assert_uint_eq(maps_count(m), 2);
	assert_map(m, 0x2000, 0x1000, 0x5000, 0x10000, mod_b);
	assert_map(m, 0x3fff, 0x1000, 0x5000, 0x10000, mod_b);
	assert_map(m, 0x5000, 0x5000, 0x6000, 0, mod_c);
	maps_free(m);
}
END_TEST

START_TEST(test_trim_front)
{
	struct maps *m = maps_new();

	insert(m, 0x10000, 0x20000, 0x100000, mod_a);
	/* The new one covers the old one's first 0x4000 bytes. */
	insert(m, 0x8000, 0x14000, 0, mod_b);
	ck_assert_uint_eq(maps_count(m), 2);
	assert_map(m, 0x8000, 0x8000, 0x14000, 0, mod_b);
	assert_map(m, 0x13fff, 0x8000, 0x14000, 0, mod_b);
	assert_map(m, 0x14000, 0x14000, 0x20000, 0x104000, mod_a);
	assert_map(m, 0x1ffff, 0x14000, 0x20000, 0x104000, mod_a);
	maps_free(m);
}
END_TEST

START_TEST(test_trim_back)
{
	struct maps *m = maps_new();

	insert(m, 0x10000, 0x20000, 0x100000, mod_a);
	insert(m, 0x1c000, 0x30000, 0x7000, mod_b);
	ck_assert_uint_eq(maps_count(m), 2);
	assert_map(m, 0x10000, 0x10000, 0x1c000, 0x100000, mod_a);
	assert_map(m, 0x1bfff, 0x10000, 0x1c000, 0x100000, mod_a);
	assert_map(m, 0x1c000, 0x1c000, 0x30000, 0x7000, mod_b);
	maps_free(m);
}
END_TEST

START_TEST(test_split_middle)
{
	struct maps *m = maps_new();

	insert(m, 0x10000, 0x90000, 0x40000, mod_a);
	insert(m, 0x30000, 0x38000, 0, mod_b);
	ck_assert_uint_eq(maps_count(m), 3);
	assert_map(m, 0x10000, 0x10000, 0x30000, 0x40000, mod_a);
	assert_map(m, 0x2ffff, 0x10000, 0x30000, 0x40000, mod_a);
	assert_map(m, 0x30000, 0x30000, 0x38000, 0, mod_b);
	assert_map(m, 0x38000, 0x38000, 0x90000, 0x68000, mod_a);
	assert_map(m, 0x8ffff, 0x38000, 0x90000, 0x68000, mod_a);
	assert_none(m, 0x90000);
	maps_free(m);
}
END_TEST

/* One insert trims a mapping at each end and drops those in between. */
START_TEST(test_replace_span)
{
	struct maps *m = maps_new();

	insert(m, 0x1000, 0x4000, 0, mod_a);
	insert(m, 0x4000, 0x5000, 0, mod_b);
	insert(m, 0x6000, 0x7000, 0, mod_b);
	insert(m, 0x7000, 0xa000, 0x10000, mod_c);
	insert(m, 0x3000, 0x8000, 0x99000, mod_b);
	ck_assert_uint_eq(maps_count(m), 3);
	assert_map(m, 0x1000, 0x1000, 0x3000, 0, mod_a);
	assert_map(m, 0x3000, 0x3000, 0x8000, 0x99000, mod_b);
	assert_map(m, 0x6500, 0x3000, 0x8000, 0x99000, mod_b);
	assert_map(m, 0x8000, 0x8000, 0xa000, 0x11000, mod_c);
	maps_free(m);
}
END_TEST

START_TEST(test_remove)
{
	struct maps *m = maps_new();

	insert(m, 0x10000, 0x20000, 0x1000, mod_a);
	insert(m, 0x20000, 0x30000, 0, mod_b);
	insert(m, 0x40000, 0x50000, 0, mod_c);

	maps_remove(m, 0x14000, 0x18000); /* a hole in the middle */
	ck_assert_uint_eq(maps_count(m), 4);
	assert_map(m, 0x13fff, 0x10000, 0x14000, 0x1000, mod_a);
	assert_none(m, 0x14000);
	assert_none(m, 0x17fff);
	assert_map(m, 0x18000, 0x18000, 0x20000, 0x9000, mod_a);

	maps_remove(m, 0x1c000, 0x44000); /* a tail, a whole one, a head */
	ck_assert_uint_eq(maps_count(m), 3);
	assert_map(m, 0x18000, 0x18000, 0x1c000, 0x9000, mod_a);
	assert_none(m, 0x1c000);
	assert_none(m, 0x20000);
	assert_none(m, 0x43fff);
	assert_map(m, 0x44000, 0x44000, 0x50000, 0x4000, mod_c);

	maps_remove(m, 0x60000, 0x70000); /* nothing there */
	maps_remove(m, 0x44000, 0x44000); /* empty range */
	ck_assert_uint_eq(maps_count(m), 3);

	maps_remove(m, 0, UINT64_MAX);
	ck_assert_uint_eq(maps_count(m), 0);
	assert_none(m, 0x10000);
	maps_free(m);
}
END_TEST

START_TEST(test_clear)
{
	struct maps *m = maps_new();

	insert(m, 0x1000, 0x2000, 0, mod_a);
	insert(m, 0x3000, 0x4000, 0, mod_a);
	maps_clear(m);
	ck_assert_uint_eq(maps_count(m), 0);
	assert_none(m, 0x1000);
	insert(m, 0x3000, 0x5000, 0, mod_b);
	assert_map(m, 0x3000, 0x3000, 0x5000, 0, mod_b);
	maps_free(m);
}
END_TEST

/*
 * Every change gives a new generation, and no two sets share one; a
 * removal that finds nothing to remove is no change.
 */
START_TEST(test_generation)
{
	struct maps *m = maps_new(), *c;
	uint64_t g[5];

	g[0] = maps_generation(m);
	insert(m, 0x1000, 0x2000, 0, mod_a);
	g[1] = maps_generation(m);
	assert_map(m, 0x1000, 0x1000, 0x2000, 0, mod_a);
	ck_assert_uint_eq(maps_generation(m), g[1]); /* lookups change nothing */
	/* Removing where nothing is mapped (data mapped beside code) changes nothing. */
	maps_remove(m, 0x3000, 0x8000);
	maps_remove(m, 0x800, 0x1000);
	ck_assert_uint_eq(maps_generation(m), g[1]);
	maps_remove(m, 0x1000, 0x1800);
	g[2] = maps_generation(m);
	c = maps_clone(m);
	g[3] = maps_generation(c);
	maps_clear(m);
	g[4] = maps_generation(m);
	for (int i = 0; i < 5; i++)
		for (int j = i + 1; j < 5; j++)
			ck_assert_uint_ne(g[i], g[j]);
	maps_free(c);
	maps_free(m);
}
END_TEST

START_TEST(test_clone)
{
	struct maps *m = maps_new(), *c;

	insert(m, 0x1000, 0x9000, 0, mod_a);
	insert(m, 0x10000, 0x11000, 0x5000, mod_b);
	c = maps_clone(m);
	ck_assert_uint_eq(maps_count(c), 2);
	ck_assert_ptr_ne(maps_find(c, 0x1000), maps_find(m, 0x1000));
	assert_map(c, 0x1000, 0x1000, 0x9000, 0, mod_a); /* the same module pointer */

	/* Changing the clone leaves the original alone, and back. */
	insert(c, 0x4000, 0x5000, 0x77000, mod_c);
	maps_remove(c, 0x10000, 0x11000);
	ck_assert_uint_eq(maps_count(c), 3);
	ck_assert_uint_eq(maps_count(m), 2);
	assert_map(m, 0x4000, 0x1000, 0x9000, 0, mod_a);
	assert_map(m, 0x10000, 0x10000, 0x11000, 0x5000, mod_b);
	assert_map(c, 0x4000, 0x4000, 0x5000, 0x77000, mod_c);
	assert_map(c, 0x5000, 0x5000, 0x9000, 0x4000, mod_a);

	insert(m, 0x20000, 0x21000, 0, mod_a);
	assert_none(c, 0x20000);
	maps_free(m);
	/* The clone outlives the original. */
	assert_map(c, 0x1000, 0x1000, 0x4000, 0, mod_a);
	maps_free(c);
}
END_TEST

struct walk {
	uint64_t starts[64];
	int n, stop_after;
};

static int record_start(const struct mapping *map, void *arg)
{
	struct walk *w = arg;

	w->starts[w->n++] = map->start;
	return w->stop_after && w->n == w->stop_after ? 42 : 0;
}

START_TEST(test_foreach_order)
{
	static const uint64_t starts[] = {0x9000, 0x1000, 0x5000, 0x3000, 0x7000, 0x2000};
	struct maps *m = maps_new();
	struct walk w = {0};

	for (size_t i = 0; i < ARRAY_SIZE(starts); i++)
		insert(m, starts[i], starts[i] + 0x800, 0, mod_a);
	ck_assert_uint_eq(maps_count(m), ARRAY_SIZE(starts));
	ck_assert_int_eq(maps_foreach(m, record_start, &w), 0);
	ck_assert_int_eq(w.n, 6);
	ck_assert_uint_eq(w.starts[0], 0x1000);
	ck_assert_uint_eq(w.starts[1], 0x2000);
	ck_assert_uint_eq(w.starts[2], 0x3000);
	ck_assert_uint_eq(w.starts[3], 0x5000);
	ck_assert_uint_eq(w.starts[4], 0x7000);
	ck_assert_uint_eq(w.starts[5], 0x9000);

	w.n = 0;
	w.stop_after = 3;
	ck_assert_int_eq(maps_foreach(m, record_start, &w), 42);
	ck_assert_int_eq(w.n, 3);
	ck_assert_uint_eq(w.starts[2], 0x3000);
	maps_free(m);
}
END_TEST

/*
 * The model: one cell per page of a small address range. A cell holds the
 * id of the insert that last covered it (0: nothing), the file offset of
 * the page and the module.
 */
#define PAGES 512
#define PG    0x1000ULL
#define BASE  0x7f0000000000ULL

struct cell {
	uint32_t id;
	uint64_t off;
	struct module *mod;
	uint32_t prot;
};

struct model {
	struct cell c[PAGES];
};

static struct module random_mods[3];
static struct module *const mods[] = {
	&random_mods[0],
	&random_mods[1],
	&random_mods[2],
	NULL,
};

struct check_ctx {
	const struct model *md;
	uint64_t prev_end;
	size_t n;
};

/* Every mapping in order, disjoint, and agreeing with the model page by page. */
static int check_mapping(const struct mapping *map, void *arg)
{
	struct check_ctx *c = arg;

	ck_assert_uint_lt(map->start, map->end);
	ck_assert_uint_ge(map->start, c->prev_end);
	ck_assert_uint_ge(map->start, BASE);
	ck_assert_uint_le(map->end, BASE + PAGES * PG);
	for (uint64_t a = map->start; a < map->end; a += PG) {
		const struct cell *cell = &c->md->c[(a - BASE) / PG];

		ck_assert_uint_ne(cell->id, 0);
		ck_assert_uint_eq(cell->off, map->pgoff + (a - map->start));
		ck_assert_ptr_eq(cell->mod, map->mod);
		ck_assert_uint_eq(cell->prot, map->prot);
	}
	c->prev_end = map->end;
	c->n++;
	return 0;
}

static void check_against_model(const struct maps *m, const struct model *md)
{
	struct check_ctx c = {md, 0, 0};
	size_t runs = 0;

	for (size_t i = 0; i < PAGES; i++) {
		const struct cell *cell = &md->c[i];
		const struct mapping *map;
		uint64_t a = BASE + i * PG;

		/* A new run starts where the id changes: pieces of one insert are never adjacent. */
		if (cell->id && (i == 0 || md->c[i - 1].id != cell->id))
			runs++;
		map = maps_find(m, a);
		if (!cell->id) {
			ck_assert_ptr_null(map);
			ck_assert_ptr_null(maps_find(m, a + PG - 1));
			continue;
		}
		ck_assert_ptr_nonnull(map);
		ck_assert_uint_eq(map->pgoff + (a - map->start), cell->off);
		ck_assert_ptr_eq(map->mod, cell->mod);
		ck_assert_ptr_eq(maps_find(m, a + PG - 1), map);
	}
	ck_assert_int_eq(maps_foreach(m, check_mapping, &c), 0);
	ck_assert_uint_eq(c.n, maps_count(m));
	ck_assert_uint_eq(maps_count(m), runs);
}

static void model_insert(struct model *md, uint32_t id, size_t p0, size_t p1, uint64_t pgoff,
			 struct module *mod, uint32_t prot)
{
	for (size_t i = p0; i < p1; i++) {
		md->c[i].id = id;
		md->c[i].off = pgoff + (i - p0) * PG;
		md->c[i].mod = mod;
		md->c[i].prot = prot;
	}
}

static void model_remove(struct model *md, size_t p0, size_t p1)
{
	for (size_t i = p0; i < p1; i++)
		memset(&md->c[i], 0, sizeof(md->c[i]));
}

/* The mappings of a module counted by walking the maps. */
struct mod_count {
	const struct module *mod;
	uint32_t n;
};

static int count_mod(const struct mapping *map, void *arg)
{
	struct mod_count *c = arg;

	c->n += map->mod == c->mod;
	return 0;
}

/* Each module's count of mappings (module.nmaps) is the mappings of it in a and b. */
static void check_counts(const struct maps *a, const struct maps *b)
{
	for (size_t i = 0; i < ARRAY_SIZE(random_mods); i++) {
		struct mod_count c = {&random_mods[i], 0};

		maps_foreach(a, count_mod, &c);
		if (b)
			maps_foreach(b, count_mod, &c);
		ck_assert_uint_eq(random_mods[i].nmaps, c.n);
	}
}

START_TEST(test_random_against_model)
{
	struct model *md = calloc(2, sizeof(*md)), *cmd = md + 1;
	struct maps *m = maps_new(), *clone = NULL;
	uint64_t seed = 0x12345678;
	uint32_t id = 0;

	for (int op = 0; op < 6000; op++) {
		uint64_t r = unit_rand(&seed);
		/* Mostly short ranges, sometimes big ones that cover many. */
		size_t len = 1 + (r % 4 == 0 ? unit_rand(&seed) % 200 : unit_rand(&seed) % 12);
		size_t p0 = unit_rand(&seed) % PAGES, p1 = p0 + len > PAGES ? PAGES : p0 + len;

		if (r % 7 == 0) {
			maps_remove(m, BASE + p0 * PG, BASE + p1 * PG);
			model_remove(md, p0, p1);
		} else {
			struct mapping map = {
				.start = BASE + p0 * PG,
				.end = BASE + p1 * PG,
				.pgoff = (unit_rand(&seed) % 1024) * PG,
				.prot = PROT_READ | (r % 3 ? PROT_EXEC : 0),
				.mod = mods[unit_rand(&seed) % ARRAY_SIZE(mods)],
			};

			ck_assert_int_eq(maps_insert(m, &map), 0);
			model_insert(md, ++id, p0, p1, map.pgoff, map.mod, map.prot);
		}
		if (op % 50 == 0) {
			check_against_model(m, md);
			check_counts(m, clone);
		}
		/* Now and then fork: the clone must go its own way from here. */
		if (op % 1000 == 500) {
			if (clone) {
				check_against_model(clone, cmd);
				maps_free(clone);
			}
			clone = maps_clone(m);
			*cmd = *md;
			check_against_model(clone, cmd);
		}
		if (op % 1000 == 999) {
			maps_clear(m);
			model_remove(md, 0, PAGES);
		}
	}
	check_against_model(m, md);
	check_counts(m, clone);
	if (clone) {
		check_against_model(clone, cmd);
		maps_free(clone);
	}
	check_counts(m, NULL);
	maps_free(m);
	free(md);
	/* Every mapping let go: no module is mapped. */
	for (size_t i = 0; i < ARRAY_SIZE(random_mods); i++)
		ck_assert_uint_eq(random_mods[i].nmaps, 0);
}
END_TEST

static Suite *maps_suite(void)
{
	Suite *s = suite_create("maps");
	TCase *tc = tcase_create("basic");

	tcase_add_test(tc, test_find_edges);
	tcase_add_test(tc, test_overlaps);
	tcase_add_test(tc, test_insert_invalid);
	tcase_add_test(tc, test_clear);
	tcase_add_test(tc, test_foreach_order);
	suite_add_tcase(s, tc);

	tc = tcase_create("overlap");
	tcase_add_test(tc, test_replace_same_range);
	tcase_add_test(tc, test_replace_covered);
	tcase_add_test(tc, test_trim_front);
	tcase_add_test(tc, test_trim_back);
	tcase_add_test(tc, test_split_middle);
	tcase_add_test(tc, test_replace_span);
	tcase_add_test(tc, test_remove);
	suite_add_tcase(s, tc);

	tc = tcase_create("clone");
	tcase_add_test(tc, test_clone);
	tcase_add_test(tc, test_generation);
	suite_add_tcase(s, tc);

	tc = tcase_create("random");
	tcase_add_test(tc, test_random_against_model);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(maps_suite());
}
