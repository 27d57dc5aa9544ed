/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind.h - user stacks from a sample's registers and stack copy, with
 * libunwind's remote interface (DWARF call frame information).
 *
 * Memory reads are served from the sample's stack copy, and, for code and
 * unwind tables, from the pinned module files behind the process's
 * mappings at the sample's time; nothing is read from the live process.
 * One libunwind address space per process, so that its caches never mix
 * two processes' code; a process whose mappings change has its cache
 * flushed.
 */
#ifndef PERFMINI_UNWIND_H
#define PERFMINI_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/addr.h"
#include "capture/decode.h"
#include "model/proc.h"

/*
 * What unwinding reads of a module: its load segments, where its
 * .eh_frame_hdr is, a copy of its unwind tables, and its file for the
 * rest (never mapped: see unwind.c). The unwinder opens one per module
 * the first time a stack goes through it.
 */
struct unwind_page {
	uint64_t base;
	unsigned char *bytes;
	size_t len;
};

struct unwind_image {
	int fd;		    /* the module's pinned file (not owned), -1 for the vdso */
	size_t nbytes;	    /* the file's size when opened */
	unsigned char *tab; /* bytes [tab_off, tab_off + ntab) of the file */
	uint64_t tab_off;
	size_t ntab;
	struct load_seg *segs;
	size_t nsegs;
	uint64_t eh_hdr_vaddr; /* PT_GNU_EH_FRAME, 0 when the file has none */
	uint64_t eh_hdr_size;
	struct unwind_page pages[16]; /* other bytes read lately, by page */
};

/* Opens m's image: 0, or -errno (img is then empty). */
int unwind_image_open(struct unwind_image *img, const struct module *m);
void unwind_image_close(struct unwind_image *img);

/* The user registers a DWARF-mode sample asks for (x86-64). */
uint64_t unwind_regs_mask(void);

/* Why an unwind ended. */
enum unwind_end {
	UNWIND_COMPLETE,    /* reached the outermost frame (process or thread entry) */
	UNWIND_SHORT_STACK, /* needed stack beyond the copy */
	UNWIND_NO_INFO,	    /* a frame in code without unwind tables */
	UNWIND_BAD_FRAME,   /* unwind tables or stack contents made no sense */
	UNWIND_TOO_DEEP,    /* more frames than perfmini keeps */
	UNWIND_NOT_ENTRY,   /* the tables ended the stack elsewhere than at an entry point */
	UNWIND_END_COUNT,
};

const char *unwind_end_text(enum unwind_end e);

/*
 * Whether a function is where a runtime starts a process's or a thread's
 * stack: _start, the C library's start (glibc, musl), clone/clone3 and
 * start_thread, Go's runtime.goexit, runtime.mstart and runtime.rt0_go.
 * A stack that libunwind ended anywhere else stopped short (unwind_sample
 * cannot tell: names are known only after symbolization).
 */
bool unwind_is_entry_name(const char *func);

struct unwinder;

struct unwinder *unwinder_new(struct model *model);
void unwinder_free(struct unwinder *u);
/* Forgets what was cached for pid (its mappings changed). */
void unwinder_invalidate(struct unwinder *u, uint32_t pid);
/* Frees what was kept for pid (it exited). */
void unwinder_forget(struct unwinder *u, uint32_t pid);

/*
 * Unwinds the user stack of sample s of process pid. Writes at most max
 * runtime addresses into ips, the sampled one first, then return
 * addresses; *end says why it stopped and *last the module of the last
 * frame (NULL if none). Returns the number of addresses.
 */
int unwind_sample(struct unwinder *u, uint32_t pid, const struct rec_sample *s, uint64_t *ips,
		  int max, enum unwind_end *end, struct module **last);

#endif
