/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ehframe.c - x86-64 .eh_frame rows read straight from the file; see
 * ehframe.h.
 *
 * A row is what the CIE's initial instructions and then the FDE's make
 * of the registers' rules, run up to the address: each advance that
 * stays at or below it starts a new row there, and the first that passes
 * it ends the row. So the span [lo, hi) of the row is exact, where libdw
 * names the start of the row that DW_CFA_restore_state brought back.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>

#include "elf/elfread.h"
#include "stack/ehframe.h"
#include "util/alloc.h"
#include "util/cursor.h"

/* Bytes read for an FDE or a CIE at once: most are shorter; a longer FDE is read whole. */
#define ENTRY_READ 512
#define FDE_MAX	   (64 * 1024)
/* An .eh_frame up to this size is read whole when opened: one read, not one a lookup. */
#define WHOLE_MAX (1 << 20)
/* How deep DW_CFA_remember_state may nest. */
#define STATE_DEPTH 8
/* A register column no rule is kept for (cfi.h keeps 0-16). */
#define NO_REG 0xff

enum how { R_UNSPEC, R_UNDEF, R_SAME, R_AT, R_VAL, R_REG };

struct rule {
	uint8_t how; /* enum how */
	uint8_t reg; /* R_REG */
	int64_t off; /* R_AT, R_VAL */
};

struct state {
	struct rule r[CFI_NREGS];
	uint8_t cfa_reg; /* NO_REG until defined */
	int64_t cfa_off;
	/*
	 * A PLT's CFA (plt_expression): cfa_off, plus 8 where the address's
	 * low four bits are plt_at or more (its entries' jumps, after the
	 * push). 0: none.
	 */
	uint8_t plt_at;
};

/* Up to len bytes at file offset off into buf (from memory, or pread); the count or -1. */
static ssize_t read_at(const struct eh_frame *t, uint64_t off, void *buf, size_t len)
{
	ssize_t got;

	if (t->fd < 0) {
		if (off >= t->memlen)
			return -1;
		if (len > t->memlen - off)
			len = (size_t)(t->memlen - off);
		memcpy(buf, t->mem + off, len);
		return (ssize_t)len;
	}
	do
		got = pread(t->fd, buf, len, (off_t)off);
	while (got < 0 && errno == EINTR);
	return got;
}

/* Whole: len bytes at file offset off. */
static bool read_file(const struct eh_frame *t, uint64_t off, void *buf, size_t len)
{
	return read_at(t, off, buf, len) == (ssize_t)len;
}

/* Up to len bytes at offset off of .eh_frame into buf, never past its end; the count or -1. */
static ssize_t read_eh(const struct eh_frame *t, uint64_t off, void *buf, size_t len)
{
	if (off >= t->eh_size)
		return -1;
	if (len > t->eh_size - off)
		len = (size_t)(t->eh_size - off);
	if (t->whole) {
		memcpy(buf, t->whole + off, len);
		return (ssize_t)len;
	}
	return read_at(t, t->eh_off + off, buf, len);
}

/*
 * A pointer of encoding enc at the cursor, whose first byte is at ELF
 * address at (for DW_EH_PE_pcrel); false for what this reader does not
 * take (indirect, text- or function-relative, aligned, omitted).
 */
static bool read_ptr(struct cur *c, uint8_t enc, uint64_t at, uint64_t *v)
{
	uint64_t x;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		x = cur_fixed(c, 8);
		break;
	case DW_EH_PE_udata2:
		x = cur_fixed(c, 2);
		break;
	case DW_EH_PE_sdata2:
		x = (uint64_t)(int64_t)(int16_t)cur_fixed(c, 2);
		break;
	case DW_EH_PE_udata4:
		x = cur_fixed(c, 4);
		break;
	case DW_EH_PE_sdata4:
		x = (uint64_t)(int64_t)(int32_t)cur_fixed(c, 4);
		break;
	case DW_EH_PE_uleb128:
		x = cur_uleb(c);
		break;
	case DW_EH_PE_sleb128:
		x = (uint64_t)cur_sleb(c);
		break;
	default:
		return false;
	}
	switch (enc & 0xf0) {
	case DW_EH_PE_absptr:
		break;
	case DW_EH_PE_pcrel:
		x += at;
		break;
	default:
		return false;
	}
	*v = x;
	return !c->bad;
}

