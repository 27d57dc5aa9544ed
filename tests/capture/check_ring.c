/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_ring.c - ring_init and ring_drain over a heap buffer laid out like
 * a perf mmap: one control page, then a small power-of-two data area that
 * the test fills with records and publishes through data_head.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "capture/ring.h"
#include "unit-helpers.h"
#include "util/array.h"

#define PAGE	  4096
#define DATA_SIZE 256

struct fake_ring {
	unsigned char *base;
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	uint64_t head; /* where the "kernel" writes next */
	struct ring r;
};

static unsigned char *page_alloc(size_t size)
{
	void *p = NULL;

	ck_assert_int_eq(posix_memalign(&p, PAGE, size), 0);
	return p;
}

static void fake_init(struct fake_ring *f, uint64_t start)
{
	f->base = page_alloc(PAGE + DATA_SIZE);
	memset(f->base, 0, PAGE + DATA_SIZE);
	f->meta = (void *)f->base;
	f->data = f->base + PAGE;
	f->head = start;
	f->meta->data_head = start;
	f->meta->data_tail = start;
	ck_assert_int_eq(ring_init(&f->r, f->base, PAGE, DATA_SIZE), 0);
	ck_assert_ptr_eq(f->r.data, f->data);
	ck_assert_uint_eq(f->r.size, DATA_SIZE);
}

static void fake_release(struct fake_ring *f)
{
	ring_release(&f->r);
	free(f->base);
}

/* Writes n bytes at the free-running position f->head, wrapping the end. */
static void fake_write(struct fake_ring *f, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		f->data[(f->head + i) % DATA_SIZE] = b[i];
	f->head += n;
}

/* A record of size bytes whose payload bytes are seq + i. */
static void fake_record(struct fake_ring *f, uint16_t size, uint8_t seq)
{
	struct perf_event_header h = {.type = PERF_RECORD_SAMPLE, .misc = seq, .size = size};
	unsigned char payload[RING_MAX_RECORD];

	ck_assert_uint_ge(size, sizeof(h));
	for (size_t i = 0; i < size - sizeof(h); i++)
		payload[i] = (unsigned char)(seq + i);
	fake_write(f, &h, sizeof(h));
	fake_write(f, payload, size - sizeof(h));
}

static void fake_header(struct fake_ring *f, uint16_t size)
{
	struct perf_event_header h = {.type = PERF_RECORD_SAMPLE, .misc = 0, .size = size};

	fake_write(f, &h, sizeof(h));
}

static void fake_publish(struct fake_ring *f)
{
	f->meta->data_head = f->head;
}

/* What the callback saw. */
struct seen {
	int n;
	int stop_at; /* return non-zero at this record (1-based), 0 never */
	uint8_t seq[64];
	uint16_t size[64];
	bool scratch[64];
	bool bytes_ok[64];
	const struct ring *r;
};

static int collect(const struct perf_event_header *hdr, void *arg)
{
	struct seen *s = arg;
	const unsigned char *payload = (const unsigned char *)(hdr + 1);
	bool ok = true;

	ck_assert_int_lt(s->n, 64);
	for (size_t i = 0; i < hdr->size - sizeof(*hdr); i++)
		ok = ok && payload[i] == (unsigned char)(hdr->misc + i);
	s->seq[s->n] = (uint8_t)hdr->misc;
	s->size[s->n] = hdr->size;
	s->scratch[s->n] = (const unsigned char *)hdr == s->r->scratch;
	s->bytes_ok[s->n] = ok;
	s->n++;
	return s->stop_at && s->n == s->stop_at;
}

