/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ksyms.c - the kernel's function symbols, kept small; see ksyms.h.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "elf/ksyms.h"
#include "util/util.h"

/* While reading: a symbol's name number carries its rank (global) here. */
#define GLOBAL_BIT 0x80000000U
#define LAST_SIZE  4096

void ksyms_init(struct ksyms *k)
{
	memset(k, 0, sizeof(*k));
	k->text_blk = SIZE_MAX;
}

void ksyms_release(struct ksyms *k)
{
	free(k->syms);
	free(k->z);
	free(k->blk);
	free(k->text);
	ksyms_init(k);
}

/* The names of the block being filled, each ending in its NUL. */
struct raw_block {
	char *buf;
	size_t len, cap, count;
};

/*
 * Deflates the block into k->z through s (one stream for all blocks: a
 * new one per block would allocate and clear its state every time).
 */
static int flush_block(struct ksyms *k, struct raw_block *b, z_stream *s)
{
	uLong zn = deflateBound(s, b->len);

	if (!b->count)
		return 0;
	if (!k->nblk) {
		xgrow(&k->blk, &k->blkcap, 1, sizeof(*k->blk));
		k->blk[0] = 0;
	}
	xgrow(&k->z, &k->zcap, k->zlen + zn, 1);
	if (deflateReset(s) != Z_OK)
		return -ENOMEM;
	s->next_in = (Bytef *)b->buf;
	s->avail_in = (uInt)b->len;
	s->next_out = k->z + k->zlen;
	s->avail_out = (uInt)zn;
	if (deflate(s, Z_FINISH) != Z_STREAM_END || k->zlen + s->total_out > UINT32_MAX)
		return -ENOMEM;
	k->zlen += s->total_out;
	xgrow(&k->blk, &k->blkcap, k->nblk + 2, sizeof(*k->blk));
	k->blk[++k->nblk] = (uint32_t)k->zlen;
	/* The largest block fixes the size of the buffer lookups inflate into. */
	if (b->len > k->text_cap)
		k->text_cap = b->len;
	b->len = b->count = 0;
	return 0;
}

static int add_name(struct ksyms *k, struct raw_block *b, z_stream *s, const char *name, size_t n)
{
	xgrow(&b->buf, &b->cap, b->len + n + 1, 1);
	memcpy(b->buf + b->len, name, n);
	b->buf[b->len + n] = '\0';
	b->len += n + 1;
	k->nnames++;
	return ++b->count == KSYMS_BLOCK ? flush_block(k, b, s) : 0;
}

