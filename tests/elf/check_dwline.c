/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_dwline.c - reading a unit's line table (dwline.h) from line
 * programs assembled here byte by byte: DWARF 4 and 5, 32- and 64-bit,
 * every standard opcode, sequences out of order, overlapping and
 * unrepresentable, file names joined to their directories, and damaged
 * tables (truncated at every byte, bad versions and indexes, forms this
 * reader does not resolve).
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "elf/dwline.h"
#include "unit-helpers.h"

/* A byte buffer the tests assemble tables in. */
struct buf {
	uint8_t p[4096];
	size_t n;
};

static void put(struct buf *b, uint64_t v, unsigned width)
{
	for (unsigned i = 0; i < width; i++)
		b->p[b->n++] = (uint8_t)(v >> (8 * i));
}

static void put_uleb(struct buf *b, uint64_t v)
{
	do {
		uint8_t x = v & 0x7f;

		v >>= 7;
		b->p[b->n++] = x | (v ? 0x80 : 0);
	} while (v);
}

static void put_sleb(struct buf *b, int64_t v)
{
	bool more = true;

	while (more) {
		uint8_t x = v & 0x7f;

		v >>= 7;
		more = !((v == 0 && !(x & 0x40)) || (v == -1 && (x & 0x40)));
		b->p[b->n++] = x | (more ? 0x80 : 0);
	}
}

static void put_str(struct buf *b, const char *s)
{
	memcpy(b->p + b->n, s, strlen(s) + 1);
	b->n += strlen(s) + 1;
}

#define OPCODE_BASE 13
#define LINE_BASE   (-5)
#define LINE_RANGE  14

/* Where a table's length fields go, filled in by table_end. */
struct table {
	size_t start, len_at, hlen_at, prog;
	bool dwarf64;
};

static struct table table_begin(struct buf *b, unsigned version, bool dwarf64, unsigned min_inst,
				unsigned max_ops)
{
	static const uint8_t std_lengths[OPCODE_BASE - 1] = {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};
	struct table t = {.start = b->n, .dwarf64 = dwarf64};

	if (dwarf64)
		put(b, 0xffffffff, 4);
	t.len_at = b->n;
	put(b, 0, dwarf64 ? 8 : 4);
	put(b, version, 2);
	if (version >= 5) {
		put(b, 8, 1); /* address size */
		put(b, 0, 1); /* segment selector size */
	}
	t.hlen_at = b->n;
	put(b, 0, dwarf64 ? 8 : 4);
	put(b, min_inst, 1);
	if (version >= 4)
		put(b, max_ops, 1);
	put(b, 1, 1); /* default_is_stmt */
	put(b, (uint8_t)LINE_BASE, 1);
	put(b, LINE_RANGE, 1);
	put(b, OPCODE_BASE, 1);
	memcpy(b->p + b->n, std_lengths, sizeof(std_lengths));
	b->n += sizeof(std_lengths);
	return t;
}

static void patch(struct buf *b, size_t at, uint64_t v, unsigned width)
{
	for (unsigned i = 0; i < width; i++)
		b->p[at + i] = (uint8_t)(v >> (8 * i));
}

/* The header ends here: the program follows. */
static void table_program(struct buf *b, struct table *t)
{
	unsigned w = t->dwarf64 ? 8 : 4;

	t->prog = b->n;
	patch(b, t->hlen_at, t->prog - (t->hlen_at + w), w);
}

static void table_end(struct buf *b, struct table *t)
{
	unsigned w = t->dwarf64 ? 8 : 4;

	patch(b, t->len_at, b->n - (t->len_at + w), w);
}

static void op_set_address(struct buf *b, uint64_t a)
{
	put(b, 0, 1);
	put_uleb(b, 9);
	put(b, DW_LNE_set_address, 1);
	put(b, a, 8);
}

static void op_end_sequence(struct buf *b)
{
	put(b, 0, 1);
	put_uleb(b, 1);
	put(b, DW_LNE_end_sequence, 1);
}

