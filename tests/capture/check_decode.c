/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_decode.c - record_decode on hand-built perf records: every field of
 * every record type perfmini asks for, and damaged input that must fail
 * with -EBADMSG without reading outside the record.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "capture/decode.h"
#include "unit-helpers.h"
#include "unit-records.h"
#include "util/array.h"
#include "util/bytes.h"

/* A record under construction, written the way the kernel lays it out. */
static void set_size(unsigned char *rec, uint16_t size)
{
	memcpy(rec + offsetof(struct perf_event_header, size), &size, sizeof(size));
}

/* What perfmini's events ask for (DESIGN.md, events). */
#define ST_BASE                                                                  \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

static const struct decode_layout base_layout = {.sample_type = ST_BASE, .sample_id_all = true};

/* The trailing sample_id of ST_BASE: TID, TIME, CPU. */
static void rb_sid(struct rb *r)
{
	rb_u32x2(r, 4242, 4243);
	rb_u64(r, 987654321ULL);
	rb_u32x2(r, 7, 0);
}

static void assert_sid(const struct record *rec)
{
	ck_assert(rec->has_sid);
	ck_assert_uint_eq(rec->sid.pid, 4242);
	ck_assert_uint_eq(rec->sid.tid, 4243);
	ck_assert_uint_eq(rec->sid.time, 987654321ULL);
	ck_assert_uint_eq(rec->sid.cpu, 7);
	ck_assert_uint_eq(record_time(rec), 987654321ULL);
}

static const uint64_t chain[] = {
	(uint64_t)PERF_CONTEXT_USER,
	0x401166,
	0x7f0000001234,
	0x401001,
};

