/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * corrupt-sweep.c - damages a real data file in every way a disk, a
 * network copy or a careless hand can, and checks in-process what
 * datafile_decode() makes of each copy; for tests/store/run-corrupt.sh.
 *
 * usage: corrupt-sweep [-v] [-s SEED] [-w DIR -n N] FILE
 *
 * The sweep, on copies of FILE (a file perfmini wrote):
 *   - cut at every offset of the first 4 KiB and at 1,000 random offsets;
 *   - one bit flipped, for every bit of the file header and of every
 *     section header, and for 10,000 random bits of the whole file.
 * The contract checked for each copy: datafile_decode() either refuses it
 * with a one-line reason that names the offset of the damage ("offset
 * N"; an empty file and a version the reader does not know are said so
 * instead), or accepts it and reads exactly what the undamaged file holds
 * (the profile encodes to the same bytes), which only a flip in bytes the
 * format says readers ignore (the header's flags and reserved fields,
 * padding) may do, or (a file written as it was recorded, version 3)
 * accepts it as cut short, saying where (cut_at), and reads what its
 * complete chunks hold: the undamaged file's first samples, no other.
 * A cut copy is never read as whole: the end section is last.
 *
 * With -w DIR -n N it also writes N of the copies (cuts and flips, spread
 * over the sweep) into DIR, as NAME.data, and DIR/expect with one line per
 * copy: "NAME accept", "NAME cut" (read as cut short) or "NAME refuse", for the end-to-end runs of
 * 'perfmini report'.
 *
 * Prints one summary line; on failure, a line for each (at most 20 shown,
 * all with -v) copy that broke the contract, "cut at OFFSET" or "bit BIT of byte
 * OFFSET", and exits 1. Exits 2 for a usage error or an unreadable FILE.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store/datafile.h"
#include "util/alloc.h"
#include "util/array.h"

#define HEADER_SIZE  24
#define SECTION_HEAD 16

static unsigned char *orig, *good_enc, *copy;
static struct profile *good;
static size_t len, good_len;
static regex_t offset_re;
static unsigned long checked, refused, accepted, failures;
static bool last_cut; /* the copy check_copy last accepted was read as cut short */
static uint64_t rng;
static bool verbose;

static uint64_t next_rand(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static void report_failure(const char *what, const char *why, const char *err)
{
	failures++;
	if (failures <= 20 || verbose)
		printf("FAIL: %s: %s%s%s\n", what, why, err ? ": " : "", err ? err : "");
}

/*
 * Decodes copy[0..n) and checks the contract; returns true when the copy
 * was accepted. must_refuse: a copy no reader may accept.
 */
static bool check_copy(const unsigned char *buf, size_t n, const char *what, bool must_refuse)
{
	char err[512];
	struct profile *p;

	checked++;
	err[0] = '\0';
	p = datafile_decode(buf, n, err, sizeof(err));
	if (!p) {
		refused++;
		if (!err[0])
			report_failure(what, "refused without a reason", NULL);
		else if (strchr(err, '\n'))
			report_failure(what, "a reason of more than one line", err);
		else if (regexec(&offset_re, err, 0, NULL, 0) != 0 &&
			 strcmp(err, "empty file") != 0 &&
			 strncmp(err, "data file version ", 18) != 0)
			report_failure(what, "the reason names no offset", err);
		return false;
	}
	accepted++;
	last_cut = p->cut_at != 0;
	if (p->cut_at) {
		/* Read as cut short: a prefix of the samples, the same ones. */
		bool same = p->nsamples <= good->nsamples && p->cut_at <= n;

		for (size_t i = 0; same && i < p->nsamples; i++)
			same = p->samples[i].time == good->samples[i].time &&
			       p->samples[i].tid == good->samples[i].tid &&
			       p->samples[i].stack == good->samples[i].stack;
		if (!same)
			report_failure(what,
				       "read as cut short, but its samples are not the "
				       "undamaged file's first ones",
				       NULL);
	} else if (must_refuse) {
		report_failure(what, "accepted, though the file is incomplete", NULL);
	} else {
		size_t elen;
		unsigned char *enc = datafile_encode(p, &elen);

		if (elen != good_len || memcmp(enc, good_enc, elen) != 0)
			report_failure(what,
				       "accepted, but what it reads differs from the undamaged "
				       "file (silent corruption)",
				       NULL);
		free(enc);
	}
	profile_free(p);
	return true;
}

static bool try_cut(size_t at)
{
	/* A copy of exactly at bytes, so that a read past it is an ASan error. */
	unsigned char *exact = xmalloc(at);
	char what[64];
	bool ok;

	snprintf(what, sizeof(what), "cut at %zu", at);
	memcpy(exact, orig, at);
	ok = check_copy(exact, at, what, at < len);
	free(exact);
	return ok;
}

static bool try_flip(size_t at, unsigned bit)
{
	char what[64];
	bool ok;

	snprintf(what, sizeof(what), "bit %u of byte %zu", bit, at);
	memcpy(copy, orig, len);
	copy[at] ^= (unsigned char)(1u << bit);
	ok = check_copy(copy, len, what, false);
	return ok;
}

/* The offsets of the section headers, END included. */
static size_t section_heads(size_t *out, size_t max)
{
	size_t n = 0, at = HEADER_SIZE;

	while (n < max && len - at >= SECTION_HEAD) {
		uint64_t size;
		uint32_t type;

		memcpy(&type, orig + at, 4);
		memcpy(&size, orig + at + 8, 8);
		out[n++] = at;
		if (type == DF_END || size > len - at - SECTION_HEAD)
			break;
		at += SECTION_HEAD + (size_t)size;
		at += (8 - at % 8) % 8;
	}
	return n;
}

/* Writing copies for the end-to-end runs. */
static FILE *expect;
static const char *outdir;

static void write_copy(const char *name, size_t n, bool accept, bool cut)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s.data", outdir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, copy, n) != (ssize_t)n || close(fd) < 0) {
		fprintf(stderr, "corrupt-sweep: cannot write %s: %s\n", path, strerror(errno));
		exit(2);
	}
	fprintf(expect, "%s %s\n", name, !accept ? "refuse" : cut ? "cut" : "accept");
}