START_TEST(test_in_order)
{
	struct fake_ring f;
	struct seen s = {.r = &f.r};

	fake_init(&f, 0);
	fake_record(&f, 16, 1);
	fake_record(&f, 24, 2);
	fake_record(&f, 40, 3);
	fake_publish(&f);
	ck_assert_uint_eq(ring_pending(&f.r), 80);
	ck_assert_int_eq(ring_drain(&f.r, collect, &s), 3);
	ck_assert_int_eq(s.n, 3);
	for (int i = 0; i < 3; i++) {
		ck_assert_uint_eq(s.seq[i], i + 1);
		ck_assert(s.bytes_ok[i]);
		ck_assert(!s.scratch[i]); /* contiguous records are handed out in place */
	}
	ck_assert_uint_eq(s.size[0], 16);
	ck_assert_uint_eq(s.size[1], 24);
	ck_assert_uint_eq(s.size[2], 40);
	ck_assert_uint_eq(f.meta->data_tail, 80);
	ck_assert_uint_eq(ring_pending(&f.r), 0);
	ck_assert_uint_eq(f.r.corrupt, 0);

	/* Nothing new: nothing read, tail unchanged. */
	ck_assert_int_eq(ring_drain(&f.r, collect, &s), 0);
	ck_assert_int_eq(s.n, 3);
	ck_assert_uint_eq(f.meta->data_tail, 80);
	fake_release(&f);
}
END_TEST

/* Records published while an earlier batch was read come in the next drain. */
START_TEST(test_two_batches)
{
	struct fake_ring f;
	struct seen s = {.r = &f.r};

	fake_init(&f, 0);
	fake_record(&f, 32, 1);
	fake_publish(&f);
	fake_record(&f, 32, 2); /* written, not yet published */
	ck_assert_int_eq(ring_drain(&f.r, collect, &s), 1);
	ck_assert_uint_eq(f.meta->data_tail, 32);
	fake_publish(&f);
	ck_assert_int_eq(ring_drain(&f.r, collect, &s), 1);
	ck_assert_int_eq(s.n, 2);
	ck_assert_uint_eq(s.seq[1], 2);
	ck_assert(s.bytes_ok[1]);
	ck_assert_uint_eq(f.meta->data_tail, 64);
	fake_release(&f);
}
END_TEST

START_TEST(test_wrapping_record)
{
	struct fake_ring f;
	struct seen s = {.r = &f.r};

	/* 16 bytes before the end: a 48-byte record wraps after its first 16. */
	fake_init(&f, DATA_SIZE - 16);
	fake_record(&f, 48, 7);
	fake_record(&f, 16, 8); /* follows the wrapped one, in place */
	fake_publish(&f);
	ck_assert_int_eq(ring_drain(&f.r, collect, &s), 2);
	ck_assert_uint_eq(s.size[0], 48);
	ck_assert(s.bytes_ok[0]);
	ck_assert(s.scratch[0]);
	ck_assert(s.bytes_ok[1]);
	ck_assert(!s.scratch[1]);
	ck_assert_uint_eq(f.meta->data_tail, DATA_SIZE + 48);
	fake_release(&f);
}
END_TEST

/* A record that ends exactly at the end of the area does not wrap. */
START_TEST(test_record_ends_at_end)
{
	struct fake_ring f;
	struct seen s = {.r = &f.r};

	fake_init(&f, DATA_SIZE - 32);
	fake_record(&f, 32, 3);
	fake_record(&f, 24, 4);
	fake_publish(&f);
	ck_assert_int_eq(ring_drain(&f.r, collect, &s), 2);
	ck_assert(!s.scratch[0]);
	ck_assert(!s.scratch[1]);
	ck_assert(s.bytes_ok[0] && s.bytes_ok[1]);
	fake_release(&f);
}
END_TEST

/* Even the 8-byte header may be split by the end of the area. */
START_TEST(test_wrapping_header)
{
	struct fake_ring f;
	struct seen s = {.r = &f.r};

	fake_init(&f, DATA_SIZE - 4);
	fake_record(&f, 24, 9);
	fake_publish(&f);
	ck_assert_int_eq(ring_drain(&f.r, collect, &s), 1);
	ck_assert_uint_eq(s.size[0], 24);
	ck_assert_uint_eq(s.seq[0], 9);
	ck_assert(s.bytes_ok[0]);
	ck_assert_uint_eq(f.meta->data_tail, DATA_SIZE - 4 + 24);
	fake_release(&f);
}
END_TEST

/*
 * data_head and data_tail count bytes since the ring was created; they
 * pass many multiples of the area size (and 2^32) in a long recording.
 */
