/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * order.h - records from every CPU's ring, handed on in time order.
 *
 * Each ring is in time order by itself, but the rings of several CPUs are
 * drained one after another, so a record of one CPU may be older than
 * records already drained from another. The queue holds copies of the
 * records until a flush limit says no older record can still arrive, then
 * delivers them, oldest first; records with equal times keep the order in
 * which they were pushed.
 *
 * A flush sorts by merging the runs already in order (what the last flush
 * kept, then one run per ring drained), so its cost is n log(runs), not
 * n log n; the queue's arrays and buffers keep their size from flush to
 * flush.
 *
 * Invariant: every record pushed is delivered exactly once, by a flush
 * whose limit is at or above its time, or by a flush to UINT64_MAX.
 */
#ifndef PERFMINI_ORDER_H
#define PERFMINI_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "util/sbuf.h"

struct order_ent {
	uint64_t time;
	size_t off;
	uint32_t len;
};

struct order {
	struct sbuf bytes;	/* the records' bytes, back to back */
	struct sbuf spare;	/* where a flush compacts the records it keeps */
	struct order_ent *ents; /* in push order, but for the sorted kept prefix */
	size_t n, ents_cap;
	struct order_ent *tmp; /* the merge's other half */
	size_t tmp_cap;
	size_t held;	/* the most bytes held since order_shed's last call */
	size_t touched; /* the most since room was last given back */
};

/* Called for each record delivered; rec lives until the callback returns. */
typedef void (*order_deliver_fn)(const void *rec, uint32_t len, void *arg);

void order_init(struct order *q);
void order_release(struct order *q);
/* Queues a copy of the len bytes at rec, stamped time. */
void order_push(struct order *q, const void *rec, uint32_t len, uint64_t time);
/*
 * The same in two steps, for a record written in place: room for max_len
 * bytes, then the record queued with its first len bytes (len <= max_len),
 * before any other call on q.
 */
void *order_push_begin(struct order *q, uint32_t max_len);
void order_push_end(struct order *q, uint32_t len, uint64_t time);
/* Delivers, in time order, every queued record with time <= limit. */
void order_flush(struct order *q, uint64_t limit, order_deliver_fn fn, void *arg);
/*
 * Gives back the pages of the buffers' room past twice the most they held
 * since the call before (past a megabyte at least), once a burst (records
 * held through a slow round) took more than that: its room is resident
 * until the next call after it, not for good. Rounds that take about the
 * same room each time give nothing back, so none is faulted in again.
 */
void order_shed(struct order *q);

#endif
