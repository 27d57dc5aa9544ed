/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ring-seeds.c - writes seeds for fuzz-record: perf record streams, each
 * file one byte choosing the decode layout (see fuzz-record.c) and then
 * records.
 *
 * usage: ring-seeds OUTDIR
 *
 * Crafted seeds (always): every record type perfmini decodes, in the
 * default, DWARF and no-call-graph layouts, well-formed, plus a record
 * that wraps and one of each type cut short. Real seeds (when perf events
 * are permitted): the ring of an event opened on this process with the
 * attr 'perfmini record' uses (event_attr), while it spins, maps a file
 * for execution, renames itself and forks a child that exits; copied out
 * in chunks of whole records. Exits 0 either way; says on stderr what it
 * wrote.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/event.h"
#include "stack/unwind.h"
#include "util/alloc.h"

static const char *outdir;
static int nwritten;

/* A growable record stream. */
struct buf {
	unsigned char b[65536];
	size_t len;
};

static void put(struct buf *s, const void *p, size_t n)
{
	if (s->len + n > sizeof(s->b))
		abort();
	memcpy(s->b + s->len, p, n);
	s->len += n;
}

static void put64(struct buf *s, uint64_t v)
{
	put(s, &v, 8);
}

static void put32x2(struct buf *s, uint32_t a, uint32_t b)
{
	put(s, &a, 4);
	put(s, &b, 4);
}

