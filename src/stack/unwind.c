/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind.c - unwinding sampled user stacks; see unwind.h.
 */
#include "config.h"

#include <asm/perf_regs.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>

#include "elf/addr.h"
#include "elf/elfread.h"
#include "stack/unwind.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/bytes.h"
#include "util/hash.h"

/*
 * The rows last looked up, by image and address: a program's stacks go
 * through the same few return addresses and hot instructions over and
 * over, and libdw finds a row by searching .eh_frame_hdr and running the
 * FDE's instructions each time. Direct-mapped; a miss (no row) is kept
 * too.
 */
#define ROW_SLOTS 2048

struct row_slot {
	const struct unwind_image *img; /* NULL: empty */
	uint64_t vaddr;
	int err; /* unwind_image_row's answer */
	struct cfi_row row;
};

/*
 * What frame_row found for a runtime address under one generation of its
 * process's mappings (maps_generation: unique over every process's set),
 * which holds while they last: no mapping lookup, no load bias, no row
 * lookup for a frame met again. Direct-mapped.
 */
#define ADDR_SLOTS 1024 /* two ways: a slot and its neighbour */

struct addr_slot {
	uint64_t addr, gen; /* gen 0: empty (no set has generation 0) */
	struct unwind_image *img;
	uint64_t vaddr;
	int8_t ret;
	bool guessed;
	struct cfi_row row;
};

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

struct unwinder {
	struct model *model;
	struct unwind_image **images; /* by module id; NULL until first needed */
	size_t nimages;
	struct row_slot *rows;
	struct addr_slot *addrs;
	struct memo *memo;
	uint64_t memo_hits;
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
	uint64_t bp_slot, bp_val;
};

/* perf's register numbers, by DWARF's (cfi.h). */
static const int8_t perf_reg_of[CFI_NREGS] = {
	PERF_REG_X86_AX,  PERF_REG_X86_DX,  PERF_REG_X86_CX,  PERF_REG_X86_BX,	PERF_REG_X86_SI,
	PERF_REG_X86_DI,  PERF_REG_X86_BP,  PERF_REG_X86_SP,  PERF_REG_X86_R8,	PERF_REG_X86_R9,
	PERF_REG_X86_R10, PERF_REG_X86_R11, PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14,
	PERF_REG_X86_R15, PERF_REG_X86_IP,
};

uint64_t unwind_regs_mask(void)
{
	uint64_t mask = 0;

	for (size_t i = 0; i < ARRAY_SIZE(perf_reg_of); i++)
		mask |= 1ULL << perf_reg_of[i];
	return mask;
}

const char *unwind_end_text(enum unwind_end e)
{
	switch (e) {
	case UNWIND_COMPLETE:
		return "complete";
	case UNWIND_SHORT_STACK:
		return "stack copy too small";
	case UNWIND_NO_INFO:
		return "no unwind info";
	case UNWIND_BAD_FRAME:
		return "bad frame";
	case UNWIND_TOO_DEEP:
		return "too deep";
	case UNWIND_NOT_ENTRY:
		return "ended before the entry";
	default:
		return "?";
	}
}

const char *unwind_how_text(enum unwind_how h)
{
	switch (h) {
	case UNWIND_BY_CFI:
		return "unwound by CFI";
	case UNWIND_BY_SPLICE:
		return "spliced onto frame pointers";
	case UNWIND_BY_FP_ONLY:
		return "frame pointers only";
	default:
		return "?";
	}
}

bool unwind_is_entry_name(const char *func)
{
	static const char *const entries[] = {
		/* process start: the executable's entry, glibc's and musl's */
		"_start", "__libc_start_main", "__libc_start_main_impl", "__libc_start_call_main",
		"_start_c",
		/* thread start */
		"clone", "clone3", "__clone", "__clone3", "__clone_internal", "start_thread",
		/* Go: goroutines end in goexit, system stacks in mstart or rt0_go */
		"runtime.goexit", "runtime.goexit.abi0", "runtime.mstart", "runtime.mstart.abi0",
		"runtime.mstart0", "runtime.rt0_go", "runtime.rt0_go.abi0"};

	for (size_t i = 0; i < ARRAY_SIZE(entries); i++)
		if (!strcmp(func, entries[i]))
			return true;
	return false;
}