static void run_laps(uint64_t start)
{
	struct fake_ring f;
	struct seen s = {.r = &f.r};
	uint8_t seq = 0, expect = 0;
	uint64_t seed = start | 1;

	fake_init(&f, start);
	for (int batch = 0; batch < 400; batch++) {
		uint64_t used = 0;
		int n = 0;

		s.n = 0;
		/* As many random-sized records as fit in the free space. */
		for (;;) {
			uint16_t size = (uint16_t)(8 * (1 + unit_rand(&seed) % 12));

			if (used + size > DATA_SIZE || n == 64)
				break;
			fake_record(&f, size, seq++);
			used += size;
			n++;
		}
		fake_publish(&f);
		ck_assert_int_eq(ring_drain(&f.r, collect, &s), n);
		for (int i = 0; i < n; i++) {
			ck_assert_uint_eq(s.seq[i], expect++);
			ck_assert(s.bytes_ok[i]);
		}
		ck_assert_uint_eq(f.meta->data_tail, f.head);
	}
	ck_assert_uint_gt(f.head - start, 100 * DATA_SIZE);
	ck_assert_uint_eq(f.r.corrupt, 0);
	fake_release(&f);
}

START_TEST(test_many_laps)
{
	run_laps(0);
	run_laps(1000 * DATA_SIZE + 200);
	run_laps(0xffffff00ULL); /* across 2^32 */
}
END_TEST

START_TEST(test_stop_early)
{
	struct fake_ring f;
	struct seen s = {.r = &f.r, .stop_at = 2};

	fake_init(&f, 0);
	fake_record(&f, 16, 1);
	fake_record(&f, 24, 2);
	fake_record(&f, 32, 3);
	fake_publish(&f);
	ck_assert_int_eq(ring_drain(&f.r, collect, &s), 2);
	ck_assert_int_eq(s.n, 2);
	/* Only the two records consumed are released to the kernel. */
	ck_assert_uint_eq(f.meta->data_tail, 40);
	ck_assert_uint_eq(ring_pending(&f.r), 32);

	s.stop_at = 0;
	ck_assert_int_eq(ring_drain(&f.r, collect, &s), 1);
	ck_assert_int_eq(s.n, 3);
	ck_assert_uint_eq(s.seq[2], 3);
	ck_assert(s.bytes_ok[2]);
	ck_assert_uint_eq(f.meta->data_tail, 72);
	fake_release(&f);
}
END_TEST

/* A bad size after a good record: the good one is read, the rest skipped. */
static void check_bad_size(uint16_t size, uint64_t start)
{
	struct fake_ring f;
	struct seen s = {.r = &f.r};

	fake_init(&f, start);
	fake_record(&f, 16, 1);
	fake_header(&f, size);
	fake_write(&f, "garbage!garbage!", 16);
	fake_publish(&f);
	ck_assert_int_eq(ring_drain(&f.r, collect, &s), -EBADMSG);
	ck_assert_int_eq(s.n, 1);
	ck_assert_uint_eq(s.seq[0], 1);
	ck_assert_uint_eq(f.r.corrupt, 1);
	ck_assert_uint_eq(f.meta->data_tail, f.head);
	ck_assert_uint_eq(ring_pending(&f.r), 0);

	/* The ring goes on working after the skip. */
	fake_record(&f, 24, 2);
	fake_publish(&f);
	ck_assert_int_eq(ring_drain(&f.r, collect, &s), 1);
	ck_assert_uint_eq(s.seq[1], 2);
	ck_assert(s.bytes_ok[1]);
	ck_assert_uint_eq(f.r.corrupt, 1);
	fake_release(&f);
}

START_TEST(test_bad_sizes)
{
	check_bad_size(0, 0);
	check_bad_size(4, 0);
	check_bad_size(7, 0);
	check_bad_size(25, 0); /* more than the 24 bytes published */
	check_bad_size(200, 0);
	check_bad_size(65535, 0); /* more than the whole area */
	check_bad_size(0, DATA_SIZE - 8);
	check_bad_size(200, DATA_SIZE - 20);
}
END_TEST

