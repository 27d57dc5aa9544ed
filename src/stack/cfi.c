/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cfi.c - call frame information rows and unwinding steps; see cfi.h.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "stack/cfi.h"
#include "util/alloc.h"
#include "util/array.h"

const uint8_t cfi_kept[CFI_NKEPT] = {CFI_RBX, CFI_RBP, CFI_RSP, 12, 13, 14, 15, CFI_RA};

/* The longest expression a row keeps, and the most operations a pool holds. */
#define EXPR_MAX 64
#define POOL_MAX (1u << 16)

void cfi_pool_release(struct cfi_pool *p)
{
	free(p->ops);
	memset(p, 0, sizeof(*p));
}

/* Whether two expressions are the same operations (fields compared: Dwarf_Op has padding). */
static bool ops_equal(const Dwarf_Op *a, const Dwarf_Op *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].atom != b[i].atom || a[i].number != b[i].number ||
		    a[i].number2 != b[i].number2)
			return false;
	return true;
}

/* Copies ops[0..n) into the pool; the index, or -ENOTSUP. */
static int pool_add(struct cfi_pool *p, const Dwarf_Op *ops, size_t n)
{
	int at;

	if (n > EXPR_MAX || p->n + n > POOL_MAX)
		return -ENOTSUP;
	/* The same expression again (every PLT entry's): shared. */
	for (size_t i = 0; i + n <= p->n; i++)
		if (ops_equal(p->ops + i, ops, n))
			return (int)i;
	xgrow(&p->ops, &p->cap, p->n + n, sizeof(*p->ops));
	memcpy(p->ops + p->n, ops, n * sizeof(*ops));
	at = (int)p->n;
	p->n += n;
	return at;
}

/* An offset as a row keeps it; false when it does not fit. */
static bool fits_off(uint64_t v, int32_t *off)
{
	int64_t s = (int64_t)v;

	if (s < INT32_MIN || s > INT32_MAX)
		return false;
	*off = (int32_t)s;
	return true;
}

/*
 * A register rule from libdw's description of it (dwarf_frame_register):
 * no operations and no array for "same value", no operations for
 * "undefined", the CFA plus an offset for the usual rules, else an
 * expression.
 */
static int rule_of(const Dwarf_Op *ops, size_t n, struct cfi_pool *pool, struct cfi_rule *r)
{
	bool value = n && ops[n - 1].atom == DW_OP_stack_value;
	size_t m = value ? n - 1 : n;
	int at;

	memset(r, 0, sizeof(*r));
	if (n == 0) {
		r->kind = ops ? CFI_UNDEF : CFI_SAME;
		return 0;
	}
	if (m >= 1 && m <= 2 && ops[0].atom == DW_OP_call_frame_cfa &&
	    (m == 1 || (ops[1].atom == DW_OP_plus_uconst && fits_off(ops[1].number, &r->off)))) {
		r->kind = value ? CFI_VAL : CFI_AT;
		return 0;
	}
	if (n == 1 && ops[0].atom == DW_OP_regx && ops[0].number < CFI_NREGS) {
		r->kind = CFI_REG;
		r->reg = (uint8_t)ops[0].number;
		return 0;
	}
	if ((at = pool_add(pool, ops, m)) < 0)
		return at;
	r->kind = value ? CFI_VAL_EXPR : CFI_EXPR;
	r->off = at;
	r->nops = (uint16_t)m;
	return 0;
}

/* The CFA rule from dwarf_frame_cfa's expression: a register and offset, else the expression. */
static int cfa_of(const Dwarf_Op *ops, size_t n, struct cfi_pool *pool, struct cfi_rule *r)
{
	int at;

	memset(r, 0, sizeof(*r));
	if (n == 0)
		return -ENOTSUP;
	if (n == 1 && ops[0].atom == DW_OP_bregx && ops[0].number < CFI_NREGS &&
	    fits_off(ops[0].number2, &r->off)) {
		r->kind = CFI_REG;
		r->reg = (uint8_t)ops[0].number;
		return 0;
	}
	if (n == 1 && ops[0].atom >= DW_OP_breg0 && ops[0].atom < DW_OP_breg0 + CFI_NREGS &&
	    fits_off(ops[0].number, &r->off)) {
		r->kind = CFI_REG;
		r->reg = (uint8_t)(ops[0].atom - DW_OP_breg0);
		return 0;
	}
	if ((at = pool_add(pool, ops, n)) < 0)
		return at;
	r->kind = CFI_VAL_EXPR;
	r->off = at;
	r->nops = (uint16_t)n;
	return 0;
}