static void save(const char *name, unsigned layout, const void *bytes, size_t len)
{
	char path[4096];
	unsigned char sel = (unsigned char)layout;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", outdir, name);
	f = fopen(path, "we");
	if (!f || fwrite(&sel, 1, 1, f) != 1 || fwrite(bytes, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "ring-seeds: cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
	nwritten++;
}

/* Starts a record; returns its offset for end_rec. */
static size_t begin_rec(struct buf *s, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = {type, misc, 0};
	size_t at = s->len;

	put(s, &h, sizeof(h));
	return at;
}

static void sample_id(struct buf *s, const struct perf_event_attr *a)
{
	if (a->sample_type & PERF_SAMPLE_TID)
		put32x2(s, 4242, 4243);
	if (a->sample_type & PERF_SAMPLE_TIME)
		put64(s, 123456789);
	if (a->sample_type & PERF_SAMPLE_CPU)
		put32x2(s, 1, 0);
}

static void end_rec(struct buf *s, size_t at, const struct perf_event_attr *a, bool sid)
{
	struct perf_event_header *h = (void *)(s->b + at);

	if (sid)
		sample_id(s, a);
	while ((s->len - at) % 8)
		put(s, "", 1);
	h->size = (uint16_t)(s->len - at);
}

static void put_string(struct buf *s, const char *str)
{
	put(s, str, strlen(str) + 1);
	while (s->len % 8)
		put(s, "", 1);
}

/* One well-formed record of each kind, for attr a. */
static void crafted(struct buf *s, const struct perf_event_attr *a)
{
	size_t at;
	uint64_t st = a->sample_type;

	at = begin_rec(s, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	put32x2(s, 4242, 4242);
	put_string(s, "target");
	end_rec(s, at, a, true);

	for (int bid = 0; bid < 2; bid++) {
		at = begin_rec(s, PERF_RECORD_MMAP2, bid ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0);
		put32x2(s, 4242, 4242);
		put64(s, 0x555555554000ULL + 0x100000ULL * (uint64_t)bid);
		put64(s, 0x2000);
		put64(s, 0x1000);
		if (bid) {
			unsigned char id[24] = {20};

			for (int i = 0; i < 20; i++)
				id[4 + i] = (unsigned char)(0xa0 + i);
			put(s, id, sizeof(id));
		} else {
			put32x2(s, 8, 1);
			put64(s, 1234567);
			put64(s, 1);
		}
		put32x2(s, PROT_READ | PROT_EXEC, MAP_PRIVATE);
		put_string(s, bid ? "/usr/lib/libfoo.so" : "/usr/bin/target");
		end_rec(s, at, a, true);
	}

	at = begin_rec(s, PERF_RECORD_FORK, 0);
	put32x2(s, 4244, 4242);
	put32x2(s, 4244, 4242);
	put64(s, 123456000);
	end_rec(s, at, a, true);

	at = begin_rec(s, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	if (st & PERF_SAMPLE_IP)
		put64(s, 0x555555554000ULL + 0x1234);
	if (st & PERF_SAMPLE_TID)
		put32x2(s, 4242, 4243);
	if (st & PERF_SAMPLE_TIME)
		put64(s, 123456999);
	if (st & PERF_SAMPLE_CPU)
		put32x2(s, 1, 0);
	if (st & PERF_SAMPLE_PERIOD)
		put64(s, 1001001);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		put64(s, 6);
		put64(s, (uint64_t)PERF_CONTEXT_KERNEL);
		put64(s, 0xffffffff81000000ULL);
		put64(s, (uint64_t)PERF_CONTEXT_USER);
		put64(s, 0x555555554000ULL + 0x1234);
		put64(s, 0x555555554000ULL + 0x1300);
		put64(s, 0x555555654000ULL + 0x1010);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		put64(s, PERF_SAMPLE_REGS_ABI_64);
		for (int i = 0; i < __builtin_popcountll(a->sample_regs_user); i++)
			put64(s, 0x7ffc0000 + (uint64_t)i * 8);
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		put64(s, 64);
		for (int i = 0; i < 8; i++)
			put64(s, 0x555555554000ULL + 0x1300 + (uint64_t)i);
		put64(s, 48);
	}
	end_rec(s, at, a, false);

	at = begin_rec(s, PERF_RECORD_LOST, 0);
	put64(s, 7);
	put64(s, 3);
	end_rec(s, at, a, true);

	at = begin_rec(s, PERF_RECORD_LOST_SAMPLES, 0);
	put64(s, 5);
	end_rec(s, at, a, true);

	at = begin_rec(s, PERF_RECORD_EXIT, 0);
	put32x2(s, 4244, 4242);
	put32x2(s, 4244, 4242);
	put64(s, 123457000);
	end_rec(s, at, a, true);

	at = begin_rec(s, PERF_RECORD_THROTTLE, 0);
	put64(s, 1);
	put64(s, 2);
	put64(s, 3);
	end_rec(s, at, a, true);
}

static void layout_attr(unsigned layout, struct perf_event_attr *a)
{
	struct event_opts o;

	memset(&o, 0, sizeof(o));
	o.ev = event_find("cpu-clock");
	o.freq = 999;
	o.callchain = layout != 2;
	if (layout == 1) {
		o.dwarf_stack = 512;
		o.dwarf_regs = unwind_regs_mask();
	}
	event_attr(a, &o);
}

static void write_crafted(void)
{
	static struct buf s;
	char name[64];

	for (unsigned layout = 0; layout < 3; layout++) {
		struct perf_event_attr a;
		size_t at, whole;

		layout_attr(layout, &a);
		s.len = 0;
		crafted(&s, &a);
		whole = s.len;
		snprintf(name, sizeof(name), "crafted-%u", layout);
		/* ring sizes 64 << (sel >> 4): 4 KiB here, the records wrap once. */
		save(name, layout | 6u << 4, s.b, whole);
		snprintf(name, sizeof(name), "crafted-%u-tiny-ring", layout);
		save(name, layout | 0u << 4, s.b, whole);
		/* Each record cut one u64 short, its size still claiming all of it. */
		for (at = 0; at < whole;) {
			const struct perf_event_header *h = (const void *)(s.b + at);
			static struct buf cut;

			cut.len = 0;
			put(&cut, s.b + at, h->size - 8u);
			snprintf(name, sizeof(name), "crafted-%u-cut-%u", layout, h->type);
			save(name, layout | 6u << 4, cut.b, cut.len);
			at += h->size;
		}
	}
}

/* The recorded part: work that makes every kind of record. */
static void workload(void)
{
	volatile uint64_t x = 1;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	pid_t child;

	for (long i = 0; i < 20000000; i++)
		x = x * 6364136223846793005ULL + 1;
	if (fd >= 0) {
		void *p = mmap(NULL, 8192, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);

		if (p != MAP_FAILED)
			munmap(p, 8192);
		close(fd);
	}
	prctl(PR_SET_NAME, "seed-renamed");
	child = fork();
	if (child == 0) {
		for (long i = 0; i < 5000000; i++)
			x = x * 6364136223846793005ULL + 1;
		_exit(0);
	}
	if (child > 0)
		waitpid(child, NULL, 0);
	for (long i = 0; i < 20000000; i++)
		x = x * 6364136223846793005ULL + 1;
}

static void write_real(unsigned layout)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = 64;
	struct perf_event_attr a;
	struct perf_event_mmap_page *meta;
	unsigned char *base, *data, *lin;
	uint64_t head, tail, n;
	size_t at, chunk = 0;
	char name[64];
	int fd;

	layout_attr(layout, &a);
	a.inherit = 0; /* an inherited per-task event cannot be mapped */
	a.sample_freq = 4000;
	fd = event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "ring-seeds: no real seeds for layout %u: perf_event_open: %s\n",
			layout, strerror(-fd));
		return;
	}
	base = mmap(NULL, (pages + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		fprintf(stderr, "ring-seeds: cannot map the ring: %s\n", strerror(errno));
		close(fd);
		return;
	}
	workload();
	meta = (void *)base;
	data = base + page;
	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	tail = meta->data_tail;
	n = head - tail;
	if (n > pages * page)
		n = pages * page;
	lin = xmalloc(n ? n : 1);
	for (uint64_t i = 0; i < n; i++)
		lin[i] = data[(tail + i) % (pages * page)];
	/*
	 * Chunks of about 2 KiB of whole records: the first two, and those
	 * with a record other than a sample (mmap2, comm, fork, exit).
	 */
	for (at = 0; at < n && chunk < 8;) {
		size_t start = at;
		bool other = false;

		while (at < n && at - start < 2048) {
			const struct perf_event_header *h = (const void *)(lin + at);

			if (h->size < 8 || at + h->size > n)
				break;
			other |= h->type != PERF_RECORD_SAMPLE;
			at += h->size;
		}
		if (at == start)
			break;
		if (start && !other && chunk >= 2)
			continue;
		snprintf(name, sizeof(name), "real-%u-%zu", layout, chunk++);
		save(name, layout | 6u << 4, lin + start, at - start);
	}
	free(lin);
	munmap(base, (pages + 1) * page);
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: ring-seeds OUTDIR\n");
		return 2;
	}
	outdir = argv[1];
	write_crafted();
	for (unsigned layout = 0; layout < 3; layout++)
		write_real(layout);
	fprintf(stderr, "ring-seeds: wrote %d seeds to %s\n", nwritten, outdir);
	return 0;
}