/* A special opcode: address += adv (operations), line += dl; a row. */
static void op_special(struct buf *b, unsigned adv, int dl)
{
	unsigned op = (unsigned)(dl - LINE_BASE) + LINE_RANGE * adv + OPCODE_BASE;

	ck_assert(dl >= LINE_BASE && dl < LINE_BASE + LINE_RANGE && op <= 255);
	put(b, op, 1);
}

static void op_advance_line(struct buf *b, int64_t d)
{
	put(b, DW_LNS_advance_line, 1);
	put_sleb(b, d);
}

static void op_advance_pc(struct buf *b, uint64_t d)
{
	put(b, DW_LNS_advance_pc, 1);
	put_uleb(b, d);
}

static void op_uleb(struct buf *b, unsigned op, uint64_t v)
{
	put(b, op, 1);
	put_uleb(b, v);
}

/* The DWARF 4 lists: include directories, then files (name, dir). */
static void v4_lists(struct buf *b, const char *const *dirs, const char *const *files,
		     const unsigned *file_dirs)
{
	for (; *dirs; dirs++)
		put_str(b, *dirs);
	put(b, 0, 1);
	for (int i = 0; files[i]; i++) {
		put_str(b, files[i]);
		put_uleb(b, file_dirs[i]);
		put_uleb(b, 0);
		put_uleb(b, 0);
	}
	put(b, 0, 1);
}

static int read_table(const struct buf *b, const char *comp_dir, struct dwline_table *t)
{
	struct dwline_input in = {0};
	uint8_t *copy = unit_exact_copy(b->p, b->n);
	int ret;

	in.line = copy;
	in.line_size = b->n;
	ret = dwline_read(&in, 0, comp_dir, 8, t);
	free(copy); /* the table keeps nothing of the bytes */
	return ret;
}

static void expect(const struct dwline_table *t, uint64_t pc, uint32_t line, uint32_t col,
		   const char *file)
{
	uint64_t lo;
	const struct dwline_row *r = dwline_find(t, pc, &lo);

	ck_assert_msg(r, "no row at %#llx", (unsigned long long)pc);
	ck_assert_msg(r->line == line, "line %u at %#llx, want %u", r->line, (unsigned long long)pc,
		      line);
	ck_assert_uint_eq(r->col, col);
	if (file)
		ck_assert_str_eq(dwline_file(t, r->file), file);
	else
		ck_assert_ptr_null(dwline_file(t, r->file));
}

static void expect_none(const struct dwline_table *t, uint64_t pc)
{
	uint64_t lo;

	ck_assert_msg(!dwline_find(t, pc, &lo), "a row at %#llx", (unsigned long long)pc);
}

/* A DWARF 4 unit: two sequences, files in three directories. */
static void build_v4(struct buf *b, bool dwarf64)
{
	static const char *const dirs[] = {"inc", "/usr/include", NULL};
	static const char *const files[] = {"a.c", "b.h", "stdio.h", "/abs/c.h", NULL};
	static const unsigned file_dirs[] = {0, 1, 2, 1};
	struct table t = table_begin(b, 4, dwarf64, 1, 1);

	v4_lists(b, dirs, files, file_dirs);
	table_program(b, &t);
	/* Sequence 1: 0x1000-0x1020. */
	op_set_address(b, 0x1000);
	put(b, DW_LNS_copy, 1); /* 0x1000 a.c:1 */
	op_uleb(b, DW_LNS_set_column, 7);
	op_special(b, 4, 2); /* 0x1004 a.c:3:7 */
	op_uleb(b, DW_LNS_set_file, 2);
	op_advance_line(b, 40);
	op_special(b, 4, 0); /* 0x1008 inc/b.h:43:7 */
	op_uleb(b, DW_LNS_set_file, 4);
	op_uleb(b, DW_LNS_set_column, 0);
	put(b, DW_LNS_negate_stmt, 1);
	put(b, DW_LNS_const_add_pc, 1); /* + (255 - 13) / 14 = 17 */
	put(b, DW_LNS_copy, 1);		/* 0x1019 /abs/c.h:43 */
	put(b, DW_LNS_fixed_advance_pc, 1);
	put(b, 7, 2); /* 0x1020 */
	op_end_sequence(b);
	/* Sequence 2, before the first in memory: 0x800-0x810. */
	op_set_address(b, 0x800);
	op_advance_line(b, 99);
	op_uleb(b, DW_LNS_set_file, 3);
	put(b, DW_LNS_copy, 1); /* 0x800 /usr/include/stdio.h:100 */
	put(b, DW_LNS_set_basic_block, 1);
	put(b, DW_LNS_set_prologue_end, 1);
	put(b, DW_LNS_set_epilogue_begin, 1);
	op_uleb(b, DW_LNS_set_isa, 3);
	put(b, 0, 1); /* set_discriminator: skipped */
	put_uleb(b, 2);
	put(b, DW_LNE_set_discriminator, 1);
	put(b, 5, 1);
	op_special(b, 8, -1); /* 0x808 stdio.h:99 */
	op_advance_pc(b, 8);
	op_end_sequence(b);
	table_end(b, &t);
}

