/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ring.c - perf ring-buffer draining; see ring.h for the contract.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/ring.h"
#include "util/alloc.h"

int ring_init(struct ring *r, void *base, size_t page_size, size_t data_size)
{
	struct perf_event_mmap_page *meta = base;
	uint64_t off = page_size, size = data_size;

	if (meta->data_offset && meta->data_size) {
		off = meta->data_offset;
		size = meta->data_size;
	}
	if (size == 0 || (size & (size - 1)))
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->meta = meta;
	r->data = (unsigned char *)base + off;
	r->size = size;
	/* 8-aligned because records are read as u64 fields in place. */
	r->scratch = xmalloc(RING_MAX_RECORD);
	return 0;
}

void ring_release(struct ring *r)
{
	free(r->scratch);
	r->scratch = NULL;
}

uint64_t ring_pending(const struct ring *r)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);

	return head - r->meta->data_tail;
}

int ring_drain(struct ring *r, ring_record_fn fn, void *arg)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;
	uint64_t mask = r->size - 1;
	int n = 0, ret = 0;

	while (tail < head) {
		uint64_t avail = head - tail, pos = tail & mask;
		struct perf_event_header h;
		const struct perf_event_header *rec;

		if (avail < sizeof(h))
			goto bad; /* the kernel only publishes whole records */
		if (pos + sizeof(h) <= r->size) {
			memcpy(&h, r->data + pos, sizeof(h));
		} else {
			size_t first = r->size - pos;

			memcpy(&h, r->data + pos, first);
			memcpy((char *)&h + first, r->data, sizeof(h) - first);
		}
		/* The kernel writes whole 8-byte units: anything else cannot be framed. */
		if (h.size < sizeof(h) || h.size % 8 || h.size > avail || h.size > r->size)
			goto bad;
		if (pos + h.size <= r->size) {
			rec = (const void *)(r->data + pos);
		} else {
			size_t first = r->size - pos;

			memcpy(r->scratch, r->data + pos, first);
			memcpy(r->scratch + first, r->data, h.size - first);
			rec = (const void *)r->scratch;
		}
		tail += h.size;
		n++;
		if (fn(rec, arg)) {
			ret = 0;
			break;
		}
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	return ret < 0 ? ret : n;
bad:
	r->corrupt++;
	__atomic_store_n(&r->meta->data_tail, head, __ATOMIC_RELEASE);
	return -EBADMSG;
}