/*
 * The sample's user registers, as many as it carries. They come in the
 * order of perf's numbers, only those unwind_regs_mask asks for: each
 * DWARF register's place there is counted once.
 */
static void sample_regs(const struct rec_sample *s, struct cfi_regs *g)
{
	static int8_t place[CFI_NREGS];
	static bool counted;

	if (!counted) {
		uint64_t mask = unwind_regs_mask();

		for (int r = 0; r < CFI_NREGS; r++)
			place[r] =
				(int8_t)__builtin_popcountll(mask & ((1ULL << perf_reg_of[r]) - 1));
		counted = true;
	}
	g->known = 0;
	if (s->regs_abi != PERF_SAMPLE_REGS_ABI_64)
		return; /* none, or a 32-bit process's */
	for (int r = 0; r < CFI_NREGS; r++)
		if ((uint32_t)place[r] < s->nregs)
			cfi_set(g, r, load_u64(s->regs + place[r] * 8));
}

/* The image of m, opened on first use; NULL when it cannot be read. */
static struct unwind_image *image_of(struct unwinder *u, struct module *m)
{
	xgrow_zero(&u->images, &u->nimages, (size_t)m->id + 1, sizeof(*u->images));
	if (!u->images[m->id]) {
		struct unwind_image *img = xcalloc(1, sizeof(*img));

		/* Its file is kept open from now on (and opened again if it was let go). */
		module_use(u->model->mods, m);
		if (unwind_image_open(img, m) < 0)
			img->nbytes = 0; /* tried: stays unreadable */
		u->images[m->id] = img;
	}
	return u->images[m->id]->nbytes ? u->images[m->id] : NULL;
}

/*
 * The row of vaddr in img, through the cache of addresses, then the rows
 * of img found so far (img->spans); as unwind_image_row.
 */
static int row_of(struct unwinder *u, struct unwind_image *img, uint64_t vaddr,
		  const struct cfi_row **row)
{
	struct row_slot *slot;

	if (!u->rows)
		u->rows = xcalloc(ROW_SLOTS, sizeof(*u->rows));
	slot = &u->rows[hash_u64(vaddr ^ (uint64_t)(uintptr_t)img) & (ROW_SLOTS - 1)];
	if (slot->img != img || slot->vaddr != vaddr) {
		const struct cfi_row *known = cfi_spans_find(&img->spans, vaddr);
		uint64_t lo, hi;

		slot->img = img;
		slot->vaddr = vaddr;
		if (known) {
			slot->row = *known;
			slot->err = 0;
		} else if ((slot->err = unwind_image_row_span(img, vaddr, &slot->row, &lo, &hi)) ==
			   0) {
			cfi_spans_add(&img->spans, lo, hi, &slot->row);
		}
	}
	*row = &slot->row;
	return slot->err;
}

struct unwinder *unwinder_new(struct model *model)
{
	struct unwinder *u = xcalloc(1, sizeof(*u));

	u->model = model;
	return u;
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nimages; i++) {
		if (u->images[i])
			unwind_image_close(u->images[i]);
		free(u->images[i]);
	}
	free(u->images);
	free(u->rows);
	free(u->addrs);
	free(u->memo);
	free(u);
}

void unwinder_forget(struct unwinder *u, const struct module *m)
{
	struct unwind_image *img = m->id < u->nimages ? u->images[m->id] : NULL;

	if (!img)
		return;
	/* What the caches hold of its rows goes with it: the memory may be another's next. */
	for (size_t i = 0; u->rows && i < ROW_SLOTS; i++)
		if (u->rows[i].img == img)
			u->rows[i].img = NULL;
	for (size_t i = 0; u->addrs && i < ADDR_SLOTS; i++)
		if (u->addrs[i].img == img)
			u->addrs[i].gen = 0;
	unwind_image_close(img);
	free(img);
	u->images[m->id] = NULL;
}

uint64_t unwinder_memo_hits(const struct unwinder *u)
{
	return u->memo_hits;
}

/* Stepping. */