static size_t build_sample(struct rb *r)
{
	rb_begin(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	rb_u64(r, 0x401166);	      /* ip */
	rb_u32x2(r, 100, 101);	      /* pid, tid */
	rb_u64(r, 123456789012ULL);   /* time */
	rb_u32x2(r, 3, 0);	      /* cpu, res */
	rb_u64(r, 250000);	      /* period */
	rb_u64(r, ARRAY_SIZE(chain)); /* nr */
	for (size_t i = 0; i < ARRAY_SIZE(chain); i++)
		rb_u64(r, chain[i]);
	return rb_end(r);
}

static void assert_sample(const struct record *rec)
{
	const struct rec_sample *s = &rec->sample;

	ck_assert_uint_eq(rec->type, PERF_RECORD_SAMPLE);
	ck_assert_uint_eq(rec->misc, PERF_RECORD_MISC_USER);
	ck_assert(!rec->has_sid);
	ck_assert_uint_eq(s->ip, 0x401166);
	ck_assert_uint_eq(s->pid, 100);
	ck_assert_uint_eq(s->tid, 101);
	ck_assert_uint_eq(s->time, 123456789012ULL);
	ck_assert_uint_eq(s->cpu, 3);
	ck_assert_uint_eq(s->period, 250000);
	ck_assert_uint_eq(s->nr, ARRAY_SIZE(chain));
	for (size_t i = 0; i < ARRAY_SIZE(chain); i++)
		ck_assert_uint_eq(sample_ip_at(s, i), chain[i]);
	ck_assert_uint_eq(s->regs_abi, 0);
	ck_assert_uint_eq(s->stack_size, 0);
	ck_assert_uint_eq(record_time(rec), 123456789012ULL);
}

START_TEST(test_sample_fields)
{
	struct rb r;
	struct record rec;
	size_t len = build_sample(&r);

	ck_assert_int_eq(record_decode(r.b, len, &base_layout, &rec), 0);
	assert_sample(&rec);
	/* The callchain points into the record, it is not copied. */
	ck_assert(rec.sample.ips >= r.b && rec.sample.ips + 8 * rec.sample.nr <= r.b + len);
}
END_TEST

/* Records in a ring or a file are not 8-aligned in general. */
START_TEST(test_sample_unaligned)
{
	struct rb r;
	struct record rec;
	size_t len = build_sample(&r);
	unsigned char *buf = malloc(len + 3);

	memcpy(buf + 3, r.b, len);
	ck_assert_int_eq(record_decode(buf + 3, len, &base_layout, &rec), 0);
	assert_sample(&rec);
	free(buf);
}
END_TEST

START_TEST(test_sample_empty_callchain)
{
	struct rb r;
	struct record rec;

	rb_begin(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	rb_u64(&r, 0xffffffff81000000ULL);
	rb_u32x2(&r, 0, 0);
	rb_u64(&r, 5);
	rb_u32x2(&r, 1, 0);
	rb_u64(&r, 1);
	rb_u64(&r, 0); /* nr */
	ck_assert_int_eq(record_decode(r.b, rb_end(&r), &base_layout, &rec), 0);
	ck_assert_uint_eq(rec.sample.ip, 0xffffffff81000000ULL);
	ck_assert_uint_eq(rec.sample.nr, 0);
	ck_assert_uint_eq(rec.misc, PERF_RECORD_MISC_KERNEL);
}
END_TEST

/* DWARF mode: user registers (abi, then one u64 per mask bit) and stack copy. */
#define ST_DWARF (ST_BASE | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
static const struct decode_layout dwarf_layout = {
	.sample_type = ST_DWARF,
	.regs_user_mask = (1ULL << 6) | (1ULL << 7) | (1ULL << 8), /* bp, sp, ip on x86-64 */
	.sample_id_all = true,
};

static size_t build_dwarf_sample(struct rb *r, unsigned char stack[64])
{
	rb_begin(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	rb_u64(r, 0x401166);
	rb_u32x2(r, 100, 101);
	rb_u64(r, 123456789012ULL);
	rb_u32x2(r, 3, 0);
	rb_u64(r, 250000);
	rb_u64(r, 1);
	rb_u64(r, 0x401166);
	rb_u64(r, PERF_SAMPLE_REGS_ABI_64);
	rb_u64(r, 0x7ffc0000a000ULL); /* bp */
	rb_u64(r, 0x7ffc00009f00ULL); /* sp */
	rb_u64(r, 0x401166);	      /* ip */
	for (int i = 0; i < 64; i++)
		stack[i] = (unsigned char)(0xa0 + i);
	rb_u64(r, 64); /* stack size */
	rb_bytes(r, stack, 64);
	rb_u64(r, 40); /* dyn size */
	return rb_end(r);
}

START_TEST(test_sample_regs_stack)
{
	unsigned char stack[64];
	struct rb r;
	struct record rec;
	size_t len = build_dwarf_sample(&r, stack);
	const struct rec_sample *s = &rec.sample;

	ck_assert_int_eq(record_decode(r.b, len, &dwarf_layout, &rec), 0);
	ck_assert_uint_eq(s->ip, 0x401166);
	ck_assert_uint_eq(s->nr, 1);
	ck_assert_uint_eq(sample_ip_at(s, 0), 0x401166);
	ck_assert_uint_eq(s->regs_abi, PERF_SAMPLE_REGS_ABI_64);
	ck_assert_uint_eq(s->nregs, 3);
	ck_assert_ptr_nonnull(s->regs);
	ck_assert_uint_eq(load_u64(s->regs), 0x7ffc0000a000ULL);
	ck_assert_uint_eq(load_u64(s->regs + 8), 0x7ffc00009f00ULL);
	ck_assert_uint_eq(load_u64(s->regs + 16), 0x401166);
	ck_assert_uint_eq(s->stack_size, 64);
	ck_assert_uint_eq(s->stack_dyn_size, 40);
	ck_assert_mem_eq(s->stack, stack, 64);
}
END_TEST

/* The sample of build_dwarf_sample with dyn_size dyn, trimmed: its stack copy keeps want bytes. */
static void trim_dyn(uint64_t dyn, uint64_t want)
{
	unsigned char stack[64], out[512];
	struct rb r;
	struct record rec, trimmed;
	size_t len = build_dwarf_sample(&r, stack), n;

	memcpy(&r.b[len - 8], &dyn, 8);
	ck_assert_int_eq(record_decode(r.b, len, &dwarf_layout, &rec), 0);
	n = record_trim_stack(r.b, len, &rec.sample, UINT64_MAX, out);
	ck_assert_uint_eq(n, len - (64 - want));
	ck_assert_int_eq(record_decode(out, n, &dwarf_layout, &trimmed), 0);
	ck_assert_uint_eq(trimmed.sample.stack_size, want);
	ck_assert_uint_eq(trimmed.sample.stack_dyn_size, dyn);
	ck_assert_mem_eq(trimmed.sample.stack, stack, want);
}

/*
 * record_trim_stack: the stack copy cut to its valid bytes (40 of 64) in a
 * record that decodes to the same sample, or to those asked for; a copy
 * with nothing to cut, or a record that is not a DWARF sample, is copied
 * whole.
 */
START_TEST(test_sample_trim_stack)
{
	unsigned char stack[64], out[512];
	struct rb r;
	struct record rec, trimmed;
	size_t len = build_dwarf_sample(&r, stack), n;

	ck_assert_int_eq(record_decode(r.b, len, &dwarf_layout, &rec), 0);
	n = record_trim_stack(r.b, len, &rec.sample, UINT64_MAX, out);
	ck_assert_uint_eq(n, len - 24);
	ck_assert_uint_eq(load_u16(out + 6), n);
	ck_assert_int_eq(record_decode(out, n, &dwarf_layout, &trimmed), 0);
	ck_assert_uint_eq(trimmed.sample.ip, rec.sample.ip);
	ck_assert_uint_eq(trimmed.sample.time, rec.sample.time);
	ck_assert_uint_eq(trimmed.sample.nregs, 3);
	ck_assert_mem_eq(trimmed.sample.regs, rec.sample.regs, 24);
	ck_assert_uint_eq(trimmed.sample.stack_size, 40);
	ck_assert_uint_eq(trimmed.sample.stack_dyn_size, 40);
	ck_assert_mem_eq(trimmed.sample.stack, stack, 40);

	/* Already trimmed: nothing to cut. */
	ck_assert_uint_eq(record_trim_stack(out, n, &trimmed.sample, UINT64_MAX, r.b), n);
	ck_assert_mem_eq(r.b, out, n);
	/* dyn_size 37 keeps 40 bytes (a multiple of 8); 0 keeps 8 (a copy of size 0 has no dyn_size). */
	trim_dyn(37, 40);
	trim_dyn(0, 8);
	/* Only the 20 bytes an unwinding needed: 24 kept, 20 of them valid. */
	len = build_dwarf_sample(&r, stack);
	ck_assert_int_eq(record_decode(r.b, len, &dwarf_layout, &rec), 0);
	n = record_trim_stack(r.b, len, &rec.sample, 20, out);
	ck_assert_uint_eq(n, len - 40);
	ck_assert_int_eq(record_decode(out, n, &dwarf_layout, &trimmed), 0);
	ck_assert_uint_eq(trimmed.sample.stack_size, 24);
	ck_assert_uint_eq(trimmed.sample.stack_dyn_size, 20);
	ck_assert_mem_eq(trimmed.sample.stack, stack, 20);
}
END_TEST

/*
 * PERF_SAMPLE_CGROUP comes after the stack copy: decoded, and kept when
 * the copy is trimmed.
 */
START_TEST(test_sample_cgroup_after_stack)
{
	struct decode_layout l = dwarf_layout;
	unsigned char stack[64], out[512];
	struct rb r;
	struct record rec, trimmed;
	size_t len, n;

	l.sample_type |= PERF_SAMPLE_CGROUP;
	build_dwarf_sample(&r, stack);
	rb_u64(&r, 0x1234abcdULL);
	len = rb_end(&r);
	ck_assert_int_eq(record_decode(r.b, len, &l, &rec), 0);
	ck_assert_uint_eq(rec.sample.cgroup, 0x1234abcdULL);
	ck_assert_uint_eq(rec.sample.stack_dyn_size, 40);
	n = record_trim_stack(r.b, len, &rec.sample, UINT64_MAX, out);
	ck_assert_uint_eq(n, len - 24);
	ck_assert_int_eq(record_decode(out, n, &l, &trimmed), 0);
	ck_assert_uint_eq(trimmed.sample.stack_size, 40);
	ck_assert_mem_eq(trimmed.sample.stack, stack, 40);
	ck_assert_uint_eq(trimmed.sample.cgroup, 0x1234abcdULL);
	/* Without its last byte, the cgroup runs past the record. */
	store_u16(r.b + 6, (uint16_t)(len - 8));
	ck_assert_int_eq(record_decode(r.b, len - 8, &l, &rec), -EBADMSG);
}
END_TEST

/* PERF_RECORD_CGROUP: an id and a path, then sample_id. */
START_TEST(test_cgroup_record)
{
	struct rb r;
	struct record rec;

	rb_begin(&r, PERF_RECORD_CGROUP, 0);
	rb_u64(&r, 77);
	rb_string(&r, "/system.slice/x.service");
	rb_sid(&r);
	ck_assert_int_eq(record_decode(r.b, rb_end(&r), &base_layout, &rec), 0);
	ck_assert_uint_eq(rec.type, PERF_RECORD_CGROUP);
	ck_assert_uint_eq(rec.cgroup.id, 77);
	ck_assert_str_eq(rec.cgroup.path, "/system.slice/x.service");
	assert_sid(&rec);
	/* A path without its NUL is refused. */
	rb_begin(&r, PERF_RECORD_CGROUP, 0);
	rb_u64(&r, 77);
	rb_bytes(&r, "/abcdefg", 8);
	rb_sid(&r);
	ck_assert_int_eq(record_decode(r.b, rb_end(&r), &base_layout, &rec), -EBADMSG);
}
END_TEST

/* abi 0 (no user registers, e.g. a kernel thread) and an empty stack copy. */
START_TEST(test_sample_no_regs_no_stack)
{
	struct rb r;
	struct record rec;

	rb_begin(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	rb_u64(&r, 0xffffffff81000010ULL);
	rb_u32x2(&r, 0, 0);
	rb_u64(&r, 9);
	rb_u32x2(&r, 2, 0);
	rb_u64(&r, 1);
	rb_u64(&r, 0); /* nr */
	rb_u64(&r, PERF_SAMPLE_REGS_ABI_NONE);
	rb_u64(&r, 0); /* stack size 0: no data, no dyn_size */
	ck_assert_int_eq(record_decode(r.b, rb_end(&r), &dwarf_layout, &rec), 0);
	ck_assert_uint_eq(rec.sample.regs_abi, 0);
	ck_assert_uint_eq(rec.sample.nregs, 0);
	ck_assert_uint_eq(rec.sample.stack_size, 0);
	ck_assert_uint_eq(rec.sample.stack_dyn_size, 0);
}
END_TEST

START_TEST(test_sample_dyn_size_too_big)
{
	unsigned char stack[64];
	struct rb r;
	struct record rec;
	size_t len = build_dwarf_sample(&r, stack);
	uint64_t dyn = 65;

	memcpy(r.b + len - 8, &dyn, 8);
	ck_assert_int_eq(record_decode(r.b, len, &dwarf_layout, &rec), -EBADMSG);
}
END_TEST

/* Every sample_type field the decoder knows, in the kernel's order. */
START_TEST(test_sample_all_fields)
{
	const struct decode_layout l = {
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
			       PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			       PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW,
	};
	struct rb r;
	struct record rec;

	rb_begin(&r, PERF_RECORD_SAMPLE, 0);
	rb_u64(&r, 77);	    /* identifier */
	rb_u64(&r, 0x1000); /* ip */
	rb_u32x2(&r, 5, 6); /* pid, tid */
	rb_u64(&r, 1111);   /* time */
	rb_u64(&r, 0xdead); /* addr */
	rb_u64(&r, 77);	    /* id */
	rb_u64(&r, 88);	    /* stream id */
	rb_u32x2(&r, 9, 0); /* cpu */
	rb_u64(&r, 4000);   /* period */
	rb_u64(&r, 2);	    /* nr */
	rb_u64(&r, 0x1000);
	rb_u64(&r, 0x2000);
	rb_u32(&r, 4);	      /* raw size */
	rb_u32(&r, 0xabcdef); /* raw data */
	ck_assert_int_eq(record_decode(r.b, rb_end(&r), &l, &rec), 0);
	ck_assert_uint_eq(rec.sample.id, 77);
	ck_assert_uint_eq(rec.sample.ip, 0x1000);
	ck_assert_uint_eq(rec.sample.pid, 5);
	ck_assert_uint_eq(rec.sample.tid, 6);
	ck_assert_uint_eq(rec.sample.time, 1111);
	ck_assert_uint_eq(rec.sample.addr, 0xdead);
	ck_assert_uint_eq(rec.sample.cpu, 9);
	ck_assert_uint_eq(rec.sample.period, 4000);
	ck_assert_uint_eq(rec.sample.nr, 2);
	ck_assert_uint_eq(sample_ip_at(&rec.sample, 1), 0x2000);
	/* The raw bytes where they lie in the record. */
	ck_assert_uint_eq(rec.sample.raw_size, 4);
	ck_assert_ptr_eq(rec.sample.raw, r.b + r.len - 4);
	ck_assert_uint_eq(load_u32(rec.sample.raw), 0xabcdef);
}
END_TEST

START_TEST(test_sample_unsupported)
{
	static const uint64_t bits[] = {PERF_SAMPLE_READ, PERF_SAMPLE_BRANCH_STACK,
					PERF_SAMPLE_WEIGHT};
	struct rb r;
	struct record rec;
	size_t len = build_sample(&r);

	for (size_t i = 0; i < ARRAY_SIZE(bits); i++) {
		struct decode_layout l = {.sample_type = ST_BASE | bits[i]};

		ck_assert_int_eq(record_decode(r.b, len, &l, &rec), -ENOTSUP);
	}
}
END_TEST

static const char mmap_path[] = "/opt/lib/x.so.1"; /* 16 bytes with the NUL: no padding */

static size_t build_mmap2(struct rb *r, bool build_id)
{
	rb_begin(r, PERF_RECORD_MMAP2,
		 PERF_RECORD_MISC_USER | (build_id ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0));
	rb_u32x2(r, 300, 301);
	rb_u64(r, 0x7f1234560000ULL); /* addr */
	rb_u64(r, 0x23000);	      /* len */
	rb_u64(r, 0x5000);	      /* pgoff, in bytes */
	if (build_id) {
		unsigned char b[24] = {20, 0, 0, 0};

		for (int i = 0; i < 20; i++)
			b[4 + i] = (unsigned char)(0x10 + i);
		rb_bytes(r, b, sizeof(b));
	} else {
		rb_u32x2(r, 0xfe, 0x01); /* maj, min */
		rb_u64(r, 1234567);	 /* ino */
		rb_u64(r, 89);		 /* ino_generation */
	}
	rb_u32x2(r, 5 /* PROT_READ|PROT_EXEC */, 2 /* MAP_PRIVATE */);
	rb_string(r, mmap_path);
	rb_sid(r);
	return rb_end(r);
}

START_TEST(test_mmap2_inode)
{
	struct rb r;
	struct record rec;
	const struct rec_mmap2 *m = &rec.mmap2;

	ck_assert_int_eq(record_decode(r.b, build_mmap2(&r, false), &base_layout, &rec), 0);
	ck_assert_uint_eq(rec.type, PERF_RECORD_MMAP2);
	ck_assert_uint_eq(m->pid, 300);
	ck_assert_uint_eq(m->tid, 301);
	ck_assert_uint_eq(m->addr, 0x7f1234560000ULL);
	ck_assert_uint_eq(m->len, 0x23000);
	ck_assert_uint_eq(m->pgoff, 0x5000);
	ck_assert(!m->has_build_id);
	ck_assert_uint_eq(m->maj, 0xfe);
	ck_assert_uint_eq(m->min, 0x01);
	ck_assert_uint_eq(m->ino, 1234567);
	ck_assert_uint_eq(m->ino_generation, 89);
	ck_assert_uint_eq(m->prot, 5);
	ck_assert_uint_eq(m->flags, 2);
	ck_assert_str_eq(m->filename, mmap_path);
	assert_sid(&rec);
}
END_TEST

START_TEST(test_mmap2_build_id)
{
	struct rb r;
	struct record rec;
	const struct rec_mmap2 *m = &rec.mmap2;

	ck_assert_int_eq(record_decode(r.b, build_mmap2(&r, true), &base_layout, &rec), 0);
	ck_assert(m->has_build_id);
	ck_assert_uint_eq(m->build_id_size, 20);
	for (int i = 0; i < 20; i++)
		ck_assert_uint_eq(m->build_id[i], 0x10 + i);
	ck_assert_uint_eq(m->ino, 0);
	ck_assert_uint_eq(m->pgoff, 0x5000);
	ck_assert_uint_eq(m->prot, 5);
	ck_assert_str_eq(m->filename, mmap_path);
	assert_sid(&rec);
}
END_TEST

START_TEST(test_mmap2_bad_build_id_size)
{
	struct rb r;
	struct record rec;
	size_t len = build_mmap2(&r, true);

	r.b[8 + 32] = 21; /* build_id_size: more than the 20 bytes there are */
	ck_assert_int_eq(record_decode(r.b, len, &base_layout, &rec), -EBADMSG);
}
END_TEST

START_TEST(test_mmap2_wrapping_range)
{
	struct rb r;
	struct record rec;
	size_t len = build_mmap2(&r, false);
	uint64_t huge = UINT64_MAX - 0x1000;

	memcpy(r.b + 8 + 16, &huge, 8); /* len: addr + len overflows */
	ck_assert_int_eq(record_decode(r.b, len, &base_layout, &rec), -EBADMSG);
}
END_TEST

START_TEST(test_mmap2_filename_without_nul)
{
	struct rb r;
	struct record rec;
	size_t len;

	rb_begin(&r, PERF_RECORD_MMAP2, 0);
	rb_u32x2(&r, 1, 1);
	rb_u64(&r, 0x1000);
	rb_u64(&r, 0x1000);
	rb_u64(&r, 0);
	rb_u32x2(&r, 0, 0);
	rb_u64(&r, 0);
	rb_u64(&r, 0);
	rb_u32x2(&r, 5, 2);
	rb_bytes(&r, "/no/nul/at/all!!", 16);
	rb_sid(&r);
	len = rb_end(&r);
	ck_assert_int_eq(record_decode(r.b, len, &base_layout, &rec), -EBADMSG);
}
END_TEST

static size_t build_comm(struct rb *r, bool exec)
{
	rb_begin(r, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
	rb_u32x2(r, 500, 501);
	rb_string(r, "worker1"); /* 8 bytes with the NUL: no padding */
	rb_sid(r);
	return rb_end(r);
}

START_TEST(test_comm)
{
	struct rb r;
	struct record rec;

	ck_assert_int_eq(record_decode(r.b, build_comm(&r, false), &base_layout, &rec), 0);
	ck_assert_uint_eq(rec.type, PERF_RECORD_COMM);
	ck_assert_uint_eq(rec.comm.pid, 500);
	ck_assert_uint_eq(rec.comm.tid, 501);
	ck_assert_str_eq(rec.comm.comm, "worker1");
	ck_assert(!rec.comm.exec);
	assert_sid(&rec);

	ck_assert_int_eq(record_decode(r.b, build_comm(&r, true), &base_layout, &rec), 0);
	ck_assert(rec.comm.exec);
	ck_assert_str_eq(rec.comm.comm, "worker1");
	assert_sid(&rec);
}
END_TEST

/* A short name padded with zeros: the padding is not part of the name. */
START_TEST(test_comm_padded)
{
	struct rb r;
	struct record rec;

	rb_begin(&r, PERF_RECORD_COMM, 0);
	rb_u32x2(&r, 1, 1);
	rb_string(&r, "sh");
	rb_sid(&r);
	ck_assert_int_eq(record_decode(r.b, rb_end(&r), &base_layout, &rec), 0);
	ck_assert_str_eq(rec.comm.comm, "sh");
	assert_sid(&rec);
}
END_TEST

START_TEST(test_comm_without_nul)
{
	struct rb r;
	struct record rec;

	rb_begin(&r, PERF_RECORD_COMM, 0);
	rb_u32x2(&r, 1, 1);
	rb_bytes(&r, "12345678", 8);
	rb_sid(&r);
	ck_assert_int_eq(record_decode(r.b, rb_end(&r), &base_layout, &rec), -EBADMSG);
}
END_TEST

static size_t build_task(struct rb *r, uint32_t type)
{
	rb_begin(r, type, 0);
	rb_u32x2(r, 600, 1); /* pid, ppid */
	rb_u32x2(r, 601, 1); /* tid, ptid */
	rb_u64(r, 55555);    /* time */
	rb_sid(r);
	return rb_end(r);
}

START_TEST(test_fork_exit)
{
	static const uint32_t types[] = {PERF_RECORD_FORK, PERF_RECORD_EXIT};

	for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
		struct rb r;
		struct record rec;

		ck_assert_int_eq(record_decode(r.b, build_task(&r, types[i]), &base_layout, &rec),
				 0);
		ck_assert_uint_eq(rec.type, types[i]);
		ck_assert_uint_eq(rec.task.pid, 600);
		ck_assert_uint_eq(rec.task.ppid, 1);
		ck_assert_uint_eq(rec.task.tid, 601);
		ck_assert_uint_eq(rec.task.ptid, 1);
		ck_assert_uint_eq(rec.task.time, 55555);
		assert_sid(&rec);
	}
}
END_TEST

static size_t build_lost(struct rb *r)
{
	rb_begin(r, PERF_RECORD_LOST, 0);
	rb_u64(r, 12);	/* id */
	rb_u64(r, 345); /* lost */
	rb_sid(r);
	return rb_end(r);
}

static size_t build_lost_samples(struct rb *r)
{
	rb_begin(r, PERF_RECORD_LOST_SAMPLES, 0);
	rb_u64(r, 678);
	rb_sid(r);
	return rb_end(r);
}

START_TEST(test_lost)
{
	struct rb r;
	struct record rec;

	ck_assert_int_eq(record_decode(r.b, build_lost(&r), &base_layout, &rec), 0);
	ck_assert_uint_eq(rec.type, PERF_RECORD_LOST);
	ck_assert_uint_eq(rec.lost.id, 12);
	ck_assert_uint_eq(rec.lost.lost, 345);
	assert_sid(&rec);

	ck_assert_int_eq(record_decode(r.b, build_lost_samples(&r), &base_layout, &rec), 0);
	ck_assert_uint_eq(rec.type, PERF_RECORD_LOST_SAMPLES);
	ck_assert_uint_eq(rec.lost.id, 0);
	ck_assert_uint_eq(rec.lost.lost, 678);
	assert_sid(&rec);
}
END_TEST

/* Context switches: the thread in the sample_id, out/in and preemption from misc. */
START_TEST(test_switch)
{
	struct rb r;
	struct record rec;

	rb_begin(&r, PERF_RECORD_SWITCH,
		 PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	rb_sid(&r);
	ck_assert_int_eq(record_decode(r.b, rb_end(&r), &base_layout, &rec), 0);
	ck_assert_uint_eq(rec.type, PERF_RECORD_SWITCH);
	ck_assert(rec.sw.out && rec.sw.preempted && !rec.sw.cpu_wide);
	assert_sid(&rec);

	rb_begin(&r, PERF_RECORD_SWITCH, 0);
	rb_sid(&r);
	ck_assert_int_eq(record_decode(r.b, rb_end(&r), &base_layout, &rec), 0);
	ck_assert(!rec.sw.out && !rec.sw.preempted);
	assert_sid(&rec);

	/* Blocked, not preempted. */
	rb_begin(&r, PERF_RECORD_SWITCH_CPU_WIDE, PERF_RECORD_MISC_SWITCH_OUT);
	rb_u32x2(&r, 11, 12);
	rb_sid(&r);
	ck_assert_int_eq(record_decode(r.b, rb_end(&r), &base_layout, &rec), 0);
	ck_assert(rec.sw.out && !rec.sw.preempted && rec.sw.cpu_wide);
	ck_assert_uint_eq(rec.sw.next_prev_pid, 11);
	ck_assert_uint_eq(rec.sw.next_prev_tid, 12);
	assert_sid(&rec);

	/* The CPU-wide form without room for the other thread. */
	rb_begin(&r, PERF_RECORD_SWITCH_CPU_WIDE, 0);
	rb_u32(&r, 11);
	rb_sid(&r);
	ck_assert_int_eq(record_decode(r.b, rb_end(&r), &base_layout, &rec), -EBADMSG);
}
END_TEST

/* sample_id with every field it can carry, in the kernel's order. */
START_TEST(test_sample_id_all_fields)
{
	const struct decode_layout l = {
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
			       PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
		.sample_id_all = true,
	};
	struct rb r;
	struct record rec;

	rb_begin(&r, PERF_RECORD_EXIT, 0);
	rb_u32x2(&r, 10, 11);
	rb_u32x2(&r, 12, 13);
	rb_u64(&r, 14);
	rb_u32x2(&r, 20, 21); /* tid */
	rb_u64(&r, 22);	      /* time */
	rb_u64(&r, 23);	      /* id */
	rb_u64(&r, 24);	      /* stream id */
	rb_u32x2(&r, 25, 0);  /* cpu */
	rb_u64(&r, 23);	      /* identifier */
	ck_assert_int_eq(record_decode(r.b, rb_end(&r), &l, &rec), 0);
	ck_assert_uint_eq(rec.task.pid, 10);
	ck_assert_uint_eq(rec.task.time, 14);
	ck_assert(rec.has_sid);
	ck_assert_uint_eq(rec.sid.pid, 20);
	ck_assert_uint_eq(rec.sid.tid, 21);
	ck_assert_uint_eq(rec.sid.time, 22);
	ck_assert_uint_eq(rec.sid.id, 23);
	ck_assert_uint_eq(rec.sid.cpu, 25);
	ck_assert_uint_eq(record_time(&rec), 22);
}
END_TEST

START_TEST(test_no_sample_id_all)
{
	const struct decode_layout l = {.sample_type = ST_BASE, .sample_id_all = false};
	struct rb r;
	struct record rec;

	rb_begin(&r, PERF_RECORD_COMM, 0);
	rb_u32x2(&r, 1, 2);
	rb_string(&r, "init");
	ck_assert_int_eq(record_decode(r.b, rb_end(&r), &l, &rec), 0);
	ck_assert(!rec.has_sid);
	ck_assert_str_eq(rec.comm.comm, "init");
	ck_assert_uint_eq(record_time(&rec), 0);
}
END_TEST

/* A record type the decoder does not parse: type, misc and sample_id only. */
START_TEST(test_unknown_type)
{
	struct rb r;
	struct record rec;

	rb_begin(&r, PERF_RECORD_THROTTLE, 3);
	rb_u64(&r, 1);
	rb_u64(&r, 2);
	rb_u64(&r, 3);
	rb_sid(&r);
	ck_assert_int_eq(record_decode(r.b, rb_end(&r), &base_layout, &rec), 0);
	ck_assert_uint_eq(rec.type, PERF_RECORD_THROTTLE);
	ck_assert_uint_eq(rec.misc, 3);
	assert_sid(&rec);
}
END_TEST

START_TEST(test_size_mismatch)
{
	struct rb r;
	struct record rec;
	size_t len = build_sample(&r);
	unsigned char big[4096];

	/* len shorter and longer than the header says. */
	ck_assert_int_eq(record_decode(r.b, len - 8, &base_layout, &rec), -EBADMSG);
	memcpy(big, r.b, len);
	memset(big + len, 0, 8);
	ck_assert_int_eq(record_decode(big, len + 8, &base_layout, &rec), -EBADMSG);
	/* A header size below the header itself. */
	set_size(r.b, 4);
	ck_assert_int_eq(record_decode(r.b, 4, &base_layout, &rec), -EBADMSG);
	set_size(r.b, 0);
	ck_assert_int_eq(record_decode(r.b, 0, &base_layout, &rec), -EBADMSG);
}
END_TEST

START_TEST(test_callchain_past_end)
{
	static const uint64_t nrs[] = {ARRAY_SIZE(chain) + 1, 1000, UINT64_MAX / 8 + 1, UINT64_MAX};
	struct rb r;
	struct record rec;
	size_t len = build_sample(&r);

	for (size_t i = 0; i < ARRAY_SIZE(nrs); i++) {
		unsigned char *copy;

		memcpy(r.b + 48, &nrs[i], 8); /* nr follows 5 fixed u64s and the header */
		copy = unit_exact_copy(r.b, len);
		ck_assert_int_eq(record_decode(copy, len, &base_layout, &rec), -EBADMSG);
		free(copy);
	}
}
END_TEST

START_TEST(test_stack_size_past_end)
{
	static const uint64_t sizes[] = {65, 72, 1ULL << 40, UINT64_MAX};
	unsigned char stack[64];
	struct rb r;
	struct record rec;
	size_t len = build_dwarf_sample(&r, stack);

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		unsigned char *copy;

		memcpy(r.b + len - 8 - 64 - 8, &sizes[i], 8);
		copy = unit_exact_copy(r.b, len);
		ck_assert_int_eq(record_decode(copy, len, &dwarf_layout, &rec), -EBADMSG);
		free(copy);
	}
}
END_TEST

/*
 * Every prefix of a record must fail, both when the header still claims
 * the full size and when it was fixed up to the prefix's length. Each
 * prefix lives in a heap block of exactly its size, so a read past it is
 * caught by ASan or valgrind. The strings above are chosen to fill their
 * 8-byte slots, so no prefix can be a valid (shorter) record.
 */
typedef size_t (*build_fn)(struct rb *r);

static size_t build_mmap2_ino(struct rb *r)
{
	return build_mmap2(r, false);
}

static size_t build_mmap2_bid(struct rb *r)
{
	return build_mmap2(r, true);
}

static size_t build_comm_exec(struct rb *r)
{
	return build_comm(r, true);
}

static size_t build_fork(struct rb *r)
{
	return build_task(r, PERF_RECORD_FORK);
}

static size_t build_exit(struct rb *r)
{
	return build_task(r, PERF_RECORD_EXIT);
}

static unsigned char dwarf_stack[64];

static size_t build_dwarf(struct rb *r)
{
	return build_dwarf_sample(r, dwarf_stack);
}

static const struct {
	const char *name;
	build_fn build;
	const struct decode_layout *layout;
} truncation_cases[] = {
	{"sample", build_sample, &base_layout},
	{"sample (dwarf)", build_dwarf, &dwarf_layout},
	{"mmap2", build_mmap2_ino, &base_layout},
	{"mmap2 (build-id)", build_mmap2_bid, &base_layout},
	{"comm", build_comm_exec, &base_layout},
	{"fork", build_fork, &base_layout},
	{"exit", build_exit, &base_layout},
	{"lost", build_lost, &base_layout},
	{"lost samples", build_lost_samples, &base_layout},
};

START_TEST(test_truncated)
{
	struct rb r;
	size_t full = truncation_cases[_i].build(&r);
	const struct decode_layout *l = truncation_cases[_i].layout;
	struct record rec;

	/* The full record decodes, so the failures below are the truncation's. */
	ck_assert_int_eq(record_decode(r.b, full, l, &rec), 0);
	for (size_t len = 0; len < full; len++) {
		unsigned char *copy = unit_exact_copy(r.b, len);

		ck_assert_msg(record_decode(copy, len, l, &rec) == -EBADMSG,
			      "%s: prefix of %zu bytes (header says %zu) decoded",
			      truncation_cases[_i].name, len, full);
		if (len >= sizeof(struct perf_event_header)) {
			set_size(copy, (uint16_t)len);
			ck_assert_msg(record_decode(copy, len, l, &rec) == -EBADMSG,
				      "%s: prefix of %zu bytes with a matching size decoded",
				      truncation_cases[_i].name, len);
		}
		free(copy);
	}
}
END_TEST

/*
 * record_peek: the type and time of every record of truncation_cases
 * without decoding it, as record_decode and record_time give them;
 * a prefix with its size fixed up either fails or still agrees.
 */
START_TEST(test_peek)
{
	struct rb r;
	size_t full = truncation_cases[_i].build(&r);
	const struct decode_layout *l = truncation_cases[_i].layout;
	struct record rec;
	uint32_t type;
	uint64_t time;

	ck_assert_int_eq(record_decode(r.b, full, l, &rec), 0);
	ck_assert_int_eq(record_peek(r.b, full, l, &type, &time), 0);
	ck_assert_uint_eq(type, rec.type);
	ck_assert_uint_eq(time, record_time(&rec));
	ck_assert_uint_ne(time, 0);
	for (size_t len = 0; len < full; len++) {
		unsigned char *copy = unit_exact_copy(r.b, len);

		/* The header claims more than there is. */
		ck_assert_int_eq(record_peek(copy, len, l, &type, &time), -EBADMSG);
		if (len >= sizeof(struct perf_event_header)) {
			set_size(copy, (uint16_t)len);
			if (record_peek(copy, len, l, &type, &time) == 0 &&
			    record_decode(copy, len, l, &rec) == 0)
				ck_assert_uint_eq(time, record_time(&rec));
		}
		free(copy);
	}
}
END_TEST

/* Layouts without a time, or without sample_id on side-band records: time 0. */
START_TEST(test_peek_no_time)
{
	const struct decode_layout untimed = {.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
					      .sample_id_all = true};
	const struct decode_layout no_sid = {.sample_type = ST_BASE, .sample_id_all = false};
	struct rb r;
	uint32_t type;
	uint64_t time = 1;

	rb_begin(&r, PERF_RECORD_SAMPLE, 0);
	rb_u64(&r, 0x1000);
	rb_u32x2(&r, 5, 6);
	ck_assert_int_eq(record_peek(r.b, rb_end(&r), &untimed, &type, &time), 0);
	ck_assert_uint_eq(type, PERF_RECORD_SAMPLE);
	ck_assert_uint_eq(time, 0);
	rb_begin(&r, PERF_RECORD_COMM, 0);
	rb_u32x2(&r, 1, 2);
	rb_string(&r, "init");
	time = 1;
	ck_assert_int_eq(record_peek(r.b, rb_end(&r), &no_sid, &type, &time), 0);
	ck_assert_uint_eq(type, PERF_RECORD_COMM);
	ck_assert_uint_eq(time, 0);
}
END_TEST

/* A sample too short to hold its time: refused, nothing read past it. */
START_TEST(test_peek_short)
{
	struct rb r;
	uint32_t type;
	uint64_t time;

	rb_begin(&r, PERF_RECORD_SAMPLE, 0);
	rb_u64(&r, 0x1000); /* ip; pid and tid and time missing */
	{
		size_t len = rb_end(&r);
		unsigned char *copy = unit_exact_copy(r.b, len);

		ck_assert_int_eq(record_peek(copy, len, &base_layout, &type, &time), -EBADMSG);
		free(copy);
	}
}
END_TEST

/* Random bytes with a consistent size never crash the decoder. */
START_TEST(test_random_bytes)
{
	static const uint32_t types[] = {
		PERF_RECORD_SAMPLE, PERF_RECORD_MMAP2, PERF_RECORD_COMM,	PERF_RECORD_FORK,
		PERF_RECORD_EXIT,   PERF_RECORD_LOST,  PERF_RECORD_LOST_SAMPLES};
	uint64_t seed = 0x5eed;

	for (int iter = 0; iter < 20000; iter++) {
		size_t len = 8 + unit_rand(&seed) % 160;
		unsigned char *buf = malloc(len);
		struct perf_event_header h;
		struct record rec;
		int ret;

		for (size_t i = 0; i < len; i++)
			buf[i] = (unsigned char)unit_rand(&seed);
		/* Small values make field counts plausible more often. */
		for (size_t i = 8; i + 8 <= len; i += 8)
			if (unit_rand(&seed) % 2)
				memset(buf + i + 1, 0, 7);
		h.type = types[unit_rand(&seed) % ARRAY_SIZE(types)];
		h.misc = (uint16_t)unit_rand(&seed);
		h.size = (uint16_t)len;
		memcpy(buf, &h, sizeof(h));
		ret = record_decode(buf, len, iter % 2 ? &dwarf_layout : &base_layout, &rec);
		ck_assert(ret == 0 || ret == -EBADMSG);
		if (ret == 0) {
			uint32_t type;
			uint64_t time;

			ck_assert_int_eq(record_peek(buf, len,
						     iter % 2 ? &dwarf_layout : &base_layout, &type,
						     &time),
					 0);
			ck_assert_uint_eq(type, rec.type);
			ck_assert_uint_eq(time, record_time(&rec));
		}
		if (ret == 0 && rec.type == PERF_RECORD_SAMPLE && rec.sample.nr)
			(void)sample_ip_at(&rec.sample, rec.sample.nr - 1);
		if (ret == 0 && rec.type == PERF_RECORD_COMM)
			ck_assert_uint_lt(strlen(rec.comm.comm), len);
		free(buf);
	}
}
END_TEST

static Suite *decode_suite(void)
{
	Suite *s = suite_create("decode");
	TCase *tc = tcase_create("samples");

	tcase_add_test(tc, test_sample_fields);
	tcase_add_test(tc, test_sample_unaligned);
	tcase_add_test(tc, test_sample_empty_callchain);
	tcase_add_test(tc, test_sample_regs_stack);
	tcase_add_test(tc, test_sample_trim_stack);
	tcase_add_test(tc, test_sample_cgroup_after_stack);
	tcase_add_test(tc, test_sample_no_regs_no_stack);
	tcase_add_test(tc, test_sample_dyn_size_too_big);
	tcase_add_test(tc, test_sample_all_fields);
	tcase_add_test(tc, test_sample_unsupported);
	suite_add_tcase(s, tc);

	tc = tcase_create("side-band");
	tcase_add_test(tc, test_mmap2_inode);
	tcase_add_test(tc, test_mmap2_build_id);
	tcase_add_test(tc, test_mmap2_bad_build_id_size);
	tcase_add_test(tc, test_mmap2_wrapping_range);
	tcase_add_test(tc, test_mmap2_filename_without_nul);
	tcase_add_test(tc, test_comm);
	tcase_add_test(tc, test_comm_padded);
	tcase_add_test(tc, test_comm_without_nul);
	tcase_add_test(tc, test_fork_exit);
	tcase_add_test(tc, test_lost);
	tcase_add_test(tc, test_switch);
	tcase_add_test(tc, test_cgroup_record);
	tcase_add_test(tc, test_sample_id_all_fields);
	tcase_add_test(tc, test_no_sample_id_all);
	tcase_add_test(tc, test_unknown_type);
	suite_add_tcase(s, tc);

	tc = tcase_create("damaged");
	tcase_add_test(tc, test_size_mismatch);
	tcase_add_test(tc, test_callchain_past_end);
	tcase_add_test(tc, test_stack_size_past_end);
	tcase_add_loop_test(tc, test_truncated, 0, (int)ARRAY_SIZE(truncation_cases));
	tcase_add_test(tc, test_random_bytes);
	tcase_add_loop_test(tc, test_peek, 0, (int)ARRAY_SIZE(truncation_cases));
	tcase_add_test(tc, test_peek_no_time);
	tcase_add_test(tc, test_peek_short);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(decode_suite());
}