static void check_v4(const struct dwline_table *t, bool comp_dir)
{
	ck_assert_uint_eq(t->nseqs, 2);
	ck_assert_uint_eq(t->seqs[0].lo, 0x800);
	ck_assert_uint_eq(t->seqs[1].hi, 0x1020);
	expect(t, 0x1000, 1, 0, comp_dir ? "/src/a.c" : "a.c");
	expect(t, 0x1003, 1, 0, comp_dir ? "/src/a.c" : "a.c");
	expect(t, 0x1004, 3, 7, comp_dir ? "/src/a.c" : "a.c");
	expect(t, 0x1008, 43, 7, "inc/b.h");
	expect(t, 0x1018, 43, 7, "inc/b.h");
	expect(t, 0x1019, 43, 0, "/abs/c.h");
	expect(t, 0x101f, 43, 0, "/abs/c.h");
	expect_none(t, 0x1020);
	expect_none(t, 0xfff);
	expect(t, 0x800, 100, 0, "/usr/include/stdio.h");
	expect(t, 0x80f, 99, 0, "/usr/include/stdio.h");
	expect_none(t, 0x810);
	expect_none(t, 0x7ff);
	expect_none(t, 0);
	expect_none(t, UINT64_MAX);
	/* File 0 does not exist before DWARF 5. */
	ck_assert_ptr_null(dwline_file(t, 0));
	ck_assert_ptr_null(dwline_file(t, 5));
	ck_assert_ptr_null(dwline_file(t, DWLINE_NO_FILE));
	ck_assert_uint_eq(t->nseqs, 2);
	ck_assert_uint_eq(dwline_rows_size(t),
			  2 * sizeof(struct dwline_seq) + t->nrows * sizeof(struct dwline_row));
	ck_assert_uint_eq(sizeof(struct dwline_row), 12);
}

START_TEST(test_v4)
{
	struct buf b = {0};
	struct dwline_table t;

	build_v4(&b, _i);
	ck_assert_int_eq(read_table(&b, "/src", &t), 0);
	check_v4(&t, true);
	dwline_free(&t);
	/* Without a compilation directory, names of directory 0 stay relative. */
	ck_assert_int_eq(read_table(&b, NULL, &t), 0);
	check_v4(&t, false);
	dwline_free(&t);
}
END_TEST

/* Rows dropped and read again: the names given out before stay where they were. */
START_TEST(test_drop_rows)
{
	struct buf b = {0};
	struct dwline_input in = {0};
	struct dwline_table t;
	const char *a;
	uint8_t *copy;

	build_v4(&b, false);
	copy = unit_exact_copy(b.p, b.n);
	in.line = copy;
	in.line_size = b.n;
	ck_assert_int_eq(dwline_read(&in, 0, "/src", 8, &t), 0);
	a = dwline_file(&t, 1);
	ck_assert_str_eq(a, "/src/a.c");
	dwline_drop_rows(&t);
	ck_assert_uint_eq(dwline_rows_size(&t), 0);
	expect_none(&t, 0x1004);
	expect_none(&t, 0x800);
	ck_assert_ptr_eq(dwline_file(&t, 1), a);
	ck_assert_int_eq(dwline_reread_rows(&in, 0, "/src", 8, &t), 0);
	check_v4(&t, true);
	ck_assert_ptr_eq(dwline_file(&t, 1), a);
	/* Bytes that no longer parse leave the table as it was. */
	dwline_drop_rows(&t);
	in.line_size = 8;
	ck_assert_int_eq(dwline_reread_rows(&in, 0, "/src", 8, &t), -EINVAL);
	expect_none(&t, 0x1004);
	ck_assert_ptr_eq(dwline_file(&t, 1), a);
	dwline_free(&t);
	free(copy);
}
END_TEST