static bool is_at(const struct cfi_rule *r, int32_t off)
{
	return r->kind == CFI_AT && r->off == off;
}

int cfi_row_find(Dwarf_CFI *cfi, uint64_t vaddr, struct cfi_pool *pool, struct cfi_row *row)
{
	uint64_t lo, hi;

	return cfi_row_find_span(cfi, vaddr, pool, row, &lo, &hi);
}

/*
 * Whether [lo, hi), the addresses libdw says the row of vaddr holds for,
 * is right: libdw's start of a row that DW_CFA_restore_state brought
 * back is that of an earlier row (gcc restores the body's row after an
 * epilogue: glibc's msort_with_tmp after its tail call to memcpy is
 * said to start at the epilogue's first pop). The row at lo must say the
 * same range.
 */
static bool span_holds(Dwarf_CFI *cfi, uint64_t vaddr, uint64_t lo, uint64_t hi)
{
	Dwarf_Addr start, end;
	Dwarf_Frame *f;
	bool ok;

	if (lo == vaddr)
		return true;
	if (dwarf_cfi_addrframe(cfi, lo, &f) != 0)
		return false;
	ok = dwarf_frame_info(f, &start, &end, NULL) == CFI_RA && start == lo &&
	     (end > start ? end : start + 1) == hi;
	free(f);
	return ok;
}

int cfi_row_find_span(Dwarf_CFI *cfi, uint64_t vaddr, struct cfi_pool *pool, struct cfi_row *row,
		      uint64_t *lo, uint64_t *hi)
{
	Dwarf_Frame *f;
	Dwarf_Op *ops, mem[3];
	Dwarf_Addr start, end;
	size_t n;
	bool signal;
	int ret;

	memset(row, 0, sizeof(*row));
	if (!cfi || dwarf_cfi_addrframe(cfi, vaddr, &f) != 0)
		return -ENOENT;
	if (dwarf_frame_info(f, &start, &end, &signal) != CFI_RA) {
		ret = -ENOTSUP; /* a return address in another column: not x86-64's CFI */
		goto out;
	}
	*lo = start;
	*hi = end > start ? end : start + 1;
	if (!span_holds(cfi, vaddr, *lo, *hi)) {
		*lo = vaddr;
		*hi = vaddr + 1;
	}
	if (signal) {
		row->signal = true;
		ret = 0;
		goto out;
	}
	if (dwarf_frame_cfa(f, &ops, &n) != 0 || (ret = cfa_of(ops, n, pool, &row->cfa)) < 0) {
		ret = -ENOTSUP;
		goto out;
	}
	for (int i = 0; i < CFI_NKEPT; i++) {
		if (dwarf_frame_register(f, cfi_kept[i], mem, &ops, &n) != 0) {
			ret = -ENOTSUP;
			goto out;
		}
		if ((ret = rule_of(ops, n, pool, &row->rules[i])) < 0)
			goto out;
	}
	row->fp = row->cfa.kind == CFI_REG && row->cfa.reg == CFI_RBP && row->cfa.off == 16 &&
		  is_at(&row->rules[1], -16) && is_at(&row->rules[CFI_NKEPT - 1], -8);
	ret = 0;
out:
	free(f);
	return ret;
}

void cfi_row_fp(struct cfi_row *row)
{
	memset(row, 0, sizeof(*row));
	row->cfa = (struct cfi_rule){.kind = CFI_REG, .reg = CFI_RBP, .off = 16};
	for (int i = 0; i < CFI_NKEPT; i++)
		row->rules[i].kind = CFI_SAME;
	row->rules[1] = (struct cfi_rule){.kind = CFI_AT, .off = -16};
	row->rules[2] = (struct cfi_rule){.kind = CFI_VAL, .off = 0};
	row->rules[CFI_NKEPT - 1] = (struct cfi_rule){.kind = CFI_AT, .off = -8};
	row->fp = true;
}

/* What evaluating an expression needs besides the operations. */
struct eval_env {
	const struct cfi_regs *regs;
	uint64_t cfa;
	bool have_cfa;
	cfi_read_fn read;
	void *arg;
};

static int reg_value(const struct cfi_regs *g, uint64_t r, uint64_t *v)
{
	if (r >= CFI_NREGS || !cfi_known(g, (int)r))
		return -EINVAL;
	*v = g->r[r];
	return 0;
}