static int read_stack(void *arg, uint64_t addr, uint64_t *v)
{
	struct uctx *c = arg;

	if (addr >= c->sp && addr - c->sp < (1ULL << 32) && addr - c->sp + 8 > c->want)
		c->want = addr - c->sp + 8;
	if (addr < c->sp || c->len < 8 || addr - c->sp > c->len - 8) {
		c->unkept = true;
		return -EFAULT;
	}
	*v = load_u64(c->stack + (addr - c->sp));
	/* The memo's unwind reads nothing below its frame (memo_log would not keep it). */
	if (c->log && addr < c->log->sp)
		c->unkept = true;
	else if (c->log && addr - c->log->sp + 8 > c->log->want)
		c->log->want = addr - c->log->sp + 8;
	return 0;
}

/*
 * Whether a row computes the CFA from the stack or frame pointer alone,
 * the return address from the stack, the stack pointer from the CFA or
 * its callee's, and the other registers from the CFA, the stack or their
 * callee's values: a step that reads no register but those two, whose
 * result for the next frame depends on no word but the return address's
 * and the frame pointer's (memo_step).
 */
static bool plain_row(const struct cfi_row *row)
{
	if (row->signal || row->cfa.kind != CFI_REG ||
	    (row->cfa.reg != CFI_RSP && row->cfa.reg != CFI_RBP))
		return false;
	for (int i = 0; i < CFI_NKEPT; i++) {
		uint8_t k = row->rules[i].kind;

		if (k != CFI_UNDEF && k != CFI_SAME && k != CFI_AT && k != CFI_VAL)
			return false;
		if (cfi_kept[i] == CFI_RSP && k == CFI_AT)
			return false;
	}
	return row->rules[CFI_NKEPT - 1].kind == CFI_AT ||
	       row->rules[CFI_NKEPT - 1].kind == CFI_UNDEF;
}

/*
 * The memo's slot for the unwind of pid from the caller's frame g, where
 * the sample's own frame is done (c); when it holds that unwind (every
 * register and word it read the same), its frames go after those at
 * ips[0, *n) and the answer is the sample's: NULL then. Else the slot to
 * keep it in, logged from now on.
 */
static struct memo *memo_find(struct unwinder *u, uint32_t pid, uint64_t gen,
			      const struct cfi_regs *g, struct uctx *c, struct memo *log,
			      uint64_t *ips, int *n, struct unwind_result *res)
{
	uint64_t pc = g->r[CFI_RA], sp = g->r[CFI_RSP], bp = g->r[CFI_RBP], at = sp - c->sp;
	struct memo *m;

	if (!u->memo)
		u->memo = xcalloc(MEMO_SLOTS, sizeof(*u->memo));
	m = &u->memo[hash_u64(pc ^ hash_u64(sp ^ pid)) & (MEMO_SLOTS - 1)];
	if (m->gen == gen && m->pid == pid && m->pc == pc && m->sp == sp &&
	    (!m->bp_used || m->bp == bp)) {
		uint16_t i = 0;

		while (i < m->nwords && c->len >= 8 && at + m->off[i] <= c->len - 8 &&
		       load_u64(c->stack + at + m->off[i]) == m->val[i])
			i++;
		if (i == m->nwords) {
			memcpy(ips + *n, m->ips, m->n * sizeof(*ips));
			*n += m->n;
			res->end = (enum unwind_end)m->end;
			res->how = UNWIND_BY_CFI;
			if (at + m->want > c->want)
				c->want = at + m->want;
			u->memo_hits++;
			return NULL;
		}
	}
	/* What the sample's own frame did (a row not plain) does not count from here. */
	*log = (struct memo){.gen = gen, .pc = pc, .sp = sp, .bp = bp, .pid = pid};
	c->log = log;
	c->unkept = false;
	c->bp_kept = true;
	return m;
}

/* Into slot m: the unwind logged in c, its frames ips[0, n), if the memo may keep it. */
static void memo_keep(struct memo *m, const struct uctx *c, const uint64_t *ips, int n,
		      const struct unwind_result *res)
{
	struct memo *log = c->log;

	if (c->unkept || res->how != UNWIND_BY_CFI || n > MEMO_IPS)
		return;
	memcpy(log->ips, ips, (size_t)n * sizeof(*ips));
	log->n = (uint8_t)n;
	log->end = (uint8_t)res->end;
	log->bp_used = c->bp_used;
	*m = *log;
}

