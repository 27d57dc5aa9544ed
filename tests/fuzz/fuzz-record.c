/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-record.c - libFuzzer harness for the perf record decoder and the
 * ring reader.
 *
 * Input: byte 0 chooses the decode_layout (bits 0-2), whether the ring
 * callback stops the drain early (bit 3) and the size of a fake ring
 * (bits 4-7); the rest is a stream of perf records. The
 * stream is decoded twice:
 *  1. framed by each header's size, every record copied into a buffer of
 *     exactly its size (so that reading past it is caught), decoded, every
 *     variable part it points to read in full, and the mappings it
 *     announces applied to an address space (maps.h), whose invariant
 *     (no overlap, ordered) is then checked;
 *  2. written into a fake mapped ring (control page + data area, starting
 *     just before the end so that records wrap), drained by ring_drain
 *     into the same decoder.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "capture/decode.h"
#include "capture/event.h"
#include "capture/ring.h"
#include "model/maps.h"
#include "stack/unwind.h"
#include "util/bytes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NLAYOUTS 7
static struct decode_layout layouts[NLAYOUTS];

static void init_layouts(void)
{
	struct event_opts o;
	struct perf_event_attr a;

	if (layouts[0].sample_type)
		return;
	memset(&o, 0, sizeof(o));
	o.ev = event_find("cpu-clock");
	o.freq = 999;
	/* 0: what 'record' asks for by default (frame pointers). */
	o.callchain = true;
	event_attr(&a, &o);
	layouts[0] = (struct decode_layout){a.sample_type, a.sample_regs_user, true};
	/* 1: --call-graph=dwarf: registers and a stack copy. */
	o.dwarf_stack = 8192;
	o.dwarf_regs = unwind_regs_mask();
	event_attr(&a, &o);
	layouts[1] = (struct decode_layout){a.sample_type, a.sample_regs_user, true};
	/* 2: --no-call-graph. */
	o.dwarf_stack = 0;
	o.dwarf_regs = 0;
	o.callchain = false;
	event_attr(&a, &o);
	layouts[2] = (struct decode_layout){a.sample_type, a.sample_regs_user, true};
	/* 3: every field the decoder knows, all 64 registers. */
	layouts[3] = (struct decode_layout){
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
			PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |
			PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
		~0ULL, true};
	/* 4: the default without sample_id_all. */
	layouts[4] = layouts[0];
	layouts[4].sample_id_all = false;
	/* 5: a field the decoder does not parse (-ENOTSUP for samples). */
	layouts[5] = layouts[0];
	layouts[5].sample_type |= PERF_SAMPLE_BRANCH_STACK;
	/* 6: nothing at all. */
	layouts[6] = (struct decode_layout){0, 0, true};
}

static volatile uint64_t sink;

static uint64_t touch(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t s = 0;

	for (size_t i = 0; i < n; i++)
		s = s * 31 + b[i];
	return s;
}

static int check_order(const struct mapping *map, void *arg)
{
	uint64_t *last_end = arg;

	if (map->end <= map->start || map->start < *last_end)
		abort(); /* empty, unordered or overlapping mappings */
	*last_end = map->end;
	return 0;
}

struct ctx {
	const struct decode_layout *l;
	struct maps *maps;
	int nrecords;
};

/* Decodes one record held in exactly len bytes and uses all of it. */
static void use_record(struct ctx *c, const void *bytes, size_t len)
{
	const unsigned char *lo = bytes, *hi = lo + len;
	struct record r;
	int ret = record_decode(bytes, len, c->l, &r);
	uint32_t type;
	uint64_t time;

	/* The peek never refuses what decode takes, and agrees with it. */
	if (record_peek(bytes, len, c->l, &type, &time) < 0) {
		if (ret == 0)
			abort();
		return;
	}
	if (ret < 0) {
		if (ret != -EBADMSG && ret != -ENOTSUP)
			abort();
		return;
	}
	if (type != r.type || time != record_time(&r))
		abort();
	sink += time;
	switch (r.type) {
	case PERF_RECORD_SAMPLE: {
		const struct rec_sample *s = &r.sample;

		if (s->nr) {
			if (s->ips < lo || s->ips + s->nr * 8 > hi)
				abort();
			for (uint64_t i = 0; i < s->nr; i++) {
				uint64_t ip = sample_ip_at(s, i);

				sink += ip;
				if (i < 64 && maps_find(c->maps, ip))
					sink++;
			}
		}
		if (s->regs_abi && s->nregs)
			sink += touch(s->regs, (size_t)s->nregs * 8);
		if (s->stack_size) {
			static unsigned char trimmed[65536];
			struct record t;
			size_t n;

			if (s->stack_dyn_size > s->stack_size)
				abort();
			sink += touch(s->stack, (size_t)s->stack_size);
			/* The record without its unused stack bytes: the same sample. */
			n = len <= sizeof(trimmed)
				    ? record_trim_stack(bytes, len, s, UINT64_MAX, trimmed)
				    : 0;
			if (n && (n > len || record_decode(trimmed, n, c->l, &t) != 0 ||
				  t.sample.stack_dyn_size != s->stack_dyn_size ||
				  t.sample.nr != s->nr || t.sample.time != s->time ||
				  memcmp(t.sample.stack, s->stack, (size_t)s->stack_dyn_size) != 0))
				abort();
		}
		if (maps_find(c->maps, s->ip))
			sink++;
		break;
	}
	case PERF_RECORD_MMAP2: {
		struct mapping m = {r.mmap2.addr, r.mmap2.addr + r.mmap2.len, r.mmap2.pgoff,
				    r.mmap2.prot, NULL};

		sink += strlen(r.mmap2.filename);
		if (r.mmap2.has_build_id && r.mmap2.build_id_size > sizeof(r.mmap2.build_id))
			abort();
		if (!(r.mmap2.prot & PROT_EXEC))
			maps_remove(c->maps, m.start, m.end);
		else if (maps_insert(c->maps, &m) < 0 && m.end > m.start)
			abort();
		break;
	}
	case PERF_RECORD_COMM:
		sink += strlen(r.comm.comm);
		if (r.comm.exec)
			maps_clear(c->maps);
		break;
	case PERF_RECORD_FORK: {
		struct maps *copy = maps_clone(c->maps);

		if (maps_count(copy) != maps_count(c->maps))
			abort();
		maps_free(c->maps);
		c->maps = copy;
		break;
	}
	default:
		break;
	}
}

