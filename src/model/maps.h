/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * maps.h - one address space: the set of live mappings of a process.
 *
 * Invariant: mappings never overlap. Inserting a mapping removes whatever
 * part of older mappings it covers (the kernel replaces them the same way),
 * trimming or splitting them and keeping their file offsets consistent.
 * Kept as a treap ordered by start address: O(log n) insert and lookup,
 * and a clone for fork.
 */
#ifndef PERFMINI_MAPS_H
#define PERFMINI_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct module;

struct mapping {
	uint64_t start, end; /* [start, end) */
	uint64_t pgoff;	     /* file offset of start, in bytes */
	uint32_t prot;	     /* PROT_* */
	struct module *mod;  /* not owned; NULL for anonymous memory */
};

struct maps;

struct maps *maps_new(void);
void maps_free(struct maps *m);
/* A deep copy (the modules are shared, not copied). */
struct maps *maps_clone(const struct maps *m);
/* Removes every mapping. */
void maps_clear(struct maps *m);

/* Adds [start, end); returns -EINVAL if end <= start. */
int maps_insert(struct maps *m, const struct mapping *map);
/* Removes every part of [start, end). */
void maps_remove(struct maps *m, uint64_t start, uint64_t end);
/* The mapping holding addr, or NULL. */
const struct mapping *maps_find(const struct maps *m, uint64_t addr);
size_t maps_count(const struct maps *m);
/* Whether any mapping holds a part of [start, end). */
bool maps_overlaps(const struct maps *m, uint64_t start, uint64_t end);

/*
 * A number that changes whenever the set changes (insert, remove of a
 * range something was mapped in, clear), never shared by two sets or two
 * states of one: two lookups of one address under equal generations give
 * the same mapping.
 */
uint64_t maps_generation(const struct maps *m);
/*
 * Gives m a new generation though its mappings are the same: what its
 * user found or made under the old one is to be looked up again.
 */
void maps_touch(struct maps *m);

/* Calls fn for each mapping in address order; a non-zero return stops. */
typedef int (*maps_fn)(const struct mapping *map, void *arg);
int maps_foreach(const struct maps *m, maps_fn fn, void *arg);

#endif
