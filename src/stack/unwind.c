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
#include "stack/unwind-int.h"
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
	uint64_t serial;		/* img's: another image at its address is not it */
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

struct unwinder {
	struct model *model;
	struct unwind_image **images; /* by module id; NULL until first needed */
	size_t nimages;
	struct row_slot *rows;
	uint64_t serials; /* the last image's serial (unwind_image.serial) */
	struct addr_slot *addrs;
	struct memo *memo;
	uint64_t memo_hits;
	uint64_t *slots; /* where each frame's return address is, of the unwind under way */
	int nslots;	 /* they hold */
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
		return "spliced onto frame pointers where the two agree";
	case UNWIND_BY_FP_ONLY:
		return "frame pointers only";
	case UNWIND_BY_SPLICE_PAST:
		return "spliced onto frame pointers past frames the tables could not reach";
	default:
		return "?";
	}
}

const char *unwind_judge_text(enum unwind_judge j)
{
	switch (j) {
	case UNWIND_UNJUDGED:
		return "not compared";
	case UNWIND_AGREED:
		return "agreed";
	case UNWIND_TABLES_SKIPPED:
		return "the tables won: the chain skipped callers without frame pointers";
	case UNWIND_TABLES_NOT_RA:
		return "the tables won: the chain read words that are no return addresses";
	case UNWIND_CHAIN_WON:
		return "the chain won: the tables' walk went astray and ended in a bad frame";
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
		img->serial = ++u->serials;
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
	if (slot->img != img || slot->serial != img->serial || slot->vaddr != vaddr) {
		const struct cfi_row *known = cfi_spans_find(&img->spans, vaddr);
		uint64_t lo, hi;

		slot->img = img;
		slot->serial = img->serial;
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
	free(u->slots);
	free(u);
}

void unwinder_forget(struct unwinder *u, const struct module *m)
{
	struct unwind_image *img = m->id < u->nimages ? u->images[m->id] : NULL;

	if (!img)
		return;
	/*
	 * What the caches hold of its rows goes with it: the memory may be
	 * another's next. A row slot tells by the image's serial, never
	 * another's, so a storm of programs let go does not sweep them all.
	 */
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
 * (cfi_step's), and how (res->end). signal: the step was out of a signal
 * frame; jump: out of a frame whose row takes the caller's address from a
 * register (next_exact).
 */
static bool step_ends(int ret, bool guessed, bool signal, bool jump, const struct cfi_regs *in,
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
	/*
	 * A caller's frame lies above its callee's, but across a signal's
	 * stack, and at a jump (below) it may be where it was.
	 */
	if (!signal &&
	    (jump ? out->r[CFI_RSP] < in->r[CFI_RSP] : out->r[CFI_RSP] <= in->r[CFI_RSP])) {
		res->end = guessed ? UNWIND_NO_INFO : UNWIND_BAD_FRAME;
		return true;
	}
	return false;
}

/*
 * Whether a frame of a row with sp_moved has its stack pointer away from
 * its frame: rbp (a frame record's address) is not the CFA the table
 * gives less 16 (cfi.h).
 */
static bool moved_sp(const struct cfi_row *row, const struct cfi_regs *in)
{
	uint64_t bp = in->r[CFI_RBP];

	return row->cfa.kind == CFI_REG && row->cfa.reg == CFI_RSP && cfi_known(in, CFI_RSP) &&
	       cfi_known(in, CFI_RBP) && bp && !(bp & 7) &&
	       bp != in->r[CFI_RSP] + (uint64_t)(int64_t)row->cfa.off - 16;
}

/*
 * The step of the frame with registers in and row (of ELF address vaddr
 * of img) to its caller's, out, as cfi_step; *cfa the frame's CFA, 0
 * while not known.
 */
static int step_frame(const struct cfi_row *row, struct unwind_image *img, uint64_t vaddr,
		      bool exact, const struct cfi_regs *in, struct cfi_regs *out, uint64_t *cfa,
		      struct uctx *c)
{
	uint64_t bp = in->r[CFI_RBP];

	*cfa = 0;
	if (row->signal)
		return cfi_step_signal(unwind_image_cfi(img), vaddr, in, out, cfa, read_stack, c);
	if ((row->sp_moved && moved_sp(row, in)) ||
	    (row->bp_caller && !exact && cfi_known(in, CFI_RBP) && bp && !(bp & 7))) {
		struct cfi_row by_bp = *row;

		by_bp.cfa = (struct cfi_rule){.kind = CFI_REG, .reg = CFI_RBP, .off = 16};
		by_bp.bp_frame = true;
		return cfi_step(&by_bp, img ? &img->pool : NULL, in, out, cfa, read_stack, c);
	}
	return cfi_step(row, img ? &img->pool : NULL, in, out, cfa, read_stack, c);
}

/*
 * Whether the frame after one with row is at the very address its row
 * gives, not a return address: a signal frame's interrupted code, and
 * the target of a jump whose address the row takes from a register (the
 * epilogue of libgcc's _Unwind_RaiseException, jumping to a landing pad
 * with the registers of the frame that catches: that frame's stack
 * pointer is the CFA, where the jump is).
 */
static bool next_exact(const struct cfi_row *row)
{
	return row->signal || row->rules[CFI_NKEPT - 1].kind == CFI_REG;
}

/* Where row puts the return address of a frame with CFA cfa; 0 when it does not say. */
static uint64_t ra_slot(const struct cfi_row *row, uint64_t cfa)
{
	const struct cfi_rule *ra = &row->rules[CFI_NKEPT - 1];

	return !row->signal && cfa && ra->kind == CFI_AT ? cfa + (uint64_t)(int64_t)ra->off : 0;
}

/* The unwinder's room for the stack addresses of max frames' return addresses. */
static uint64_t *slots_for(struct unwinder *u, int max)
{
	if (u->nslots < max) {
		u->slots = xrealloc(u->slots, (size_t)max * sizeof(*u->slots));
		u->nslots = max;
	}
	return u->slots;
}

/*
 * The walk by the tables through the copy (c) from the sampled registers
 * (regs[0]) into w (its frames, where their return addresses are, why it
 * ended: res->end); the memo's slot to keep it in, if any, in *mp.
 */
static void walk(struct unwinder *u, uint32_t pid, struct uctx *c, struct cfi_regs regs[2],
		 struct unwind_walk *w, struct memo **mp, struct memo *log,
		 struct unwind_result *res)
{
	bool exact = true; /* the address is where the frame is, not a return address */
	uint64_t gen = model_maps_generation(u->model, pid), *slots = slots_for(u, w->max);
	int n = 0, cur = 0;

	for (;;) {
		struct cfi_regs *in = &regs[cur], *out = &regs[!cur];
		uint64_t pc = in->r[CFI_RA], look = exact ? pc : pc - 1, vaddr = 0, cfa;
		const struct cfi_row *row;
		struct unwind_image *img;
		bool guessed;
		int ret;

		/* The sample's own frame done: its callers may be the memo's. */
		if (n == 1 && gen && !exact && w->max >= 1 + MEMO_IPS && cfi_known(in, CFI_RBP) &&
		    in->r[CFI_RSP] >= c->sp &&
		    !(*mp = memo_find(&u->memo, &u->memo_hits, pid, gen, in, c, log, w->ips, &n,
				      res)))
			break;
		if (n == w->max) {
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
		w->ips[n++] = look;
		w->nslots = n - 1;
		memo_step(c, row, guessed, false, in, out, 0);
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
			w->ips[n - 1] = pc;
		ret = step_frame(row, img, vaddr, exact, in, out, &cfa, c);
		if (ret == 0)
			memo_step(c, row, guessed, true, in, out, cfa);
		slots[n - 1] = ra_slot(row, cfa);
		w->nslots = n;
		w->refused = ret == 0; /* until the next frame is found in a mapping */
		if (step_ends(ret, guessed, row->signal, next_exact(row), in, out, res))
			break;
		exact = next_exact(row);
		cur = !cur;
	}
	w->n = n;
	w->slots = slots;
	w->end = res->end;
}

void unwind_sample(struct unwinder *u, uint32_t pid, const struct rec_sample *s,
		   const unsigned char *chain, size_t nchain, uint64_t *ips, int max,
		   struct unwind_result *res)
{
	struct uctx c = {.stack = s->stack, .len = s->stack_dyn_size};
	struct unwind_walk w = {.ips = ips, .max = max};
	struct cfi_regs regs[2];
	struct memo *m = NULL, log;

	memset(res, 0, sizeof(*res));
	res->end = UNWIND_BAD_FRAME;
	sample_regs(s, &regs[0]);
	if (!cfi_known(&regs[0], CFI_RSP) || !cfi_known(&regs[0], CFI_RA))
		return;
	c.sp = w.sp = regs[0].r[CFI_RSP];
	w.bp = regs[0].r[CFI_RBP];
	w.bp_known = cfi_known(&regs[0], CFI_RBP);
	/* Only whole unwinds go in the memo where a chain may carry the others on. */
	c.whole_only = nchain > 0;
	walk(u, pid, &c, regs, &w, &m, &log, res);
	unwind_splice(&w, chain, nchain, read_stack, &c, res);
	res->copy_needed = c.want;
	if (m)
		memo_keep(m, &c, ips + 1, w.n - 1, res);
}
