/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-dwline.c - libFuzzer harness for reading a unit's line table
 * (dwline.h) from arbitrary bytes, as srcline.c does with the
 * .debug_line of every file it is handed.
 *
 * Input: u32 .debug_line size, u32 .debug_line_str size (little-endian),
 * the .debug_line bytes, the .debug_line_str bytes, and the rest as
 * .debug_str. Sizes past the end are cut to what there is. Every table of
 * the section is read in turn (each from where the one before says it
 * ends), with a compilation directory and without.
 *
 * Contract checked: dwline_read returns 0, -EINVAL or -ENOTSUP; a table
 * read is well formed (sequences sorted by start with their running
 * highest end, each [lo, hi) not empty and its rows in address order
 * inside it, the first at its start; file indexes in range or none; file
 * names NUL-terminated inside the table's own strings); and dwline_find
 * answers as a plain scan of the sequences does, at every sequence's
 * edges; rows dropped and read again are as many, and as well formed.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf/dwline.h"
#include "fuzz-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The row a plain scan gives: the last sequence holding pc, its last row at or below. */
static const struct dwline_row *scan(const struct dwline_table *t, uint64_t pc)
{
	for (size_t i = t->nseqs; i > 0; i--) {
		const struct dwline_seq *s = &t->seqs[i - 1];
		const struct dwline_row *best = NULL;

		if (pc < s->lo || pc >= s->hi)
			continue;
		for (uint32_t r = 0; r < s->nrows; r++)
			if (s->lo + t->rows[s->row0 + r].off <= pc)
				best = &t->rows[s->row0 + r];
		return best;
	}
	return NULL;
}

static void probe(const struct dwline_table *t, uint64_t pc)
{
	const struct dwline_row *want = scan(t, pc), *got;
	uint64_t lo = 0;

	got = dwline_find(t, pc, &lo);
	if (got != want)
		abort();
	if (got) {
		sink += got->line + got->col;
		if (dwline_file(t, got->file))
			sink += strlen(dwline_file(t, got->file));
	}
}

static void check(const struct dwline_table *t)
{
	uint64_t maxhi = 0;

	if (t->nseqs && (!t->seqs || !t->rows))
		abort();
	for (size_t i = 0; i < t->nseqs; i++) {
		const struct dwline_seq *s = &t->seqs[i];

		if (s->hi <= s->lo || s->hi - s->lo > UINT32_MAX || s->nrows == 0)
			abort();
		if (i && s->lo < t->seqs[i - 1].lo)
			abort();
		maxhi = s->hi > maxhi ? s->hi : maxhi;
		if (s->maxhi != maxhi)
			abort();
		if ((uint64_t)s->row0 + s->nrows > t->nrows || t->rows[s->row0].off != 0)
			abort();
		for (uint32_t r = 0; r < s->nrows; r++) {
			const struct dwline_row *row = &t->rows[s->row0 + r];

			if (r && row->off < t->rows[s->row0 + r - 1].off)
				abort();
			if (row->off >= s->hi - s->lo)
				abort();
			if (row->file < t->nfiles &&
			    dwline_file(t, row->file) != t->files[row->file])
				abort();
		}
	}
	for (size_t i = 0; i < t->nfiles; i++) {
		const char *f = t->files[i];

		if (!f)
			continue;
		if (f < t->names || f >= t->names + t->names_size ||
		    !memchr(f, 0, (size_t)(t->names + t->names_size - f)))
			abort();
	}
	for (size_t i = 0; i < t->nseqs && i < 64; i++) {
		const struct dwline_seq *s = &t->seqs[i];

		probe(t, s->lo);
		probe(t, s->lo - 1);
		probe(t, s->hi);
		probe(t, s->hi - 1);
		probe(t, s->lo + (s->hi - s->lo) / 2);
	}
	if (dwline_rows_size(t) != t->nseqs * sizeof(*t->seqs) + t->nrows * sizeof(*t->rows))
		abort();
	sink += dwline_rows_size(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dwline_input in = {0};
	size_t a, b;
	uint64_t off = 0;

	if (size < 8)
		return 0;
	a = get_u32(data);
	b = get_u32(data + 4);
	data += 8;
	size -= 8;
	a = a < size ? a : size;
	b = b < size - a ? b : size - a;
	in.line = data;
	in.line_size = a;
	in.line_str = b ? data + a : NULL;
	in.line_str_size = b;
	in.str = size - a - b ? data + a + b : NULL;
	in.str_size = size - a - b;
	for (int n = 0; n < 8 && off < a; n++) {
		struct dwline_table t;
		uint64_t len;
		int ret;

		for (int dir = 0; dir < 2; dir++) {
			ret = dwline_read(&in, off, dir ? "/comp/dir" : NULL, 8, &t);
			if (ret != 0 && ret != -EINVAL && ret != -ENOTSUP)
				abort();
			if (ret == 0) {
				const char *dir_name = dir ? "/comp/dir" : NULL;
				size_t nseqs = t.nseqs, nrows = t.nrows;

				check(&t);
				/* Dropped, the rows read again from the same bytes are the same. */
				dwline_drop_rows(&t);
				if (t.nseqs || t.nrows || dwline_rows_size(&t))
					abort();
				if (dwline_reread_rows(&in, off, dir_name, 8, &t) != 0 ||
				    t.nseqs != nseqs || t.nrows != nrows)
					abort();
				check(&t);
			} else if (t.nseqs || t.nrows || t.nfiles)
				abort(); /* a refused table holds nothing */
			dwline_free(&t);
		}
		/* The next table: after this one's unit_length. */
		if (a - off < 4)
			break;
		len = get_u32(data + off);
		if (len == 0xffffffff) {
			if (a - off < 12)
				break;
			len = (uint64_t)get_u32(data + off + 4) | (uint64_t)get_u32(data + off + 8)
									  << 32;
			len += 12;
		} else {
			len += 4;
		}
		if (len > a - off)
			break;
		off += len;
	}
	return 0;
}