/*
 * DWARF 5: the lists' entry formats, strings in .debug_line_str and
 * .debug_str, an MD5 per file; file 0 is a real file.
 */
static size_t build_v5(struct buf *b, bool dwarf64, uint64_t path_form, struct buf *line_str,
		       struct buf *str)
{
	struct table t = table_begin(b, 5, dwarf64, 1, 1);
	unsigned w = dwarf64 ? 8 : 4;
	size_t d0 = line_str->n, d1, f0, f1;

	put_str(line_str, "/build");
	d1 = line_str->n;
	put_str(line_str, "lib");
	f0 = str->n;
	put_str(str, "main.c");
	f1 = str->n;
	put_str(str, "util.h");

	/* Directories: one format, the path in .debug_line_str. */
	put(b, 1, 1);
	put_uleb(b, DW_LNCT_path);
	put_uleb(b, DW_FORM_line_strp);
	put_uleb(b, 2);
	put(b, d0, w);
	put(b, d1, w);
	/* Files: path, directory index, MD5. */
	put(b, 3, 1);
	put_uleb(b, DW_LNCT_path);
	put_uleb(b, path_form);
	put_uleb(b, DW_LNCT_directory_index);
	put_uleb(b, DW_FORM_data1);
	put_uleb(b, DW_LNCT_MD5);
	put_uleb(b, DW_FORM_data16);
	put_uleb(b, 3);
	for (int i = 0; i < 3; i++) {
		if (path_form == DW_FORM_strp)
			put(b, i == 1 ? f1 : f0, w);
		else if (path_form == DW_FORM_string)
			put_str(b, i == 1 ? "util.h" : "main.c");
		else
			put(b, i, 1); /* strx1 */
		put(b, i == 1 ? 1 : 0, 1);
		for (int k = 0; k < 16; k++)
			put(b, 0xa0 + k, 1);
	}
	table_program(b, &t);
	op_set_address(b, 0x401000);
	op_uleb(b, DW_LNS_set_file, 0);
	op_advance_line(b, 9);
	put(b, DW_LNS_copy, 1); /* 0x401000 main.c:10 */
	op_uleb(b, DW_LNS_set_file, 1);
	op_special(b, 0x10, 4); /* 0x401010 lib/util.h:14 */
	op_uleb(b, DW_LNS_set_file, 9);
	op_special(b, 0x10, 0); /* 0x401020 file 9: none */
	op_advance_pc(b, 0x10);
	op_end_sequence(b);
	table_end(b, &t);
	return t.prog;
}

START_TEST(test_v5)
{
	static const uint64_t forms[] = {DW_FORM_strp, DW_FORM_string};
	struct buf b = {0}, line_str = {0}, str = {0};
	struct dwline_input in = {0};
	struct dwline_table t;

	build_v5(&b, _i & 1, forms[_i >> 1], &line_str, &str);
	in.line = b.p;
	in.line_size = b.n;
	in.line_str = line_str.p;
	in.line_str_size = line_str.n;
	in.str = str.p;
	in.str_size = str.n;
	/* The compilation directory plays no part: directory 0 is the table's. */
	ck_assert_int_eq(dwline_read(&in, 0, "/elsewhere", 8, &t), 0);
	expect(&t, 0x401000, 10, 0, "/build/main.c");
	expect(&t, 0x40100f, 10, 0, "/build/main.c");
	expect(&t, 0x401010, 14, 0, "lib/util.h");
	expect(&t, 0x401020, 14, 0, NULL);
	expect_none(&t, 0x401030);
	ck_assert_str_eq(dwline_file(&t, 2), "/build/main.c");
	dwline_free(&t);

	/* A string offset past its section: refused. */
	in.line_str_size = 3;
	ck_assert_int_eq(dwline_read(&in, 0, NULL, 8, &t), -EINVAL);
	ck_assert_uint_eq(t.nseqs + t.nrows + t.nfiles, 0);
	in.line_str = NULL;
	in.line_str_size = 0;
	ck_assert_int_eq(dwline_read(&in, 0, NULL, 8, &t), -EINVAL);
}
END_TEST