/* The CIE at offset off of .eh_frame, parsed (or kept from before); 0 or -errno. */
static int get_cie(struct eh_frame *t, uint64_t off, const struct eh_cie **out)
{
	uint8_t buf[ENTRY_READ];
	struct eh_cie *cie;
	struct cur c;
	const char *aug;
	const uint8_t *augend;
	ssize_t got;
	uint64_t len, v;
	uint8_t version;

	for (unsigned i = 0; i < EH_CIES; i++)
		if (t->cies[i].off == off) {
			*out = &t->cies[i];
			return 0;
		}
	got = read_eh(t, off, buf, sizeof(buf));
	if (got < 8)
		return -EIO;
	len = load_u32(buf);
	if (len == 0xffffffff || len + 4 > (uint64_t)got)
		return -ENOTSUP; /* 64-bit, or longer than CIEs are */
	c = (struct cur){buf + 4, buf + 4 + len, false};
	if (cur_fixed(&c, 4) != 0)
		return -EIO; /* an FDE where its CIE should be */
	version = (uint8_t)cur_fixed(&c, 1);
	aug = cur_cstr(&c);
	if ((version != 1 && version != 3) || !aug || (aug[0] && aug[0] != 'z'))
		return -ENOTSUP;
	cie = &t->cies[t->next_cie++ % EH_CIES];
	cie->off = UINT64_MAX; /* until it is whole */
	cie->code_align = cur_uleb(&c);
	cie->data_align = cur_sleb(&c);
	v = version == 1 ? cur_fixed(&c, 1) : cur_uleb(&c);
	cie->ra = v < CFI_NREGS ? (uint8_t)v : NO_REG;
	cie->fde_enc = DW_EH_PE_absptr;
	cie->signal = cie->zaug = 0;
	if (aug[0] == 'z') {
		cie->zaug = 1;
		len = cur_uleb(&c);
		if (c.bad || len > (uint64_t)(c.end - c.p))
			return -EIO;
		augend = c.p + len;
		for (const char *a = aug + 1; *a && !c.bad; a++) {
			if (*a == 'R')
				cie->fde_enc = (uint8_t)cur_fixed(&c, 1);
			else if (*a == 'L')
				cur_fixed(&c, 1);
			else if (*a == 'P' &&
				 !read_ptr(&c, (uint8_t)cur_fixed(&c, 1) & 0x0f, 0, &v))
				return -ENOTSUP;
			else if (*a == 'S')
				cie->signal = 1;
			else if (*a != 'P' && *a != 'B' && *a != 'G')
				break; /* unknown: 'z' says where its data ends */
		}
		c.p = augend;
	}
	if (c.bad || !cie->code_align || c.end - c.p > (ptrdiff_t)sizeof(cie->insns))
		return c.bad ? -EIO : -ENOTSUP;
	cie->ninsns = (uint8_t)(c.end - c.p);
	memcpy(cie->insns, c.p, cie->ninsns);
	cie->off = off;
	*out = cie;
	return 0;
}

/* Sets column reg's rule (columns past the kept ones are not needed). */
static void set_rule(struct state *s, uint64_t reg, uint8_t how, int64_t off, uint64_t reg2)
{
	if (reg >= CFI_NREGS)
		return;
	s->r[reg] = (struct rule){how, reg2 < CFI_NREGS ? (uint8_t)reg2 : NO_REG, off};
}

/* Whether column reg's rule is one a row keeps (cfi_kept). */
static bool kept(uint64_t reg)
{
	for (int i = 0; i < CFI_NKEPT; i++)
		if (cfi_kept[i] == reg)
			return true;
	return false;
}

/*
 * The expression the linkers give the CFA of a PLT of 16-byte entries
 * (x86-64's): rsp + 8, plus 8 from the entry's byte 11 (or 10) on, where
 * its push has run. Whether the n bytes at p are it; its byte in *at.
 */