/* The value of binary operation at on a (deeper) and b; false for another operation. */
static bool binary_op(uint8_t at, uint64_t a, uint64_t b, uint64_t *out)
{
	switch (at) {
	case DW_OP_plus:
		*out = a + b;
		return true;
	case DW_OP_minus:
		*out = a - b;
		return true;
	case DW_OP_mul:
		*out = a * b;
		return true;
	case DW_OP_and:
		*out = a & b;
		return true;
	case DW_OP_or:
		*out = a | b;
		return true;
	case DW_OP_xor:
		*out = a ^ b;
		return true;
	case DW_OP_shl:
		*out = b < 64 ? a << b : 0;
		return true;
	case DW_OP_shr:
		*out = b < 64 ? a >> b : 0;
		return true;
	case DW_OP_shra:
		*out = (uint64_t)((int64_t)a >> (b < 63 ? b : 63));
		return true;
	/* Comparisons are signed, as DWARF says. */
	case DW_OP_eq:
		*out = a == b;
		return true;
	case DW_OP_ne:
		*out = a != b;
		return true;
	case DW_OP_lt:
		*out = (int64_t)a < (int64_t)b;
		return true;
	case DW_OP_le:
		*out = (int64_t)a <= (int64_t)b;
		return true;
	case DW_OP_gt:
		*out = (int64_t)a > (int64_t)b;
		return true;
	case DW_OP_ge:
		*out = (int64_t)a >= (int64_t)b;
		return true;
	default:
		return false;
	}
}

/* An expression's stack: at most 16 values. */
struct estack {
	uint64_t v[16];
	size_t n;
};

static int push(struct estack *st, uint64_t v)
{
	if (st->n == ARRAY_SIZE(st->v))
		return -EINVAL;
	st->v[st->n++] = v;
	return 0;
}

/* The value an operation pushes that reads nothing off the stack; -ENOENT for others. */
static int leaf_op(const Dwarf_Op *op, const struct eval_env *env, uint64_t *v)
{
	uint8_t at = op->atom;
	int ret;

	if (at >= DW_OP_lit0 && at <= DW_OP_lit31) {
		*v = (uint64_t)(at - DW_OP_lit0);
		return 0;
	}
	if (at >= DW_OP_breg0 && at <= DW_OP_breg31) {
		if ((ret = reg_value(env->regs, at - DW_OP_breg0, v)) < 0)
			return ret;
		*v += op->number;
		return 0;
	}
	switch (at) {
	case DW_OP_const1u:
	case DW_OP_const1s:
	case DW_OP_const2u:
	case DW_OP_const2s:
	case DW_OP_const4u:
	case DW_OP_const4s:
	case DW_OP_const8u:
	case DW_OP_const8s:
	case DW_OP_constu:
	case DW_OP_consts:
		*v = op->number;
		return 0;
	case DW_OP_bregx:
		if ((ret = reg_value(env->regs, op->number, v)) < 0)
			return ret;
		*v += op->number2;
		return 0;
	case DW_OP_call_frame_cfa:
		if (!env->have_cfa)
			return -EINVAL;
		*v = env->cfa;
		return 0;
	default:
		return -ENOENT;
	}
}

/* An operation on the values on the stack. */
static int stack_op(const Dwarf_Op *op, const struct eval_env *env, struct estack *st)
{
	uint64_t *top = st->n ? &st->v[st->n - 1] : NULL, v;

	switch (op->atom) {
	case DW_OP_dup:
		return top ? push(st, *top) : -EINVAL;
	case DW_OP_drop:
		if (!top)
			return -EINVAL;
		st->n--;
		return 0;
	case DW_OP_over:
		return st->n >= 2 ? push(st, st->v[st->n - 2]) : -EINVAL;
	case DW_OP_swap:
		if (st->n < 2)
			return -EINVAL;
		v = *top;
		*top = st->v[st->n - 2];
		st->v[st->n - 2] = v;
		return 0;
	case DW_OP_deref:
		return top ? env->read(env->arg, *top, top) : -EINVAL;
	case DW_OP_plus_uconst:
		if (!top)
			return -EINVAL;
		*top += op->number;
		return 0;
	case DW_OP_neg:
	case DW_OP_not:
		if (!top)
			return -EINVAL;
		*top = op->atom == DW_OP_neg ? -*top : ~*top;
		return 0;
	default:
		if (st->n < 2 || !binary_op(op->atom, st->v[st->n - 2], *top, &v))
			return -EINVAL;
		st->v[--st->n - 1] = v;
		return 0;
	}
}