/* Fewer bytes published than a header: the kernel never does that. */
START_TEST(test_partial_header)
{
	struct fake_ring f;
	struct seen s = {.r = &f.r};

	fake_init(&f, 0);
	fake_write(&f, "abcd", 4);
	fake_publish(&f);
	ck_assert_int_eq(ring_drain(&f.r, collect, &s), -EBADMSG);
	ck_assert_int_eq(s.n, 0);
	ck_assert_uint_eq(f.r.corrupt, 1);
	ck_assert_uint_eq(f.meta->data_tail, 4);
	fake_release(&f);
}
END_TEST

START_TEST(test_init_sizes)
{
	static const size_t bad[] = {0, 3, 100, 384, 4095, 4097};
	unsigned char *base = page_alloc(4 * PAGE);
	struct perf_event_mmap_page *meta = (void *)base;
	struct ring r;

	memset(base, 0, 4 * PAGE);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		ck_assert_int_eq(ring_init(&r, base, PAGE, bad[i]), -EINVAL);

	/* Without data_offset/data_size, the data follows the control page. */
	ck_assert_int_eq(ring_init(&r, base, PAGE, 2 * PAGE), 0);
	ck_assert_ptr_eq(r.data, base + PAGE);
	ck_assert_uint_eq(r.size, 2 * PAGE);
	ck_assert_uint_eq(r.corrupt, 0);
	ck_assert_ptr_nonnull(r.scratch);
	ck_assert_uint_eq((uintptr_t)r.scratch % 8, 0);
	ring_release(&r);

	/* What the kernel says wins over what the caller assumed. */
	meta->data_offset = 2 * PAGE;
	meta->data_size = 1024;
	ck_assert_int_eq(ring_init(&r, base, PAGE, 2 * PAGE), 0);
	ck_assert_ptr_eq(r.data, base + 2 * PAGE);
	ck_assert_uint_eq(r.size, 1024);
	ring_release(&r);

	meta->data_size = 1000;
	ck_assert_int_eq(ring_init(&r, base, PAGE, 2 * PAGE), -EINVAL);
	free(base);
}
END_TEST

/* A data area described by data_offset/data_size, not following the page. */
START_TEST(test_data_offset)
{
	unsigned char *base = page_alloc(3 * PAGE);
	struct perf_event_mmap_page *meta = (void *)base;
	struct perf_event_header h = {.type = PERF_RECORD_SAMPLE, .misc = 5, .size = 16};
	struct ring r;
	struct seen s = {.r = &r};

	memset(base, 0, 3 * PAGE);
	meta->data_offset = 2 * PAGE;
	meta->data_size = 64;
	ck_assert_int_eq(ring_init(&r, base, PAGE, 4096), 0);
	memcpy(base + 2 * PAGE, &h, sizeof(h));
	for (int i = 0; i < 8; i++)
		base[2 * PAGE + 8 + i] = (unsigned char)(5 + i);
	meta->data_head = 16;
	ck_assert_int_eq(ring_drain(&r, collect, &s), 1);
	ck_assert_uint_eq(s.seq[0], 5);
	ck_assert(s.bytes_ok[0]);
	ck_assert_uint_eq(meta->data_tail, 16);
	ring_release(&r);
	free(base);
}
END_TEST

static Suite *ring_suite(void)
{
	Suite *s = suite_create("ring");
	TCase *tc = tcase_create("drain");

	tcase_add_test(tc, test_in_order);
	tcase_add_test(tc, test_two_batches);
	tcase_add_test(tc, test_wrapping_record);
	tcase_add_test(tc, test_record_ends_at_end);
	tcase_add_test(tc, test_wrapping_header);
	tcase_add_test(tc, test_many_laps);
	tcase_add_test(tc, test_stop_early);
	suite_add_tcase(s, tc);

	tc = tcase_create("damaged");
	tcase_add_test(tc, test_bad_sizes);
	tcase_add_test(tc, test_partial_header);
	suite_add_tcase(s, tc);

	tc = tcase_create("init");
	tcase_add_test(tc, test_init_sizes);
	tcase_add_test(tc, test_data_offset);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(ring_suite());
}