static bool plt_expression(const uint8_t *p, uint64_t n, uint8_t *at)
{
	/* breg7 8; breg16 0; lit15; and; lit11 (or lit10); ge; lit3; shl; plus */
	static const uint8_t want[] = {0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a,
				       0x00, 0x2a, 0x33, 0x24, 0x22};

	if (n != sizeof(want))
		return false;
	for (size_t i = 0; i < sizeof(want); i++)
		if (i != 6 && p[i] != want[i])
			return false;
	if (p[6] != 0x3a && p[6] != 0x3b)
		return false;
	*at = (uint8_t)(p[6] - 0x30);
	return true;
}

/* Where a run of instructions is, and what it is looking for. */
struct run {
	struct state s;
	const struct state *init; /* the CIE's rules (DW_CFA_restore), NULL while in the CIE */
	struct state saved[STATE_DEPTH];
	int depth;
	const struct eh_cie *cie;
	uint64_t loc, vaddr, lo, hi;
	bool done; /* an advance passed vaddr: the row is made */
};

/* Moves the location by delta code units: 0, or -ENOTSUP in the CIE. */
static int advance(struct run *r, uint64_t delta)
{
	uint64_t next = r->loc + delta * r->cie->code_align;

	if (!r->init)
		return -ENOTSUP;
	if (next > r->vaddr) {
		r->hi = next;
		r->done = true;
		return 0;
	}
	r->loc = r->lo = next;
	return 0;
}

/* Column reg's rule back to the CIE's: 0, or -ENOTSUP in the CIE. */
static int restore(struct run *r, uint64_t reg)
{
	if (!r->init)
		return -ENOTSUP;
	if (reg < CFI_NREGS)
		r->s.r[reg] = r->init->r[reg];
	return 0;
}

/* One instruction of the extended set (the low six bits of op zero); 0 or -errno. */
static int run_extended(struct run *r, struct cur *c, uint8_t op)
{
	int64_t daf = r->cie->data_align;
	uint64_t reg, v;

	switch (op) {
	case DW_CFA_nop:
		return 0;
	case DW_CFA_advance_loc1:
		return advance(r, cur_fixed(c, 1));
	case DW_CFA_advance_loc2:
		return advance(r, cur_fixed(c, 2));
	case DW_CFA_advance_loc4:
		return advance(r, cur_fixed(c, 4));
	case DW_CFA_offset_extended:
		reg = cur_uleb(c);
		set_rule(&r->s, reg, R_AT, (int64_t)cur_uleb(c) * daf, NO_REG);
		return 0;
	case DW_CFA_offset_extended_sf:
		reg = cur_uleb(c);
		set_rule(&r->s, reg, R_AT, cur_sleb(c) * daf, NO_REG);
		return 0;
	case DW_CFA_GNU_negative_offset_extended:
		reg = cur_uleb(c);
		set_rule(&r->s, reg, R_AT, -(int64_t)cur_uleb(c) * daf, NO_REG);
		return 0;
	case DW_CFA_val_offset:
		reg = cur_uleb(c);
		set_rule(&r->s, reg, R_VAL, (int64_t)cur_uleb(c) * daf, NO_REG);
		return 0;
	case DW_CFA_val_offset_sf:
		reg = cur_uleb(c);
		set_rule(&r->s, reg, R_VAL, cur_sleb(c) * daf, NO_REG);
		return 0;
	case DW_CFA_restore_extended:
		return restore(r, cur_uleb(c));
	case DW_CFA_undefined:
		set_rule(&r->s, cur_uleb(c), R_UNDEF, 0, NO_REG);
		return 0;
	case DW_CFA_same_value:
		set_rule(&r->s, cur_uleb(c), R_SAME, 0, NO_REG);
		return 0;
	case DW_CFA_register:
		reg = cur_uleb(c);
		v = cur_uleb(c);
		if (kept(reg) && v >= CFI_NREGS)
			return -ENOTSUP;
		set_rule(&r->s, reg, R_REG, 0, v);
		return 0;
	case DW_CFA_remember_state:
		if (r->depth == STATE_DEPTH)
			return -ENOTSUP;
		r->saved[r->depth++] = r->s;
		return 0;
	case DW_CFA_restore_state:
		if (!r->depth)
			return -EIO;
		r->s = r->saved[--r->depth];
		return 0;
	case DW_CFA_def_cfa:
	case DW_CFA_def_cfa_sf:
		reg = cur_uleb(c);
		if (reg >= CFI_NREGS)
			return -ENOTSUP;
		r->s.cfa_reg = (uint8_t)reg;
		r->s.plt_at = 0;
		r->s.cfa_off = op == DW_CFA_def_cfa ? (int64_t)cur_uleb(c) : cur_sleb(c) * daf;
		return 0;
	case DW_CFA_def_cfa_register:
		reg = cur_uleb(c);
		if (reg >= CFI_NREGS || r->s.plt_at)
			return -ENOTSUP;
		r->s.cfa_reg = (uint8_t)reg;
		return 0;
	case DW_CFA_def_cfa_offset:
		r->s.cfa_off = (int64_t)cur_uleb(c);
		r->s.plt_at = 0;
		return 0;
	case DW_CFA_def_cfa_offset_sf:
		r->s.cfa_off = cur_sleb(c) * daf;
		r->s.plt_at = 0;
		return 0;
	case DW_CFA_def_cfa_expression:
		v = cur_uleb(c);
		if (v > (uint64_t)(c->end - c->p) || !plt_expression(c->p, v, &r->s.plt_at))
			return -ENOTSUP; /* another expression: libdw's */
		cur_skip(c, v);
		r->s.cfa_reg = CFI_RSP;
		r->s.cfa_off = 8;
		return 0;
	case DW_CFA_expression:
	case DW_CFA_val_expression:
		/* A rule a row keeps, by an expression: libdw's. Others are not needed. */
		if (kept(cur_uleb(c)))
			return -ENOTSUP;
		cur_skip(c, cur_uleb(c));
		return 0;
	case DW_CFA_GNU_args_size:
		cur_uleb(c);
		return 0;
	default: /* DW_CFA_set_loc, others */
		return -ENOTSUP;
	}
}

