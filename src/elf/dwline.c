/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dwline.c - a unit's line table read into a compact table; see dwline.h.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "elf/dwline.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/cursor.h"
#include "util/sbuf.h"

/* The table's header, as far as the reader needs it. */
struct header {
	unsigned int version;
	unsigned int offset_size; /* 4 or 8 */
	unsigned int addr_size;
	unsigned int min_inst, max_ops;
	int line_base;
	unsigned int line_range, opcode_base;
	const uint8_t *std_lengths; /* opcode_base - 1 of them, for opcodes 1.. */
};

/* Directory and file names while the header is read: offsets into names. */
struct names {
	struct sbuf buf;
	uint32_t *dirs; /* UINT32_MAX: none */
	size_t ndirs, dirs_cap;
	uint32_t *files;
	size_t nfiles, files_cap;
};

#define NO_NAME UINT32_MAX

static uint32_t add_name(struct names *nm, const char *dir, const char *name)
{
	uint32_t at = (uint32_t)nm->buf.len;

	if (nm->buf.len >= UINT32_MAX / 2)
		return NO_NAME; /* beyond anything real; the file goes unnamed */
	if (dir && name[0] != '/') {
		sbuf_adds(&nm->buf, dir);
		sbuf_addn(&nm->buf, "/", 1);
	}
	sbuf_addn(&nm->buf, name, strlen(name) + 1);
	return at;
}

static void add_dir(struct names *nm, const char *dir)
{
	xgrow(&nm->dirs, &nm->dirs_cap, nm->ndirs + 1, sizeof(*nm->dirs));
	nm->dirs[nm->ndirs++] = dir ? add_name(nm, NULL, dir) : NO_NAME;
}

/* A file name joined to its directory (dwline.h). */
static int add_file(struct names *nm, const char *name, uint64_t dir)
{
	const char *d;

	if (dir >= nm->ndirs)
		return -EINVAL;
	d = nm->dirs[dir] == NO_NAME ? NULL : nm->buf.buf + nm->dirs[dir];
	if (d) {
		/* add_name may move the buffer: the directory is copied first. */
		char *copy = xstrdup(d);
		uint32_t at = add_name(nm, copy, name);

		free(copy);
		xgrow(&nm->files, &nm->files_cap, nm->nfiles + 1, sizeof(*nm->files));
		nm->files[nm->nfiles++] = at;
		return 0;
	}
	xgrow(&nm->files, &nm->files_cap, nm->nfiles + 1, sizeof(*nm->files));
	nm->files[nm->nfiles++] = add_name(nm, NULL, name);
	return 0;
}

/*
 * One attribute of a DWARF 5 directory or file entry: a string (*s) or a
 * number (*v), as its form says. Returns 0, -EINVAL for a form that has
 * no place here, -ENOTSUP for a string this reader cannot resolve.
 */
