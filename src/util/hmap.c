/*
 * hmap.c - linear-probing hash map; see hmap.h.
 */
#include "config.h"

#include <stdlib.h>

#include "util/hmap.h"
#include "util/util.h"

void hmap_init(struct hmap *h)
{
	h->slots = NULL;
	h->cap = 0;
	h->count = 0;
}

void hmap_release(struct hmap *h)
{
	free(h->slots);
	hmap_init(h);
}

struct hmap_slot *hmap_find(const struct hmap *h, uint64_t key)
{
	size_t mask = h->cap - 1, i;

	if (!h->cap)
		return NULL;
	for (i = hash_u64(key) & mask;; i = (i + 1) & mask) {
		if (h->slots[i].key == key)
			return &h->slots[i];
		if (!h->slots[i].key)
			return NULL;
	}
}

static void rehash(struct hmap *h, size_t cap)
{
	struct hmap_slot *old = h->slots;
	size_t oldcap = h->cap;

	h->slots = xcalloc(cap, sizeof(*h->slots));
	h->cap = cap;
	for (size_t i = 0; i < oldcap; i++) {
		size_t j;

		if (!old[i].key)
			continue;
		for (j = hash_u64(old[i].key) & (cap - 1); h->slots[j].key; j = (j + 1) & (cap - 1))
			;
		h->slots[j] = old[i];
	}
	free(old);
}

struct hmap_slot *hmap_insert(struct hmap *h, uint64_t key, bool *added)
{
	struct hmap_slot *s;
	size_t mask, i;

	if ((h->count + 1) * 2 > h->cap)
		rehash(h, h->cap ? h->cap * 2 : 64);
	mask = h->cap - 1;
	for (i = hash_u64(key) & mask;; i = (i + 1) & mask) {
		s = &h->slots[i];
		if (s->key == key) {
			if (added)
				*added = false;
			return s;
		}
		if (!s->key)
			break;
	}
	s->key = key;
	s->val = 0;
	h->count++;
	if (added)
		*added = true;
	return s;
}

bool hmap_remove(struct hmap *h, uint64_t key, uint64_t *val)
{
	struct hmap_slot *s = hmap_find(h, key);
	size_t mask = h->cap - 1, hole, i;

	if (!s)
		return false;
	if (val)
		*val = s->val;
	/*
	 * Backward shift: move up every later entry of the run whose home slot
	 * is not between the hole and it, so that no probe stops short.
	 */
	hole = (size_t)(s - h->slots);
	for (i = (hole + 1) & mask; h->slots[i].key; i = (i + 1) & mask) {
		size_t home = hash_u64(h->slots[i].key) & mask;

		if (((i - home) & mask) >= ((i - hole) & mask)) {
			h->slots[hole] = h->slots[i];
			hole = i;
		}
	}
	h->slots[hole].key = 0;
	h->slots[hole].val = 0;
	h->count--;
	return true;
}
