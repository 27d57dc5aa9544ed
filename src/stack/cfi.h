/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cfi.h - call frame information (x86-64): for one code address, the
 * rules that give the caller's registers from the callee's, as libdw reads
 * them from .eh_frame or .debug_frame, reduced to a small row that can be
 * cached; and one unwinding step that applies a row to a register set.
 *
 * Registers are numbered as DWARF numbers them on x86-64: 0-15 the
 * general registers (rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp, r8-r15), 16
 * the return address (rip). A row keeps the rules of the registers that
 * survive a call (rbx, rbp, rsp, r12-r15) and of the return address;
 * the others are unknown in a caller. A signal frame restores every
 * register from the interrupted context: its row says so, and its step
 * goes back to libdw for all of them.
 *
 * Nothing here reads memory itself: the step is handed a reader. Nothing
 * allocates but cfi_row_find's expression pool.
 */
#ifndef PERFMINI_CFI_H
#define PERFMINI_CFI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

#define CFI_NREGS 17
#define CFI_RBX	  3
#define CFI_RBP	  6
#define CFI_RSP	  7
#define CFI_RA	  16

/* A thread's registers at one frame; bit r of known says r[r] is. */
struct cfi_regs {
	uint64_t r[CFI_NREGS];
	uint32_t known;
};

static inline bool cfi_known(const struct cfi_regs *g, int r)
{
	return g->known >> r & 1;
}

static inline void cfi_set(struct cfi_regs *g, int r, uint64_t v)
{
	g->r[r] = v;
	g->known |= 1u << r;
}

enum cfi_rule_kind {
	CFI_UNDEF,    /* not recoverable */
	CFI_SAME,     /* the callee's value */
	CFI_AT,	      /* in memory at CFA + off */
	CFI_VAL,      /* CFA + off */
	CFI_REG,      /* the callee's register reg (+ off for the CFA) */
	CFI_EXPR,     /* in memory at the address an expression gives */
	CFI_VAL_EXPR, /* the value an expression gives */
};

struct cfi_rule {
	uint8_t kind;  /* enum cfi_rule_kind */
	uint8_t reg;   /* CFI_REG */
	uint16_t nops; /* CFI_EXPR, CFI_VAL_EXPR: expression length */
	int32_t off;   /* CFI_AT, CFI_VAL, CFI_REG: offset; CFI_*EXPR: index in the pool */
};

/* The kept registers, in a row's rules[] order. */
#define CFI_NKEPT 8
extern const uint8_t cfi_kept[CFI_NKEPT];

struct cfi_row {
	struct cfi_rule cfa;		  /* CFI_REG or CFI_VAL_EXPR */
	struct cfi_rule rules[CFI_NKEPT]; /* by cfi_kept */
	bool signal;			  /* a signal frame: see cfi_step_signal */
	bool fp;			  /* CFA = rbp + 16, rbp at CFA - 16, ra at CFA - 8 */
	bool bp_frame;			  /* rbp's rule is cfi_bp_rule's */
	bool sp_moved;			  /* a bp_frame whose rsp may be elsewhere: see below */
	bool bp_caller;			  /* its caller's frame is rbp's past a call: see below */
};

/*
 * The rule of rbp of a row for a frame with registers in and CFA cfa.
 * Most rows say it. A row with bp_frame set is one of Go's (its tables
 * never say where rbp is, though Go on x86-64 keeps frame pointers): in a
 * frame of its own (the CFA past the return address), Go saves the
 * caller's rbp at CFA - 16 and points rbp there, but not in the first
 * instructions of the function nor after its epilogue restored it. So
 * where rbp is CFA - 16 the caller's is at that address; elsewhere rbp
 * still holds the caller's value.
 *
 * A row with sp_moved set is one of Go's functions that move the stack
 * pointer where their table does not say (GOPCLN_SPWRITE: the vDSO calls
 * align it, or go to the thread's system stack, and put it back after).
 * Its frame is still the one rbp points to: where rbp is not CFA - 16 by
 * the table's CFA, the walk takes rbp + 16 as the CFA (unwind.c); nothing
 * here does. It is not set in the prologue and epilogue, where rbp may be
 * the caller's.
 *
 * A row with bp_caller set is one of the Go runtime's functions of no
 * frame that call a function on the thread's system stack for their
 * caller (runtime.systemstack, asmcgocall): past that call, rsp is on the
 * other stack and rbp still its caller's frame record, so the walk steps
 * to its caller's caller, as frame pointers do (the caller's own return
 * address is where rsp was, which only Go's runtime knows).
 */