START_TEST(test_unresolved_forms)
{
	struct buf b = {0}, line_str = {0}, str = {0};
	struct dwline_input in = {0};
	struct dwline_table t;

	build_v5(&b, false, DW_FORM_strx1, &line_str, &str);
	in.line = b.p;
	in.line_size = b.n;
	in.line_str = line_str.p;
	in.line_str_size = line_str.n;
	ck_assert_int_eq(dwline_read(&in, 0, NULL, 8, &t), -ENOTSUP);
	ck_assert_uint_eq(t.nseqs + t.nrows + t.nfiles, 0);
}
END_TEST

/* Every prefix of a table, and every single byte changed: no crash, no leak. */
START_TEST(test_damaged)
{
	struct buf b = {0}, line_str = {0}, str = {0};
	struct dwline_input in = {0};
	struct dwline_table t;
	uint64_t seed = 42;

	if (_i == 0)
		build_v4(&b, false);
	else
		build_v5(&b, _i == 2, DW_FORM_strp, &line_str, &str);
	in.line_str = line_str.p;
	in.line_str_size = line_str.n;
	in.str = str.p;
	in.str_size = str.n;
	for (size_t n = 0; n < b.n; n++) {
		uint8_t *copy = unit_exact_copy(b.p, n);
		int ret;

		in.line = copy;
		in.line_size = n;
		ret = dwline_read(&in, 0, "/src", 8, &t);
		/* The unit's length says more than there is: refused whole. */
		ck_assert_int_eq(ret, -EINVAL);
		ck_assert_uint_eq(t.nseqs + t.nrows + t.nfiles, 0);
		free(copy);
	}
	for (size_t i = 0; i < b.n * 8; i++) {
		struct buf c = b;
		uint8_t *copy;
		int ret;

		c.p[unit_rand(&seed) % c.n] ^= (uint8_t)(1u << (unit_rand(&seed) % 8));
		copy = unit_exact_copy(c.p, c.n);
		in.line = copy;
		in.line_size = c.n;
		ret = dwline_read(&in, 0, "/src", 8, &t);
		ck_assert(ret == 0 || ret == -EINVAL || ret == -ENOTSUP);
		for (size_t s = 0; s < t.nseqs; s++) {
			uint64_t lo;

			ck_assert(dwline_find(&t, t.seqs[s].lo, &lo) != NULL);
		}
		dwline_free(&t);
		free(copy);
	}
	/* An offset at or past the end. */
	in.line = b.p;
	in.line_size = b.n;
	ck_assert_int_eq(dwline_read(&in, b.n, NULL, 8, &t), -EINVAL);
	ck_assert_int_eq(dwline_read(&in, UINT64_MAX, NULL, 8, &t), -EINVAL);
}
END_TEST