/*
 * A DWARF expression's value, for the operations that call frame
 * information uses (registers, constants, arithmetic, comparisons,
 * memory); anything else is refused.
 */
static int eval(const Dwarf_Op *ops, size_t n, const struct eval_env *env, uint64_t *out)
{
	struct estack st = {.n = 0};
	uint64_t v;
	int ret;

	for (size_t i = 0; i < n; i++) {
		ret = leaf_op(&ops[i], env, &v);
		if (ret == 0)
			ret = push(&st, v);
		else if (ret == -ENOENT)
			ret = stack_op(&ops[i], env, &st);
		if (ret < 0)
			return ret;
	}
	if (st.n == 0)
		return -EINVAL;
	*out = st.v[st.n - 1];
	return 0;
}

/* Register reg of the caller under rule r; 0 with *known false when it is not recoverable. */
static inline int apply_rule(const struct cfi_rule *r, const struct cfi_pool *pool,
			     const struct eval_env *env, int reg, uint64_t *v, bool *known)
{
	uint64_t a;
	int ret;

	*known = false;
	switch (r->kind) {
	case CFI_UNDEF:
		return 0;
	case CFI_SAME:
		if (cfi_known(env->regs, reg)) {
			*v = env->regs->r[reg];
			*known = true;
		}
		return 0;
	case CFI_AT:
		a = env->cfa + (uint64_t)(int64_t)r->off;
		/*
		 * A slot below the stack pointer was popped already: the
		 * epilogue restored the register (gcc says when it pops, not
		 * what). Nothing below the stack pointer is copied anyway.
		 */
		if (reg != CFI_RA && cfi_known(env->regs, CFI_RSP) && a < env->regs->r[CFI_RSP]) {
			if (cfi_known(env->regs, reg)) {
				*v = env->regs->r[reg];
				*known = true;
			}
			return 0;
		}
		if ((ret = env->read(env->arg, a, v)) < 0)
			return ret;
		break;
	case CFI_VAL:
		*v = env->cfa + (uint64_t)(int64_t)r->off;
		break;
	case CFI_REG:
		if (!cfi_known(env->regs, r->reg))
			return 0;
		*v = env->regs->r[r->reg];
		break;
	case CFI_EXPR:
	case CFI_VAL_EXPR:
		if ((ret = eval(pool->ops + r->off, r->nops, env, &a)) < 0)
			return ret;
		if (r->kind == CFI_EXPR && (ret = env->read(env->arg, a, &a)) < 0)
			return ret;
		*v = a;
		break;
	default:
		return -EINVAL;
	}
	*known = true;
	return 0;
}

static int cfa_value(const struct cfi_rule *r, const struct cfi_pool *pool, struct eval_env *env)
{
	int ret;

	if (r->kind == CFI_REG) {
		if (!cfi_known(env->regs, r->reg))
			return -EINVAL;
		env->cfa = env->regs->r[r->reg] + (uint64_t)(int64_t)r->off;
	} else if (r->kind == CFI_VAL_EXPR) {
		if ((ret = eval(pool->ops + r->off, r->nops, env, &env->cfa)) < 0)
			return ret;
	} else {
		return -EINVAL;
	}
	env->have_cfa = true;
	return 0;
}

const struct cfi_rule *cfi_bp_rule(const struct cfi_row *row, const struct cfi_regs *in,
				   uint64_t cfa)
{
	static const struct cfi_rule saved = {.kind = CFI_AT, .off = -16};

	if (row->bp_frame && cfi_known(in, CFI_RBP) && in->r[CFI_RBP] == cfa - 16)
		return &saved;
	return &row->rules[1];
}

int cfi_step(const struct cfi_row *row, const struct cfi_pool *pool, const struct cfi_regs *in,
	     struct cfi_regs *out, uint64_t *cfa, cfi_read_fn read, void *arg)
{
	struct eval_env env = {.regs = in, .read = read, .arg = arg};
	int ret;

