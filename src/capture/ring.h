/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ring.h - reading records out of a perf_event mmap ring buffer.
 *
 * Invariant: records are handed out whole and in ring order; data_head is
 * read with acquire ordering before any record byte, and data_tail is
 * written with release ordering only after the caller is done with every
 * record up to it. A record that wraps the end of the ring is copied into a
 * scratch buffer so the callback always sees contiguous bytes.
 */
#ifndef PERFMINI_RING_H
#define PERFMINI_RING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

/* The kernel limits a record to the 16-bit size field. */
#define RING_MAX_RECORD 65536

struct ring {
	struct perf_event_mmap_page *meta; /* the first (control) page */
	unsigned char *data;		   /* the data area */
	uint64_t size;			   /* bytes in the data area, a power of two */
	uint64_t corrupt;		   /* times a bad record size forced a skip */
	unsigned char *scratch;		   /* RING_MAX_RECORD bytes, 8-aligned */
};

/*
 * Sets up r over a mapped ring: base is the control page, the data area
 * follows it (at meta->data_offset when the kernel sets it, else at
 * page_size) and is data_size bytes long (a power of two). Returns 0 or
 * -EINVAL for a size that is not a power of two.
 */
int ring_init(struct ring *r, void *base, size_t page_size, size_t data_size);
void ring_release(struct ring *r);

/* Called for each record; a non-zero return stops the drain after it. */
typedef int (*ring_record_fn)(const struct perf_event_header *hdr, void *arg);

/*
 * Hands every complete record between data_tail and data_head to fn, then
 * advances data_tail. Returns the number of records read, or -EBADMSG when
 * a record header had an impossible size: the rest of the available data
 * is then skipped (it cannot be framed) and r->corrupt is incremented.
 */
int ring_drain(struct ring *r, ring_record_fn fn, void *arg);

/* Bytes written by the kernel and not yet consumed. */
uint64_t ring_pending(const struct ring *r);

#endif
