/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ksyms.c - the kernel's function symbols, kept small; see ksyms.h.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf/ksyms.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/clock.h"
#include "util/io.h"

/* While reading: a symbol's name number carries its rank (global) here. */
#define GLOBAL_BIT 0x80000000U
#define LAST_SIZE  4096
/* Names are written to their file this many bytes at a time. */
#define WRITE_BUF (64 * 1024)

void ksyms_init(struct ksyms *k)
{
	memset(k, 0, sizeof(*k));
	k->fd = -1;
}

void ksyms_release(struct ksyms *k)
{
	free(k->syms);
	free(k->blk);
	if (k->map)
		munmap(k->map, k->names_len);
	else
		free(k->buf);
	if (k->fd >= 0)
		close(k->fd);
	ksyms_init(k);
}

/* Writes what waits in the buffer to the names' file, if there is one. */
static int flush_names(struct ksyms *k)
{
	int ret;

	if (k->fd < 0 || !k->buf_len)
		return 0;
	ret = write_all(k->fd, k->buf, k->buf_len);
	k->buf_len = 0;
	return ret;
}

static int add_name(struct ksyms *k, const char *name, size_t n)
{
	if (k->nnames % KSYMS_BLOCK == 0) {
		if (k->names_len > UINT32_MAX)
			return -ENOMEM;
		xgrow(&k->blk, &k->blkcap, k->nblk + 1, sizeof(*k->blk));
		k->blk[k->nblk++] = (uint32_t)k->names_len;
	}
	/* Past WRITE_BUF bytes the names go to a file (small tables stay in memory). */
	if (k->buf_len + n + 1 > WRITE_BUF && !k->no_file) {
		int ret;

		if (k->fd < 0 && (k->fd = unnamed_file("perfmini-ksyms")) < 0)
			k->no_file = true;
		if ((ret = flush_names(k)) < 0)
			return ret;
	}
	xgrow(&k->buf, &k->buf_cap, k->buf_len + n + 1, 1);
	memcpy(k->buf + k->buf_len, name, n);
	k->buf[k->buf_len + n] = '\0';
	k->buf_len += n + 1;
	k->names_len += n + 1;
	k->nnames++;
	return 0;
}

/*
 * The names, all read: mapped from their file (only the pages looked at
 * are resident), or kept in the buffer where there is no file.
 */
