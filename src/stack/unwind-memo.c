/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind-memo.c - the memo of unwinds met again (see unwind-int.h): an
 * unwind kept is given again only where every register and word of the
 * stack it read is the same, under the same mappings.
 */
#include "config.h"

#include <string.h>

#include "stack/unwind-int.h"
#include "util/alloc.h"
#include "util/bytes.h"
#include "util/hash.h"

/*
 * Whether a row computes the CFA from the stack or frame pointer alone,
 * the return address from the stack, the stack pointer from the CFA or
 * its callee's, and the other registers from the CFA, the stack or their
 * callee's values: a step that reads no register but those two, whose
 * result for the next frame depends on no word but the return address's
 * and the frame pointer's (memo_step).
 */
static bool plain_row(const struct cfi_row *row)
{
	if (row->signal || row->sp_moved || row->bp_caller || row->cfa.kind != CFI_REG ||
	    (row->cfa.reg != CFI_RSP && row->cfa.reg != CFI_RBP))
		return false;
	for (int i = 0; i < CFI_NKEPT; i++) {
		uint8_t k = row->rules[i].kind;

		if (k != CFI_UNDEF && k != CFI_SAME && k != CFI_AT && k != CFI_VAL)
			return false;
		if (cfi_kept[i] == CFI_RSP && k == CFI_AT)
			return false;
	}
	return row->rules[CFI_NKEPT - 1].kind == CFI_AT ||
	       row->rules[CFI_NKEPT - 1].kind == CFI_UNDEF;
}

/* Whether an unwind that ended so went as far as it could: no chain would carry it on. */
static bool whole(enum unwind_end end)
{
	return end == UNWIND_COMPLETE || end == UNWIND_TOO_DEEP;
}

/*
 * The memo's slot for the unwind of pid from the caller's frame g, where
 * the sample's own frame is done (c); when it holds that unwind (every
 * register and word it read the same), its frames go after those at
 * ips[0, *n) and the answer is the sample's: NULL then. Else the slot to
 * keep it in, logged from now on.
 */
struct memo *memo_find(struct memo **table, uint64_t *hits, uint32_t pid, uint64_t gen,
		       const struct cfi_regs *g, struct uctx *c, struct memo *log, uint64_t *ips,
		       int *n, struct unwind_result *res)
{
	uint64_t pc = g->r[CFI_RA], sp = g->r[CFI_RSP], bp = g->r[CFI_RBP], at = sp - c->sp;
	struct memo *m;

	if (!*table)
		*table = xcalloc(MEMO_SLOTS, sizeof(**table));
	m = &(*table)[hash_u64(pc ^ hash_u64(sp ^ pid)) & (MEMO_SLOTS - 1)];
	if (m->gen == gen && m->pid == pid && m->pc == pc && m->sp == sp &&
	    (!m->bp_used || m->bp == bp) && (!c->whole_only || whole(m->end))) {
		uint16_t i = 0;

		while (i < m->nwords && c->len >= 8 && at + m->off[i] <= c->len - 8 &&
		       load_u64(c->stack + at + m->off[i]) == m->val[i])
			i++;
		if (i == m->nwords) {
			memcpy(ips + *n, m->ips, m->n * sizeof(*ips));
			*n += m->n;
			res->end = (enum unwind_end)m->end;
			res->how = UNWIND_BY_CFI;
			if (at + m->want > c->want)
				c->want = at + m->want;
			(*hits)++;
			return NULL;
		}
	}
	/* What the sample's own frame did (a row not plain) does not count from here. */
	*log = (struct memo){.gen = gen, .pc = pc, .sp = sp, .bp = bp, .pid = pid};
	c->log = log;
	c->unkept = false;
	c->bp_kept = true;
	return m;
}

/* Into slot m: the unwind logged in c, its frames ips[0, n), if the memo may keep it. */
void memo_keep(struct memo *m, const struct uctx *c, const uint64_t *ips, int n,
	       const struct unwind_result *res)
{
	struct memo *log = c->log;

	if (c->unkept || res->how != UNWIND_BY_CFI || n > MEMO_IPS ||
	    (c->whole_only && !whole(res->end)))
		return;
	memcpy(log->ips, ips, (size_t)n * sizeof(*ips));
	log->n = (uint8_t)n;
	log->end = (uint8_t)res->end;
	log->bp_used = c->bp_used;
	*m = *log;
}

/* Word val at addr into the memo's log; unkept when it does not fit. */
static void memo_log(struct uctx *c, uint64_t addr, uint64_t val)
{
	struct memo *m = c->log;

	if (m->nwords == MEMO_WORDS || addr < m->sp || addr - m->sp > UINT16_MAX) {
		c->unkept = true;
		return;
	}
	m->off[m->nwords] = (uint16_t)(addr - m->sp);
	m->val[m->nwords++] = val;
}

/*
 * The memo's side of the step of row from in (before it, stepped false;
 * after it, to out with CFA cfa): an unwind through a row not plain is
 * not kept. A step reads the words of the registers the row restores;
 * the result depends only on those of the return address, and on the
 * frame pointer's where a later row reads it (its CFA, or a frame record
 * guessed): those are logged. Saved values of other registers may change
 * from sample to sample at the same place.
 */
void memo_step(struct uctx *c, const struct cfi_row *row, bool guessed, bool stepped,
	       const struct cfi_regs *in, const struct cfi_regs *out, uint64_t cfa)
{
	const struct cfi_rule *bp, *ra = &row->rules[CFI_NKEPT - 1];

	if (!c->log)
		return;
	bp = cfi_bp_rule(row, in, cfa);
	if (!stepped) {
		if (!plain_row(row))
			c->unkept = true;
		if (!guessed && row->cfa.reg != CFI_RBP && !row->bp_frame)
			return;
		if (c->bp_kept)
			c->bp_used = true;
		else if (c->bp_pending)
			memo_log(c, c->bp_slot, c->bp_val);
		c->bp_pending = false;
		return;
	}
	if (ra->kind == CFI_AT)
		memo_log(c, cfa + (uint64_t)(int64_t)ra->off, out->r[CFI_RA]);
	/* Kept by the row, or by a slot already popped (cfi_step's CFI_AT). */
	if (bp->kind == CFI_SAME || (bp->kind == CFI_AT && cfi_known(in, CFI_RSP) &&
				     cfa + (uint64_t)(int64_t)bp->off < in->r[CFI_RSP]))
		return;
	c->bp_kept = false;
	c->bp_pending = bp->kind == CFI_AT;
	c->bp_slot = cfa + (uint64_t)(int64_t)bp->off;
	c->bp_val = out->r[CFI_RBP];
}