static void usage(void)
{
	fprintf(stderr, "usage: corrupt-sweep [-v] [-s SEED] [-w DIR -n N] FILE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	size_t heads[64], nheads, cap = 0, ncuts = 0, nflips = 0;
	unsigned long nwrite = 0, written = 0;
	struct profile *p;
	char err[512];
	uint64_t seed;
	int c, fd;

	seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 16;
	while ((c = getopt(argc, argv, "s:w:n:v")) != -1) {
		switch (c) {
		case 'v':
			verbose = true;
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'w':
			outdir = optarg;
			break;
		case 'n':
			nwrite = strtoul(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1 || (outdir && !nwrite))
		usage();
	rng = seed ? seed : 1;

	fd = open(argv[optind], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "corrupt-sweep: cannot open %s: %s\n", argv[optind],
			strerror(errno));
		return 2;
	}
	for (;;) {
		ssize_t r;

		xgrow(&orig, &cap, len + 65536, 1);
		r = read(fd, orig + len, cap - len);
		if (r < 0) {
			fprintf(stderr, "corrupt-sweep: cannot read %s: %s\n", argv[optind],
				strerror(errno));
			return 2;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	p = datafile_decode(orig, len, err, sizeof(err));
	if (!p) {
		fprintf(stderr, "corrupt-sweep: %s is not a valid data file: %s\n", argv[optind],
			err);
		return 2;
	}
	if (p->cut_at) {
		fprintf(stderr, "corrupt-sweep: %s is cut short: give a whole file\n",
			argv[optind]);
		return 2;
	}
	good_enc = datafile_encode(p, &good_len);
	good = p;
	if (regcomp(&offset_re, "offset [0-9]+", REG_EXTENDED | REG_NOSUB) != 0)
		return 2;
	copy = xmalloc(len);
	printf("corrupt-sweep: %s, %zu bytes, seed %" PRIu64 "\n", argv[optind], len, seed);

	/* Cuts: every offset of the first 4 KiB, then random ones. */
	for (size_t at = 0; at < len && at < 4096; at++, ncuts++)
		try_cut(at);
	for (int i = 0; i < 1000; i++, ncuts++)
		try_cut((size_t)(next_rand() % len));

	/* Flips: every bit of every header, then random bits. */
	nheads = section_heads(heads, ARRAY_SIZE(heads));
	for (size_t at = 0; at < HEADER_SIZE; at++)
		for (unsigned bit = 0; bit < 8; bit++, nflips++)
			try_flip(at, bit);
	for (size_t h = 0; h < nheads; h++)
		for (size_t at = heads[h]; at < heads[h] + SECTION_HEAD; at++)
			for (unsigned bit = 0; bit < 8; bit++, nflips++)
				try_flip(at, bit);
	for (int i = 0; i < 10000; i++, nflips++) {
		uint64_t r = next_rand();

		try_flip((size_t)(r % len), (unsigned)(r >> 60) & 7);
	}

	if (outdir) {
		char path[4096], name[64];

		snprintf(path, sizeof(path), "%s/expect", outdir);
		expect = fopen(path, "we");
		if (!expect) {
			fprintf(stderr, "corrupt-sweep: cannot write %s: %s\n", path,
				strerror(errno));
			return 2;
		}
		/* A third cuts, the rest flips, half of those in the headers. */
		for (; written < nwrite; written++) {
			uint64_t r = next_rand();
			bool ok;

			if (written % 3 == 0) {
				size_t at = written < 30 ? (size_t)(r % 64) : (size_t)(r % len);

				memcpy(copy, orig, at);
				snprintf(name, sizeof(name), "cut-%zu", at);
				ok = check_copy(copy, at, name, at < len);
				write_copy(name, at, ok, last_cut);
			} else {
				size_t at;
				unsigned bit = (unsigned)(r >> 60) & 7;

				if (written % 2 && nheads) {
					size_t h = (size_t)(r >> 8) % (nheads + 1);

					at = h == nheads
						     ? (size_t)(r >> 16) % HEADER_SIZE
						     : heads[h] + (size_t)(r >> 16) % SECTION_HEAD;
				} else {
					at = (size_t)(r % len);
				}
				memcpy(copy, orig, len);
				copy[at] ^= (unsigned char)(1u << bit);
				snprintf(name, sizeof(name), "flip-%zu-%u", at, bit);
				ok = check_copy(copy, len, name, false);
				write_copy(name, len, ok, last_cut);
			}
		}
		if (fclose(expect) != 0)
			return 2;
		printf("corrupt-sweep: wrote %lu copies to %s\n", written, outdir);
	}
	printf("corrupt-sweep: %lu copies (%zu cut, %zu with a bit flipped): %lu refused, "
	       "%lu accepted, %lu broke the contract\n",
	       checked, ncuts, nflips, refused, accepted, failures);
	if (failures > 20 && !verbose)
		printf("corrupt-sweep: (%lu more failures not shown)\n", failures - 20);

	regfree(&offset_re);
	free(copy);
	free(orig);
	free(good_enc);
	return failures ? 1 : 0;
}
