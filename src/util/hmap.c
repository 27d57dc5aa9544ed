/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hmap.c - linear-probing hash map; see hmap.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/hash.h"
#include "util/hmap.h"

void hmap_init(struct hmap *h)
{
	h->slots = NULL;
	h->cap = 0;
	h->count = 0;
	h->zero.key = h->zero.val = 0;
	h->has_zero = false;
	h->ids = false;
}

void hmap_init_ids(struct hmap *h)
{
	hmap_init(h);
	h->ids = true;
}

void hmap_release(struct hmap *h)
{
	bool ids = h->ids;

	free(h->slots);
	hmap_init(h);
	h->ids = ids;
}

/* Key's home slot in a table of mask + 1 slots (at least 64). */
static inline size_t home(const struct hmap *h, uint64_t key, size_t mask)
{
	if (h->ids)
		return ((hash_u64(key >> 3) << 3) | (key & 7)) & mask;
	return hash_u64(key) & mask;
}

struct hmap_slot *hmap_find(const struct hmap *h, uint64_t key)
{
	size_t mask = h->cap - 1, i;

	if (key == 0)
		return h->has_zero ? (struct hmap_slot *)&h->zero : NULL;
	if (!h->cap)
		return NULL;
	for (i = home(h, key, mask);; i = (i + 1) & mask) {
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
		for (j = home(h, old[i].key, cap - 1); h->slots[j].key; j = (j + 1) & (cap - 1))
			;
		h->slots[j] = old[i];
	}
	free(old);
}

void hmap_reserve(struct hmap *h, size_t n)
{
	size_t cap = h->cap ? h->cap : 64;

	/* hmap_insert grows past half full. */
	while (cap < n * 2)
		cap *= 2;
	if (cap > h->cap)
		rehash(h, cap);
}

struct hmap_slot *hmap_insert(struct hmap *h, uint64_t key, bool *added)
{
	struct hmap_slot *s;
	size_t mask, i;

	if (key == 0) {
		if (added)
			*added = !h->has_zero;
		if (!h->has_zero) {
			h->has_zero = true;
			h->zero.val = 0;
			h->count++;
		}
		return &h->zero;
	}
	if ((h->count + 1) * 2 > h->cap)
		rehash(h, h->cap ? h->cap * 2 : 64);
	mask = h->cap - 1;
	for (i = home(h, key, mask);; i = (i + 1) & mask) {
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
	if (key == 0) {
		h->has_zero = false;
		h->zero.val = 0;
		h->count--;
		return true;
	}
	/*
	 * Backward shift: move up every later entry of the run whose home slot
	 * is not between the hole and it, so that no probe stops short.
	 */
	hole = (size_t)(s - h->slots);
	for (i = (hole + 1) & mask; h->slots[i].key; i = (i + 1) & mask) {
		size_t at = home(h, h->slots[i].key, mask);

		if (((i - at) & mask) >= ((i - hole) & mask)) {
			h->slots[hole] = h->slots[i];
			hole = i;
		}
	}
	h->slots[hole].key = 0;
	h->slots[hole].val = 0;
	h->count--;
	return true;
}

struct hmap_slot *hmap_next(const struct hmap *h, size_t *pos)
{
	/* Position 0 is the entry of key 0; position k + 1 is slots[k]. */
	if (*pos == 0) {
		*pos = 1;
		if (h->has_zero)
			return (struct hmap_slot *)&h->zero;
	}
	for (size_t k = *pos - 1; k < h->cap; k++)
		if (h->slots[k].key) {
			*pos = k + 2;
			return &h->slots[k];
		}
	*pos = h->cap + 1;
	return NULL;
}

struct hmap_slot *hmap_intern(struct hmap *h, uint64_t hash,
			      bool (*same)(uint64_t val, const void *arg), const void *arg,
			      bool *added)
{
	for (uint64_t key = hash;; key = hash_u64(key)) {
		bool fresh;
		struct hmap_slot *s = hmap_insert(h, key, &fresh);

		if (fresh || same(s->val, arg)) {
			*added = fresh;
			return s;
		}
	}
}

struct hmap_slot *hmap_seek(const struct hmap *h, uint64_t hash,
			    bool (*same)(uint64_t val, const void *arg), const void *arg)
{
	for (uint64_t key = hash;; key = hash_u64(key)) {
		struct hmap_slot *s = hmap_find(h, key);

		if (!s || same(s->val, arg))
			return s;
	}
}

struct str_arg {
	const char *s;
	size_t n;
	hmap_text_fn text;
	const void *ctx;
};

/* Whether the string of value val is arg's. */
static bool same_str(uint64_t val, const void *arg)
{
	const struct str_arg *a = arg;
	size_t len;
	const char *t = a->text(val, a->ctx, &len);

	return len == a->n && memcmp(t, a->s, a->n) == 0;
}

struct hmap_slot *hmap_intern_str(struct hmap *h, const char *s, size_t n, hmap_text_fn text,
				  const void *ctx, bool *added)
{
	struct str_arg a = {s, n, text, ctx};

	return hmap_intern(h, hash_bytes(s, n), same_str, &a, added);
}
