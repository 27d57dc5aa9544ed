/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * writer.c - a data file written as a recording goes: samples streamed
 * to the output (or to a spill file where it cannot seek back), threads
 * spilled as they end, the rest encoded a chunk at a time at the end,
 * and the whole renamed into place only when complete. See datafile.h.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "store/codec-int.h"
#include "util/alloc.h"
#include "util/bytes.h"
#include "util/io.h"

/* A sink's writer: the bytes at their offset in the file *arg. */
static int write_at(void *arg, const void *buf, size_t len, uint64_t at)
{
	return pwrite_all(*(int *)arg, buf, len, at);
}

#define SAMPLE_BUF (64 * 1024)

int datafile_create(struct datafile_out *out, const char *path, char *err, size_t errlen)
{
	struct df_out o = {0};
	const char *why;
	int ret;

	memset(out, 0, sizeof(*out));
	out->sfd = -1;
	out->threads.fd = -1;
	out->offcpu.fd = -1;
	ret = outfile_open(&out->file, path, 0600, &why);
	if (ret < 0) {
		snprintf(err, errlen, "cannot create '%s': %s", path, why ? why : strerror(-ret));
		return ret;
	}
	out->crc = crc32(0L, Z_NULL, 0);
	out->buf = xmalloc(SAMPLE_BUF);
	/*
	 * A file the samples can go into right away: the header and the
	 * samples section's header first, their size and checksum filled in
	 * at the end. Elsewhere (a pipe, a device) they wait in a spill file.
	 */
	if (!outfile_is_stream(&out->file)) {
		df_put_header(&o);
		df_section_begin(&o, DF_SAMPLES);
		ret = write_all(out->file.fd, o.buf, o.len);
		free(o.buf);
		out->sfd = out->file.fd;
	} else {
		out->sfd = unnamed_file("perfmini-spill");
		ret = out->sfd < 0 ? out->sfd : 0;
		out->spill = true;
	}
	if (ret < 0) {
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(-ret));
		datafile_abandon(out);
	}
	return ret;
}

/*
 * Appends buf to the spill file *fd, which holds at bytes: when its file
 * system is full, the spill moves to the next place that has room (see
 * unnamed_file: $TMPDIR, /var/tmp, /tmp, memory) and the write is tried
 * there. 0 or -errno.
 */
static int spill_write(int *fd, uint64_t at, const void *buf, size_t len)
{
	int ret = write_all(*fd, buf, len);

	for (int moves = 0; moves < 4 && (ret == -ENOSPC || ret == -EFBIG || ret == -EDQUOT);
	     moves++) {
		int nfd = unnamed_file_move(*fd, at, "perfmini-spill");

		if (nfd < 0)
			break;
		*fd = nfd;
		ret = write_all(*fd, buf, len);
	}
	return ret;
}

static void flush_samples(struct datafile_out *out)
{
	if (out->blen && out->err == 0)
		out->err = out->spill ? spill_write(&out->sfd, out->bytes, out->buf, out->blen)
				      : write_all(out->sfd, out->buf, out->blen);
	out->crc = crc32_z(out->crc, out->buf, out->blen);
	out->bytes += out->blen;
	out->blen = 0;
}

/*
 * A sample record as the samples section's descriptor lays it out,
 * written directly: this runs for every sample taken. check_profile
 * compares it with the descriptor's encoding byte for byte.
 */
void datafile_add_sample(struct datafile_out *out, const struct pm_sample *smp)
{
	unsigned char *rec;

	if (out->blen + DF_SAMPLE_RECORD > SAMPLE_BUF)
		flush_samples(out);
	rec = out->buf + out->blen;
	put_le64(rec, smp->time);
	put_le64(rec + 8, smp->period);
	put_le32(rec + 16, smp->pid);
	put_le32(rec + 20, smp->tid);
	put_le32(rec + 24, smp->cpu);
	put_le32(rec + 28, smp->stack);
	put_le32(rec + 32, smp->comm);
	put_le32(rec + 36, 0);
	_Static_assert(36 + 4 == DF_SAMPLE_RECORD, "every byte of the record written");
	out->blen += DF_SAMPLE_RECORD;
	out->nsamples++;
}

#define SPILL_BUF 4096

static void flush_spill(struct datafile_out *out, struct df_spill *sp)
{
	if (sp->len == 0)
		return;
	if (sp->fd == -1)
		sp->fd = unnamed_file("perfmini-spill");
	if (out->err == 0)
		out->err = sp->fd < 0 ? sp->fd : spill_write(&sp->fd, sp->bytes, sp->buf, sp->len);
	sp->bytes += sp->len;
	sp->len = 0;
}

/* Record 0 of one's section type into sp. */
static void spill_record(struct datafile_out *out, struct df_spill *sp, const struct profile *one,
			 uint32_t type)
{
	const struct df_section *sec = df_section_of(type);
	struct df_out o;

	if (!sp->buf)
		sp->buf = xmalloc(SPILL_BUF);
	if (sp->len + df_rec_size(sec) > SPILL_BUF)
		flush_spill(out, sp);
	o = (struct df_out){.buf = sp->buf + sp->len, .cap = SPILL_BUF - sp->len};
	df_put_record(&o, one, sec, 0);
	sp->len += o.len;
	sp->n++;
}

void datafile_add_thread(struct datafile_out *out, const struct pm_thread *t)
{
	const struct profile one = {.threads = (struct pm_thread *)(uintptr_t)t, .nthreads = 1};

	spill_record(out, &out->threads, &one, DF_THREADS);
}

