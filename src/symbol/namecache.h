/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * namecache.h - the names of a binary's addresses kept between
 * recordings, by build-id.
 *
 * Naming a frame the first time costs the reading of its module: its
 * symbols and, for source lines and inlined frames, the index of its
 * DWARF's units and the units' line tables and scopes. The next recording
 * of the same programs meets the same hot addresses again, and reads it
 * all again. What a recording named in a module with every name it could
 * have (its full symbol table, and DWARF for its lines) is kept in a file
 * named by its build-id, FILE OFFSET -> levels (function, file, line,
 * column, inlined), so that the next recording names those addresses
 * without reading the module: only an address not in the file makes it
 * read.
 *
 * The files live in the directory "names" of the expanded copies'
 * cache (zcache.h: the user's own, that no one else may write to), each
 * BUILD-ID.n, the user's own regular file, read whole and checked byte
 * by byte (a file that does not parse is as none). At most
 * NAMECACHE_ENTRIES addresses a file, NAMECACHE_BYTES in all: the files
 * used least recently go first. A build-id names one build only: the
 * same bytes name the same places, whatever path or copy they are at.
 * A module whose names fall short (stripped, without DWARF, read under
 * a memory budget or with --no-lines) is never kept.
 */
#ifndef PERFMINI_NAMECACHE_H
#define PERFMINI_NAMECACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbol/symbolize.h"

#define NAMECACHE_ENTRIES 200000
#define NAMECACHE_BYTES	  (128ULL << 20)

struct namecache;

/*
 * The names kept for build_id (lowercase hex); an empty cache (to be
 * added to and saved) when the file is missing, damaged or untrusted;
 * NULL when there is no cache directory or build_id is not 2 to 40 hex
 * digits.
 */
struct namecache *namecache_open(const char *build_id);
/* Whether c is the names of build_id. */
bool namecache_is(const struct namecache *c, const char *build_id);
/*
 * One more user of c (every copy of a build shares its names): c, which
 * namecache_release gives back; whoever releases the last frees c.
 */
struct namecache *namecache_hold(struct namecache *c);
/* One user fewer (namecache_open's counts as one); true when none is left. */
bool namecache_release(struct namecache *c);
/*
 * Whether off has names in c: then r's levels and symoff, whose strings
 * live as long as c (r->symname NULL).
 */
bool namecache_find(const struct namecache *c, uint64_t off, struct symres *r);
/* Keeps r's levels (a copy) as off's, unless off has some or c is full. */
void namecache_add(struct namecache *c, uint64_t off, const struct symres *r);
/*
 * Writes c's file anew if something was added since it was read (to an
 * unnamed file, renamed over the old): the cache's size kept to
 * NAMECACHE_BYTES. Returns 0 or -errno.
 */
int namecache_save(struct namecache *c);
void namecache_free(struct namecache *c);
/* How many addresses c holds, and how many of them were read from its file. */
size_t namecache_count(const struct namecache *c, size_t *from_file);

#endif
