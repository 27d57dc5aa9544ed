/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind-splice.c - a walk by the tables that ended early, carried on
 * along the kernel's frame-pointer chain; see unwind-int.h.
 *
 * Invariant: the frames given are never fewer, further out, than the
 * chain's own beyond the walk: what the chain found past the last frame
 * the walk reached is always kept (a frame-pointer-only recording of the
 * same sample has no frame this misses, but for those the tables proved
 * to be no frame). Frames are matched by the stack address each return
 * address was read at, never by its value alone: a recursion has the
 * same return address at many depths.
 */
#include "config.h"

#include <linux/perf_event.h>

#include "stack/unwind-int.h"
#include "util/bytes.h"

/* The chain's entries up to its end (a 0, or a marker read as an address). */
static size_t chain_len(const unsigned char *chain, size_t nchain)
{
	size_t m = 0;

	while (m < nchain) {
		uint64_t a = load_u64(chain + m * 8);

		if (a == 0 || a >= (uint64_t)PERF_CONTEXT_MAX)
			break;
		m++;
	}
	return m;
}

/*
 * Where the kernel read the chain's entries: pos[k], the address of
 * entry k (1 <= k < the count returned), following the frame records
 * from the sampled rbp through the copy, each one further out than the
 * one before. What the copy holds of them must be what the kernel read.
 * Beyond a record the copy does not hold, the next ones are not known.
 * A record on another stack (below the copy: Go's runtime calls the vDSO
 * from its thread's system stack, its caller's record on the goroutine's)
 * is taken only where the walk ended looking for its last frame's return
 * address: the kernel read the next entry at that very address.
 */
static size_t chain_positions(const struct unwind_walk *w, const unsigned char *chain, size_t m,
			      cfi_read_fn read, void *arg, uint64_t *pos)
{
	uint64_t bp = w->bp, word;
	uint64_t last = w->end == UNWIND_SHORT_STACK && w->nslots == w->n ? w->slots[w->n - 1] : 0;
	size_t k;

	if (!w->bp_known)
		return 1;
	for (k = 1; k < m && k < SPLICE_MAX_CHAIN; k++) {
		/* A record lies on the stack, above the one before (the kernel's walk may not). */
		if (bp < w->sp || bp > UINT64_MAX - 16 || (k > 1 && bp + 8 <= pos[k - 1])) {
			if (last && bp <= UINT64_MAX - 16 && bp + 8 == last &&
			    read(arg, bp + 8, &word) < 0) {
				pos[k] = last;
				return k + 1;
			}
			break;
		}
		if (read(arg, bp + 8, &word) == 0 && word != load_u64(chain + k * 8))
			break;
		pos[k] = bp + 8;
		if (read(arg, bp, &word) < 0)
			return k + 1;
		bp = word;
	}
	return k;
}

/* Appends chain[k, m), return addresses all, to ips[0, n); the new count. */
static int append(const struct unwind_walk *w, const unsigned char *chain, size_t k, size_t m,
		  int n, struct unwind_result *res)
{
	res->end = UNWIND_COMPLETE;
	for (; k < m; k++) {
		if (n == w->max) {
			res->end = UNWIND_TOO_DEEP;
			break;
		}
		w->ips[n++] = load_u64(chain + k * 8) - 1;
	}
	return n;
}

/* How the chain's entries that the walk covers compare with its frames. */
struct match {
	long last_f, last_k; /* the outermost frame both agree on, and its entry */
	size_t beyond;	     /* the first entry further out than the walk (0: none) */
	bool at_end;	     /* that entry is where the walk's last frame's return address is */
	bool not_ra;	     /* an entry where the tables have no return address */
	bool astray;	     /* one after the last frame both agree on */
	bool skipped;	     /* a frame of the walk whose return address the chain passed by */
};

/* The outermost stack address the walk knows a return address at (0: none). */
static uint64_t walk_reach(const struct unwind_walk *w)
{
	uint64_t top = 0;

	for (int i = 0; i < w->nslots; i++)
		if (w->slots[i] > top)
			top = w->slots[i];
	return top;
}

/* Frame i's return address read at pos, where the tables put it: entry k agrees. */
static bool agrees(const struct unwind_walk *w, const unsigned char *chain, size_t k, int i,
		   uint64_t pos)
{
	return i + 1 < w->n && w->slots[i] == pos && load_u64(chain + k * 8) == w->ips[i + 1] + 1;
}

static void match_chain(const struct unwind_walk *w, const unsigned char *chain,
			const uint64_t *pos, size_t npos, size_t m, struct match *mt)
{
	uint64_t reach = walk_reach(w), last = w->nslots == w->n ? w->slots[w->n - 1] : 0;
	uint64_t chain_reach = npos < m ? UINT64_MAX : pos[npos - 1];
	uint64_t matched = 0; /* of the walk's first 64 frames */

	*mt = (struct match){.last_f = 0, .last_k = 0};
	for (size_t k = 1; k < npos; k++) {
		int i;

		if (last && pos[k] == last) {
			if (w->refused)
				continue; /* the word the walk refused: no frame to either */
			mt->beyond = k;
			mt->at_end = true;
			break;
		}
		if (pos[k] > reach) {
			mt->beyond = k;
			break;
		}
		for (i = 0; i + 1 < w->n && i < w->nslots && !agrees(w, chain, k, i, pos[k]); i++)
			;
		if (i + 1 < w->n && i < w->nslots) {
			mt->last_f = i + 1;
			mt->last_k = (long)k;
			mt->astray = false;
			if (i < 64)
				matched |= 1ULL << i;
		} else {
			mt->not_ra = mt->astray = true;
		}
	}
	/* Beyond the known records the chain goes on: it reaches every frame of the walk. */
	if (!mt->beyond && npos < m && npos > 1 && pos[npos - 1] > reach)
		mt->beyond = npos;
	for (int i = 0; i + 1 < w->n && i < w->nslots && i < 64; i++)
		if (w->slots[i] && w->slots[i] < chain_reach && !(matched >> i & 1))
			mt->skipped = true;
}

void unwind_splice(const struct unwind_walk *w, const unsigned char *chain, size_t nchain,
		   cfi_read_fn read, void *arg, struct unwind_result *res)
{
	uint64_t pos[SPLICE_MAX_CHAIN];
	size_t m = chain_len(chain, nchain), npos;
	struct match mt;

	res->n = w->n;
	res->end = w->end;
	res->how = UNWIND_BY_CFI;
	res->judge = UNWIND_UNJUDGED;
	if (m < 2 || w->end == UNWIND_COMPLETE || w->end == UNWIND_TOO_DEEP ||
	    load_u64(chain) != w->ips[0])
		return;
	npos = chain_positions(w, chain, m, read, arg, pos);
	if (npos < 2)
		return;
	match_chain(w, chain, pos, npos, m, &mt);
	res->judge = mt.not_ra	  ? UNWIND_TABLES_NOT_RA
		     : mt.skipped ? UNWIND_TABLES_SKIPPED
				  : UNWIND_AGREED;
	if (!mt.beyond)
		return;
	if (w->end == UNWIND_BAD_FRAME && mt.astray) {
		/* The walk went astray where the chain did not: the chain's from there. */
		res->n = append(w, chain, (size_t)mt.last_k + 1, m, (int)mt.last_f + 1, res);
		res->how = UNWIND_BY_SPLICE;
		res->judge = UNWIND_CHAIN_WON;
		return;
	}
	res->n = append(w, chain, mt.beyond, m, w->n, res);
	res->how = mt.at_end ? UNWIND_BY_SPLICE : UNWIND_BY_SPLICE_PAST;
}