void datafile_add_offcpu(struct datafile_out *out, const struct pm_offcpu *s)
{
	const struct profile one = {.offcpu = (struct pm_offcpu *)(uintptr_t)s, .noffcpu = 1};

	spill_record(out, &out->offcpu, &one, DF_OFFCPU);
}

/* The records of sp, copied into k. */
static void put_spill(struct datafile_out *out, struct df_spill *sp, struct df_sink *k)
{
	unsigned char *buf;
	uint64_t left = sp->bytes;

	if (left && out->err == 0 && lseek(sp->fd, 0, SEEK_SET) < 0)
		out->err = -errno;
	buf = xmalloc(SPILL_BUF);
	while (left && out->err == 0) {
		ssize_t n = read(sp->fd, buf, left < SPILL_BUF ? (size_t)left : SPILL_BUF);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			out->err = n < 0 ? -errno : -EIO;
			break;
		}
		df_sink_put(k, buf, (size_t)n);
		left -= (uint64_t)n;
	}
	free(buf);
	df_sink_put(k, sp->buf, sp->len);
}

/* The threads and spans added, first in their sections. */
static void put_added(struct df_sink *k, uint32_t type, void *arg)
{
	struct datafile_out *out = arg;

	if (type == DF_THREADS)
		put_spill(out, &out->threads, k);
	else if (type == DF_OFFCPU)
		put_spill(out, &out->offcpu, k);
}

/* Everything out holds, but the output file itself. */
static void release_spills(struct datafile_out *out)
{
	if (out->spill && out->sfd >= 0)
		close(out->sfd);
	out->sfd = -1;
	free(out->buf);
	out->buf = NULL;
	for (int i = 0; i < 2; i++) {
		struct df_spill *sp = i ? &out->offcpu : &out->threads;

		if (sp->fd >= 0)
			close(sp->fd);
		sp->fd = -1;
		free(sp->buf);
		sp->buf = NULL;
	}
}

void datafile_abandon(struct datafile_out *out)
{
	release_spills(out);
	outfile_abandon(&out->file);
}

/* Copies the spilled samples' len bytes to fd. */
static int copy_spill(int from, int to, uint64_t len)
{
	unsigned char *buf;
	int ret = 0;

	if (lseek(from, 0, SEEK_SET) < 0)
		return -errno;
	buf = xmalloc(SAMPLE_BUF);
	while (len && ret == 0) {
		ssize_t n = read(from, buf, len < SAMPLE_BUF ? (size_t)len : SAMPLE_BUF);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		ret = write_all(to, buf, (size_t)n);
		len -= (uint64_t)n;
	}
	free(buf);
	return ret;
}

int datafile_commit(struct datafile_out *out, const struct profile *p, size_t *written, char *err,
		    size_t errlen)
{
	struct df_out head = {.sum = crc32(0L, Z_NULL, 0)};
	struct df_sink rest;
	char *path = xstrdup(out->file.path);
	uint64_t rest_len;
	int ret;

	/* Samples the profile holds itself go after the streamed ones. */
	for (size_t i = 0; i < p->nsamples; i++)
		datafile_add_sample(out, &p->samples[i]);
	flush_samples(out);
	ret = out->err;
	/*
	 * The header and the samples section's, now that its size and
	 * checksum are known; then the checksum of the file so far, from
	 * which the rest goes on.
	 */
	df_put_header(&head);
	df_section_begin(&head, DF_SAMPLES);
	put_le32(head.buf + DF_HEADER_SIZE + 4, (uint32_t)out->crc);
	put_le64(head.buf + DF_HEADER_SIZE + 8, out->bytes);
	df_sum_section(&head.sum, &head.summed, head.buf, DF_HEADER_SIZE, (uint32_t)out->crc,
		       (size_t)out->bytes);
	if (ret == 0 && !out->spill &&
	    pwrite(out->file.fd, head.buf, head.len, 0) != (ssize_t)head.len)
		ret = errno ? -errno : -EIO;
	/*
	 * The samples are a multiple of 8 bytes: no padding; the rest
	 * follows, written a chunk at a time where the samples went (the
	 * output, or the spill file then copied out whole).
	 */
	df_sink_init(&rest, write_at, &out->sfd, out->spill ? out->bytes : head.len + out->bytes,
		     head.sum);
	if (ret == 0) {
		df_put_rest(&rest, p, out->offcpu.n, put_added, out);
		ret = rest.err ? rest.err : out->err;
	}
	rest_len = rest.pos - (out->spill ? out->bytes : head.len + out->bytes);
	if (ret == 0 && out->spill) {
		ret = write_all(out->file.fd, head.buf, head.len);
		if (ret == 0)
			ret = copy_spill(out->sfd, out->file.fd, out->bytes + rest_len);
	}
	if (ret == 0) {
		release_spills(out);
		ret = outfile_commit(&out->file);
	} else {
		datafile_abandon(out);
	}
	if (ret < 0)
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(-ret));
	else if (written)
		*written = head.len + (size_t)(out->bytes + rest_len);
	free(head.buf);
	free(rest.buf);
	free(path);
	return ret;
}

int datafile_write(const struct profile *p, const char *path, size_t *written, char *err,
		   size_t errlen)
{
	struct datafile_out out;
	int ret = datafile_create(&out, path, err, errlen);

	return ret < 0 ? ret : datafile_commit(&out, p, written, err, errlen);
}