START_TEST(test_bad_headers)
{
	static const char *const dirs[] = {NULL};
	static const char *const files[] = {"a.c", NULL};
	static const unsigned bad_dir[] = {1};
	struct buf b = {0};
	struct dwline_table t;
	struct table tb;

	/* Version 6 and 1. */
	for (unsigned v = 1; v <= 6; v += 5) {
		b.n = 0;
		tb = table_begin(&b, 4, false, 1, 1);
		patch(&b, tb.len_at + 4, v, 2);
		v4_lists(&b, dirs, files, (const unsigned[]){0});
		table_program(&b, &tb);
		table_end(&b, &tb);
		ck_assert_int_eq(read_table(&b, NULL, &t), -EINVAL);
	}
	/* A file in a directory that does not exist. */
	b.n = 0;
	tb = table_begin(&b, 4, false, 1, 1);
	v4_lists(&b, dirs, files, bad_dir);
	table_program(&b, &tb);
	table_end(&b, &tb);
	ck_assert_int_eq(read_table(&b, NULL, &t), -EINVAL);
	/* No operations per instruction. */
	b.n = 0;
	tb = table_begin(&b, 4, false, 1, 0);
	v4_lists(&b, dirs, files, (const unsigned[]){0});
	table_program(&b, &tb);
	table_end(&b, &tb);
	ck_assert_int_eq(read_table(&b, NULL, &t), -EINVAL);
	/* A header length beyond the unit. */
	b.n = 0;
	tb = table_begin(&b, 4, false, 1, 1);
	v4_lists(&b, dirs, files, (const unsigned[]){0});
	table_program(&b, &tb);
	table_end(&b, &tb);
	patch(&b, tb.hlen_at, 0x7fffffff, 4);
	ck_assert_int_eq(read_table(&b, NULL, &t), -EINVAL);
	/* An empty table is a table with nothing in it. */
	b.n = 0;
	tb = table_begin(&b, 4, false, 1, 1);
	v4_lists(&b, dirs, files, (const unsigned[]){0});
	table_program(&b, &tb);
	table_end(&b, &tb);
	ck_assert_int_eq(read_table(&b, NULL, &t), 0);
	ck_assert_uint_eq(t.nseqs, 0);
	expect_none(&t, 0);
	ck_assert_str_eq(dwline_file(&t, 1), "a.c");
	dwline_free(&t);
}
END_TEST

/*
 * Sequences as compilers and linkers leave them: rows out of address
 * order, two sequences at one start (the later wins, as in libdw's
 * sorted rows), one inside another, one reaching past 4 GiB or wrapping
 * (an lld tombstone), an empty one, one never ended; files defined by the
 * program; lines and columns beyond what a row holds.
 */
START_TEST(test_sequences)
{
	static const char *const dirs[] = {"d", NULL};
	static const char *const files[] = {"a.c", NULL};
	struct buf b = {0};
	struct dwline_table t;
	struct table tb = table_begin(&b, 4, false, 1, 1);

	v4_lists(&b, dirs, files, (const unsigned[]){0});
	table_program(&b, &tb);
	/* Rows out of order: 0x2010 (line 5), 0x2000 (line 6), 0x2010 (line 7). */
	op_set_address(&b, 0x2010);
	op_advance_line(&b, 4);
	put(&b, DW_LNS_copy, 1);
	op_set_address(&b, 0x2000);
	op_special(&b, 0, 1);
	op_set_address(&b, 0x2010);
	op_special(&b, 0, 1);
	op_set_address(&b, 0x2020);
	op_end_sequence(&b);
	/* The same start again: line 50, and a file defined here (2: d/def.h). */
	put(&b, 0, 1);
	put_uleb(&b, 1 + 6 + 3);
	put(&b, DW_LNE_define_file, 1);
	put_str(&b, "def.h");
	put_uleb(&b, 1);
	put_uleb(&b, 0);
	put_uleb(&b, 0);
	op_uleb(&b, DW_LNS_set_file, 2);
	op_set_address(&b, 0x2000);
	op_advance_line(&b, 49);
	put(&b, DW_LNS_copy, 1);
	op_advance_pc(&b, 8);
	op_end_sequence(&b);
	/* Inside the first, ending before it: 0x2018-0x201c, line 70. */
	op_set_address(&b, 0x2018);
	op_advance_line(&b, 69);
	put(&b, DW_LNS_copy, 1);
	op_advance_pc(&b, 4);
	op_end_sequence(&b);
	/* More than 4 GiB long: dropped. */
	op_set_address(&b, 0x10000);
	put(&b, DW_LNS_copy, 1);
	op_set_address(&b, 0x200000000ULL);
	op_end_sequence(&b);
	/* An lld tombstone, wrapping: dropped. */
	op_set_address(&b, UINT64_MAX - 1);
	put(&b, DW_LNS_copy, 1);
	op_advance_pc(&b, 16);
	op_end_sequence(&b);
	/* Empty: dropped. */
	op_set_address(&b, 0x3000);
	op_end_sequence(&b);
	/* A line past 32 bits, a negative one, a column past 16 bits. */
	op_set_address(&b, 0x4000);
	op_advance_line(&b, (int64_t)1 << 33);
	put(&b, DW_LNS_copy, 1);
	op_advance_line(&b, -((int64_t)1 << 34));
	op_uleb(&b, DW_LNS_set_column, 70000);
	op_special(&b, 4, 0);
	op_advance_pc(&b, 4);
	op_end_sequence(&b);
	/* Never ended: its rows close no range. */
	op_set_address(&b, 0x5000);
	put(&b, DW_LNS_copy, 1);
	table_end(&b, &tb);

	ck_assert_int_eq(read_table(&b, "/c", &t), 0);
	ck_assert_uint_eq(t.nseqs, 4);
	/* The later of the two at 0x2000 wins where it reaches. */
	expect(&t, 0x2000, 50, 0, "d/def.h");
	expect(&t, 0x2007, 50, 0, "d/def.h");
	/* Then the first: its rows sorted by address, stable. */
	expect(&t, 0x2008, 6, 0, "/c/a.c");
	expect(&t, 0x2010, 7, 0, "/c/a.c");
	/* The one inside, then the first again after it ends. */
	expect(&t, 0x2018, 70, 0, "/c/a.c");
	expect(&t, 0x201c, 7, 0, "/c/a.c");
	expect_none(&t, 0x2020);
	expect_none(&t, 0x10000);
	expect_none(&t, UINT64_MAX - 1);
	expect_none(&t, 0x3000);
	expect(&t, 0x4000, 0, 0, "/c/a.c");
	expect(&t, 0x4004, 0, 0xffff, "/c/a.c");
	expect_none(&t, 0x5000);
	dwline_free(&t);
}
END_TEST