/* Runs the instructions [p, end) until one passes r->vaddr: 0 or -errno. */
static int run_insns(struct run *r, const uint8_t *p, const uint8_t *end)
{
	struct cur c = {p, end, false};

	while (c.p < c.end && !r->done) {
		uint8_t op = (uint8_t)cur_fixed(&c, 1);
		int ret = 0;

		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
			ret = advance(r, op & 0x3f);
			break;
		case DW_CFA_offset:
			set_rule(&r->s, op & 0x3f, R_AT, (int64_t)cur_uleb(&c) * r->cie->data_align,
				 NO_REG);
			break;
		case DW_CFA_restore:
			ret = restore(r, op & 0x3f);
			break;
		default:
			ret = run_extended(r, &c, op);
			break;
		}
		if (ret < 0)
			return ret;
	}
	return c.bad ? -EIO : 0;
}

/* A rule as a row keeps it, that of column reg when unspecified (x86-64's). */
static int rule_out(const struct rule *in, uint8_t reg, struct cfi_rule *out)
{
	memset(out, 0, sizeof(*out));
	switch (in->how) {
	case R_UNSPEC:
		/*
		 * libdw's x86-64 defaults: the stack pointer is the CFA; rbp
		 * and r12-r15 survive the call; rbx is undefined (its table
		 * names column 0 where rbx is 3). Kept, so that a row is the
		 * same whichever of the two readers made it.
		 */
		out->kind = reg == CFI_RSP		      ? CFI_VAL
			    : reg == CFI_RBX || reg == CFI_RA ? CFI_UNDEF
							      : CFI_SAME;
		return 0;
	case R_UNDEF:
		out->kind = CFI_UNDEF;
		return 0;
	case R_SAME:
		out->kind = CFI_SAME;
		return 0;
	case R_REG:
		if (in->reg == NO_REG)
			return -ENOTSUP;
		out->kind = CFI_REG;
		out->reg = in->reg;
		return 0;
	default:
		if (in->off < INT32_MIN || in->off > INT32_MAX)
			return -ENOTSUP;
		out->kind = in->how == R_AT ? CFI_AT : CFI_VAL;
		out->off = (int32_t)in->off;
		return 0;
	}
}

