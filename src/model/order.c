/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * order.c - the time-ordering queue; see order.h.
 */
#include "config.h"

#include <stdlib.h>

#include "model/order.h"
#include "util/util.h"

void order_init(struct order *q)
{
	memset(q, 0, sizeof(*q));
}

void order_release(struct order *q)
{
	free(q->buf);
	free(q->ents);
	order_init(q);
}

void order_push(struct order *q, const void *rec, uint32_t len, uint64_t time)
{
	struct order_ent *e;

	xgrow(&q->buf, &q->cap, q->len + len, 1);
	memcpy(q->buf + q->len, rec, len);
	xgrow(&q->ents, &q->ents_cap, q->n + 1, sizeof(*q->ents));
	e = &q->ents[q->n++];
	e->time = time;
	e->seq = q->seq++;
	e->off = q->len;
	e->len = len;
	q->len += len;
}

static int cmp_ent(const void *a, const void *b)
{
	const struct order_ent *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void order_flush(struct order *q, uint64_t limit, order_deliver_fn fn, void *arg)
{
	size_t i, keep_len = 0;
	unsigned char *rest;

	if (!q->n)
		return;
	qsort(q->ents, q->n, sizeof(*q->ents), cmp_ent);
	for (i = 0; i < q->n && q->ents[i].time <= limit; i++)
		fn(q->buf + q->ents[i].off, q->ents[i].len, arg);
	if (i == q->n) {
		q->n = 0;
		q->len = 0;
		return;
	}
	/* Keep the rest, compacted into a fresh buffer. */
	for (size_t j = i; j < q->n; j++)
		keep_len += q->ents[j].len;
	rest = xmalloc(keep_len);
	keep_len = 0;
	for (size_t j = i; j < q->n; j++) {
		memcpy(rest + keep_len, q->buf + q->ents[j].off, q->ents[j].len);
		q->ents[j - i] = q->ents[j];
		q->ents[j - i].off = keep_len;
		keep_len += q->ents[j].len;
	}
	q->n -= i;
	free(q->buf);
	q->buf = rest;
	q->len = q->cap = keep_len;
}
