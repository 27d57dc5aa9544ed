/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hmap.h - an open-addressing hash map from u64 keys to u64 values.
 *
 * Invariant: the table is a power of two and at most half full, so a probe
 * always ends at an empty slot; every key lies between its home slot and
 * the first empty slot after it (removal shifts entries back to keep this).
 * Key 0 marks an empty slot of the table, so an entry of key 0 lives in a
 * slot of its own beside it: every key may be stored, ids from 0 as they
 * are.
 */
#ifndef PERFMINI_HMAP_H
#define PERFMINI_HMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hmap_slot {
	uint64_t key;
	uint64_t val;
};

struct hmap {
	struct hmap_slot *slots;
	size_t cap;	       /* 0 or a power of two */
	size_t count;	       /* entries, the one of key 0 included */
	struct hmap_slot zero; /* the entry of key 0, when has_zero */
	bool has_zero;
	bool ids; /* hmap_init_ids's */
};

void hmap_init(struct hmap *h);
/*
 * A map whose keys are ids handed out in sequence, as the kernel hands
 * out thread ids: each run of 8 ids shares its home (two cache lines), so
 * that the threads a process starts one after another, looked up again at
 * their exit and when they are let go, are found in lines already read.
 * Keys spaced 8 or more apart (addresses) must not go in such a map.
 */
void hmap_init_ids(struct hmap *h);
/* Frees its table; it is empty then, and stays an ids map if it was one. */
void hmap_release(struct hmap *h);
/* The slot of key, NULL if absent. */
struct hmap_slot *hmap_find(const struct hmap *h, uint64_t key);
/* The slot of key, added with val 0 if absent (*added says which). */
struct hmap_slot *hmap_insert(struct hmap *h, uint64_t key, bool *added);
/* Room for n entries in all without growing again (slot pointers taken before are invalid). */
void hmap_reserve(struct hmap *h, size_t n);
/*
 * Removes key; returns whether it was there (its value through *val, if
 * not NULL). Slot pointers taken before are invalid afterwards.
 */
bool hmap_remove(struct hmap *h, uint64_t key, uint64_t *val);
/*
 * The entries in no order: *pos starts at 0; returns the next entry's
 * slot, NULL after the last. The map must not change meanwhile.
 *
 *	for (size_t pos = 0; (s = hmap_next(h, &pos));)
 */
struct hmap_slot *hmap_next(const struct hmap *h, size_t *pos);

/*
 * Values that are pointers (the map owns nothing: the caller frees what
 * its values point at), and keys that are addresses. Values are u64, and
 * a pointer fits in one on every target.
 */
_Static_assert(sizeof(void *) <= sizeof(uint64_t), "a pointer fits in a value");

/* The pointer a value holds (one that hmap_set_ptr or hmap_put_ptr stored). */
static inline void *hmap_val_ptr(uint64_t val)
{
	return (void *)(uintptr_t)val;
}

/* The pointer stored in slot s. */
static inline void *hmap_ptr(const struct hmap_slot *s)
{
	return hmap_val_ptr(s->val);
}

/* Stores pointer p as slot s's value. */
static inline void hmap_set_ptr(struct hmap_slot *s, void *p)
{
	s->val = (uint64_t)(uintptr_t)p;
}

/* The pointer stored under key, NULL when key is absent. */
static inline void *hmap_get_ptr(const struct hmap *h, uint64_t key)
{
	const struct hmap_slot *s = hmap_find(h, key);

	return s ? hmap_ptr(s) : NULL;
}

/* Stores pointer p under key, added or replacing what was there. */
static inline void hmap_put_ptr(struct hmap *h, uint64_t key, void *p)
{
	hmap_set_ptr(hmap_insert(h, key, NULL), p);
}

/* The key of an object's address, for maps keyed by the objects themselves. */
static inline uint64_t hmap_key_ptr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/*
 * Interning by content: the entry whose value stands for content equal
 * to what same(val, arg) compares with, under hash, its hash. Keys are
 * hash, then rehashes of it, until the entry is found or an unused key is
 * met, where the entry is added with val 0 for the caller to set (*added
 * says which).
 */
struct hmap_slot *hmap_intern(struct hmap *h, uint64_t hash,
			      bool (*same)(uint64_t val, const void *arg), const void *arg,
			      bool *added);
/* The entry hmap_intern would give for arg, if there is one; NULL, adding nothing, if not. */
struct hmap_slot *hmap_seek(const struct hmap *h, uint64_t hash,
			    bool (*same)(uint64_t val, const void *arg), const void *arg);

/*
 * What an entry's value stands for, for hmap_intern_str: the string
 * (its bytes, *len of them) that the caller keeps for value val, in ctx.
 */
typedef const char *(*hmap_text_fn)(uint64_t val, const void *ctx, size_t *len);
/*
 * Interning strings: hmap_intern for the n bytes at s, under their hash
 * (hash_bytes), the entries' strings given by text.
 */
struct hmap_slot *hmap_intern_str(struct hmap *h, const char *s, size_t n, hmap_text_fn text,
				  const void *ctx, bool *added);

#endif
