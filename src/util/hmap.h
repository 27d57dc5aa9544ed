/*
 * hmap.h - an open-addressing hash map from non-zero u64 keys to u64 values.
 *
 * Invariant: the table is a power of two and at most half full, so a probe
 * always ends at an empty slot; every key lies between its home slot and
 * the first empty slot after it (removal shifts entries back to keep this).
 * Key 0 marks an empty slot and cannot be stored.
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
	size_t cap; /* 0 or a power of two */
	size_t count;
};

void hmap_init(struct hmap *h);
void hmap_release(struct hmap *h);
/* The slot of key, NULL if absent. */
struct hmap_slot *hmap_find(const struct hmap *h, uint64_t key);
/* The slot of key, added with val 0 if absent (*added says which). */
struct hmap_slot *hmap_insert(struct hmap *h, uint64_t key, bool *added);
/*
 * Removes key; returns whether it was there (its value through *val, if
 * not NULL). Slot pointers taken before are invalid afterwards.
 */
bool hmap_remove(struct hmap *h, uint64_t key, uint64_t *val);

#endif
