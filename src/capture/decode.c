/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decode.c - bounds-checked decoding of perf records; see decode.h.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "capture/decode.h"
#include "util/bytes.h"

/* A read cursor over [p, end); every take checks the bound. */
struct cursor {
	const unsigned char *p, *end;
};

static int take(struct cursor *c, size_t n, const unsigned char **out)
{
	if ((size_t)(c->end - c->p) < n)
		return -EBADMSG;
	*out = c->p;
	c->p += n;
	return 0;
}

static int take_u64(struct cursor *c, uint64_t *v)
{
	const unsigned char *p;

	if (take(c, 8, &p))
		return -EBADMSG;
	*v = load_u64(p);
	return 0;
}

static int take_u32x2(struct cursor *c, uint32_t *a, uint32_t *b)
{
	const unsigned char *p;

	if (take(c, 8, &p))
		return -EBADMSG;
	*a = load_u32(p);
	*b = load_u32(p + 4);
	return 0;
}

/* Bits of sample_type that sample_id carries, in their order. */
static size_t sample_id_size(uint64_t st)
{
	size_t n = 0;

	n += (st & PERF_SAMPLE_TID) ? 8 : 0;
	n += (st & PERF_SAMPLE_TIME) ? 8 : 0;
	n += (st & PERF_SAMPLE_ID) ? 8 : 0;
	n += (st & PERF_SAMPLE_STREAM_ID) ? 8 : 0;
	n += (st & PERF_SAMPLE_CPU) ? 8 : 0;
	n += (st & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
	return n;
}

/* Parses the trailing sample_id and shrinks c->end to exclude it. */
static int parse_sample_id(struct cursor *c, uint64_t st, struct sample_id *sid)
{
	size_t n = sample_id_size(st);
	struct cursor t;
	uint64_t v, stream;
	uint32_t res;

	if ((size_t)(c->end - c->p) < n)
		return -EBADMSG;
	t.p = c->end - n;
	t.end = c->end;
	c->end = t.p;
	if ((st & PERF_SAMPLE_TID) && take_u32x2(&t, &sid->pid, &sid->tid))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_TIME) && take_u64(&t, &sid->time))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_ID) && take_u64(&t, &sid->id))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_STREAM_ID) && take_u64(&t, &stream))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_CPU) && take_u32x2(&t, &sid->cpu, &res))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_IDENTIFIER) && take_u64(&t, &v))
		return -EBADMSG;
	if (st & PERF_SAMPLE_IDENTIFIER)
		sid->id = v;
	return 0;
}

/* A NUL-terminated string that must end inside the cursor's range. */
static int take_string(struct cursor *c, const char **s)
{
	const unsigned char *nul = memchr(c->p, '\0', (size_t)(c->end - c->p));

	if (!nul)
		return -EBADMSG;
	*s = (const char *)c->p;
	/* Strings are padded to 8 bytes; the padding is not needed. */
	c->p = c->end;
	return 0;
}

#define SAMPLE_KNOWN                                                                            \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |         \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |          \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER | \
	 PERF_SAMPLE_STACK_USER | PERF_SAMPLE_CGROUP)

static int decode_sample(struct cursor *c, const struct decode_layout *l, struct rec_sample *s)
{
	uint64_t st = l->sample_type, v;
	uint32_t res;
	const unsigned char *p;

	if (st & ~SAMPLE_KNOWN)
		return -ENOTSUP;
	if ((st & PERF_SAMPLE_IDENTIFIER) && take_u64(c, &s->id))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_IP) && take_u64(c, &s->ip))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_TID) && take_u32x2(c, &s->pid, &s->tid))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_TIME) && take_u64(c, &s->time))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_ADDR) && take_u64(c, &s->addr))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_ID) && take_u64(c, &s->id))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_STREAM_ID) && take_u64(c, &v))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_CPU) && take_u32x2(c, &s->cpu, &res))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_PERIOD) && take_u64(c, &s->period))
		return -EBADMSG;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (take_u64(c, &s->nr) || s->nr > (uint64_t)(c->end - c->p) / 8 ||
		    take(c, s->nr * 8, &s->ips))
			return -EBADMSG;
	}
	if (st & PERF_SAMPLE_RAW) {
		if (take(c, 4, &p))
			return -EBADMSG;
		s->raw_size = load_u32(p);
		if (take(c, s->raw_size, &s->raw))
			return -EBADMSG;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		if (take_u64(c, &s->regs_abi))
			return -EBADMSG;
		if (s->regs_abi) {
			s->nregs = (uint32_t)__builtin_popcountll(l->regs_user_mask);
			if (take(c, (size_t)s->nregs * 8, &s->regs))
				return -EBADMSG;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		if (take_u64(c, &s->stack_size))
			return -EBADMSG;
		if (s->stack_size) {
			if (s->stack_size > (uint64_t)(c->end - c->p) ||
			    take(c, s->stack_size, &s->stack) || take_u64(c, &s->stack_dyn_size) ||
			    s->stack_dyn_size > s->stack_size)
				return -EBADMSG;
		}
	}
	if ((st & PERF_SAMPLE_CGROUP) && take_u64(c, &s->cgroup))
		return -EBADMSG;
	return 0;
}

static int decode_mmap2(struct cursor *c, uint16_t misc, struct rec_mmap2 *m)
{
	const unsigned char *p;

	if (take_u32x2(c, &m->pid, &m->tid) || take_u64(c, &m->addr) || take_u64(c, &m->len) ||
	    take_u64(c, &m->pgoff))
		return -EBADMSG;
	if (take(c, 24, &p))
		return -EBADMSG;
	if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		m->has_build_id = true;
		m->build_id_size = p[0];
		if (m->build_id_size > sizeof(m->build_id))
			return -EBADMSG;
		memcpy(m->build_id, p + 4, m->build_id_size);
	} else {
		m->maj = load_u32(p);
		m->min = load_u32(p + 4);
		m->ino = load_u64(p + 8);
		m->ino_generation = load_u64(p + 16);
	}
	if (take_u32x2(c, &m->prot, &m->flags))
		return -EBADMSG;
	if (m->addr + m->len < m->addr)
		return -EBADMSG;
	return take_string(c, &m->filename);
}

