/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spsc.c - the single-producer, single-consumer queue; see spsc.h.
 *
 * Invariant: a chunk's first filled elements are published and never
 * written again; filled only grows, and next is set (once) only when
 * filled is chunk_elems. The consumer's head is the chunk it takes from;
 * the producer frees the chunks from oldest up to (not including) head.
 */
#include "config.h"

#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/spsc.h"

struct spsc_chunk {
	_Atomic size_t filled;		 /* elements published, written by the producer */
	struct spsc_chunk *_Atomic next; /* set by the producer when this one is full */
	max_align_t data[];		 /* chunk_elems elements of elem_size bytes */
};

struct spsc {
	size_t elem_size, chunk_elems;
	/* The producer's. */
	struct spsc_chunk *tail;   /* the chunk pushed into */
	struct spsc_chunk *oldest; /* the first chunk not freed */
	_Atomic uint64_t pushed;
	/* The consumer's: head is read by the producer, to know what it may free. */
	struct spsc_chunk *_Atomic head; /* the chunk popped from */
	size_t pos;			 /* the next element to pop in head */
};

/* A new, empty chunk. */
static struct spsc_chunk *chunk_new(const struct spsc *q)
{
	return xcalloc(1, sizeof(struct spsc_chunk) + q->chunk_elems * q->elem_size);
}

/* Where element i of c lies. */
static unsigned char *chunk_elem(const struct spsc *q, struct spsc_chunk *c, size_t i)
{
	return (unsigned char *)c->data + i * q->elem_size;
}

struct spsc *spsc_new(size_t elem_size, size_t chunk_elems)
{
	struct spsc *q = xcalloc(1, sizeof(*q));

	q->elem_size = elem_size;
	q->chunk_elems = chunk_elems;
	q->oldest = q->tail = chunk_new(q);
	atomic_init(&q->head, q->tail);
	return q;
}

void spsc_free(struct spsc *q)
{
	if (!q)
		return;
	while (q->oldest) {
		struct spsc_chunk *next =
			atomic_load_explicit(&q->oldest->next, memory_order_relaxed);

		free(q->oldest);
		q->oldest = next;
	}
	free(q);
}

void spsc_push(struct spsc *q, const void *elem)
{
	size_t filled = atomic_load_explicit(&q->tail->filled, memory_order_relaxed);

	if (filled == q->chunk_elems) {
		struct spsc_chunk *c = chunk_new(q);
		/* Acquire: the consumer's last reads of the chunks it left are done. */
		struct spsc_chunk *head = atomic_load_explicit(&q->head, memory_order_acquire);

		while (q->oldest != head) {
			struct spsc_chunk *next =
				atomic_load_explicit(&q->oldest->next, memory_order_relaxed);

			free(q->oldest);
			q->oldest = next;
		}
		atomic_store_explicit(&q->tail->next, c, memory_order_release);
		q->tail = c;
		filled = 0;
	}
	memcpy(chunk_elem(q, q->tail, filled), elem, q->elem_size);
	atomic_store_explicit(&q->tail->filled, filled + 1, memory_order_release);
	/* One writer: a load and a store, read whole by other threads. */
	atomic_store_explicit(&q->pushed,
			      atomic_load_explicit(&q->pushed, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

bool spsc_pop(struct spsc *q, void *elem)
{
	for (;;) {
		struct spsc_chunk *head = atomic_load_explicit(&q->head, memory_order_relaxed),
				  *next;
		size_t filled = atomic_load_explicit(&head->filled, memory_order_acquire);

		if (q->pos < filled) {
			memcpy(elem, chunk_elem(q, head, q->pos++), q->elem_size);
			return true;
		}
		next = atomic_load_explicit(&head->next, memory_order_acquire);
		if (q->pos < q->chunk_elems || !next)
			return false;
		/* Done with head (release: its reads come first): the producer frees it. */
		atomic_store_explicit(&q->head, next, memory_order_release);
		q->pos = 0;
	}
}

uint64_t spsc_pushed(const struct spsc *q)
{
	return atomic_load_explicit(&q->pushed, memory_order_relaxed);
}
