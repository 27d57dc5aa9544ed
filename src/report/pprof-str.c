/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pprof-str.c - the string table of a pprof profile, which the samples'
 * functions (fmt-pprof.c) and the mappings (fmt-pprof-maps.c) both add to.
 */
#include "config.h"

#include "report/pprof-int.h"
#include "util/alloc.h"
#include "util/sbuf.h"
#include "util/utf8.h"

/*
 * The string table index of s, added if new; "" is index 0. Protocol
 * buffers' strings must be UTF-8 (a reader rejects the whole profile for
 * one that is not, such as a thread name the kernel cut inside a
 * character): s is stored as sbuf_add_printable makes it.
 */
uint64_t pprof_str_id(struct pprof *x, const char *s)
{
	struct hmap_slot *slot;
	uint32_t off;
	bool added;

	sbuf_reset(&x->valid);
	sbuf_add_printable(&x->valid, s);
	off = strtab_add(&x->str, x->valid.buf);
	if (off == 0)
		return 0;
	slot = hmap_insert(&x->str_ids, off, &added);
	if (added) {
		xgrow(&x->str_order, &x->str_cap, x->nstr + 1, sizeof(*x->str_order));
		x->str_order[x->nstr] = off;
		slot->val = x->nstr++;
	}
	return slot->val;
}
