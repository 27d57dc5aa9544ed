/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * maps.c - a process's mappings as a treap keyed by start; see maps.h.
 *
 * Range operations are done by split and merge: cut the tree at the range
 * bounds, fix the at most two mappings that straddle a bound, drop the
 * middle, join the rest.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "model/maps.h"
#include "model/module.h"
#include "util/alloc.h"

/* A mapping made, or let go: its module counts the mappings of it. */
static void hold(const struct mapping *map, int delta)
{
	if (map->mod)
		module_mapped(map->mod, delta);
}

struct node {
	struct mapping map;
	uint32_t prio;
	struct node *left, *right;
};

struct maps {
	struct node *root;
	size_t count;
	uint64_t seed;
	uint64_t gen; /* see maps_generation */
};

/* The last generation given to any set (maps are changed by one thread). */
static uint64_t last_gen;

static void changed(struct maps *m)
{
	m->gen = ++last_gen;
}

uint64_t maps_generation(const struct maps *m)
{
	return m->gen;
}

void maps_touch(struct maps *m)
{
	changed(m);
}

static uint32_t next_prio(struct maps *m)
{
	m->seed = m->seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(m->seed >> 33);
}

struct maps *maps_new(void)
{
	struct maps *m = xcalloc(1, sizeof(*m));

	m->seed = 0x853c49e6748fea9bULL;
	changed(m);
	return m;
}

static void free_nodes(struct node *n)
{
	while (n) {
		struct node *r = n->right;

		free_nodes(n->left);
		hold(&n->map, -1);
		free(n);
		n = r;
	}
}

void maps_clear(struct maps *m)
{
	free_nodes(m->root);
	m->root = NULL;
	m->count = 0;
	changed(m);
}

void maps_free(struct maps *m)
{
	if (!m)
		return;
	maps_clear(m);
	free(m);
}

static struct node *clone_nodes(const struct node *n)
{
	struct node *c;

	if (!n)
		return NULL;
	c = xmalloc(sizeof(*c));
	*c = *n;
	hold(&c->map, 1);
	c->left = clone_nodes(n->left);
	c->right = clone_nodes(n->right);
	return c;
}

struct maps *maps_clone(const struct maps *m)
{
	struct maps *c = maps_new();

	c->root = clone_nodes(m->root);
	c->count = m->count;
	c->seed = m->seed;
	return c;
}

/* Splits t into nodes with start < key (*l) and start >= key (*r). */
static void split(struct node *t, uint64_t key, struct node **l, struct node **r)
{
	if (!t) {
		*l = *r = NULL;
	} else if (t->map.start < key) {
		split(t->right, key, &t->right, r);
		*l = t;
	} else {
		split(t->left, key, l, &t->left);
		*r = t;
	}
}

/* Joins l and r, every key of l below every key of r. */
static struct node *merge(struct node *l, struct node *r)
{
	if (!l)
		return r;
	if (!r)
		return l;
	if (l->prio > r->prio) {
		l->right = merge(l->right, r);
		return l;
	}
	r->left = merge(l, r->left);
	return r;
}

static struct node *new_node(struct maps *m, const struct mapping *map)
{
	struct node *n = xcalloc(1, sizeof(*n));

	n->map = *map;
	n->prio = next_prio(m);
	m->count++;
	hold(map, 1);
	return n;
}

static struct node *rightmost(struct node *t)
{
	while (t && t->right)
		t = t->right;
	return t;
}

/* Removes the rightmost node of t and returns the new root; *out gets it. */
static struct node *pop_rightmost(struct node *t, struct node **out)
{
	if (!t->right) {
		*out = t;
		return t->left;
	}
	t->right = pop_rightmost(t->right, out);
	return t;
}

static size_t count_nodes(const struct node *n)
{
	return n ? 1 + count_nodes(n->left) + count_nodes(n->right) : 0;
}

/*
 * Cuts [start, end) out of the tree; returns the nodes left of start and
 * right of end (already trimmed) through *l and *r, and whether any
 * mapping lay in the range.
 */
static bool cut(struct maps *m, uint64_t start, uint64_t end, struct node **l, struct node **r)
{
	struct node *mid, *last = NULL, *tail = NULL, *prev;
	bool cut_any = false;

	split(m->root, start, l, &mid);
	split(mid, end, &mid, r);
	m->root = NULL;

	/* A mapping that starts before start may reach into the range. */
	prev = rightmost(*l);
	if (prev && prev->map.end > start) {
		cut_any = true;
		if (prev->map.end > end) {
			struct mapping right = prev->map;

			right.pgoff += end - right.start;
			right.start = end;
			tail = new_node(m, &right);
		}
		prev->map.end = start;
	}
	/* The last mapping inside may reach beyond end: keep its tail. */
	if (mid) {
		cut_any = true;
		mid = pop_rightmost(mid, &last);
		if (last->map.end > end && !tail) {
			last->map.pgoff += end - last->map.start;
			last->map.start = end;
			last->left = last->right = NULL;
			tail = last;
			last = NULL;
		}
		m->count -= count_nodes(mid) + (last ? 1 : 0);
		free_nodes(mid);
		if (last)
			hold(&last->map, -1);
		free(last);
	}
	if (tail)
		*r = merge(tail, *r);
	return cut_any;
}

int maps_insert(struct maps *m, const struct mapping *map)
{
	struct node *l, *r;

	if (map->end <= map->start)
		return -EINVAL;
	cut(m, map->start, map->end, &l, &r);
	m->root = merge(merge(l, new_node(m, map)), r);
	changed(m);
	return 0;
}

void maps_remove(struct maps *m, uint64_t start, uint64_t end)
{
	struct node *l, *r;

	if (end <= start)
		return;
	/* Data mapped where no code is (a thread's stack, a heap) changes nothing. */
	if (cut(m, start, end, &l, &r))
		changed(m);
	m->root = merge(l, r);
}

const struct mapping *maps_find(const struct maps *m, uint64_t addr)
{
	const struct node *n = m->root, *best = NULL;

	while (n) {
		if (n->map.start <= addr) {
			best = n;
			n = n->right;
		} else {
			n = n->left;
		}
	}
	return best && addr < best->map.end ? &best->map : NULL;
}

bool maps_overlaps(const struct maps *m, uint64_t start, uint64_t end)
{
	const struct node *n = m->root, *best = NULL;

	/* The last mapping starting below end is the only one that may reach start. */
	while (n) {
		if (n->map.start < end) {
			best = n;
			n = n->right;
		} else {
			n = n->left;
		}
	}
	return best && best->map.end > start;
}

size_t maps_count(const struct maps *m)
{
	return m->count;
}

static int walk(const struct node *n, maps_fn fn, void *arg)
{
	int ret;

	while (n) {
		ret = walk(n->left, fn, arg);
		if (ret)
			return ret;
		ret = fn(&n->map, arg);
		if (ret)
			return ret;
		n = n->right;
	}
	return 0;
}

int maps_foreach(const struct maps *m, maps_fn fn, void *arg)
{
	return walk(m->root, fn, arg);
}