	if (row->rules[CFI_NKEPT - 1].kind == CFI_UNDEF)
		return 1;
	if ((ret = cfa_value(&row->cfa, pool, &env)) < 0)
		return ret;
	*cfa = env.cfa;
	out->known = 0;
	for (int i = 0; i < CFI_NKEPT; i++) {
		const struct cfi_rule *r = i == 1 ? cfi_bp_rule(row, in, env.cfa) : &row->rules[i];
		uint64_t v;
		bool known;

		_Static_assert(CFI_NKEPT > 1, "cfi_kept[1] is rbp");
		if ((ret = apply_rule(r, pool, &env, cfi_kept[i], &v, &known)) < 0)
			return ret;
		if (known)
			cfi_set(out, cfi_kept[i], v);
	}
	/* The caller's stack pointer is the CFA, unless a rule said otherwise. */
	if (!cfi_known(out, CFI_RSP))
		cfi_set(out, CFI_RSP, env.cfa);
	return cfi_known(out, CFI_RA) ? 0 : -EINVAL;
}

int cfi_step_signal(Dwarf_CFI *cfi, uint64_t vaddr, const struct cfi_regs *in, struct cfi_regs *out,
		    uint64_t *cfa, cfi_read_fn read, void *arg)
{
	struct eval_env env = {.regs = in, .read = read, .arg = arg};
	struct cfi_pool pool = {0};
	struct cfi_rule cr;
	Dwarf_Frame *f;
	Dwarf_Op *ops, mem[3];
	size_t n;
	int ret;

	if (!cfi || dwarf_cfi_addrframe(cfi, vaddr, &f) != 0)
		return -ENOENT;
	if (dwarf_frame_cfa(f, &ops, &n) != 0 || (ret = cfa_of(ops, n, &pool, &cr)) < 0 ||
	    (ret = cfa_value(&cr, &pool, &env)) < 0) {
		ret = -EINVAL;
		goto out;
	}
	*cfa = env.cfa;
	out->known = 0;
	for (int reg = 0; reg < CFI_NREGS; reg++) {
		struct cfi_rule r;
		uint64_t v;
		bool known;

		if (dwarf_frame_register(f, reg, mem, &ops, &n) != 0 ||
		    rule_of(ops, n, &pool, &r) < 0) {
			ret = -EINVAL;
			goto out;
		}
		if ((ret = apply_rule(&r, &pool, &env, reg, &v, &known)) < 0)
			goto out;
		if (known)
			cfi_set(out, reg, v);
	}
	ret = cfi_known(out, CFI_RA) && cfi_known(out, CFI_RSP) ? 0 : -EINVAL;
out:
	cfi_pool_release(&pool);
	free(f);
	return ret;
}

static uint64_t span_lo(const void *arr, size_t i)
{
	return ((const struct cfi_span *)arr)[i].lo;
}

const struct cfi_row *cfi_spans_find(const struct cfi_spans *s, uint64_t vaddr)
{
	/* Just after the last sorted span that starts at or below vaddr. */
	size_t lo = bsearch_last_le(s->v, s->nsorted, vaddr, span_lo);

	if (lo && vaddr < s->v[lo - 1].hi)
		return &s->v[lo - 1].row;
	for (size_t i = s->nsorted; i < s->n; i++)
		if (s->v[i].lo <= vaddr && vaddr < s->v[i].hi)
			return &s->v[i].row;
	return NULL;
}

static int span_order(const void *a, const void *b)
{
	const struct cfi_span *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* The tail sorted and merged into the sorted part, from the end down, in place. */
static void merge_tail(struct cfi_spans *s)
{
	size_t ntail = s->n - s->nsorted, i = s->nsorted, j = s->n, k;
	struct cfi_span *tail = xmalloc(ntail * sizeof(*tail));

	memcpy(tail, s->v + s->nsorted, ntail * sizeof(*tail));
	qsort(tail, ntail, sizeof(*tail), span_order);
	k = ntail;
	while (k > 0) {
		if (i > 0 && s->v[i - 1].lo > tail[k - 1].lo)
			s->v[--j] = s->v[--i];
		else
			s->v[--j] = tail[--k];
	}
	s->nsorted = s->n;
	free(tail);
}

void cfi_spans_add(struct cfi_spans *s, uint64_t lo, uint64_t hi, const struct cfi_row *row)
{
	if (s->n >= CFI_SPANS_MAX)
		s->n = s->nsorted = 0; /* let go: found again as met */
	xgrow(&s->v, &s->cap, s->n + 1, sizeof(*s->v));
	s->v[s->n++] = (struct cfi_span){lo, hi, *row};
	if (s->n - s->nsorted >= CFI_SPANS_TAIL)
		merge_tail(s);
}

void cfi_spans_release(struct cfi_spans *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
