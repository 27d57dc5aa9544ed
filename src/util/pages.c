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

/* pagemap entry bits: the page is resident; it is a file's page (not a private copy). */
#define PM_PRESENT (1ULL << 63)
#define PM_FILE	   (1ULL << 61)

long pages_give_back(int pagemap, uintptr_t start, uintptr_t end)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uint64_t e[512];
	long given = 0;

	for (uintptr_t a = start; a < end;) {
		size_t want = (end - a) / page < ARRAY_SIZE(e) ? (end - a) / page : ARRAY_SIZE(e);
		ssize_t got = pread(pagemap, e, want * sizeof(*e), (off_t)(a / page * sizeof(*e)));
		size_t n;
		uintptr_t run = 0; /* start of a run of pages to give back, or 0 */

		if (got < 0)
			return given ? given : -errno;
		if (got == 0 || got % sizeof(*e))
			return given ? given : -EIO;
		n = (size_t)got / sizeof(*e);
		for (size_t i = 0; i <= n; i++) {
			bool give =
				i < n && (e[i] & (PM_PRESENT | PM_FILE)) == (PM_PRESENT | PM_FILE);

			if (give && !run) {
				run = a + i * page;
			} else if (!give && run) {
				if (madvise((void *)run, a + i * page - run, MADV_DONTNEED) == 0)
					given += (long)((a + i * page - run) / page);
				run = 0;
			}
		}
		a += n * page;
	}
	return given;
}