/* Word val at addr into the memo's log; unkept when it does not fit. */
static void memo_log(struct uctx *c, uint64_t addr, uint64_t val)
{
	struct memo *m = c->log;

	if (m->nwords == MEMO_WORDS || addr < m->sp || addr - m->sp > UINT16_MAX) {
		c->unkept = true;
		return;
	}
	m->off[m->nwords] = (uint16_t)(addr - m->sp);
	m->val[m->nwords++] = val;
}

/*
 * The memo's side of the step of row from in (before it, stepped false;
 * after it, to out with CFA cfa): an unwind through a row not plain is
 * not kept. A step reads the words of the registers the row restores;
 * the result depends only on those of the return address, and on the
 * frame pointer's where a later row reads it (its CFA, or a frame record
 * guessed): those are logged. Saved values of other registers may change
 * from sample to sample at the same place.
 */
static void memo_step(struct uctx *c, const struct cfi_row *row, bool guessed, bool stepped,
		      const struct cfi_regs *in, const struct cfi_regs *out, uint64_t cfa)
{
	const struct cfi_rule *bp = &row->rules[1], *ra = &row->rules[CFI_NKEPT - 1];

	_Static_assert(CFI_NKEPT > 1,
		       "cfi_kept[1] is the frame pointer, the last the return address");
	if (!c->log)
		return;
	if (!stepped) {
		if (!plain_row(row))
			c->unkept = true;
		if (!guessed && row->cfa.reg != CFI_RBP)
			return;
		if (c->bp_kept)
			c->bp_used = true;
		else if (c->bp_pending)
			memo_log(c, c->bp_slot, c->bp_val);
		c->bp_pending = false;
		return;
	}
	if (ra->kind == CFI_AT)
		memo_log(c, cfa + (uint64_t)(int64_t)ra->off, out->r[CFI_RA]);
	/* Kept by the row, or by a slot already popped (cfi_step's CFI_AT). */
	if (bp->kind == CFI_SAME || (bp->kind == CFI_AT && cfi_known(in, CFI_RSP) &&
				     cfa + (uint64_t)(int64_t)bp->off < in->r[CFI_RSP]))
		return;
	c->bp_kept = false;
	c->bp_pending = bp->kind == CFI_AT;
	c->bp_slot = cfa + (uint64_t)(int64_t)bp->off;
	c->bp_val = out->r[CFI_RBP];
}

/*
 * Where the kernel's frame-pointer walk went through the frame record at
 * rbp: the index k of the user chain whose next entry, k + 1, the walk
 * read at rbp + 8; -1 when it did not go there. The walk is followed
 * through the copy from the sampled rbp, each return address it reads
 * checked against the chain, so that a chain taken along another path is
 * never matched.
 */
static long chain_index_of(const struct uctx *c, const struct cfi_regs *sampled,
			   const unsigned char *chain, size_t nchain, uint64_t rbp)
{
	uint64_t bp, next, ret;

	if (!cfi_known(sampled, CFI_RBP))
		return -1;
	bp = sampled->r[CFI_RBP];
	for (size_t k = 0; k + 1 < nchain; k++) {
		if (bp == rbp)
			return (long)k;
		if (bp > rbp || read_stack((void *)c, bp, &next) < 0 ||
		    read_stack((void *)c, bp + 8, &ret) < 0 ||
		    ret != load_u64(chain + (k + 1) * 8) || next <= bp)
			return -1;
		bp = next;
	}
	return -1;
}

/* Appends the chain's entries from k on, return addresses all; the new count. */
static int splice(const unsigned char *chain, size_t nchain, size_t k, uint64_t *ips, int n,
		  int max, struct unwind_result *res)
{
	for (; k < nchain; k++) {
		uint64_t a = load_u64(chain + k * 8);

		/* The end of the walk, or a garbage "address" it read. */
		if (a == 0 || a >= (uint64_t)PERF_CONTEXT_MAX)
			break;
		if (n == max) {
			res->end = UNWIND_TOO_DEEP;
			return n;
		}
		ips[n++] = a - 1;
	}
	res->end = UNWIND_COMPLETE;
	return n;
}

