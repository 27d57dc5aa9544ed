/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pages.h - giving back the pages of a private file mapping once read.
 *
 * A file that libelf maps and libdw reads costs resident memory for every
 * page read, long after the read. Such a page can be given back (madvise
 * MADV_DONTNEED): it stays in the page cache and comes back on the next
 * read. Not a page written to, though: a private mapping's page written
 * to is a private copy, and giving it back would lose the writes. The
 * kernel's /proc/self/pagemap tells the two apart (a page of the file's
 * own, or not).
 */
#ifndef PERFMINI_PAGES_H
#define PERFMINI_PAGES_H

#include <stddef.h>
#include <stdint.h>

/*
 * Gives back the pages of [start, end) (page-aligned, inside one private
 * mapping of a file) that are resident and still the file's own, read
 * through pagemap, a descriptor of /proc/self/pagemap. Returns how many
 * pages were given back, or -errno when pagemap could not be read (then
 * none were).
 */
long pages_give_back(int pagemap, uintptr_t start, uintptr_t end);

/*
 * Gives back the whole pages inside [start, start + len) of memory the
 * caller allocated (malloc'd, say) and whose bytes it no longer needs:
 * they stay its own, and read as zeros when next touched.
 */
void pages_give_back_room(void *start, size_t len);

#endif