static void use_copy(struct ctx *c, const void *bytes, size_t len)
{
	void *copy = malloc(len ? len : 1);

	memcpy(copy, bytes, len);
	use_record(c, copy, len);
	free(copy);
}

struct ring_ctx {
	struct ctx *c;
	const struct ring *r;
	int stop_after; /* 0: never */
	int n;
};

static int from_ring(const struct perf_event_header *hdr, void *arg)
{
	struct ring_ctx *rc = arg;
	const unsigned char *p = (const unsigned char *)hdr;
	const struct ring *r = rc->r;
	struct perf_event_header h;

	/*
	 * Read through a copy: with sizes the kernel would never write (not a
	 * multiple of 8), a record in place is not aligned.
	 */
	memcpy(&h, hdr, sizeof(h));
	/* A record is handed out whole, in the data area or the scratch buffer. */
	if (h.size < sizeof(h) || h.size > r->size)
		abort();
	if (!((p >= r->data && p + h.size <= r->data + r->size) || p == r->scratch))
		abort();
	use_copy(rc->c, hdr, h.size);
	return rc->stop_after && ++rc->n >= rc->stop_after;
}

static void drain_fake_ring(struct ctx *c, const uint8_t *data, size_t size, unsigned sel)
{
	const size_t page = 4096;
	size_t ring_size = (size_t)64 << ((sel & 15) % 11); /* 64 bytes to 64 KiB */
	size_t fill = size < ring_size ? size : ring_size;
	unsigned char *base;
	struct ring r;
	struct ring_ctx rc = {c, &r, 0, 0};
	uint64_t tail, head;
	int ret;

	base = mmap(NULL, page + ring_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		    0);
	if (base == MAP_FAILED)
		abort();
	if (ring_init(&r, base, page, ring_size) < 0)
		abort();
	/* Start 24 bytes before the end (8-aligned, as the kernel writes). */
	tail = (uint64_t)ring_size * 3 - 24;
	for (size_t i = 0; i < fill; i++)
		r.data[(tail + i) & (ring_size - 1)] = data[i];
	head = tail + fill;
	r.meta->data_tail = tail;
	__atomic_store_n(&r.meta->data_head, head, __ATOMIC_RELEASE);
	if (sel & 0x10)
		rc.stop_after = 3; /* a callback that stops the drain early */
	ret = ring_drain(&r, from_ring, &rc);
	if (ret < 0 && ret != -EBADMSG)
		abort();
	if (r.meta->data_tail > head || r.meta->data_tail < tail)
		abort();
	if (ret == -EBADMSG && (r.meta->data_tail != head || r.corrupt != 1))
		abort();
	if (ret >= 0 && !rc.stop_after && r.meta->data_tail != head)
		abort(); /* whole records only: everything was consumed */
	if (ring_pending(&r) != head - r.meta->data_tail)
		abort();
	ring_release(&r);
	munmap(base, page + ring_size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx c;
	uint64_t last_end = 0;
	unsigned sel;
	size_t at;

	if (size < 1)
		return 0;
	init_layouts();
	sel = data[0];
	data++;
	size--;
	c.l = &layouts[(sel & 7) % NLAYOUTS];
	c.maps = maps_new();
	c.nrecords = 0;

	/* 1: framed by the headers' sizes. */
	for (at = 0; at < size;) {
		size_t left = size - at, len;

		if (left < 8) {
			use_copy(&c, data + at, left);
			break;
		}
		len = load_u16(data + at + 6);
		if (len < 8 || len > left)
			len = left; /* a size the header does not claim */
		use_copy(&c, data + at, len);
		at += len;
	}
	maps_foreach(c.maps, check_order, &last_end);

	/* 2: through a ring. */
	drain_fake_ring(&c, data, size, (sel >> 4) | (sel & 8) << 1);
	last_end = 0;
	maps_foreach(c.maps, check_order, &last_end);
	maps_free(c.maps);
	return 0;
}
