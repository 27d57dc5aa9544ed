/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jitmap.c - a perf map's lines in force by address and time; see
 * jitmap.h. Invariant: the spans are sorted, disjoint, and each holds the
 * last line (in the map's order) among those in force that covers it;
 * lines read and not yet in force wait in order of their effect.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/perfmap.h"
#include "stack/jitmap.h"
#include "util/alloc.h"
#include "util/clock.h"

#define CHUNK (64u << 10)

/* A line read, waiting for the samples' time to reach its effect. */
struct pending {
	uint64_t lo, hi, effect;
	uint64_t line; /* its offset + 1 */
};

/* Addresses [lo, hi) and the line in force there. */
struct span {
	uint64_t lo, hi, line;
};

struct jitmap {
	uint64_t off;	 /* the bytes of the map read so far */
	uint64_t looked; /* when it was last read (0: not yet) */
	char *buf;	 /* CHUNK bytes to read into */
	char *part;	 /* the line begun and not ended: its bytes, PERFMAP_MAX_LINE at most */
	size_t npart;
	uint64_t part_off; /* where it begins in the map */
	bool skipping;	   /* in a line too long to keep, until its newline */
	bool given_up;	   /* too many lines or ranges: none is answered */
	struct pending *pend;
	size_t phead, npend, pend_cap; /* waiting: [phead, npend) */
	struct span *spans;
	size_t nspans, spans_cap;
};

struct jitmap *jitmap_new(void)
{
	struct jitmap *j = xcalloc(1, sizeof(*j));

	j->buf = xmalloc(CHUNK);
	j->part = xmalloc(PERFMAP_MAX_LINE + 1);
	return j;
}

void jitmap_free(struct jitmap *j)
{
	if (!j)
		return;
	free(j->buf);
	free(j->part);
	free(j->pend);
	free(j->spans);
	free(j);
}

static void give_up(struct jitmap *j)
{
	j->given_up = true;
	free(j->pend);
	free(j->spans);
	j->pend = NULL;
	j->spans = NULL;
	j->phead = j->npend = j->pend_cap = j->nspans = j->spans_cap = 0;
}

/* The line in j->part (begun at j->part_off): into the waiting ones, in force from effect. */
static void take_line(struct jitmap *j, uint64_t effect)
{
	uint64_t start, size;
	const char *name;

	j->part[j->npart] = '\0';
	if (!perfmap_line(j->part, &start, &size, &name))
		return;
	if (j->npend - j->phead >= JITMAP_MAX_SPANS) {
		give_up(j);
		return;
	}
	/* What was put in force already makes room first. */
	if (j->phead > j->npend / 2) {
		memmove(j->pend, j->pend + j->phead, (j->npend - j->phead) * sizeof(*j->pend));
		j->npend -= j->phead;
		j->phead = 0;
	}
	xgrow(&j->pend, &j->pend_cap, j->npend + 1, sizeof(*j->pend));
	j->pend[j->npend++] = (struct pending){start, start + size, effect, j->part_off + 1};
}

/* Bytes [p, end) read at map offset at: the lines they end taken, the rest kept. */
static void feed(struct jitmap *j, const char *p, const char *end, uint64_t at, uint64_t effect)
{
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (!j->skipping && j->npart + n > PERFMAP_MAX_LINE)
			j->skipping = true;
		if (!j->skipping) {
			memcpy(j->part + j->npart, p, n);
			j->npart += n;
		}
		if (!nl)
			return;
		if (!j->skipping)
			take_line(j, effect);
		j->skipping = false;
		j->npart = 0;
		j->part_off = at + (uint64_t)(nl + 1 - p);
		at = j->part_off;
		p = nl + 1;
	}
}

/* Reads what was appended to the map since the last look, now. */
static void look(struct jitmap *j, int fd, uint64_t now)
{
	uint64_t effect = j->looked;
	size_t budget = JITMAP_READ_MAX;

	j->looked = now;
	while (budget > 0 && j->off < PERFMAP_MAX_BYTES && !j->given_up) {
		size_t want = CHUNK < budget ? CHUNK : budget;
		ssize_t got;

		if (want > PERFMAP_MAX_BYTES - j->off)
			want = (size_t)(PERFMAP_MAX_BYTES - j->off);
		got = pread(fd, j->buf, want, (off_t)j->off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		feed(j, j->buf, j->buf + got, j->off, effect);
		j->off += (uint64_t)got;
		budget -= (size_t)got;
	}
}

/* The first span that ends after a. */
static size_t first_after(const struct jitmap *j, uint64_t a)
{
	size_t lo = 0, hi = j->nspans;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (j->spans[m].hi > a)
			hi = m;
		else
			lo = m + 1;
	}
	return lo;
}

/* Line line in force over [lo, hi): the spans it covers, or the parts of them it does, replaced. */
static void paint(struct jitmap *j, uint64_t lo, uint64_t hi, uint64_t line)
{
	size_t i = first_after(j, lo), k = i, n = 0;
	struct span add[3];

	while (k < j->nspans && j->spans[k].lo < hi)
		k++;
	if (i < k && j->spans[i].lo < lo)
		add[n++] = (struct span){j->spans[i].lo, lo, j->spans[i].line};
	add[n++] = (struct span){lo, hi, line};
	if (i < k && j->spans[k - 1].hi > hi)
		add[n++] = (struct span){hi, j->spans[k - 1].hi, j->spans[k - 1].line};
	if (j->nspans - (k - i) + n > JITMAP_MAX_SPANS) {
		give_up(j);
		return;
	}
	xgrow(&j->spans, &j->spans_cap, j->nspans - (k - i) + n, sizeof(*j->spans));
	memmove(j->spans + i + n, j->spans + k, (j->nspans - k) * sizeof(*j->spans));
	memcpy(j->spans + i, add, n * sizeof(*add));
	j->nspans = j->nspans - (k - i) + n;
}

uint64_t jitmap_line(struct jitmap *j, int fd, uint64_t addr, uint64_t t)
{
	uint64_t now;
	size_t i;

	if (fd >= 0 && !j->given_up) {
		now = now_ns();
		if (!j->looked || now - j->looked >= JITMAP_READ_NS)
			look(j, fd, now);
	}
	while (!j->given_up && j->phead < j->npend && j->pend[j->phead].effect <= t) {
		const struct pending *p = &j->pend[j->phead++];

		paint(j, p->lo, p->hi, p->line);
	}
	if (j->given_up)
		return 0;
	i = first_after(j, addr);
	return i < j->nspans && j->spans[i].lo <= addr ? j->spans[i].line : 0;
}