/*
 * The row for the frame at address a (looked up at a), its image and
 * ELF address, and its module (NULL for memory no file backs). Code
 * without call frame information gets the frame-pointer row, noted in
 * *guessed: JIT code, files without any unwind tables (Go's stripped
 * binaries), and code a file's tables leave out (V8's builtins embedded
 * in node, hand-written assembly), where frame pointers are all there is
 * (unwind_sample checks that the frame pointer points into the stack).
 * Returns 0, or -ENOENT when a is in no mapping.
 */
static int find_row(struct unwinder *u, uint32_t pid, uint64_t a, const struct cfi_row **row,
		    struct unwind_image **img, uint64_t *vaddr, bool *guessed)
{
	static struct cfi_row fp_row;
	const struct mapping *map = model_find(u->model, pid, a);
	uint64_t bias;
	int ret;

	if (!fp_row.fp)
		cfi_row_fp(&fp_row);
	*img = NULL;
	*guessed = true;
	*row = &fp_row;
	if (!map)
		return -ENOENT;
	if (!map->mod || map->mod->kind == MODULE_ANON || !(*img = image_of(u, map->mod)) ||
	    addr_load_bias((*img)->segs, (*img)->nsegs, map->start, map->end, map->pgoff, map->prot,
			   &bias) < 0)
		return 0;
	*vaddr = a - bias;
	ret = row_of(u, *img, *vaddr, row);
	if (ret == 0) {
		*guessed = false;
		return 0;
	}
	*row = &fp_row;
	return 0;
}

/*
 * find_row through the cache of addresses, under generation gen of pid's
 * mappings. Two ways: an address's slot and its neighbour; a miss moves
 * the first to the second and takes the first.
 */
static int frame_row(struct unwinder *u, uint32_t pid, uint64_t gen, uint64_t a,
		     const struct cfi_row **row, struct unwind_image **img, uint64_t *vaddr,
		     bool *guessed)
{
	struct addr_slot *set, *slot;
	const struct cfi_row *r;

	if (!gen)
		return find_row(u, pid, a, row, img, vaddr, guessed);
	if (!u->addrs)
		u->addrs = xcalloc(ADDR_SLOTS, sizeof(*u->addrs));
	set = &u->addrs[hash_u64(a ^ gen) & (ADDR_SLOTS - 2)];
	slot = set[0].addr == a && set[0].gen == gen ? &set[0] : &set[1];
	if (slot == &set[1] && (slot->addr != a || slot->gen != gen))
		slot = &set[0];
	if (slot->gen != gen || slot->addr != a) {
		set[1] = set[0]; /* the newest first, the one before it kept */
		slot->ret =
			(int8_t)find_row(u, pid, a, &r, &slot->img, &slot->vaddr, &slot->guessed);
		slot->row = *r;
		/* A lookup that read /proc again may have made a new generation. */
		slot->gen = model_maps_generation(u->model, pid);
		slot->addr = a;
		if (slot->gen != gen) {
			*row = r;
			*img = slot->img;
			*vaddr = slot->vaddr;
			*guessed = slot->guessed;
			return slot->ret;
		}
	}
	*row = &slot->row;
	*img = slot->img;
	*vaddr = slot->vaddr;
	*guessed = slot->guessed;
	return slot->ret;
}

/*
 * Whether the walk ends after a step from in to out that returned ret
 * (cfi_step's), and how (res->end); a splice onto the kernel's chain has
 * been tried before. signal: the step was out of a signal frame.
 */
static bool step_ends(int ret, bool guessed, bool signal, const struct cfi_regs *in,
		      const struct cfi_regs *out, struct unwind_result *res)
{
	if (ret == 1 || (ret == 0 && out->r[CFI_RA] == 0)) {
		res->end = UNWIND_COMPLETE;
		return true;
	}
	if (ret < 0) {
		res->end = ret == -EFAULT ? UNWIND_SHORT_STACK
			   : guessed	  ? UNWIND_NO_INFO
					  : UNWIND_BAD_FRAME;
		return true;
	}
	/* A caller's frame lies above its callee's, but across a signal's stack. */
	if (!signal && out->r[CFI_RSP] <= in->r[CFI_RSP]) {
		res->end = guessed ? UNWIND_NO_INFO : UNWIND_BAD_FRAME;
		return true;
	}
	return false;
}