/* The row that run r made: 0 or -ENOTSUP. */
static int row_out(const struct run *r, struct cfi_row *row)
{
	memset(row, 0, sizeof(*row));
	if (r->cie->signal) {
		row->signal = true;
		return 0;
	}
	if (r->s.cfa_reg == NO_REG || r->s.cfa_off < INT32_MIN || r->s.cfa_off > INT32_MAX)
		return -ENOTSUP;
	row->cfa = (struct cfi_rule){
		.kind = CFI_REG, .reg = r->s.cfa_reg, .off = (int32_t)r->s.cfa_off};
	for (int i = 0; i < CFI_NKEPT; i++)
		if (rule_out(&r->s.r[cfi_kept[i]], cfi_kept[i], &row->rules[i]) < 0)
			return -ENOTSUP;
	row->fp = row->cfa.reg == CFI_RBP && row->cfa.off == 16 && row->rules[1].kind == CFI_AT &&
		  row->rules[1].off == -16 && row->rules[CFI_NKEPT - 1].kind == CFI_AT &&
		  row->rules[CFI_NKEPT - 1].off == -8;
	return 0;
}

/*
 * A PLT's row at vaddr (the CFA at, see plt_expression), its span cut to
 * the part of vaddr's entry that has the same CFA.
 */
static void plt_row(uint8_t at, uint64_t vaddr, struct cfi_row *row, uint64_t *lo, uint64_t *hi)
{
	uint64_t entry = vaddr & ~(uint64_t)15;
	uint64_t from = (vaddr & 15) >= at ? entry + at : entry;
	uint64_t to = (vaddr & 15) >= at ? entry + 16 : entry + at;

	if ((vaddr & 15) >= at)
		row->cfa.off += 8;
	row->fp = false;
	if (*lo < from)
		*lo = from;
	if (*hi > to)
		*hi = to;
}

/* The row of vaddr by the FDE at offset off of .eh_frame: as eh_frame_row. */
static int run_fde(struct eh_frame *t, uint64_t off, uint64_t vaddr, struct cfi_row *row,
		   uint64_t *lo, uint64_t *hi)
{
	uint8_t buf[ENTRY_READ], *big = NULL;
	const uint8_t *p = buf;
	const struct eh_cie *cie;
	uint64_t len, cie_ptr, start, range;
	struct run r;
	struct cur c;
	ssize_t got = read_eh(t, off, buf, sizeof(buf));
	int ret;

	if (got < 8)
		return -EIO;
	len = load_u32(buf);
	if (len == 0xffffffff)
		return -ENOTSUP;
	if (len < 8 || len > FDE_MAX)
		return len < 8 ? -EIO : -ENOTSUP;
	if (len + 4 > (uint64_t)got) {
		p = big = xmalloc(len + 4); /* rare: a function with thousands of rows */
		if (read_eh(t, off, big, len + 4) != (ssize_t)(len + 4)) {
			free(big);
			return -EIO;
		}
	}
	c = (struct cur){p + 4, p + 4 + len, false};
	cie_ptr = cur_fixed(&c, 4);
	ret = cie_ptr && cie_ptr <= off + 4 ? get_cie(t, off + 4 - cie_ptr, &cie) : -EIO;
	if (ret == 0 &&
	    (cie->ra != CFI_RA ||
	     !read_ptr(&c, cie->fde_enc, t->eh_addr + off + (uint64_t)(c.p - p), &start) ||
	     !read_ptr(&c, cie->fde_enc & 0x0f, 0, &range)))
		ret = -ENOTSUP;
	if (ret == 0 && (vaddr < start || vaddr - start >= range))
		ret = -ENOENT;
	if (ret == 0 && cie->zaug)
		cur_skip(&c, cur_uleb(&c));
	if (ret == 0 && c.bad)
		ret = -EIO;
	if (ret == 0) {
		memset(&r, 0, sizeof(r));
		r.s.cfa_reg = NO_REG;
		r.cie = cie;
		r.vaddr = vaddr;
		r.loc = r.lo = start;
		ret = run_insns(&r, cie->insns, cie->insns + cie->ninsns);
	}
	if (ret == 0) {
		struct state init = r.s;

		r.init = &init;
		ret = run_insns(&r, c.p, c.end);
		if (ret == 0 && (ret = row_out(&r, row)) == 0) {
			*lo = r.lo;
			*hi = r.done ? r.hi : start + range;
			if (r.s.plt_at)
				plt_row(r.s.plt_at, vaddr, row, lo, hi);
		}
	}
	free(big);
	return ret;
}

