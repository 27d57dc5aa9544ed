/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pages.c - giving back the pages of a private file mapping; see pages.h.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/array.h"
#include "util/pages.h"

/*
 * pagemap entry bits: the page is resident; it is swapped out; it is a
 * file's page (not a private copy).
 */
#define PM_PRESENT (1ULL << 63)
#define PM_SWAP	   (1ULL << 62)
#define PM_FILE	   (1ULL << 61)

/*
 * Gives back [from, to) whole: one call, so one flush of the other CPUs'
 * TLBs, however many runs of resident pages it holds.
 */
static void give(uintptr_t from, uintptr_t to)
{
	if (from < to)
		madvise((void *)from, to - from, MADV_DONTNEED);
}

void pages_give_back_room(void *start, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t from = ((uintptr_t)start + page - 1) & ~(page - 1);
	uintptr_t to = ((uintptr_t)start + len) & ~(page - 1);

	give(from, to);
}

long pages_give_back(int pagemap, uintptr_t start, uintptr_t end)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t from = 0, to = 0; /* the span to give back: file pages and holes */
	uint64_t e[512];
	long given = 0;

	/*
	 * A span runs from a resident file page to the last one before a
	 * private copy (resident or swapped out), which ends it: the pages
	 * not resident between are nothing to give and cost nothing to name.
	 */
	for (uintptr_t a = start; a < end;) {
		size_t want = (end - a) / page < ARRAY_SIZE(e) ? (end - a) / page : ARRAY_SIZE(e);
		ssize_t got = pread(pagemap, e, want * sizeof(*e), (off_t)(a / page * sizeof(*e)));
		size_t n;

		if (got <= 0 || got % sizeof(*e)) {
			int err = got < 0 ? errno : EIO;

			give(from, to);
			return given ? given : -err;
		}
		n = (size_t)got / sizeof(*e);
		for (size_t i = 0; i < n; i++) {
			uintptr_t pg = a + i * page;

			if ((e[i] & (PM_PRESENT | PM_FILE)) == (PM_PRESENT | PM_FILE)) {
				if (!from)
					from = pg;
				to = pg + page;
				given++;
			} else if (e[i] & (PM_PRESENT | PM_SWAP)) {
				give(from, to);
				from = to = 0;
			}
		}
		a += n * page;
	}
	give(from, to);
	return given;
}
