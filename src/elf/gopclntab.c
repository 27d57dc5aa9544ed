/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gopclntab.c - Go's table of functions; see gopclntab.h. Every read is
 * bounded by the section's bytes: a table found wrong yields an error,
 * never a read outside them.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "elf/gopclntab.h"
#include "util/bytes.h"
#include "util/cursor.h"

#define MAGIC_118 0xfffffff0u /* Go 1.18 and 1.19 */
#define MAGIC_120 0xfffffff1u /* Go 1.20 and later */
#define HEADER	  72	      /* the header's bytes with 8-byte pointers */

/* The header's fields, by their offsets: pointer-sized numbers after the first 8 bytes. */
enum {
	H_NFUNC = 8,
	H_TEXT = 24,
	H_NAMES = 32,
	H_PCTAB = 56,
	H_FUNCTAB = 64,
};

/* A _func's fields that are read, by their offsets. */
enum {
	F_NAME = 4,
	F_PCSP = 16,
	F_SIZE = 20,
	F_FLAG_118 = 37, /* after funcID; Go 1.20 put startLine before them */
	F_FLAG_120 = 41,
};

/* Entry i of the functions' table: the entry's offset from text, and where its _func is. */
static uint32_t entry_off(const struct gopcln *g, uint64_t i)
{
	return load_u32(g->data + g->functab + i * 8);
}

static uint32_t func_off(const struct gopcln *g, uint64_t i)
{
	return load_u32(g->data + g->functab + i * 8 + 4);
}

int gopcln_init(struct gopcln *g, const void *data, size_t len, uint64_t text)
{
	const uint8_t *d = data;
	uint64_t names, pctab, functab, nfunc, t;
	uint32_t magic;

	memset(g, 0, sizeof(*g));
	if (len < HEADER)
		return -EINVAL;
	magic = load_u32(d);
	if (magic != MAGIC_118 && magic != MAGIC_120)
		return -ENOTSUP;
	/* Two zero bytes, x86's instruction quantum (1), 8-byte pointers. */
	if (d[4] || d[5] || d[6] != 1 || d[7] != 8)
		return -ENOTSUP;
	nfunc = load_u64(d + H_NFUNC);
	t = load_u64(d + H_TEXT);
	names = load_u64(d + H_NAMES);
	pctab = load_u64(d + H_PCTAB);
	functab = load_u64(d + H_FUNCTAB);
	if (names >= len || pctab >= len || functab >= len || nfunc == 0 ||
	    nfunc >= (len - functab) / 8)
		return -EINVAL;
	g->data = d;
	g->len = len;
	g->text = t ? t : text;
	g->nfunc = nfunc;
	g->names = (size_t)names;
	g->pctab = (size_t)pctab;
	g->functab = (size_t)functab;
	g->flag_at = magic == MAGIC_118 ? F_FLAG_118 : F_FLAG_120;
	/* Entries in order, or the table is none to search. */
	for (uint64_t i = 0; i < nfunc; i++) {
		if (entry_off(g, i + 1) < entry_off(g, i)) {
			memset(g, 0, sizeof(*g));
			return -EINVAL;
		}
	}
	return 0;
}

long gopcln_func(const struct gopcln *g, uint64_t pc, uint64_t *lo, uint64_t *hi)
{
	uint64_t off, a = 0, b;

	if (!g->data || pc < g->text || pc - g->text > UINT32_MAX)
		return -ENOENT;
	off = pc - g->text;
	b = g->nfunc; /* entry nfunc is the end of the last function */
	if (off < entry_off(g, 0) || off >= entry_off(g, b))
		return -ENOENT;
	/* The last entry at or below off: entry a <= off < entry b. */
	while (b - a > 1) {
		uint64_t m = a + (b - a) / 2;

		if (entry_off(g, m) <= off)
			a = m;
		else
			b = m;
	}
	if (entry_off(g, a + 1) == entry_off(g, a))
		return -ENOENT; /* a function of no bytes */
	*lo = g->text + entry_off(g, a);
	*hi = g->text + entry_off(g, a + 1);
	return (long)a;
}

/* Function fn's _func, at least F_SIZE bytes; NULL when it does not fit. */
static const uint8_t *func_of(const struct gopcln *g, long fn)
{
	uint64_t at;

	if (fn < 0 || (uint64_t)fn >= g->nfunc)
		return NULL;
	at = (uint64_t)g->functab + func_off(g, (uint64_t)fn);
	if (at >= g->len || g->len - at < F_SIZE)
		return NULL;
	return g->data + at;
}

const char *gopcln_name(const struct gopcln *g, long fn)
{
	const uint8_t *f = func_of(g, fn);
	int32_t name;

	if (!f || (name = (int32_t)load_u32(f + F_NAME)) < 0)
		return NULL;
	return cur_section_str(g->data + g->names, g->len - g->names, (uint64_t)name);
}

int gopcln_flags(const struct gopcln *g, long fn)
{
	const uint8_t *f = func_of(g, fn);

	if (!f || (size_t)(g->data + g->len - f) <= g->flag_at)
		return -EINVAL;
	return f[g->flag_at];
}

size_t gopcln_add_symbols(const struct gopcln *g, struct symtab *t, uint8_t rank)
{
	size_t added = 0;

	for (uint64_t i = 0; i < g->nfunc; i++) {
		uint32_t lo = entry_off(g, i), hi = entry_off(g, i + 1);
		const char *name = gopcln_name(g, (long)i);

		if (name && *name && hi > lo) {
			symtab_add(t, g->text + lo, hi - lo, name, rank);
			added++;
		}
	}
	return added;
}

/*
 * A value table as Go writes it: from the entry with value -1, pairs of
 * a value delta (zigzag varint) and an address delta (varint); a zero
 * value delta after the first pair ends the table.
 */
int gopcln_sp(const struct gopcln *g, long fn, uint64_t pc, int32_t *sp, uint64_t *lo, uint64_t *hi)
{
	const uint8_t *f = func_of(g, fn);
	uint64_t at, pcsp, cur, end, next;
	int64_t val = -1;
	struct cur c;
	bool first = true;

	if (!f)
		return -EINVAL;
	cur = g->text + entry_off(g, (uint64_t)fn);
	end = g->text + entry_off(g, (uint64_t)fn + 1);
	pcsp = load_u32(f + F_PCSP);
	if (!pcsp)
		return -ENOENT;
	at = (uint64_t)g->pctab + pcsp;
	if (at >= g->len)
		return -EINVAL;
	c = (struct cur){.p = g->data + at, .end = g->data + g->len};
	while (cur < end) {
		uint32_t uv = (uint32_t)cur_uleb(&c);
		uint64_t delta = cur_uleb(&c);

		if (c.bad)
			return -EINVAL;
		if (uv == 0 && !first)
			return -ENOENT;
		first = false;
		val += uv & 1 ? -(int64_t)(uv >> 1) - 1 : (int64_t)(uv >> 1);
		if (val < INT32_MIN || val > INT32_MAX)
			return -EINVAL;
		next = delta < end - cur ? cur + delta : end;
		if (pc < next && pc >= cur) {
			*sp = (int32_t)val;
			*lo = cur;
			*hi = next;
			return 0;
		}
		cur = next;
	}
	return -ENOENT;
}