int eh_frame_row(struct eh_frame *t, uint64_t vaddr, struct cfi_row *row, uint64_t *lo,
		 uint64_t *hi)
{
	int64_t rel = (int64_t)(vaddr - t->hdr_addr);
	size_t a = 0, b = t->n;
	uint64_t fde;

	if (rel < INT32_MIN || rel > INT32_MAX)
		return -ENOENT;
	/* The last entry that starts at or below vaddr. */
	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (t->table[m][0] <= rel)
			a = m + 1;
		else
			b = m;
	}
	if (!a)
		return -ENOENT;
	fde = t->hdr_addr + (uint64_t)(int64_t)t->table[a - 1][1];
	if (fde < t->eh_addr || fde - t->eh_addr >= t->eh_size)
		return -EIO;
	return run_fde(t, fde - t->eh_addr, vaddr, row, lo, hi);
}

/* Whether section sh has bytes in the file: PROGBITS, or x86-64's type for unwind tables (lld's). */
static bool has_bytes(const GElf_Shdr *sh)
{
	return sh->sh_type == SHT_PROGBITS || sh->sh_type == SHT_X86_64_UNWIND;
}

int eh_frame_open(struct eh_frame *t, Elf *e, int fd, const unsigned char *mem, size_t memlen)
{
	GElf_Shdr hs, es;
	uint8_t head[12];
	struct stat st;
	uint64_t size = memlen, n;

	memset(t, 0, sizeof(*t));
	t->fd = fd;
	t->mem = mem;
	t->memlen = memlen;
	for (unsigned i = 0; i < EH_CIES; i++)
		t->cies[i].off = UINT64_MAX;
	if (fd >= 0) {
		if (fstat(fd, &st) < 0)
			return -EIO;
		size = (uint64_t)st.st_size;
	}
	if (!elf_section(e, ".eh_frame_hdr", &hs) || !elf_section(e, ".eh_frame", &es) ||
	    !has_bytes(&hs) || !has_bytes(&es) || hs.sh_size < 12 || hs.sh_offset > size ||
	    hs.sh_size > size - hs.sh_offset || es.sh_offset > size ||
	    es.sh_size > size - es.sh_offset)
		return -ENOENT;
	t->eh_addr = es.sh_addr;
	t->eh_off = es.sh_offset;
	t->eh_size = es.sh_size;
	t->hdr_addr = hs.sh_addr;
	if (!read_file(t, hs.sh_offset, head, sizeof(head)))
		return -EIO;
	/* Version 1; a 4-byte .eh_frame pointer; the count udata4; the table datarel sdata4. */
	if (head[0] != 1 || (head[1] & 0x07) != DW_EH_PE_udata4 || head[2] != DW_EH_PE_udata4 ||
	    head[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return -ENOENT;
	n = load_u32(head + 8);
	if (!n || n > (hs.sh_size - 12) / 8)
		return -ENOENT;
	t->table = xmalloc(n * sizeof(*t->table));
	if (!read_file(t, hs.sh_offset + 12, t->table, n * sizeof(*t->table))) {
		eh_frame_close(t);
		return -EIO;
	}
	t->n = n;
	if (fd >= 0 && t->eh_size <= WHOLE_MAX) {
		t->whole = xmalloc(t->eh_size ? t->eh_size : 1);
		if (!read_file(t, t->eh_off, t->whole, t->eh_size)) {
			eh_frame_close(t);
			return -EIO;
		}
	}
	return 0;
}

void eh_frame_close(struct eh_frame *t)
{
	free(t->table);
	free(t->whole);
	t->table = NULL;
	t->whole = NULL;
	t->n = 0;
}