static int map_names(struct ksyms *k)
{
	void *p;
	int ret = flush_names(k);

	if (ret < 0 || k->fd < 0 || !k->names_len)
		return ret;
	p = mmap(NULL, k->names_len, PROT_READ, MAP_PRIVATE, k->fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	free(k->buf);
	k->buf = NULL;
	k->buf_cap = 0;
	k->map = p;
	return 0;
}

/* Name number i, the global bit ignored; NULL when there is none. */
static const char *name_of(const struct ksyms *k, uint32_t i)
{
	const char *names = k->map ? k->map : k->buf, *p, *end;
	size_t b;

	i &= ~GLOBAL_BIT;
	b = i / KSYMS_BLOCK;
	if (b >= k->nblk || !names)
		return NULL;
	p = names + k->blk[b];
	end = names + (b + 1 < k->nblk ? k->blk[b + 1] : k->names_len);
	for (size_t skip = i % KSYMS_BLOCK; skip && p < end; skip--)
		p += strnlen(p, (size_t)(end - p)) + 1;
	return p < end ? p : NULL;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	/* Global first, then in the order read. */
	if ((x->name & GLOBAL_BIT) != (y->name & GLOBAL_BIT))
		return x->name & GLOBAL_BIT ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/* Whether x beats y, both at one address: see ksyms.h. */
static bool better(const struct ksyms *k, const struct ksym *x, const struct ksym *y)
{
	const char *xn, *yn;
	size_t xl, yl;

	if ((x->name & GLOBAL_BIT) != (y->name & GLOBAL_BIT))
		return x->name & GLOBAL_BIT;
	if (!(xn = name_of(k, x->name)))
		return false;
	if (!(yn = name_of(k, y->name)))
		return true;
	xl = strlen(xn);
	yl = strlen(yn);
	return xl != yl ? xl < yl : strcmp(xn, yn) < 0;
}

static void finish(struct ksyms *k)
{
	size_t i, j = 0;
	bool sorted = true;

	for (i = 1; i < k->n && sorted; i++)
		sorted = k->syms[i - 1].lo <= k->syms[i].lo;
	if (!sorted)
		qsort(k->syms, k->n, sizeof(*k->syms), cmp_ksym);
	for (i = 0; i < k->n; i++) {
		if (j && k->syms[j - 1].lo == k->syms[i].lo) {
			if (better(k, &k->syms[i], &k->syms[j - 1]))
				k->syms[j - 1] = k->syms[i];
			continue;
		}
		k->syms[j++] = k->syms[i];
	}
	k->n = j;
	for (i = 0; i < k->n; i++)
		k->syms[i].name &= ~GLOBAL_BIT;
	/* No room kept for growth: the table is read once. */
	if (k->n) {
		k->syms = xrealloc(k->syms, k->n * sizeof(*k->syms));
		k->cap = k->n;
	}
}

int ksyms_read(struct ksyms *k, FILE *f)
{
	char line[1024];
	int n = 0, err = 0;

	while (!err && fgets(line, sizeof(line), f)) {
		char *end, *name, type;
		unsigned long long addr;
		size_t len;

		errno = 0;
		addr = strtoull(line, &end, 16);
		if (errno || end == line || *end != ' ')
			continue;
		type = end[1];
		if (!type || end[2] != ' ')
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		name = end + 3;
		len = strcspn(name, " \t\n");
		if (!len || (addr & KSYMS_HIGH) != KSYMS_HIGH || k->nnames >= GLOBAL_BIT)
			continue;
		xgrow(&k->syms, &k->cap, k->n + 1, sizeof(*k->syms));
		k->syms[k->n].lo = (uint32_t)addr;
		k->syms[k->n].name = (uint32_t)k->nnames;
		if (type == 'T' || type == 'W')
			k->syms[k->n].name |= GLOBAL_BIT;
		k->n++;
		err = add_name(k, name, len);
		n++;
	}
	if (!err)
		err = map_names(k);
	if (!err && ferror(f))
		err = -EIO;
	if (err) {
		ksyms_release(k);
		return err;
	}
	finish(k);
	return n;
}

int ksyms_read_kernel(struct ksyms *k)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	int n;

	if (!f)
		return -errno;
	n = ksyms_read(k, f);
	fclose(f);
	return n;
}

struct ksyms_reader {
	pthread_t thread;
	struct ksyms k;
	int ret;
	uint64_t cpu_ns;
	_Atomic bool done;
};

static void *reader_main(void *arg)
{
	struct ksyms_reader *r = arg;

	r->ret = ksyms_read_kernel(&r->k);
	r->cpu_ns = thread_cpu_ns();
	atomic_store(&r->done, true);
	return NULL;
}

bool ksyms_read_done(struct ksyms_reader *r)
{
	return atomic_load(&r->done);
}

struct ksyms_reader *ksyms_read_start(void)
{
	struct ksyms_reader *r = xcalloc(1, sizeof(*r));

	ksyms_init(&r->k);
	if (pthread_create(&r->thread, NULL, reader_main, r) != 0) {
		free(r);
		return NULL;
	}
	return r;
}

int ksyms_read_wait(struct ksyms_reader *r, struct ksyms *k, uint64_t *cpu_ns)
{
	int ret;

	pthread_join(r->thread, NULL);
	*k = r->k;
	ret = r->ret;
	if (cpu_ns)
		*cpu_ns = r->cpu_ns;
	free(r);
	return ret;
}

const char *ksyms_name(struct ksyms *k, size_t i)
{
	return i < k->n ? name_of(k, k->syms[i].name) : NULL;
}

static uint64_t ksym_lo(const void *syms, size_t i)
{
	return ((const struct ksym *)syms)[i].lo;
}

bool ksyms_lookup(struct ksyms *k, uint64_t addr, uint64_t *start, const char **name)
{
	size_t lo;
	uint32_t a = (uint32_t)addr;
	uint64_t end;

	if ((addr & KSYMS_HIGH) != KSYMS_HIGH || !k->n)
		return false;
	/* Just after the last symbol starting at or below addr. */
	lo = bsearch_last_le(k->syms, k->n, a, ksym_lo);
	if (lo == 0)
		return false;
	end = lo < k->n ? k->syms[lo].lo : (uint64_t)k->syms[lo - 1].lo + LAST_SIZE;
	if (a >= end || !(*name = name_of(k, k->syms[lo - 1].name)))
		return false;
	*start = KSYMS_HIGH | k->syms[lo - 1].lo;
	return true;
}
