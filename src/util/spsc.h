/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spsc.h - an unbounded queue of fixed-size elements from one producer
 * thread to one consumer thread, without locks.
 *
 * Elements are copied in and out by value (elem_size bytes each) and
 * kept in chunks of chunk_elems, linked as they fill: a push never waits
 * and never fails (out of memory is fatal, as in xmalloc), a pop never
 * waits and says when nothing is there. Elements come out in the order
 * they went in, each exactly once.
 *
 * Threads. One producer and one consumer, fixed for the queue's life
 * (they may be the same thread): spsc_push is the producer's alone,
 * spsc_pop the consumer's alone; spsc_pushed may be called from any
 * thread. spsc_new and spsc_free are called with neither side running
 * (before the threads share the queue, after they stopped).
 *
 * Memory. Only the producer allocates and frees: it frees the chunks the
 * consumer has left when it needs a new one, so that the consumer never
 * calls malloc or free (preempted inside them, it could hold an arena
 * lock the producer waits for). Memory held: the chunks between the
 * oldest element not yet popped and the newest pushed, plus at most the
 * chunks popped since the producer last started a chunk.
 *
 * Ordering. A push is a release and the pop that returns its element an
 * acquire: what the producer wrote before spsc_push is visible to the
 * consumer once spsc_pop has returned that element. Nothing more: a
 * caller that sleeps when the queue is empty must order its own flag
 * against the queue, e.g. the consumer stores "sleeping", issues
 * atomic_thread_fence(memory_order_seq_cst) and pops once more before it
 * sleeps; the producer issues the same fence after spsc_push before it
 * reads "sleeping" to decide on a wakeup.
 */
#ifndef PERFMINI_SPSC_H
#define PERFMINI_SPSC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct spsc;

/* A queue of elements of elem_size bytes (> 0), allocated chunk_elems (> 0) at a time. */
struct spsc *spsc_new(size_t elem_size, size_t chunk_elems);

/* Frees q and the elements still in it; NULL is a no-op. */
void spsc_free(struct spsc *q);

/* Appends a copy of the elem_size bytes at elem (producer). */
void spsc_push(struct spsc *q, const void *elem);

/* Copies the oldest element to elem and removes it; false when the queue is empty (consumer). */
bool spsc_pop(struct spsc *q, void *elem);

/* How many elements were pushed so far (any thread; exact on the producer's). */
uint64_t spsc_pushed(const struct spsc *q);

#endif
