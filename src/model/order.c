/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * order.c - the time-ordering queue; see order.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "model/order.h"
#include "util/alloc.h"
#include "util/pages.h"

void order_init(struct order *q)
{
	memset(q, 0, sizeof(*q));
	sbuf_init(&q->bytes);
	sbuf_init(&q->spare);
}

void order_release(struct order *q)
{
	sbuf_release(&q->bytes);
	sbuf_release(&q->spare);
	free(q->ents);
	free(q->tmp);
	order_init(q);
}

void *order_push_begin(struct order *q, uint32_t max_len)
{
	sbuf_grow(&q->bytes, max_len);
	return q->bytes.buf + q->bytes.len;
}

void order_push_end(struct order *q, uint32_t len, uint64_t time)
{
	struct order_ent *e;

	xgrow(&q->ents, &q->ents_cap, q->n + 1, sizeof(*q->ents));
	e = &q->ents[q->n++];
	e->time = time;
	e->off = q->bytes.len;
	e->len = len;
	sbuf_setlen(&q->bytes, q->bytes.len + len);
	if (q->bytes.len > q->held)
		q->held = q->bytes.len;
	if (q->bytes.len > q->touched)
		q->touched = q->bytes.len;
}

void order_push(struct order *q, const void *rec, uint32_t len, uint64_t time)
{
	memcpy(order_push_begin(q, len), rec, len);
	order_push_end(q, len, time);
}

/* The end of the run in time order that starts at i. */
static size_t run_end(const struct order_ent *a, size_t i, size_t n)
{
	while (++i < n && a[i - 1].time <= a[i].time)
		;
	return i;
}

/*
 * Sorts ents by time, equal times in their order in the array: passes
 * that merge each two neighbouring runs into tmp, the left one first on
 * equal times, until one run is left. The kept prefix is in push order
 * among equal times and everything after it was pushed later, so the
 * array's order is the push order the queue promises.
 */
static void sort_ents(struct order *q)
{
	xgrow(&q->tmp, &q->tmp_cap, q->n, sizeof(*q->tmp));
	for (;;) {
		struct order_ent *a = q->ents, *out = q->tmp;
		size_t n = q->n, i = 0, o = 0, cap;

		while (i < n) {
			size_t mid = run_end(a, i, n), end = mid < n ? run_end(a, mid, n) : n;
			size_t l = i, r = mid;

			if (i == 0 && mid == n)
				return; /* one run: sorted */
			while (l < mid && r < end)
				out[o++] = a[r].time < a[l].time ? a[r++] : a[l++];
			while (l < mid)
				out[o++] = a[l++];
			while (r < end)
				out[o++] = a[r++];
			i = end;
		}
		/* The merged runs are the array now; tmp gets the old one. */
		q->tmp = a;
		q->ents = out;
		cap = q->tmp_cap;
		q->tmp_cap = q->ents_cap;
		q->ents_cap = cap;
	}
}

/*
 * The records kept stay where they are until the delivered ones leave
 * more room than they take (and at least COMPACT_MIN): a flush that keeps
 * many records (20 ms of them, with a stack copy each) would otherwise
 * copy them all again at every round, hundreds of megabytes a second.
 * Compacting then moves each byte a bounded number of times.
 */
#define COMPACT_MIN (1u << 20)

void order_flush(struct order *q, uint64_t limit, order_deliver_fn fn, void *arg)
{
	size_t i, kept, keep_len = 0;

	if (!q->n)
		return;
	sort_ents(q);
	for (i = 0; i < q->n && q->ents[i].time <= limit; i++)
		fn(q->bytes.buf + q->ents[i].off, q->ents[i].len, arg);
	kept = q->n - i;
	q->n = 0;
	if (!kept) {
		sbuf_reset(&q->bytes);
		return;
	}
	for (size_t j = i; j < i + kept; j++)
		keep_len += q->ents[j].len;
	if (q->bytes.len - keep_len < keep_len || q->bytes.len - keep_len < COMPACT_MIN) {
		/* Not worth a copy yet: the kept entries move down, their bytes stay. */
		memmove(q->ents, q->ents + i, kept * sizeof(*q->ents));
		q->n = kept;
		return;
	}
	/* The rest, in order, compacted into the spare buffer, which becomes the buffer. */
	sbuf_reset(&q->spare);
	sbuf_grow(&q->spare, keep_len);
	for (size_t j = i; j < i + kept; j++) {
		struct order_ent e = q->ents[j];

		sbuf_addn(&q->spare, q->bytes.buf + e.off, e.len);
		e.off = q->spare.len - e.len;
		q->ents[q->n++] = e;
	}
	{
		struct sbuf b = q->bytes;

		q->bytes = q->spare;
		q->spare = b;
	}
}

/* The room order_shed keeps whatever was held: a round's usual records. */
#define SHED_KEEP_MIN (1u << 20)

/* b's room past its first keep bytes (and its own bytes and NUL) given back. */
static void shed_room(struct sbuf *b, size_t keep)
{
	if (keep <= b->len)
		keep = b->len + 1;
	if (b->cap > keep)
		pages_give_back_room(b->buf + keep, b->cap - keep);
}

void order_shed(struct order *q)
{
	size_t keep = q->held < SHED_KEEP_MIN / 2 ? SHED_KEEP_MIN : 2 * q->held;

	if (q->touched > keep + SHED_KEEP_MIN) {
		shed_room(&q->bytes, keep);
		shed_room(&q->spare, keep);
		q->touched = keep;
	}
	q->held = q->bytes.len;
}