int record_decode(const void *bytes, size_t len, const struct decode_layout *l, struct record *out)
{
	struct perf_event_header h;
	struct cursor c;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(h))
		return -EBADMSG;
	memcpy(&h, bytes, sizeof(h));
	if (h.size != len)
		return -EBADMSG;
	out->type = h.type;
	out->misc = h.misc;
	c.p = (const unsigned char *)bytes + sizeof(h);
	c.end = (const unsigned char *)bytes + len;

	if (h.type == PERF_RECORD_SAMPLE)
		return decode_sample(&c, l, &out->sample);
	if (l->sample_id_all && h.type < PERF_RECORD_MAX) {
		if (parse_sample_id(&c, l->sample_type, &out->sid))
			return -EBADMSG;
		out->has_sid = true;
	}
	switch (h.type) {
	case PERF_RECORD_MMAP2:
		return decode_mmap2(&c, h.misc, &out->mmap2);
	case PERF_RECORD_COMM:
		out->comm.exec = (h.misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
		if (take_u32x2(&c, &out->comm.pid, &out->comm.tid))
			return -EBADMSG;
		return take_string(&c, &out->comm.comm);
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (take_u32x2(&c, &out->task.pid, &out->task.ppid) ||
		    take_u32x2(&c, &out->task.tid, &out->task.ptid) ||
		    take_u64(&c, &out->task.time))
			return -EBADMSG;
		return 0;
	case PERF_RECORD_LOST:
		if (take_u64(&c, &out->lost.id) || take_u64(&c, &out->lost.lost))
			return -EBADMSG;
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		return take_u64(&c, &out->lost.lost);
	case PERF_RECORD_CGROUP:
		if (take_u64(&c, &out->cgroup.id))
			return -EBADMSG;
		return take_string(&c, &out->cgroup.path);
	case PERF_RECORD_SWITCH_CPU_WIDE:
		out->sw.cpu_wide = true;
		if (take_u32x2(&c, &out->sw.next_prev_pid, &out->sw.next_prev_tid))
			return -EBADMSG;
		/* fall through */
	case PERF_RECORD_SWITCH:
		out->sw.out = (h.misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
		out->sw.preempted = out->sw.out && (h.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
		return 0;
	default:
		return 0;
	}
}

int record_peek(const void *bytes, size_t len, const struct decode_layout *l, uint32_t *type,
		uint64_t *time)
{
	const unsigned char *b = bytes;
	uint64_t st = l->sample_type;
	struct perf_event_header h;
	size_t at = sizeof(h);

	*time = 0;
	if (len < sizeof(h))
		return -EBADMSG;
	memcpy(&h, bytes, sizeof(h));
	if (h.size != len)
		return -EBADMSG;
	*type = h.type;
	if (!(st & PERF_SAMPLE_TIME))
		return 0;
	if (h.type == PERF_RECORD_SAMPLE) {
		/* The fields before TIME, in their order (see decode_sample). */
		at += (st & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
		at += (st & PERF_SAMPLE_IP) ? 8 : 0;
		at += (st & PERF_SAMPLE_TID) ? 8 : 0;
	} else if (l->sample_id_all && h.type < PERF_RECORD_MAX) {
		/* sample_id ends the record: TID, then TIME (see parse_sample_id). */
		size_t n = sample_id_size(st);

		if (len - sizeof(h) < n)
			return -EBADMSG;
		at = len - n + ((st & PERF_SAMPLE_TID) ? 8 : 0);
	} else {
		return 0;
	}
	if (at > len || len - at < 8)
		return -EBADMSG;
	*time = load_u64(b + at);
	return 0;
}

uint64_t record_time(const struct record *r)
{
	if (r->type == PERF_RECORD_SAMPLE)
		return r->sample.time;
	return r->has_sid ? r->sid.time : 0;
}

uint64_t sample_ip_at(const struct rec_sample *s, uint64_t i)
{
	return load_u64(s->ips + i * 8);
}

size_t record_trim_stack(const void *bytes, size_t len, const struct rec_sample *s, uint64_t want,
			 void *out)
{
	const unsigned char *b = bytes;
	unsigned char *o = out;
	uint64_t dyn = s->stack_dyn_size < want ? s->stack_dyn_size : want;
	/* At least 8: a copy of size 0 has no dyn_size and unwinds nothing. */
	uint64_t keep = dyn ? (dyn + 7) & ~(uint64_t)7 : 8;
	size_t prefix, tail, end;

	/* [u64 size][size bytes][u64 dyn_size], then at most the fields after it. */
	if (!s->stack || s->stack < b + sizeof(struct perf_event_header) + 8 ||
	    s->stack + s->stack_size + 8 > b + len || keep >= s->stack_size) {
		memcpy(out, bytes, len);
		return len;
	}
	prefix = (size_t)(s->stack - b);
	end = prefix + (size_t)s->stack_size + 8;
	tail = len - end;
	memcpy(o, b, prefix - 8);
	store_u64(o + prefix - 8, keep);
	memcpy(o + prefix, s->stack, keep);
	store_u64(o + prefix + keep, dyn);
	memcpy(o + prefix + keep + 8, b + end, tail);
	store_u16(o + offsetof(struct perf_event_header, size),
		  (uint16_t)(prefix + keep + 8 + tail));
	return prefix + keep + 8 + tail;
}