const struct cfi_rule *cfi_bp_rule(const struct cfi_row *row, const struct cfi_regs *in,
				   uint64_t cfa);

/*
 * Expressions that a row's rules point to, copied out of libdw: owned by
 * whoever reads the rows (one pool per file), valid until cfi_pool_release.
 */
struct cfi_pool {
	Dwarf_Op *ops;
	size_t n, cap;
};

void cfi_pool_release(struct cfi_pool *p);

/*
 * The row of code address vaddr (an ELF address of the file cfi was read
 * from). Returns 0, -ENOENT when cfi covers no such address, or -ENOTSUP
 * for a rule no row can hold (an expression over 64 operations, a pool
 * past its bound); the row of a signal frame is returned with only
 * signal set.
 */
int cfi_row_find(Dwarf_CFI *cfi, uint64_t vaddr, struct cfi_pool *pool, struct cfi_row *row);

/* As cfi_row_find, also giving the addresses [*lo, *hi) the row holds for (on 0). */
int cfi_row_find_span(Dwarf_CFI *cfi, uint64_t vaddr, struct cfi_pool *pool, struct cfi_row *row,
		      uint64_t *lo, uint64_t *hi);

/*
 * The rows found so far in one file, each with the addresses it holds
 * for: an address met for the first time is found among them when
 * another address of the same row was (a function's body past its
 * prologue is usually one row), without libdw's search. Sorted, with
 * the newest in a short unsorted tail merged in when it fills. At most
 * CFI_SPANS_MAX rows: past that, all are let go and found again.
 */
#define CFI_SPANS_TAIL 64
#define CFI_SPANS_MAX  16384

struct cfi_span {
	uint64_t lo, hi;
	struct cfi_row row;
};

struct cfi_spans {
	struct cfi_span *v; /* [0, nsorted) by lo, then the tail */
	size_t n, nsorted, cap;
};

/* The row that holds for vaddr, or NULL when none found so far does. */
const struct cfi_row *cfi_spans_find(const struct cfi_spans *s, uint64_t vaddr);
/* Adds the row of [lo, hi) (not overlapping any added before). */
void cfi_spans_add(struct cfi_spans *s, uint64_t lo, uint64_t hi, const struct cfi_row *row);
void cfi_spans_release(struct cfi_spans *s);

/* The frame-pointer row: what code without call frame information is assumed to keep. */
void cfi_row_fp(struct cfi_row *row);

/* Reads 8 bytes at addr into *v: 0, or -EFAULT when it cannot. */
typedef int (*cfi_read_fn)(void *arg, uint64_t addr, uint64_t *v);

/*
 * One step: from the registers of a frame (in) and its row, the caller's
 * registers (out, which must not be in) and the frame's CFA. Returns 0;
 * 1 when the row says there is no caller (the return address is
 * undefined: the outermost frame); -EFAULT when memory the step needs
 * could not be read (read's answer); -EINVAL when a register it needs is
 * unknown or an expression cannot be evaluated. *cfa is set as soon as it
 * is known, also when a rule then fails.
 */
int cfi_step(const struct cfi_row *row, const struct cfi_pool *pool, const struct cfi_regs *in,
	     struct cfi_regs *out, uint64_t *cfa, cfi_read_fn read, void *arg);

/*
 * The step of a signal frame at vaddr of cfi: every register comes back,
 * from the context the kernel saved. Returns as cfi_step, or -ENOENT.
 */
int cfi_step_signal(Dwarf_CFI *cfi, uint64_t vaddr, const struct cfi_regs *in, struct cfi_regs *out,
		    uint64_t *cfa, cfi_read_fn read, void *arg);

#endif
