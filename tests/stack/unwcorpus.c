/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwcorpus.c - the unwinding oracle's corpus files; see unwcorpus.h.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "unwcorpus.h"
#include "util/alloc.h"
#include "util/bytes.h"
#include "util/cursor.h"

static const char magic[8] = {'P', 'M', 'U', 'N', 'W', 'C', '1', '\n'};

/* n bytes at the cursor, copied (NULL when they are not there). */
static void *take(struct cur *c, size_t n)
{
	void *p;

	if (!cur_avail(c, n))
		return NULL;
	p = xmalloc(n ? n : 1);
	memcpy(p, c->p, n);
	c->p += n;
	return p;
}

static int read_map(struct cur *c, struct uc_map *m)
{
	uint16_t n;
	char *path;

	m->start = cur_fixed(c, 8);
	m->len = cur_fixed(c, 8);
	m->pgoff = cur_fixed(c, 8);
	m->prot = (uint32_t)cur_fixed(c, 4);
	m->maj = (uint32_t)cur_fixed(c, 4);
	m->min = (uint32_t)cur_fixed(c, 4);
	m->ino = cur_fixed(c, 8);
	m->gen = cur_fixed(c, 8);
	n = (uint16_t)cur_fixed(c, 2);
	if (c->bad || n > UC_MAX_PATH || !cur_avail(c, n))
		return -EINVAL;
	path = xmalloc((size_t)n + 1);
	memcpy(path, c->p, n);
	path[n] = '\0';
	c->p += n;
	m->path = path;
	return strlen(path) == n ? 0 : -EINVAL;
}

static int read_sample(struct cur *c, struct uc_sample *s)
{
	s->pid = (uint32_t)cur_fixed(c, 4);
	s->tid = (uint32_t)cur_fixed(c, 4);
	s->time = cur_fixed(c, 8);
	s->nregs = (uint32_t)cur_fixed(c, 4);
	if (c->bad || s->nregs > UC_MAX_REGS || !(s->regs = take(c, (size_t)s->nregs * 8)))
		return -EINVAL;
	s->stack_len = (uint32_t)cur_fixed(c, 4);
	if (c->bad || s->stack_len > UC_MAX_STACK || !(s->stack = take(c, s->stack_len)))
		return -EINVAL;
	s->nchain = (uint32_t)cur_fixed(c, 4);
	if (c->bad || s->nchain > UC_MAX_CHAIN || !(s->chain = take(c, (size_t)s->nchain * 8)))
		return -EINVAL;
	return 0;
}

int uc_read(const unsigned char *data, size_t len, struct uc_corpus *c)
{
	struct cur cu = {.p = data, .end = data + len};
	uint32_t n;

	memset(c, 0, sizeof(*c));
	if (len < sizeof(magic) || memcmp(data, magic, sizeof(magic)))
		return -EINVAL;
	cu.p += sizeof(magic);
	c->regs_mask = cur_fixed(&cu, 8);
	n = (uint32_t)cur_fixed(&cu, 4);
	if (cu.bad || n > UC_MAX_MAPS)
		goto bad;
	c->maps = xcalloc(n ? n : 1, sizeof(*c->maps));
	for (; c->nmaps < n; c->nmaps++)
		if (read_map(&cu, &c->maps[c->nmaps]) < 0) {
			c->nmaps++; /* its path, if any, freed with the rest */
			goto bad;
		}
	n = (uint32_t)cur_fixed(&cu, 4);
	if (cu.bad || n > UC_MAX_SAMPLES)
		goto bad;
	c->samples = xcalloc(n ? n : 1, sizeof(*c->samples));
	for (; c->nsamples < n; c->nsamples++)
		if (read_sample(&cu, &c->samples[c->nsamples]) < 0) {
			c->nsamples++;
			goto bad;
		}
	return 0;
bad:
	uc_free(c);
	return -EINVAL;
}

int uc_load(const char *path, struct uc_corpus *c)
{
	FILE *f = fopen(path, "re");
	unsigned char *data = NULL;
	size_t len = 0, cap = 0;
	int ret;

	memset(c, 0, sizeof(*c));
	if (!f)
		return -errno;
	for (;;) {
		size_t got;

		xgrow(&data, &cap, len + 65536, 1);
		got = fread(data + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	ret = ferror(f) ? -EIO : uc_read(data, len, c);
	fclose(f);
	free(data);
	return ret;
}

static int put(FILE *f, const void *p, size_t n)
{
	return n == 0 || fwrite(p, n, 1, f) == 1 ? 0 : -EIO;
}

#define PUT(f, v) put((f), &(v), sizeof(v))

int uc_write(FILE *f, const struct uc_corpus *c)
{
	uint32_t n = (uint32_t)c->nmaps;
	int err = put(f, magic, sizeof(magic)) | PUT(f, c->regs_mask) | PUT(f, n);

	for (size_t i = 0; i < c->nmaps; i++) {
		const struct uc_map *m = &c->maps[i];
		uint16_t len = (uint16_t)strlen(m->path);

		err |= PUT(f, m->start) | PUT(f, m->len) | PUT(f, m->pgoff) | PUT(f, m->prot) |
		       PUT(f, m->maj) | PUT(f, m->min) | PUT(f, m->ino) | PUT(f, m->gen) |
		       PUT(f, len) | put(f, m->path, len);
	}
	n = (uint32_t)c->nsamples;
	err |= PUT(f, n);
	for (size_t i = 0; i < c->nsamples; i++) {
		const struct uc_sample *s = &c->samples[i];

		err |= PUT(f, s->pid) | PUT(f, s->tid) | PUT(f, s->time) | PUT(f, s->nregs) |
		       put(f, s->regs, (size_t)s->nregs * 8) | PUT(f, s->stack_len) |
		       put(f, s->stack, s->stack_len) | PUT(f, s->nchain) |
		       put(f, s->chain, (size_t)s->nchain * 8);
	}
	return err ? -EIO : 0;
}

void uc_free(struct uc_corpus *c)
{
	for (size_t i = 0; i < c->nmaps; i++)
		free(c->maps[i].path);
	for (size_t i = 0; i < c->nsamples; i++) {
		free(c->samples[i].regs);
		free(c->samples[i].stack);
		free(c->samples[i].chain);
	}
	free(c->maps);
	free(c->samples);
	memset(c, 0, sizeof(*c));
}

void uc_sample(const struct uc_corpus *c, size_t i, struct rec_sample *s, unsigned char *regs_buf)
{
	const struct uc_sample *u = &c->samples[i];

	memset(s, 0, sizeof(*s));
	s->pid = u->pid;
	s->tid = u->tid;
	s->time = u->time;
	s->ip = u->nchain ? u->chain[0] : 0;
	/* Registers as the sample's mask had them, in the places unwind_sample reads. */
	s->regs_abi = PERF_SAMPLE_REGS_ABI_64;
	s->nregs = u->nregs;
	memcpy(regs_buf, u->regs, (size_t)u->nregs * 8);
	s->regs = regs_buf;
	s->stack = u->stack;
	s->stack_size = s->stack_dyn_size = u->stack_len;
}

uint32_t uc_model(const struct uc_corpus *c, struct model *m)
{
	uint32_t pid = c->nsamples ? c->samples[0].pid : 1;

	model_process(m, pid);
	for (size_t i = 0; i < c->nmaps; i++) {
		const struct uc_map *u = &c->maps[i];
		struct module_key k = {u->path, u->maj, u->min, u->ino, u->gen};

		if (u->len && u->start + u->len > u->start)
			model_mmap(m, pid, u->start, u->len, u->pgoff, &k, u->prot);
	}
	return pid;
}
