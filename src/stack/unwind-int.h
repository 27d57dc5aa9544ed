/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind-int.h - what the files of the unwinder share, private to
 * stack/: an unwind's state (struct uctx), the memo of unwinds met again
 * (unwind-memo.c), and the walk through a stack copy that unwind.c hands
 * to unwind-splice.c, which carries it on along the kernel's
 * frame-pointer chain.
 */
#ifndef PERFMINI_UNWIND_INT_H
#define PERFMINI_UNWIND_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stack/cfi.h"
#include "stack/unwind.h"

/*
 * Unwinds met again. A thread sampled over and over in the same code at
 * the same depth unwinds to the same callers, wherever in its innermost
 * function the sample fell: from its caller's frame on, an unwind whose
 * rows compute every CFA from the stack or frame pointer (plain_row)
 * depends on nothing but that frame's address, stack and frame pointers,
 * the words of the stack it read and the process's mappings. A sample
 * that agrees on all of them has the same callers without looking up a
 * row. Direct-mapped by process, address and stack pointer of the
 * caller's frame; only unwinds by the tables alone whose every read was
 * inside the copy are kept.
 */
#define MEMO_SLOTS 256
#define MEMO_WORDS 96
#define MEMO_IPS   48

struct memo {
	uint64_t gen;	     /* 0: empty */
	uint64_t pc, sp, bp; /* the caller's frame: its return address, its registers */
	uint64_t want;	     /* the bytes above sp the unwind read or wanted */
	uint32_t pid;
	uint16_t nwords;
	uint8_t n, end;
	bool bp_used;		  /* bp was read (else it is not compared) */
	uint16_t off[MEMO_WORDS]; /* each word read, above sp */
	uint64_t val[MEMO_WORDS];
	uint64_t ips[MEMO_IPS]; /* the caller's frame's and its callers' */
};

/* Everything an unwind of one sample needs, handed to the reader. */
struct uctx {
	const unsigned char *stack;
	uint64_t sp, len; /* the copy holds [sp, sp + len) */
	uint64_t want;	  /* the furthest byte above sp a read asked for */
	/*
	 * For the memo, from the caller's frame on (log NULL: not yet, or
	 * not at all): the words its result depends on, unkept once a read
	 * missed the copy or they are too many (memo_step). The frame
	 * pointer: whether it still holds the caller's frame's value
	 * (bp_kept), and whether that was read; else whether it holds the
	 * word at bp_slot, not logged yet (bp_pending).
	 */
	struct memo *log;
	bool unkept, bp_kept, bp_used, bp_pending;
	bool whole_only; /* only whole unwinds (complete, or too deep) are the memo's */
	uint64_t bp_slot, bp_val;
};

/* The memo: see unwind-memo.c. */
struct memo *memo_find(struct memo **table, uint64_t *hits, uint32_t pid, uint64_t gen,
		       const struct cfi_regs *g, struct uctx *c, struct memo *log, uint64_t *ips,
		       int *n, struct unwind_result *res);
void memo_keep(struct memo *m, const struct uctx *c, const uint64_t *ips, int n,
	       const struct unwind_result *res);
void memo_step(struct uctx *c, const struct cfi_row *row, bool guessed, bool stepped,
	       const struct cfi_regs *in, const struct cfi_regs *out, uint64_t cfa);

/*
 * A walk by the tables that ended early. Its frames are ips[0, n): the
 * sampled address, then return addresses one byte back. slots[i] is the
 * stack address the tables say holds frame i's return address (the
 * address of frame i + 1), 0 where that is not known (a signal frame, a
 * rule by expression), for i < nslots: nslots is n when the tables said
 * where frame n - 1's return address is, even beyond the copy (or n - 1).
 * refused: that last one was read and is no return address (in no
 * mapping, or a caller below its callee).
 */
struct unwind_walk {
	uint64_t *ips;
	int n, max;
	const uint64_t *slots;
	int nslots;
	bool refused;
	uint64_t sp, bp; /* the sampled stack and frame pointers */
	bool bp_known;
	enum unwind_end end;
};

/* The most chain entries whose stack addresses unwind_splice works out. */
#define SPLICE_MAX_CHAIN 256

/*
 * Carries the walk w on along the user part of the kernel's callchain,
 * chain[0, nchain) (the sampled address, then return addresses, each
 * read at a frame record's address + 8, records linked from the sampled
 * rbp). Where each entry was read is followed through the copy by read
 * (the word there must be the entry; a record the copy does not hold
 * ends what is known). An entry read where the tables put frame i's
 * return address is a frame both agree on; entries read further out than
 * any frame the walk reached are the stack beyond it, appended. Of the
 * frames both cover, the tables' win (the chain skips callers that keep
 * no frame pointer, and reads a register used for something else as if
 * it were one), but where the walk ended in a bad frame after the last
 * frame both agree on: the chain's then, from there. Sets res->n, end,
 * how and judge.
 */
void unwind_splice(const struct unwind_walk *w, const unsigned char *chain, size_t nchain,
		   cfi_read_fn read, void *arg, struct unwind_result *res);

#endif
