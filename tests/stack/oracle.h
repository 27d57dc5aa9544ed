/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oracle.h - what the unwinding oracle's files share (unwind-oracle.c
 * runs it, oracle-lu.c is libunwind's side, oracle-diff.c judges the
 * differences).
 */
#ifndef PERFMINI_TESTS_ORACLE_H
#define PERFMINI_TESTS_ORACLE_H

#include <libunwind.h>
#include <stdbool.h>
#include <stdint.h>

#include <gelf.h>

#include "elf/addr.h"
#include "stack/unwind.h"
#include "unwcorpus.h"

#define ORACLE_MAX_FRAMES 256

/* One unwind's frames: perfmini's (end) or libunwind's (lu_ret, its last step's answer). */
struct oracle_frames {
	uint64_t ip[ORACLE_MAX_FRAMES];
	bool signal[ORACLE_MAX_FRAMES]; /* libunwind: the frame is a signal frame */
	int n;
	enum unwind_end end;
	int lu_ret;
	bool below_sp; /* libunwind read below the sampled stack pointer */
};

/* A module of the corpus as libunwind's accessors read it. */
struct oracle_image {
	const struct module *mod;
	Elf *elf;
	unsigned char *bytes; /* the vDSO's copy, else NULL */
	unsigned char *map;   /* else the file, mapped */
	size_t nbytes;
	struct load_seg *segs;
	size_t nsegs;
	uint64_t bias;		  /* runtime address - ELF address */
	uint64_t start, end;	  /* its executable mapping */
	uint64_t hdr;		  /* .eh_frame_hdr's ELF address, 0 when it has none */
	struct unwind_image rows; /* perfmini's reading of its tables (rows_ok) */
	bool rows_ok;
};

struct oracle_ctx {
	const char *name;
	struct uc_corpus *c;
	struct model *model;
	uint32_t pid;
	struct unwinder *u;
	unw_addr_space_t as;
	size_t sample; /* the one libunwind unwinds */
	bool below_sp; /* it read below that one's stack pointer */
	struct oracle_image *imgs;
	size_t nimgs;
};

/* What the comparison of a corpus found: how many samples of each kind. */
enum oracle_kind {
	ORACLE_SAME,
	ORACLE_LU_NO_TABLE, /* libunwind walked frame pointers through code with no .eh_frame (Go) */
	ORACLE_LU_GARBAGE,  /* libunwind gave a frame in no mapping */
	ORACLE_LU_BELOW_SP, /* libunwind stopped for a word below the stack pointer */
	ORACLE_GUESSES,	    /* no tables for the frame: each guessed its caller */
	ORACLE_LU_SHORT,    /* libunwind stopped where perfmini went on (unexplained) */
	ORACLE_PM_SHORT,    /* perfmini stopped where libunwind went on (unexplained) */
	ORACLE_DIVERGED,    /* they disagree on a frame (unexplained) */
	ORACLE_KINDS,
};

struct oracle_counts {
	size_t n[ORACLE_KINDS];
	size_t unexplained;
};

/* A libunwind address space over oracle_ctx's samples and images. */
unw_addr_space_t oracle_space(void);
/* Opens the images of o's modules (o->imgs); oracle_images_free closes them. */
void oracle_images(struct oracle_ctx *o);
void oracle_images_free(struct oracle_ctx *o);
/* The image whose executable mapping holds a, or NULL. */
const struct oracle_image *oracle_image_at(const struct oracle_ctx *o, uint64_t a);
/* Whether the tables of any kind perfmini reads have a row for runtime address a. */
bool oracle_has_row(const struct oracle_ctx *o, uint64_t a);

/* Compares sample i's unwinds p (perfmini's) and l (libunwind's) into k; shows up to show. */
void oracle_judge(const struct oracle_ctx *o, size_t i, const struct oracle_frames *p,
		  const struct oracle_frames *l, struct oracle_counts *k, int show);
/* The counts of a corpus, one line. */
void oracle_print(const struct oracle_ctx *o, const struct oracle_counts *k);

#endif