void unwind_sample(struct unwinder *u, uint32_t pid, const struct rec_sample *s,
		   const unsigned char *chain, size_t nchain, uint64_t *ips, int max,
		   struct unwind_result *res)
{
	struct uctx c = {.stack = s->stack, .len = s->stack_dyn_size};
	struct cfi_regs sampled, regs[2];
	bool exact = true; /* the address is where the frame is, not a return address */
	struct memo *m = NULL, log;
	uint64_t gen;
	int n = 0, cur = 0;

	memset(res, 0, sizeof(*res));
	res->end = UNWIND_BAD_FRAME;
	sample_regs(s, &sampled);
	if (!cfi_known(&sampled, CFI_RSP) || !cfi_known(&sampled, CFI_RA))
		return;
	c.sp = sampled.r[CFI_RSP];
	regs[0] = sampled;
	gen = model_maps_generation(u->model, pid);
	for (;;) {
		struct cfi_regs *in = &regs[cur], *out = &regs[!cur];
		uint64_t pc = in->r[CFI_RA], look = exact ? pc : pc - 1, vaddr = 0, cfa;
		const struct cfi_row *row;
		struct unwind_image *img;
		bool guessed;
		int ret;

		/* The sample's own frame done: its callers may be the memo's. */
		if (n == 1 && gen && !exact && max >= 1 + MEMO_IPS && cfi_known(in, CFI_RBP) &&
		    in->r[CFI_RSP] >= c.sp &&
		    !(m = memo_find(u, pid, gen, in, &c, &log, ips, &n, res)))
			break;
		if (n == max) {
			res->end = UNWIND_TOO_DEEP;
			break;
		}
		ret = frame_row(u, pid, gen, look, &row, &img, &vaddr, &guessed);
		/*
		 * A return address in no mapping is not code: the stack ends
		 * before it. The sampled address may be in code the model does
		 * not know yet: its frame pointer is tried.
		 */
		if (ret == -ENOENT && n > 0) {
			res->end = UNWIND_BAD_FRAME;
			break;
		}
		ips[n++] = look;
		memo_step(&c, row, guessed, false, in, out, 0);
		/* A frame record lies above the stack pointer, or it is none. */
		if (guessed && (!cfi_known(in, CFI_RBP) || in->r[CFI_RBP] < in->r[CFI_RSP] ||
				in->r[CFI_RBP] & 7)) {
			res->end = UNWIND_NO_INFO;
			break;
		}
		/*
		 * A signal trampoline is returned to, not called: its frame is
		 * named at its own address (the row, found a byte back, covers
		 * the byte before it for this very lookup).
		 */
		if (row->signal && !exact)
			ips[n - 1] = pc;
		if (row->signal)
			ret = cfi_step_signal(img->eh ? img->eh : img->debug, vaddr, in, out, &cfa,
					      read_stack, &c);
		else
			ret = cfi_step(row, img ? &img->pool : NULL, in, out, &cfa, read_stack, &c);
		if (ret == 0)
			memo_step(&c, row, guessed, true, in, out, cfa);
		if (ret == -EFAULT && row->fp && cfi_known(in, CFI_RBP)) {
			/* The copy ends at a frame that keeps a frame pointer: the chain goes on. */
			long k = chain_index_of(&c, &sampled, chain, nchain, in->r[CFI_RBP]);

			if (k >= 0) {
				n = splice(chain, nchain, (size_t)k + 1, ips, n, max, res);
				res->how = UNWIND_BY_SPLICE;
				break;
			}
		}
		if (step_ends(ret, guessed, row->signal, in, out, res))
			break;
		exact = row->signal;
		cur = !cur;
	}
	res->n = n;
	res->copy_needed = c.want;
	if (m)
		memo_keep(m, &c, ips + 1, n - 1, res);
}