/* VLIW addressing: min_inst 2, 3 operations per instruction. */
START_TEST(test_op_index)
{
	static const char *const dirs[] = {NULL};
	static const char *const files[] = {"v.c", NULL};
	struct buf b = {0};
	struct dwline_table t;
	struct table tb = table_begin(&b, 4, false, 2, 3);

	v4_lists(&b, dirs, files, (const unsigned[]){0});
	table_program(&b, &tb);
	op_set_address(&b, 0x100);
	put(&b, DW_LNS_copy, 1); /* 0x100, op 0: line 1 */
	op_special(&b, 2, 1);	 /* 0x100, op 2: line 2 */
	op_special(&b, 2, 1);	 /* op 4 = 0x102, op 1: line 3 */
	op_advance_pc(&b, 2);	 /* op 3 = 0x104, op 0 */
	op_special(&b, 0, 1);	 /* line 4 */
	op_advance_pc(&b, 3);	 /* 0x106 */
	op_end_sequence(&b);
	table_end(&b, &tb);
	ck_assert_int_eq(read_table(&b, NULL, &t), 0);
	expect(&t, 0x100, 2, 0, "v.c");
	expect(&t, 0x102, 3, 0, "v.c");
	expect(&t, 0x104, 4, 0, "v.c");
	expect_none(&t, 0x106);
	dwline_free(&t);
}
END_TEST

/* Two tables one after the other: each read from its own offset. */
START_TEST(test_second_table)
{
	struct buf b = {0};
	struct dwline_input in = {0};
	struct dwline_table t;
	size_t second;

	build_v4(&b, false);
	second = b.n;
	build_v4(&b, true);
	in.line = b.p;
	in.line_size = b.n;
	ck_assert_int_eq(dwline_read(&in, second, "/src", 8, &t), 0);
	check_v4(&t, true);
	dwline_free(&t);
	ck_assert_int_eq(dwline_read(&in, 1, "/src", 8, &t), -EINVAL);
}
END_TEST

static Suite *dwline_suite(void)
{
	Suite *s = suite_create("dwline");
	TCase *tc = tcase_create("read");

	tcase_add_loop_test(tc, test_v4, 0, 2);
	tcase_add_loop_test(tc, test_v5, 0, 4);
	tcase_add_test(tc, test_sequences);
	tcase_add_test(tc, test_op_index);
	tcase_add_test(tc, test_second_table);
	tcase_add_test(tc, test_drop_rows);
	suite_add_tcase(s, tc);
	tc = tcase_create("hostile");
	tcase_add_test(tc, test_unresolved_forms);
	tcase_add_loop_test(tc, test_damaged, 0, 3);
	tcase_add_test(tc, test_bad_headers);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(dwline_suite());
}