static int read_form(struct cur *c, const struct dwline_input *in, const struct header *h,
		     uint64_t form, const char **s, uint64_t *v)
{
	*s = NULL;
	*v = 0;
	switch (form) {
	case DW_FORM_string:
		*s = cur_cstr(c);
		return 0;
	case DW_FORM_line_strp:
		*s = cur_section_str(in->line_str, in->line_str_size, cur_fixed(c, h->offset_size));
		return *s || c->bad ? 0 : -EINVAL;
	case DW_FORM_strp:
		*s = cur_section_str(in->str, in->str_size, cur_fixed(c, h->offset_size));
		return *s || c->bad ? 0 : -EINVAL;
	case DW_FORM_strp_sup:
	case DW_FORM_GNU_strp_alt:
		cur_fixed(c, h->offset_size);
		return -ENOTSUP;
	case DW_FORM_strx:
	case DW_FORM_GNU_str_index:
		cur_uleb(c);
		return -ENOTSUP;
	case DW_FORM_strx1:
	case DW_FORM_strx2:
	case DW_FORM_strx4:
		cur_fixed(c, form == DW_FORM_strx1 ? 1 : form == DW_FORM_strx2 ? 2 : 4);
		return -ENOTSUP;
	case DW_FORM_strx3:
		cur_skip(c, 3);
		return -ENOTSUP;
	case DW_FORM_udata:
		*v = cur_uleb(c);
		return 0;
	case DW_FORM_sdata:
		*v = (uint64_t)cur_sleb(c);
		return 0;
	case DW_FORM_data1:
	case DW_FORM_flag:
		*v = cur_fixed(c, 1);
		return 0;
	case DW_FORM_data2:
		*v = cur_fixed(c, 2);
		return 0;
	case DW_FORM_data4:
		*v = cur_fixed(c, 4);
		return 0;
	case DW_FORM_data8:
		*v = cur_fixed(c, 8);
		return 0;
	case DW_FORM_data16:
		cur_skip(c, 16);
		return 0;
	case DW_FORM_flag_present:
		return 0;
	case DW_FORM_block:
		cur_skip(c, cur_uleb(c));
		return 0;
	case DW_FORM_block1:
		cur_skip(c, cur_fixed(c, 1));
		return 0;
	case DW_FORM_block2:
		cur_skip(c, cur_fixed(c, 2));
		return 0;
	case DW_FORM_block4:
		cur_skip(c, cur_fixed(c, 4));
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * A DWARF 5 directory or file list: its entry format, then its entries.
 * Directories are added to nm->dirs, files to nm->files.
 */
static int read_entries(struct cur *c, const struct dwline_input *in, const struct header *h,
			struct names *nm, bool files)
{
	uint64_t kinds[255], forms[255];
	unsigned int nformats = (unsigned int)cur_fixed(c, 1);
	uint64_t n;
	int err = 0;

	for (unsigned int i = 0; i < nformats; i++) {
		kinds[i] = cur_uleb(c);
		forms[i] = cur_uleb(c);
	}
	n = cur_uleb(c);
	if (c->bad)
		return -EINVAL;
	/* Every entry takes a byte at least: a count beyond that is a lie. */
	if (n && (nformats == 0 || n > (uint64_t)(c->end - c->p)))
		return -EINVAL;
	for (uint64_t e = 0; e < n; e++) {
		const char *path = NULL;
		uint64_t dir = UINT64_MAX;

		for (unsigned int i = 0; i < nformats; i++) {
			const char *s;
			uint64_t v;
			int r = read_form(c, in, h, forms[i], &s, &v);

			if (c->bad)
				return -EINVAL;
			if (kinds[i] == DW_LNCT_path) {
				if (r)
					return r;
				path = s;
			} else if (kinds[i] == DW_LNCT_directory_index) {
				if (r || s)
					return -EINVAL;
				dir = v;
			} else if (r == -EINVAL) {
				return r;
			}
		}
		if (!path)
			return -EINVAL;
		if (!files)
			add_dir(nm, path);
		else if ((err = add_file(nm, path, dir)) < 0)
			return err;
	}
	return 0;
}

/* The directory and file lists of DWARF 2 to 4. */
static int read_old_entries(struct cur *c, struct names *nm, const char *comp_dir)
{
	const char *s;

	add_dir(nm, comp_dir);
	while ((s = cur_cstr(c)) && *s)
		add_dir(nm, s);
	/* File 0 does not exist before DWARF 5: unnamed. */
	xgrow(&nm->files, &nm->files_cap, 1, sizeof(*nm->files));
	nm->files[nm->nfiles++] = NO_NAME;
	while ((s = cur_cstr(c)) && *s) {
		uint64_t dir = cur_uleb(c);

		cur_uleb(c); /* modification time */
		cur_uleb(c); /* length */
		if (c->bad)
			return -EINVAL;
		if (add_file(nm, s, dir) < 0)
			return -EINVAL;
	}
	return c->bad ? -EINVAL : 0;
}

static int read_header(struct cur *c, unsigned int addr_size, struct header *h,
		       const uint8_t **program)
{
	uint64_t len = cur_fixed(c, 4);
	uint64_t hlen;

	h->offset_size = 4;
	if (len == 0xffffffff) {
		len = cur_fixed(c, 8);
		h->offset_size = 8;
	} else if (len >= 0xfffffff0) {
		return -EINVAL;
	}
	if (c->bad || len > (uint64_t)(c->end - c->p))
		return -EINVAL;
	c->end = c->p + len;
	h->version = (unsigned int)cur_fixed(c, 2);
	if (h->version < 2 || h->version > 5)
		return -EINVAL;
	h->addr_size = addr_size;
	if (h->version >= 5) {
		h->addr_size = (unsigned int)cur_fixed(c, 1);
		if (cur_fixed(c, 1) != 0) /* segment selectors */
			return -EINVAL;
	}
	if (h->addr_size != 4 && h->addr_size != 8)
		return -EINVAL;
	hlen = cur_fixed(c, h->offset_size);
	if (c->bad || hlen > (uint64_t)(c->end - c->p))
		return -EINVAL;
	*program = c->p + hlen;
	h->min_inst = (unsigned int)cur_fixed(c, 1);
	h->max_ops = h->version >= 4 ? (unsigned int)cur_fixed(c, 1) : 1;
	cur_fixed(c, 1); /* default_is_stmt */
	h->line_base = (int8_t)cur_fixed(c, 1);
	h->line_range = (unsigned int)cur_fixed(c, 1);
	h->opcode_base = (unsigned int)cur_fixed(c, 1);
	if (c->bad || h->max_ops == 0 || h->opcode_base == 0)
		return -EINVAL;
	h->std_lengths = c->p;
	cur_skip(c, h->opcode_base - 1);
	/* The fields above lie inside the header. */
	return c->bad || c->p > *program ? -EINVAL : 0;
}

/*
 * Rows go straight into the table as they are read, each sequence's as
 * offsets from its first row's address taken as signed (so a sequence
 * out of address order still fits), made offsets from its lowest address
 * when it ends. No row is held twice: a table of 71,000 rows costs its
 * 12 bytes a row while it is read too.
 */
struct builder {
	struct dwline_table *t;
	size_t seqs_cap, rows_cap;
	size_t row0;	 /* where the sequence being read starts in t->rows */
	uint64_t first;	 /* its first row's address */
	int32_t min_off; /* the lowest of its rows' signed offsets */
	bool sorted;	 /* its rows are in address order so far */
	bool bad;	 /* a row lies 2 GiB or more from the first: dropped whole */
};

static void add_row(struct builder *b, uint64_t addr, uint64_t line, uint64_t file, uint64_t col)
{
	struct dwline_table *t = b->t;
	int64_t d;

	if (t->nrows == b->row0)
		b->first = addr;
	d = (int64_t)(addr - b->first);
	if (d < INT32_MIN || d > INT32_MAX || t->nrows >= UINT32_MAX) {
		b->bad = true;
		return;
	}
	if (t->nrows > b->row0 && (int32_t)d < (int32_t)t->rows[t->nrows - 1].off)
		b->sorted = false;
	if ((int32_t)d < b->min_off)
		b->min_off = (int32_t)d;
	xgrow(&t->rows, &b->rows_cap, t->nrows + 1, sizeof(*t->rows));
	t->rows[t->nrows++] = (struct dwline_row){
		(uint32_t)(int32_t)d,
		line <= UINT32_MAX ? (uint32_t)line : 0,
		file < DWLINE_NO_FILE ? (uint16_t)file : DWLINE_NO_FILE,
		col < 0xffff ? (uint16_t)col : 0xffff,
	};
}

/* Sorts rows by offset, keeping the order of equals (the last one read wins a lookup). */
static void sort_rows(struct dwline_row *rows, size_t n, struct dwline_row *tmp)
{
	size_t h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	sort_rows(rows, h, tmp);
	sort_rows(rows + h, n - h, tmp);
	while (i < h && j < n)
		tmp[k++] = rows[j].off < rows[i].off ? rows[j++] : rows[i++];
	while (i < h)
		tmp[k++] = rows[i++];
	memcpy(rows, tmp, k * sizeof(*rows)); /* the rest, from j on, is in place */
}

/*
 * The sequence read so far ends at end: its rows, in address order, are
 * kept when it is a real range (not empty, not reaching beyond 4 GiB,
 * not wrapped). Rows at or past its end apply nowhere.
 */
static void end_sequence(struct builder *b, uint64_t end)
{
	struct dwline_table *t = b->t;
	size_t n = t->nrows - b->row0;
	uint64_t lo = b->first + (uint64_t)(int64_t)b->min_off;
	uint32_t shift = 0u - (uint32_t)b->min_off;
	struct dwline_row *rows;
	struct dwline_seq *s;

	if (b->bad || n == 0)
		goto drop;
	rows = t->rows + b->row0;
	if (shift)
		for (size_t i = 0; i < n; i++)
			rows[i].off = (uint32_t)(int32_t)rows[i].off + shift;
	if (!b->sorted) {
		struct dwline_row *tmp = xmalloc(n * sizeof(*tmp));

		sort_rows(rows, n, tmp);
		free(tmp);
	}
	/* lo <= end, else every row lies past it; then the offsets compare as addresses. */
	while (n && (lo > end || rows[n - 1].off >= end - lo))
		n--;
	if (n == 0 || end - lo > UINT32_MAX || t->nseqs >= UINT32_MAX)
		goto drop;
	xgrow(&t->seqs, &b->seqs_cap, t->nseqs + 1, sizeof(*t->seqs));
	s = &t->seqs[t->nseqs++];
	s->lo = lo;
	s->hi = end;
	s->row0 = (uint32_t)b->row0;
	s->nrows = (uint32_t)n;
	t->nrows = b->row0 + n;
	goto next;
drop:
	t->nrows = b->row0;
next:
	b->row0 = t->nrows;
	b->min_off = 0;
	b->sorted = true;
	b->bad = false;
}

/* The line-number state machine's registers (DWARF 5, 6.2.2). */
struct lnregs {
	uint64_t addr, op_index, file, col;
	/* Wraps as it will: what is not a line in 1..UINT32_MAX is stored as 0. */
	uint64_t line;
};

static void lnregs_reset(struct lnregs *r)
{
	*r = (struct lnregs){.file = 1, .line = 1};
}

/* Advances the address by adv operations (VLIW op_index included). */
static inline void advance(struct lnregs *r, const struct header *h, uint64_t adv)
{
	r->addr += h->min_inst * ((r->op_index + adv) / h->max_ops);
	r->op_index = (r->op_index + adv) % h->max_ops;
}

/* An extended opcode (after its 0 byte): 0, or -EINVAL. */
static int extended_op(struct cur *c, struct names *nm, struct builder *b, struct lnregs *r)
{
	uint64_t len = cur_uleb(c);
	const uint8_t *next;

	if (c->bad || len == 0 || len > (uint64_t)(c->end - c->p))
		return -EINVAL;
	next = c->p + len;
	switch (*c->p++) {
	case DW_LNE_end_sequence:
		end_sequence(b, r->addr);
		lnregs_reset(r);
		break;
	case DW_LNE_set_address:
		if (len - 1 != 4 && len - 1 != 8)
			return -EINVAL;
		r->addr = cur_fixed(c, (size_t)(len - 1));
		r->op_index = 0;
		break;
	case DW_LNE_define_file: {
		const char *name = cur_cstr(c);
		uint64_t dir = cur_uleb(c);

		if (c->bad || c->p > next || add_file(nm, name, dir) < 0)
			return -EINVAL;
		break;
	}
	default:
		break; /* set_discriminator and vendor opcodes */
	}
	if (c->bad || c->p > next)
		return -EINVAL;
	c->p = next;
	return 0;
}

/* A standard opcode op (1 to opcode_base - 1): 0, or -EINVAL. */
static int standard_op(struct cur *c, const struct header *h, struct builder *b, struct lnregs *r,
		       unsigned int op)
{
	switch (op) {
	case DW_LNS_copy:
		add_row(b, r->addr, r->line, r->file, r->col);
		break;
	case DW_LNS_advance_pc:
		advance(r, h, cur_uleb(c));
		break;
	case DW_LNS_advance_line:
		r->line += (uint64_t)cur_sleb(c);
		break;
	case DW_LNS_set_file:
		r->file = cur_uleb(c);
		break;
	case DW_LNS_set_column:
		r->col = cur_uleb(c);
		break;
	case DW_LNS_negate_stmt:
	case DW_LNS_set_basic_block:
	case DW_LNS_set_prologue_end:
	case DW_LNS_set_epilogue_begin:
		break;
	case DW_LNS_const_add_pc:
		if (h->line_range == 0)
			return -EINVAL;
		advance(r, h, (255 - h->opcode_base) / h->line_range);
		break;
	case DW_LNS_fixed_advance_pc:
		r->addr += cur_fixed(c, 2);
		r->op_index = 0;
		break;
	case DW_LNS_set_isa:
		cur_uleb(c);
		break;
	default:
		/* Unknown standard opcode: its arguments are ULEB128s. */
		for (unsigned int i = 0; i < h->std_lengths[op - 1]; i++)
			cur_uleb(c);
		break;
	}
	return 0;
}

static int run_program(struct cur *c, const struct header *h, struct names *nm, struct builder *b)
{
	struct lnregs r;

	lnregs_reset(&r);
	while (c->p < c->end && !c->bad) {
		unsigned int op = *c->p++;
		int ret = 0;

		if (op >= h->opcode_base) {
			unsigned int adj = op - h->opcode_base;

			if (h->line_range == 0)
				return -EINVAL;
			r.line += (uint64_t)(int64_t)(h->line_base + (int)(adj % h->line_range));
			advance(&r, h, adj / h->line_range);
			add_row(b, r.addr, r.line, r.file, r.col);
		} else if (op == 0) {
			ret = extended_op(c, nm, b, &r);
		} else {
			ret = standard_op(c, h, b, &r, op);
		}
		if (ret)
			return ret;
	}
	/* Rows after the last end_sequence close no range: dropped. */
	return c->bad ? -EINVAL : 0;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct dwline_seq *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	/* Equal starts keep their order: the later one wins a lookup. */
	return x->row0 < y->row0 ? -1 : x->row0 > y->row0;
}

static void finish(struct dwline_table *t, struct names *nm)
{
	uint64_t m = 0;

	if (t->nseqs > 1)
		qsort(t->seqs, t->nseqs, sizeof(*t->seqs), cmp_seq);
	for (size_t i = 0; i < t->nseqs; i++) {
		m = t->seqs[i].hi > m ? t->seqs[i].hi : m;
		t->seqs[i].maxhi = m;
	}
	/* Exact sizes: the table may live as long as the recording. */
	if (t->nseqs)
		t->seqs = xrealloc(t->seqs, t->nseqs * sizeof(*t->seqs));
	if (t->nrows)
		t->rows = xrealloc(t->rows, t->nrows * sizeof(*t->rows));
	t->names_size = nm->buf.len;
	t->names = xmalloc(nm->buf.len ? nm->buf.len : 1);
	if (nm->buf.len)
		memcpy(t->names, nm->buf.buf, nm->buf.len);
	t->nfiles = nm->nfiles;
	t->files = xcalloc(nm->nfiles ? nm->nfiles : 1, sizeof(*t->files));
	for (size_t i = 0; i < nm->nfiles; i++)
		t->files[i] = nm->files[i] == NO_NAME ? NULL : t->names + nm->files[i];
}

int dwline_read(const struct dwline_input *in, uint64_t offset, const char *comp_dir,
		unsigned int addr_size, struct dwline_table *t)
{
	struct cur c;
	struct header h;
	const uint8_t *program;
	struct names nm = {.buf = SBUF_INIT};
	struct builder b = {.t = t, .sorted = true};
	int err;

	memset(t, 0, sizeof(*t));
	if (!in->line || offset >= in->line_size)
		return -EINVAL;
	c = (struct cur){in->line + offset, in->line + in->line_size, false};
	if ((err = read_header(&c, addr_size, &h, &program)) < 0)
		return err;
	{
		/* The lists end where the program starts. */
		struct cur lists = {c.p, program, false};

		err = h.version >= 5 ? read_entries(&lists, in, &h, &nm, false) : 0;
		if (!err)
			err = h.version >= 5 ? read_entries(&lists, in, &h, &nm, true)
					     : read_old_entries(&lists, &nm, comp_dir);
		if (!err && lists.bad)
			err = -EINVAL;
	}
	if (!err) {
		c.p = program;
		err = run_program(&c, &h, &nm, &b);
	}
	if (!err)
		finish(t, &nm);
	else
		dwline_free(t);
	free(nm.dirs);
	free(nm.files);
	sbuf_release(&nm.buf);
	return err;
}

static uint64_t seq_lo(const void *arr, size_t i)
{
	return ((const struct dwline_seq *)arr)[i].lo;
}

const struct dwline_row *dwline_find(const struct dwline_table *t, uint64_t pc, uint64_t *lo)
{
	size_t a = bsearch_last_le(t->seqs, t->nseqs, pc, seq_lo);

	for (size_t i = a; i > 0 && t->seqs[i - 1].maxhi > pc; i--) {
		const struct dwline_seq *s = &t->seqs[i - 1];
		const struct dwline_row *r = t->rows + s->row0;
		uint64_t off = pc - s->lo;
		size_t x = 0, y = s->nrows;

		if (pc >= s->hi)
			continue;
		while (x < y) {
			size_t mid = x + (y - x) / 2;

			if (r[mid].off <= off)
				x = mid + 1;
			else
				y = mid;
		}
		*lo = s->lo;
		return &r[x - 1]; /* x >= 1: the first row is at off 0 */
	}
	return NULL;
}

const char *dwline_file(const struct dwline_table *t, uint32_t file)
{
	return file < t->nfiles ? t->files[file] : NULL;
}

size_t dwline_rows_size(const struct dwline_table *t)
{
	return t->nseqs * sizeof(*t->seqs) + t->nrows * sizeof(*t->rows);
}

void dwline_drop_rows(struct dwline_table *t)
{
	free(t->seqs);
	free(t->rows);
	t->seqs = NULL;
	t->rows = NULL;
	t->nseqs = t->nrows = 0;
}

int dwline_reread_rows(const struct dwline_input *in, uint64_t offset, const char *comp_dir,
		       unsigned int addr_size, struct dwline_table *t)
{
	struct dwline_table again;
	int err = dwline_read(in, offset, comp_dir, addr_size, &again);

	if (err < 0)
		return err;
	/* The same bytes give the same files: the rows' indexes hold for t's. */
	dwline_drop_rows(t);
	t->seqs = again.seqs;
	t->nseqs = again.nseqs;
	t->rows = again.rows;
	t->nrows = again.nrows;
	again.seqs = NULL;
	again.rows = NULL;
	dwline_free(&again);
	return 0;
}

void dwline_free(struct dwline_table *t)
{
	free(t->seqs);
	free(t->rows);
	free(t->files);
	free(t->names);
	memset(t, 0, sizeof(*t));
}
