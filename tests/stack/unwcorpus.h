/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwcorpus.h - a corpus of captured samples for the unwinding oracle
 * (unwind-capture.c writes one per program, unwind-oracle.c replays it,
 * fuzz-unwind.c mutates it): one process's executable mappings (each
 * file by path, device and inode, so that it is opened again only if it
 * is the same file) and its samples as the kernel gave them (the user
 * registers, the stack copy, the user part of the callchain).
 *
 * The file, numbers in the host's order:
 *   "PMUNWC1\n", u64 the mask of the registers sampled (perf's numbers)
 *   u32 maps, each: u64 start, len, pgoff; u32 prot, maj, min;
 *                   u64 ino, gen; u16 path length; the path
 *   u32 samples, each: u32 pid, tid; u64 time; u32 registers, u64 each;
 *                   u32 stack bytes, the bytes; u32 chain entries, u64 each
 * Read with every length checked against the bytes and the limits below:
 * any input is read or refused, never read past.
 */
#ifndef PERFMINI_TESTS_UNWCORPUS_H
#define PERFMINI_TESTS_UNWCORPUS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "capture/decode.h"
#include "model/proc.h"

#define UC_MAX_MAPS    4096
#define UC_MAX_SAMPLES 100000
#define UC_MAX_STACK   65536
#define UC_MAX_REGS    64
#define UC_MAX_CHAIN   1024
#define UC_MAX_PATH    4096

struct uc_map {
	uint64_t start, len, pgoff;
	uint32_t prot, maj, min;
	uint64_t ino, gen;
	char *path;
};

struct uc_sample {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t nregs;
	uint64_t *regs; /* perf's order: the set bits of the mask, lowest first */
	uint32_t stack_len;
	unsigned char *stack;
	uint32_t nchain;
	uint64_t *chain; /* the sampled address, then return addresses */
};

struct uc_corpus {
	uint64_t regs_mask;
	struct uc_map *maps;
	size_t nmaps;
	struct uc_sample *samples;
	size_t nsamples;
};

/* Reads a corpus from len bytes: 0, or -EINVAL (c is then empty). */
int uc_read(const unsigned char *data, size_t len, struct uc_corpus *c);
/* Reads the corpus file at path: 0 or -errno. */
int uc_load(const char *path, struct uc_corpus *c);
/* Writes c to f: 0 or -EIO. */
int uc_write(FILE *f, const struct uc_corpus *c);
void uc_free(struct uc_corpus *c);

/* Sample i of c as the decoder gives one (pointing into c; regs into regs_buf, UC_MAX_REGS * 8). */
void uc_sample(const struct uc_corpus *c, size_t i, struct rec_sample *s, unsigned char *regs_buf);
/* The process of c (the first sample's pid, else 1) and its mappings into m; its pid. */
uint32_t uc_model(const struct uc_corpus *c, struct model *m);

#endif
