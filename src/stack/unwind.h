/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind.h - user stacks from a sample's registers and stack copy, by the
 * binaries' call frame information (cfi.h), spliced onto the kernel's
 * frame-pointer chain where that walk ends early.
 *
 * A sample's user stack is unwound frame by frame with the rows of
 * .eh_frame or .debug_frame (Go's: .gopclntab), code without them (JIT code, hand-written
 * assembly) by its frame pointer. Memory is read from the sample's stack
 * copy only: nothing from the live process, nothing from a module's file
 * but its unwind tables. Where the walk ends early (the copy ends before
 * the stack does, a frame makes no sense or has no tables), the kernel's
 * frame-pointer chain (when the sample has one) carries it on
 * (unwind-int.h): from the frame whose return address the kernel read
 * where the tables say it is, else from the chain's first frame further
 * out than the walk reached; so that a stack is never shorter than the
 * chain alone. Without a chain the stack ends where the walk did, said
 * so; no frame is guessed.
 */
#ifndef PERFMINI_UNWIND_H
#define PERFMINI_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/decode.h"
#include "elf/addr.h"
#include "elf/gopclntab.h"
#include "model/proc.h"
#include "stack/cfi.h"
#include "stack/ehframe.h"

/*
 * What unwinding reads of a module: its load segments and its call frame
 * information, through libelf reading the pinned file with pread (never
 * mapped: a file cut short under a mapping would raise SIGBUS on the
 * recorder's thread). The unwinder opens one per module the first time a
 * stack goes through it.
 */
struct unwind_image {
	int fd;		     /* the module's pinned file (not owned), -1 for the vdso */
	size_t nbytes;	     /* the file's size when opened */
	unsigned char *copy; /* the vdso's bytes, else NULL */
	Elf *elf;
	Dwarf *dwarf; /* for .debug_frame, once needed; NULL until then */
	/*
	 * .eh_frame read straight from the file (ehframe.h), when it has a
	 * table to find its FDEs by; libdw's (eh) only for what that leaves to
	 * it, or when there is no such table: read once needed.
	 */
	struct eh_frame table;
	bool has_table;
	bool eh_read;	       /* eh was looked for */
	Dwarf_CFI *eh, *debug; /* .eh_frame's and .debug_frame's, NULL when absent */
	bool has_debug_frame;  /* a .debug_frame not read yet */
	bool go;	       /* a Go binary: its functions' rows from .gopclntab */
	bool has_pcln;	       /* its .gopclntab not read yet */
	struct gopcln pcln;    /* read (data NULL until then, or when unreadable) */
	struct load_seg *segs;
	size_t nsegs;
	struct cfi_pool pool;	/* the expressions of the rows read from it */
	struct cfi_spans spans; /* the rows found so far, by the addresses each holds for */
	uint64_t serial;	/* set by its unwinder: unique among the images it opened */
};

/* Opens m's image: 0, or -errno (img is then empty). */
int unwind_image_open(struct unwind_image *img, const struct module *m);
void unwind_image_close(struct unwind_image *img);

/*
 * The row of ELF address vaddr of img: .eh_frame's, else (a Go binary)
 * the one .gopclntab's stack-pointer table makes, else .debug_frame's.
 * Returns as cfi_row_find.
 */
int unwind_image_row(struct unwind_image *img, uint64_t vaddr, struct cfi_row *row);
/* unwind_image_row, also giving the addresses [*lo, *hi) the row holds for. */
int unwind_image_row_span(struct unwind_image *img, uint64_t vaddr, struct cfi_row *row,
			  uint64_t *lo, uint64_t *hi);
/* libdw's CFI of img (.eh_frame's, else .debug_frame's), read once asked for; NULL if none. */
Dwarf_CFI *unwind_image_cfi(struct unwind_image *img);

/* The user registers a sample must carry to be unwound (x86-64). */
uint64_t unwind_regs_mask(void);

