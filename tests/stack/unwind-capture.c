/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind-capture.c - captures a corpus for the unwinding oracle
 * (unwcorpus.h) from a real program: its samples as the default mode's
 * events give them (user registers, a copy of 16 KiB of user stack, the
 * callchain), and its executable mappings.
 *
 * usage: unwind-capture OUT MAX CMD [ARG...]
 *
 * Runs CMD (held until its events exist, as perfmini record does),
 * samples its threads at 999 Hz on every CPU (cpu-clock), and keeps the
 * samples of its own process (not of processes it starts): the mappings
 * from its mmap records and from /proc/PID/maps read as it runs (the
 * vDSO's has no record), and at most MAX samples, spread evenly over
 * the run. Writes OUT and says on stderr how many it kept. Exits 77 when
 * perf events are not permitted, 1 on any other failure.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "capture/decode.h"
#include "capture/event.h"
#include "capture/launch.h"
#include "capture/ring.h"
#include "stack/unwind.h"
#include "unwcorpus.h"
#include "util/alloc.h"
#include "util/bytes.h"

#define RING_PAGES 128
#define STACK_COPY 16384
#define KEEP_MAX   4000 /* samples held before the spread is chosen */

struct capture {
	struct uc_corpus c;
	size_t samples_cap, maps_cap;
	uint32_t pid;
	struct decode_layout layout;
	uint64_t seen; /* samples of the process */
};

static void die(const char *what)
{
	fprintf(stderr, "unwind-capture: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* A mapping, unless one the same is known. */
static void add_map(struct capture *cap, const struct uc_map *m)
{
	for (size_t i = 0; i < cap->c.nmaps; i++) {
		const struct uc_map *o = &cap->c.maps[i];

		if (o->start == m->start && o->len == m->len && o->pgoff == m->pgoff &&
		    o->ino == m->ino && !strcmp(o->path, m->path))
			return;
	}
	xgrow(&cap->c.maps, &cap->maps_cap, cap->c.nmaps + 1, sizeof(*cap->c.maps));
	cap->c.maps[cap->c.nmaps] = *m;
	cap->c.maps[cap->c.nmaps++].path = xstrdup(m->path);
}

/* The executable mappings with a path in /proc/PID/maps. */
static void read_maps(struct capture *cap)
{
	char path[64], line[4608], perms[8], name[4097];
	unsigned long long start, end, pgoff, ino;
	unsigned maj, min;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/maps", cap->pid);
	if (!(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		struct uc_map m = {0};

		name[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4096s", &start, &end, perms,
			   &pgoff, &maj, &min, &ino, name) < 8 ||
		    perms[2] != 'x')
			continue;
		m = (struct uc_map){start, end - start, pgoff, PROT_READ | PROT_EXEC, maj, min,
				    ino,   0,		name};
		add_map(cap, &m);
	}
	fclose(f);
}

static void add_sample(struct capture *cap, const struct rec_sample *s)
{
	struct uc_sample *u;
	uint64_t nr = 0;
	const unsigned char *chain = NULL;

	cap->seen++;
	/* Past KEEP_MAX: every other one held is let go, and half as many kept from now on. */
	if (cap->c.nsamples == KEEP_MAX) {
		for (size_t i = 0; i < KEEP_MAX; i++) {
			struct uc_sample *x = &cap->c.samples[i];

			if (i % 2) {
				free(x->regs);
				free(x->stack);
				free(x->chain);
			} else {
				cap->c.samples[i / 2] = *x;
			}
		}
		cap->c.nsamples = KEEP_MAX / 2;
	}
	for (uint64_t i = 0; i < s->nr; i++)
		if (sample_ip_at(s, i) == (uint64_t)PERF_CONTEXT_USER) {
			chain = s->ips + (i + 1) * 8;
			nr = s->nr - i - 1;
			break;
		}
	if (nr > UC_MAX_CHAIN)
		nr = UC_MAX_CHAIN;
	xgrow(&cap->c.samples, &cap->samples_cap, cap->c.nsamples + 1, sizeof(*cap->c.samples));
	u = &cap->c.samples[cap->c.nsamples++];
	*u = (struct uc_sample){.pid = s->pid, .tid = s->tid, .time = s->time};
	u->nregs = s->nregs < UC_MAX_REGS ? s->nregs : UC_MAX_REGS;
	u->regs = xmalloc((size_t)u->nregs * 8 + 1);
	memcpy(u->regs, s->regs, (size_t)u->nregs * 8);
	u->stack_len = (uint32_t)s->stack_dyn_size;
	u->stack = xmalloc(u->stack_len + 1);
	memcpy(u->stack, s->stack, u->stack_len);
	u->nchain = (uint32_t)nr;
	u->chain = xmalloc(nr * 8 + 1);
	if (nr)
		memcpy(u->chain, chain, nr * 8);
}

static int on_record(const struct perf_event_header *hdr, void *arg)
{
	struct capture *cap = arg;
	struct record rec;

	if (record_decode(hdr, hdr->size, &cap->layout, &rec) < 0)
		return 0;
	if (rec.type == PERF_RECORD_MMAP2 && rec.mmap2.pid == cap->pid &&
	    (rec.mmap2.prot & PROT_EXEC)) {
		struct uc_map m = {rec.mmap2.addr,
				   rec.mmap2.len,
				   rec.mmap2.pgoff,
				   rec.mmap2.prot,
				   rec.mmap2.maj,
				   rec.mmap2.min,
				   rec.mmap2.ino,
				   0,
				   (char *)rec.mmap2.filename};

		add_map(cap, &m);
	} else if (rec.type == PERF_RECORD_SAMPLE && rec.sample.pid == cap->pid &&
		   rec.sample.regs_abi == PERF_SAMPLE_REGS_ABI_64 && rec.sample.stack_dyn_size) {
		add_sample(cap, &rec.sample);
	}
	return 0;
}

/* The events of every CPU on the held child, each with its ring. */
static int open_rings(struct capture *cap, struct ring *rings, int ncpu)
{
	struct event_opts o = {.ev = event_find("cpu-clock"),
			       .freq = 999,
			       .callchain = true,
			       .dwarf_stack = STACK_COPY,
			       .dwarf_regs = unwind_regs_mask(),
			       .hybrid = true,
			       .inherit = true,
			       .enable_on_exec = true};
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct perf_event_attr attr;

	event_attr(&attr, &o);
	cap->layout = (struct decode_layout){attr.sample_type, attr.sample_regs_user, true};
	cap->c.regs_mask = attr.sample_regs_user;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		int fd = event_open(&attr, (pid_t)cap->pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		void *base;

		if (fd < 0)
			return fd;
		base = mmap(NULL, (RING_PAGES + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			    0);
		if (base == MAP_FAILED || ring_init(&rings[cpu], base, page, RING_PAGES * page) < 0)
			return -errno;
	}
	return 0;
}

/* Writes at most max samples of cap, spread evenly, to path. */
static void write_corpus(struct capture *cap, const char *path, size_t max)
{
	struct uc_corpus out = cap->c;
	size_t n = cap->c.nsamples;
	FILE *f;

	if (max > n)
		max = n;
	out.samples = xcalloc(max ? max : 1, sizeof(*out.samples));
	/* Distinct, as n >= max. */
	for (out.nsamples = 0; out.nsamples < max; out.nsamples++)
		out.samples[out.nsamples] = cap->c.samples[out.nsamples * n / max];
	if (!(f = fopen(path, "we")) || uc_write(f, &out) < 0 || fclose(f) != 0)
		die(path);
	fprintf(stderr, "unwind-capture: %s: %zu samples of %llu, %zu mappings\n", path,
		out.nsamples, (unsigned long long)cap->seen, out.nmaps);
	free(out.samples);
}

int main(int argc, char **argv)
{
	struct capture cap = {0};
	struct launch l;
	struct ring *rings;
	int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF), ret;
	struct timespec tick = {0, 5000000};
	unsigned rounds = 0;

	if (argc < 4 || atoi(argv[2]) <= 0) {
		fprintf(stderr, "usage: unwind-capture OUT MAX CMD [ARG...]\n");
		return 2;
	}
	if (launch_start(&l, argv + 3, false) < 0)
		die("cannot start the command");
	cap.pid = (uint32_t)l.pid;
	rings = xcalloc((size_t)ncpu, sizeof(*rings));
	if ((ret = open_rings(&cap, rings, ncpu)) < 0) {
		launch_abort(&l);
		fprintf(stderr, "unwind-capture: perf events: %s\n", strerror(-ret));
		return ret == -EACCES || ret == -EPERM ? 77 : 1;
	}
	if (launch_release(&l) < 0)
		die("cannot run the command");
	while (!launch_poll(&l)) {
		nanosleep(&tick, NULL);
		for (int cpu = 0; cpu < ncpu; cpu++)
			ring_drain(&rings[cpu], on_record, &cap);
		if (rounds++ % 10 == 0)
			read_maps(&cap);
	}
	for (int cpu = 0; cpu < ncpu; cpu++)
		ring_drain(&rings[cpu], on_record, &cap);
	write_corpus(&cap, argv[1], (size_t)atoi(argv[2]));
	uc_free(&cap.c);
	for (int cpu = 0; cpu < ncpu; cpu++)
		ring_release(&rings[cpu]);
	free(rings);
	return 0;
}