/* Name number i, the global bit ignored; NULL when its block is damaged. */
static const char *name_of(struct ksyms *k, uint32_t i)
{
	size_t b, skip;
	const char *p, *end;

	i &= ~GLOBAL_BIT;
	b = i / KSYMS_BLOCK;
	if (b >= k->nblk)
		return NULL;
	if (k->text_blk != b) {
		uLongf n = k->text_cap;

		if (!k->text)
			k->text = xmalloc(k->text_cap ? k->text_cap : 1);
		k->text_blk = SIZE_MAX;
		if (uncompress((Bytef *)k->text, &n, k->z + k->blk[b], k->blk[b + 1] - k->blk[b]) !=
			    Z_OK ||
		    n == 0 || k->text[n - 1] != '\0')
			return NULL;
		k->text_len = n;
		k->text_blk = b;
	}
	p = k->text;
	end = k->text + k->text_len;
	for (skip = i % KSYMS_BLOCK; skip && p < end; skip--)
		p += strlen(p) + 1;
	return p < end ? p : NULL;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	/* Global first, then in the order read. */
	if ((x->name & GLOBAL_BIT) != (y->name & GLOBAL_BIT))
		return x->name & GLOBAL_BIT ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/* Whether x beats y, both at one address: see ksyms.h. */
static bool better(struct ksyms *k, const struct ksym *x, const struct ksym *y)
{
	const char *xn, *yn;
	char *xs;
	size_t xl, yl;
	bool win;

	if ((x->name & GLOBAL_BIT) != (y->name & GLOBAL_BIT))
		return x->name & GLOBAL_BIT;
	/* Two names, maybe of two blocks: the first is copied out. */
	if (!(xn = name_of(k, x->name)))
		return false;
	xs = xstrdup(xn);
	yn = name_of(k, y->name);
	if (!yn) {
		free(xs);
		return true;
	}
	xl = strlen(xs);
	yl = strlen(yn);
	win = xl != yl ? xl < yl : strcmp(xs, yn) < 0;
	free(xs);
	return win;
}

static void finish(struct ksyms *k)
{
	size_t i, j = 0;
	bool sorted = true;

	for (i = 1; i < k->n && sorted; i++)
		sorted = k->syms[i - 1].lo <= k->syms[i].lo;
	if (!sorted)
		qsort(k->syms, k->n, sizeof(*k->syms), cmp_ksym);
	for (i = 0; i < k->n; i++) {
		if (j && k->syms[j - 1].lo == k->syms[i].lo) {
			if (better(k, &k->syms[i], &k->syms[j - 1]))
				k->syms[j - 1] = k->syms[i];
			continue;
		}
		k->syms[j++] = k->syms[i];
	}
	k->n = j;
	for (i = 0; i < k->n; i++)
		k->syms[i].name &= ~GLOBAL_BIT;
	/* No room kept for growth: the table is read once. */
	if (k->n) {
		k->syms = xrealloc(k->syms, k->n * sizeof(*k->syms));
		k->cap = k->n;
	}
	if (k->zlen) {
		k->z = xrealloc(k->z, k->zlen);
		k->zcap = k->zlen;
	}
}

int ksyms_read(struct ksyms *k, FILE *f)
{
	struct raw_block b = {0};
	char line[1024];
	int n = 0, err = 0;
	z_stream s;

	/* Blocks are a few KiB: a window of 4 KiB (2^12) holds one whole. */
	memset(&s, 0, sizeof(s));
	if (deflateInit2(&s, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 12, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	while (!err && fgets(line, sizeof(line), f)) {
		char *end, *name, type;
		unsigned long long addr;
		size_t len;

		errno = 0;
		addr = strtoull(line, &end, 16);
		if (errno || end == line || *end != ' ')
			continue;
		type = end[1];
		if (!type || end[2] != ' ')
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		name = end + 3;
		len = strcspn(name, " \t\n");
		if (!len || (addr & KSYMS_HIGH) != KSYMS_HIGH || k->nnames >= GLOBAL_BIT)
			continue;
		xgrow(&k->syms, &k->cap, k->n + 1, sizeof(*k->syms));
		k->syms[k->n].lo = (uint32_t)addr;
		k->syms[k->n].name = (uint32_t)k->nnames;
		if (type == 'T' || type == 'W')
			k->syms[k->n].name |= GLOBAL_BIT;
		k->n++;
		err = add_name(k, &b, &s, name, len);
		n++;
	}
	if (!err)
		err = flush_block(k, &b, &s);
	deflateEnd(&s);
	free(b.buf);
	if (!err && ferror(f))
		err = -EIO;
	if (err) {
		ksyms_release(k);
		return err;
	}
	finish(k);
	return n;
}

const char *ksyms_name(struct ksyms *k, size_t i)
{
	return i < k->n ? name_of(k, k->syms[i].name) : NULL;
}

bool ksyms_lookup(struct ksyms *k, uint64_t addr, uint64_t *start, const char **name)
{
	size_t lo = 0, hi = k->n;
	uint32_t a = (uint32_t)addr;
	uint64_t end;

	if ((addr & KSYMS_HIGH) != KSYMS_HIGH || !k->n)
		return false;
	/* The last symbol starting at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return false;
	end = lo < k->n ? k->syms[lo].lo : (uint64_t)k->syms[lo - 1].lo + LAST_SIZE;
	if (a >= end || !(*name = name_of(k, k->syms[lo - 1].name)))
		return false;
	*start = KSYMS_HIGH | k->syms[lo - 1].lo;
	return true;
}