/* Why an unwind ended. */
enum unwind_end {
	UNWIND_COMPLETE,    /* reached the outermost frame (process or thread entry) */
	UNWIND_SHORT_STACK, /* needed stack beyond the copy, and the chain could not go on */
	UNWIND_NO_INFO,	    /* a frame in code without unwind tables or a frame pointer */
	UNWIND_BAD_FRAME,   /* unwind tables or stack contents made no sense */
	UNWIND_TOO_DEEP,    /* more frames than perfmini keeps */
	UNWIND_NOT_ENTRY,   /* the tables ended the stack elsewhere than at an entry point */
	UNWIND_END_COUNT,
};

const char *unwind_end_text(enum unwind_end e);

/* How an unwound stack was found. */
enum unwind_how {
	UNWIND_BY_CFI,	   /* call frame information (and frame pointers where code has none) */
	UNWIND_BY_SPLICE,  /* that, then the kernel's chain from the frame where both agree */
	UNWIND_BY_FP_ONLY, /* the kernel's chain alone: the sample had no stack copy */
	/*
	 * The tables, then the kernel's chain from a frame further out than
	 * the walk reached: frames between the two may be missing, as they
	 * are from the chain itself.
	 */
	UNWIND_BY_SPLICE_PAST,
	UNWIND_HOW_COUNT,
};

const char *unwind_how_text(enum unwind_how h);

/*
 * Where a walk by the tables ended early and the kernel's chain went on:
 * how the two compared on the frames both cover, and whose won.
 */
enum unwind_judge {
	UNWIND_UNJUDGED,       /* not compared: the walk was whole, or there was no chain */
	UNWIND_AGREED,	       /* the same frames */
	UNWIND_TABLES_SKIPPED, /* the tables': the chain skipped callers without frame pointers */
	UNWIND_TABLES_NOT_RA,  /* the tables': the chain read words that are no return addresses */
	UNWIND_CHAIN_WON,      /* the chain's: the walk went astray, then ended in a bad frame */
	UNWIND_JUDGE_COUNT,
};

const char *unwind_judge_text(enum unwind_judge j);

/*
 * Whether a function is where a runtime starts a process's or a thread's
 * stack: _start, the C library's start (glibc, musl), clone/clone3 and
 * start_thread, Go's runtime.goexit, runtime.mstart and runtime.rt0_go.
 * A stack that the tables ended anywhere else stopped short (unwind_sample
 * cannot tell: names are known only after symbolization).
 */
bool unwind_is_entry_name(const char *func);

struct unwinder;

struct unwinder *unwinder_new(struct model *model);
void unwinder_free(struct unwinder *u);

/* How one unwind went. */
struct unwind_result {
	int n;		     /* addresses written */
	enum unwind_end end; /* why it stopped */
	enum unwind_how how; /* how the frames were found */
	enum unwind_judge judge;
	uint64_t copy_needed; /* bytes of stack copy this unwind read or wanted */
};

/*
 * Unwinds the user stack of sample s of process pid. chain[0..nchain) is
 * the user part of the kernel's callchain (the sampled address, then
 * return addresses; nchain 0 when the sample has none). Writes at most max
 * addresses into ips, innermost first, each where its frame is to be
 * looked up: the sampled address and the interrupted address of a signal
 * frame as they are, return addresses one byte back (still in the call).
 */
void unwind_sample(struct unwinder *u, uint32_t pid, const struct rec_sample *s,
		   const unsigned char *chain, size_t nchain, uint64_t *ips, int max,
		   struct unwind_result *res);
/*
 * Lets go of what was read of m's unwind tables (its file is to be
 * closed: no process maps it any more); read again if it is needed.
 */
void unwinder_forget(struct unwinder *u, const struct module *m);
/* How many unwinds were answered from the memo of unwinds met again (for tests and benchmarks). */
uint64_t unwinder_memo_hits(const struct unwinder *u);

#endif
