/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_unwind.c - call frame information steps on hand-built rows and
 * memory (frame pointers, stack-pointer rules, popped slots, expressions,
 * the outermost frame, a copy too short), the rows of a file kept by the
 * addresses each holds for, and whole unwindings of this
 * test's own stack, captured like a sample's: by its tables, and spliced
 * onto a frame-pointer chain beyond a short copy.
 */
#include "config.h"

#include <asm/perf_regs.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>

#include "elf/elfread.h"
#include "stack/cfi.h"
#include "stack/unwind.h"
#include "unit-helpers.h"
#include "util/array.h"

/* Memory for the steps: 64 words from BASE. */
#define BASE 0x7ffc00001000ULL

struct mem {
	uint64_t w[64];
	int reads;
};

static int mem_read(void *arg, uint64_t addr, uint64_t *v)
{
	struct mem *m = arg;

	m->reads++;
	if (addr < BASE || addr >= BASE + sizeof(m->w) || (addr & 7))
		return -EFAULT;
	*v = m->w[(addr - BASE) / 8];
	return 0;
}

static void mem_set(struct mem *m, uint64_t addr, uint64_t v)
{
	m->w[(addr - BASE) / 8] = v;
}

START_TEST(test_step_frame_pointer)
{
	struct cfi_regs in = {0}, out;
	struct cfi_row row;
	struct mem m = {0};
	uint64_t cfa = 0;

	cfi_row_fp(&row);
	ck_assert(row.fp);
	cfi_set(&in, CFI_RSP, BASE);
	cfi_set(&in, CFI_RBP, BASE + 0x20);
	cfi_set(&in, CFI_RBX, 77);
	mem_set(&m, BASE + 0x20, BASE + 0x80); /* the caller's frame pointer */
	mem_set(&m, BASE + 0x28, 0x401234);    /* the return address */
	ck_assert_int_eq(cfi_step(&row, NULL, &in, &out, &cfa, mem_read, &m), 0);
	ck_assert_uint_eq(cfa, BASE + 0x30);
	ck_assert_uint_eq(out.r[CFI_RA], 0x401234);
	ck_assert_uint_eq(out.r[CFI_RSP], BASE + 0x30);
	ck_assert_uint_eq(out.r[CFI_RBP], BASE + 0x80);
	ck_assert(cfi_known(&out, CFI_RBX));
	ck_assert_uint_eq(out.r[CFI_RBX], 77);
	ck_assert(!cfi_known(&out, 0)); /* rax: clobbered by a call */
}
END_TEST

/* A row as gcc writes one after "push rbx; sub rsp, 16": CFA = rsp + 32. */
static void rsp_row(struct cfi_row *row)
{
	memset(row, 0, sizeof(*row));
	row->cfa = (struct cfi_rule){.kind = CFI_REG, .reg = CFI_RSP, .off = 32};
	for (int i = 0; i < CFI_NKEPT; i++)
		row->rules[i].kind = CFI_SAME;
	row->rules[0] = (struct cfi_rule){.kind = CFI_AT, .off = -16}; /* rbx */
	row->rules[2] = (struct cfi_rule){.kind = CFI_VAL, .off = 0};  /* rsp */
	row->rules[CFI_NKEPT - 1] = (struct cfi_rule){.kind = CFI_AT, .off = -8};
}

START_TEST(test_step_stack_pointer)
{
	struct cfi_regs in = {0}, out;
	struct cfi_row row;
	struct mem m = {0};
	uint64_t cfa = 0;

	rsp_row(&row);
	ck_assert(!row.fp);
	cfi_set(&in, CFI_RSP, BASE + 0x40);
	cfi_set(&in, CFI_RBP, 5); /* a frameless function leaves rbp alone */
	cfi_set(&in, CFI_RBX, 6);
	mem_set(&m, BASE + 0x50, 99);		  /* saved rbx */
	mem_set(&m, BASE + 0x58, 0x555555551000); /* return address */
	ck_assert_int_eq(cfi_step(&row, NULL, &in, &out, &cfa, mem_read, &m), 0);
	ck_assert_uint_eq(cfa, BASE + 0x60);
	ck_assert_uint_eq(out.r[CFI_RA], 0x555555551000);
	ck_assert_uint_eq(out.r[CFI_RBX], 99);
	ck_assert_uint_eq(out.r[CFI_RBP], 5);
	ck_assert_uint_eq(out.r[CFI_RSP], BASE + 0x60);
}
END_TEST

/*
 * In an epilogue after "pop rbx" gcc changes the CFA but does not say that
 * rbx is restored: its old slot lies below the stack pointer, outside any
 * copy. The register then keeps its value, nothing is read there.
 */
START_TEST(test_step_popped_slot)
{
	struct cfi_regs in = {0}, out;
	struct cfi_row row;
	struct mem m = {0};
	uint64_t cfa = 0;

	rsp_row(&row);
	row.cfa.off = 8; /* after the pops: only the return address is left */
	cfi_set(&in, CFI_RSP, BASE + 0x40);
	cfi_set(&in, CFI_RBX, 6);
	mem_set(&m, BASE + 0x40, 0x401000);
	ck_assert_int_eq(cfi_step(&row, NULL, &in, &out, &cfa, mem_read, &m), 0);
	ck_assert_uint_eq(out.r[CFI_RA], 0x401000);
	ck_assert_uint_eq(out.r[CFI_RBX], 6);
	ck_assert_int_eq(m.reads, 1);
}
END_TEST

/* A PLT entry's CFA: rsp + 8, and 8 more past its push (entry offset >= 11). */
START_TEST(test_step_expression)
{
	static const Dwarf_Op plt[] = {
		{.atom = DW_OP_breg7, .number = 8},
		{.atom = DW_OP_breg16, .number = 0},
		{.atom = DW_OP_lit15},
		{.atom = DW_OP_and},
		{.atom = DW_OP_lit11},
		{.atom = DW_OP_ge},
		{.atom = DW_OP_lit3},
		{.atom = DW_OP_shl},
		{.atom = DW_OP_plus},
	};
	struct cfi_pool pool = {.ops = (Dwarf_Op *)plt, .n = ARRAY_SIZE(plt)};
	struct cfi_regs in = {0}, out;
	struct cfi_row row;
	struct mem m = {0};
	uint64_t cfa = 0;

	rsp_row(&row);
	row.rules[0].kind = CFI_SAME;
	row.cfa = (struct cfi_rule){.kind = CFI_VAL_EXPR, .off = 0, .nops = ARRAY_SIZE(plt)};
	cfi_set(&in, CFI_RSP, BASE);
	mem_set(&m, BASE, 0x401111);
	mem_set(&m, BASE + 8, 0x402222);
	cfi_set(&in, CFI_RA, 0x401036); /* offset 6 of its entry: before the push */
	ck_assert_int_eq(cfi_step(&row, &pool, &in, &out, &cfa, mem_read, &m), 0);
	ck_assert_uint_eq(cfa, BASE + 8);
	ck_assert_uint_eq(out.r[CFI_RA], 0x401111);
	cfi_set(&in, CFI_RA, 0x40103b); /* offset 11: after it */
	ck_assert_int_eq(cfi_step(&row, &pool, &in, &out, &cfa, mem_read, &m), 0);
	ck_assert_uint_eq(cfa, BASE + 16);
	ck_assert_uint_eq(out.r[CFI_RA], 0x402222);
}
END_TEST

START_TEST(test_step_outermost_and_short)
{
	struct cfi_regs in = {0}, out;
	struct cfi_row row;
	struct mem m = {0};
	uint64_t cfa = 0;

	/* The return address undefined (_start, clone3): the outermost frame. */
	rsp_row(&row);
	row.rules[CFI_NKEPT - 1].kind = CFI_UNDEF;
	cfi_set(&in, CFI_RSP, BASE);
	ck_assert_int_eq(cfi_step(&row, NULL, &in, &out, &cfa, mem_read, &m), 1);
	/* A return address beyond the memory: the reader's answer. */
	rsp_row(&row);
	cfi_set(&in, CFI_RSP, BASE + sizeof(m.w));
	ck_assert_int_eq(cfi_step(&row, NULL, &in, &out, &cfa, mem_read, &m), -EFAULT);
	/* A CFA from a register that is not known. */
	cfi_row_fp(&row);
	in.known = 1u << CFI_RSP;
	ck_assert_int_eq(cfi_step(&row, NULL, &in, &out, &cfa, mem_read, &m), -EINVAL);
}
END_TEST

/*
 * Whole unwindings of this process's own stack. capture() fills a sample
 * as the kernel would: the user registers, a copy of the stack from the
 * stack pointer, and the frame-pointer chain. The functions that call it
 * keep frame pointers (built so for this test), so the chain is right.
 */
#define COPY 16384

struct captured {
	uint64_t regs[CFI_NREGS];
	unsigned char stack[COPY];
	size_t len; /* of the copy: at most COPY, and the stack's end */
	uint64_t chain[64];
	size_t nchain;
	uint64_t here; /* the address the registers were taken at */
};

static struct captured cap;

/*
 * The bytes of this thread's stack as they are: a sanitizer build poisons
 * parts of it (its red zones), which a copy read through memcpy would
 * report. What is called after the registers were taken uses the stack
 * below them, which the copy leaves out.
 */
__attribute__((no_sanitize("address"))) static void copy_stack(unsigned char *dst,
							       const unsigned char *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = ((const volatile unsigned char *)src)[i];
}

/* The end of the stack mapping that holds sp. */
static uint64_t stack_end(uint64_t sp)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long lo, hi;
	char line[512];
	uint64_t end = sp;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && sp >= lo && sp < hi)
			end = hi;
	fclose(f);
	return end;
}

/*
 * The frame-pointer walk the kernel does, from the captured rbp, within
 * the copy (the kernel reads on where this could fault).
 */
static void walk_chain(uint64_t rsp, uint64_t rbp)
{
	cap.chain[0] = cap.here;
	cap.nchain = 1;
	while (rbp >= rsp && rbp + 16 <= rsp + cap.len && !(rbp & 7) &&
	       cap.nchain < ARRAY_SIZE(cap.chain)) {
		uint64_t next, ret;

		memcpy(&next, cap.stack + (rbp - rsp), 8);
		memcpy(&ret, cap.stack + (rbp - rsp) + 8, 8);
		if (!ret)
			break;
		cap.chain[cap.nchain++] = ret;
		if (next <= rbp)
			break;
		rbp = next;
	}
}

__attribute__((noinline, noipa)) static void capture(void)
{
	uint64_t rsp, rbp, rbx, r12, r13, r14, r15, rip;

	__asm__ volatile("lea 0(%%rip), %0\n\t"
			 "mov %%rsp, %1\n\t"
			 "mov %%rbp, %2\n\t"
			 "mov %%rbx, %3\n\t"
			 "mov %%r12, %4\n\t"
			 "mov %%r13, %5\n\t"
			 "mov %%r14, %6\n\t"
			 "mov %%r15, %7\n\t"
			 : "=r"(rip), "=m"(rsp), "=m"(rbp), "=m"(rbx), "=m"(r12), "=m"(r13),
			   "=m"(r14), "=m"(r15));
	memset(cap.regs, 0, sizeof(cap.regs));
	cap.regs[CFI_RSP] = rsp;
	cap.regs[CFI_RBP] = rbp;
	cap.regs[CFI_RBX] = rbx;
	cap.regs[12] = r12;
	cap.regs[13] = r13;
	cap.regs[14] = r14;
	cap.regs[15] = r15;
	cap.regs[CFI_RA] = rip;
	cap.here = rip;
	/* Only what lies above the stack pointer: this function's frame and its callers'. */
	cap.len = stack_end(rsp) - rsp;
	if (cap.len > COPY)
		cap.len = COPY;
	copy_stack(cap.stack, (const unsigned char *)(uintptr_t)rsp, cap.len);
	walk_chain(rsp, rbp);
}

static volatile int depth_sink;

__attribute__((noinline, noipa)) static void level3(void)
{
	capture();
	depth_sink++; /* no tail call */
}

__attribute__((noinline, noipa)) static void level2(void)
{
	level3();
	depth_sink++;
}

__attribute__((noinline, noipa)) static void level1(void)
{
	level2();
	depth_sink++;
}

/* A sample of this process from the capture, with a copy of copy bytes. */
static void fill_sample(struct rec_sample *s, unsigned char *regs, size_t copy)
{
	static const int perf_of[CFI_NREGS] = {
		PERF_REG_X86_AX,  PERF_REG_X86_DX,  PERF_REG_X86_CX,  PERF_REG_X86_BX,
		PERF_REG_X86_SI,  PERF_REG_X86_DI,  PERF_REG_X86_BP,  PERF_REG_X86_SP,
		PERF_REG_X86_R8,  PERF_REG_X86_R9,  PERF_REG_X86_R10, PERF_REG_X86_R11,
		PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14, PERF_REG_X86_R15,
		PERF_REG_X86_IP,
	};
	uint64_t mask = unwind_regs_mask();

	memset(s, 0, sizeof(*s));
	s->pid = s->tid = (uint32_t)getpid();
	s->ip = cap.here;
	s->regs_abi = PERF_SAMPLE_REGS_ABI_64;
	s->nregs = (uint32_t)__builtin_popcountll(mask);
	for (int r = 0; r < CFI_NREGS; r++) {
		int idx = __builtin_popcountll(mask & ((1ULL << perf_of[r]) - 1));

		memcpy(regs + idx * 8, &cap.regs[r], 8);
	}
	s->regs = regs;
	s->stack = cap.stack;
	s->stack_size = s->stack_dyn_size = copy < cap.len ? copy : cap.len;
}

/* The function names of the unwound addresses, through this program's symbol table. */
static const char *name_at(const struct symtab *t, uint64_t bias, uint64_t a)
{
	const struct sym *s = symtab_lookup(t, a - bias);

	return s ? symtab_name(t, s) : "?";
}

/* This program's symbols and load bias (from capture's address). */
static void own_symbols(struct symtab *t, uint64_t *bias)
{
	int fd = open("/proc/self/exe", O_RDONLY);
	Elf *e;

	ck_assert_int_ge(fd, 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(e);
	symtab_init(t);
	ck_assert_int_gt(elf_read_symbols(e, t), 0);
	elf_end(e);
	close(fd);
	*bias = 0;
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(symtab_name(t, &t->syms[i]), "capture"))
			*bias = (uint64_t)(uintptr_t)&capture - t->syms[i].addr;
	ck_assert_uint_ne(*bias, 0);
}

/*
 * Unwinds the capture with a copy of copy bytes and the chain; checks the
 * frames, and how they were found when how is not -1.
 */
static void unwind_capture(size_t copy, bool with_chain, int how)
{
	struct module_set mods;
	struct model model;
	struct unwinder *u;
	struct rec_sample s;
	struct unwind_result res;
	unsigned char regs[CFI_NREGS * 8];
	uint64_t ips[128], bias;
	struct symtab t;
	static const char *const want[] = {"capture", "level3", "level2", "level1",
					   "unwind_capture"};

	level1();
	own_symbols(&t, &bias);
	module_set_init(&mods);
	model_init(&model, &mods, true);
	u = unwinder_new(&model);
	fill_sample(&s, regs, copy);
	unwind_sample(u, s.pid, &s, with_chain ? (const unsigned char *)cap.chain : NULL,
		      with_chain ? cap.nchain : 0, ips, 128, &res);
	ck_assert_int_ge(res.n, (int)ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		ck_assert_str_eq(name_at(&t, bias, ips[i]), want[i]);
	/* The first address is where the registers were taken, the others a byte into their calls. */
	ck_assert_uint_eq(ips[0], cap.here);
	if (how >= 0)
		ck_assert_int_eq(res.how, how);
	unwinder_free(u);
	model_release(&model);
	module_set_release(&mods);
	symtab_release(&t);
}

/*
 * The epilogue of libgcc's _Unwind_RaiseException in miniature: the
 * return address popped into rcx, then a jump to it; its rows say CFA =
 * rsp and the caller's address in rcx. Never called: a sample is made to
 * have stopped on its jmp.
 */
__asm__(".text\n"
	".type jump_stub, @function\n"
	"jump_stub:\n"
	".cfi_startproc\n"
	"pop %rcx\n"
	".cfi_def_cfa_offset 0\n"
	".cfi_register %rip, %rcx\n"
	"jump_stub_jmp:\n"
	"jmp *%rcx\n"
	".cfi_endproc\n"
	".size jump_stub, .-jump_stub\n");
extern const char jump_stub_jmp[];

/*
 * A sample on that jmp, to capture's own address with capture's
 * registers: its caller is capture at that very address (not a return
 * address: where the jump goes), whose frame is where the jump is (the
 * same stack pointer); and on from there.
 */
START_TEST(test_unwind_jump)
{
	struct module_set mods;
	struct model model;
	struct unwinder *u;
	struct rec_sample s;
	struct unwind_result res;
	unsigned char regs[CFI_NREGS * 8];
	uint64_t ips[128], bias, saved_ip, saved_cx;
	struct symtab t;
	static const char *const want[] = {"jump_stub", "capture", "level3", "level2", "level1"};

	level1();
	own_symbols(&t, &bias);
	saved_ip = cap.regs[CFI_RA];
	saved_cx = cap.regs[2];
	cap.regs[CFI_RA] = (uint64_t)(uintptr_t)jump_stub_jmp;
	cap.regs[2] = cap.here; /* rcx, DWARF's register 2 */
	module_set_init(&mods);
	model_init(&model, &mods, true);
	u = unwinder_new(&model);
	fill_sample(&s, regs, COPY);
	s.ip = cap.regs[CFI_RA];
	unwind_sample(u, s.pid, &s, NULL, 0, ips, 128, &res);
	ck_assert_int_ge(res.n, (int)ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		ck_assert_str_eq(name_at(&t, bias, ips[i]), want[i]);
	ck_assert_uint_eq(ips[1], cap.here);
	cap.regs[CFI_RA] = saved_ip;
	cap.regs[2] = saved_cx;
	unwinder_free(u);
	model_release(&model);
	module_set_release(&mods);
	symtab_release(&t);
}
END_TEST

/* A copy of 16 KiB: the tables alone reach beyond this test's frames. */
START_TEST(test_unwind_self)
{
	unwind_capture(COPY, false, UNWIND_BY_CFI);
	unwind_capture(COPY, true, -1);
}
END_TEST

/*
 * A copy that ends at level3's frame record: the tables cannot go on from
 * level3, and the kernel's chain takes over there, the frame whose record
 * its walk went through (the capture inside unwind_capture has the same
 * frames as this one).
 */
START_TEST(test_unwind_self_spliced)
{
	uint64_t level3_rbp;

	level1();
	ck_assert_uint_ge(cap.nchain, 3);
	/* Up to capture's return address into level3, not level3's into level2. */
	memcpy(&level3_rbp, cap.stack + (cap.regs[CFI_RBP] - cap.regs[CFI_RSP]), 8);
	ck_assert_uint_gt(level3_rbp, cap.regs[CFI_RBP]);
	unwind_capture((size_t)(level3_rbp - cap.regs[CFI_RSP]), true, UNWIND_BY_SPLICE);
	/* Without the chain, the stack ends with the copy. */
	level1();
	memcpy(&level3_rbp, cap.stack + (cap.regs[CFI_RBP] - cap.regs[CFI_RSP]), 8);
	{
		struct module_set mods;
		struct model model;
		struct unwinder *u;
		struct rec_sample smp;
		struct unwind_result res;
		unsigned char regs[CFI_NREGS * 8];
		uint64_t ips[128];

		module_set_init(&mods);
		model_init(&model, &mods, true);
		u = unwinder_new(&model);
		fill_sample(&smp, regs, (size_t)(level3_rbp - cap.regs[CFI_RSP]));
		unwind_sample(u, smp.pid, &smp, NULL, 0, ips, 128, &res);
		ck_assert_int_eq(res.n, 2); /* capture, level3 */
		ck_assert_int_eq(res.end, UNWIND_SHORT_STACK);
		unwinder_free(u);
		model_release(&model);
		module_set_release(&mods);
	}
}
END_TEST

/*
 * The memo of unwinds met again: the same sample unwinds the same, from
 * the memo; one whose stack differs in a word the unwind read (the
 * return addresses above capture's frame) is unwound afresh, and so is
 * one whose copy ends before a word it read.
 */
START_TEST(test_unwind_memo)
{
	struct module_set mods;
	struct model model;
	struct unwinder *u;
	struct rec_sample s;
	struct unwind_result res, again;
	unsigned char regs[CFI_NREGS * 8];
	uint64_t ips[128], ips2[128];

	level1();
	module_set_init(&mods);
	model_init(&model, &mods, true);
	u = unwinder_new(&model);
	fill_sample(&s, regs, COPY);
	model_process(&model, s.pid); /* its mappings read, as a recording has them */
	unwind_sample(u, s.pid, &s, NULL, 0, ips, 128, &res);
	ck_assert_uint_eq(unwinder_memo_hits(u), 0);
	ck_assert_int_ge(res.n, 5);
	unwind_sample(u, s.pid, &s, NULL, 0, ips2, 128, &again);
	ck_assert_uint_eq(unwinder_memo_hits(u), 1);
	ck_assert_int_eq(again.n, res.n);
	ck_assert_int_eq(again.end, res.end);
	ck_assert_int_eq(again.how, res.how);
	ck_assert_uint_eq(again.copy_needed, res.copy_needed);
	ck_assert_mem_eq(ips2, ips, (size_t)res.n * sizeof(*ips));
	/* Every word above the registers' frame changed: not the memo's. */
	for (size_t off = cap.regs[CFI_RBP] - cap.regs[CFI_RSP]; off + 8 <= cap.len; off += 8)
		cap.stack[off] ^= 0x40;
	unwind_sample(u, s.pid, &s, NULL, 0, ips2, 128, &again);
	ck_assert_uint_eq(unwinder_memo_hits(u), 1);
	ck_assert(again.n != res.n || memcmp(ips2, ips, (size_t)res.n * sizeof(*ips)) != 0);
	/* A copy too short for a word the memo's unwind read. */
	level1();
	fill_sample(&s, regs, COPY);
	unwind_sample(u, s.pid, &s, NULL, 0, ips, 128, &res);
	s.stack_dyn_size = res.copy_needed - 8;
	unwind_sample(u, s.pid, &s, NULL, 0, ips2, 128, &again);
	ck_assert_int_eq(again.end, UNWIND_SHORT_STACK);
	unwinder_free(u);
	model_release(&model);
	module_set_release(&mods);
}
END_TEST

/*
 * The rows of a file found so far (cfi_spans): 300 spans of 16 bytes
 * with 16-byte gaps between, added in a scattered order (so that the
 * unsorted tail is merged into the sorted part several times): every
 * address inside a span finds that span's row (its CFA offset tells),
 * every address in a gap or past the ends finds none.
 */
START_TEST(test_spans)
{
	struct cfi_spans sp = {0};
	struct cfi_row row;
	const uint64_t base = 0x401000;

	for (unsigned i = 0; i < 300; i++) {
		unsigned k = (i * 7) % 300; /* 7 and 300 are coprime: each k once */

		cfi_row_fp(&row);
		row.cfa.off = (int32_t)k;
		cfi_spans_add(&sp, base + 32 * k, base + 32 * k + 16, &row);
		/* What was added is found at once, merged or not. */
		ck_assert_ptr_nonnull(cfi_spans_find(&sp, base + 32 * k + 15));
	}
	ck_assert_uint_eq(sp.n, 300);
	for (unsigned k = 0; k < 300; k++) {
		for (uint64_t a = base + 32 * k; a < base + 32 * k + 32; a++) {
			const struct cfi_row *r = cfi_spans_find(&sp, a);

			if (a < base + 32 * k + 16) {
				ck_assert_msg(r && r->cfa.off == (int32_t)k, "%#llx: span %u",
					      (unsigned long long)a, k);
			} else {
				ck_assert_msg(!r, "%#llx: in a gap", (unsigned long long)a);
			}
		}
	}
	ck_assert_ptr_null(cfi_spans_find(&sp, base - 1));
	ck_assert_ptr_null(cfi_spans_find(&sp, 0));
	ck_assert_ptr_null(cfi_spans_find(&sp, base + 32 * 300));
	cfi_spans_release(&sp);
	ck_assert_ptr_null(cfi_spans_find(&sp, base));
}
END_TEST

/* The path of the C library this test runs with. */
static void libc_path(char *out, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512], path[400];

	ck_assert_ptr_nonnull(f);
	out[0] = '\0';
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %*s %*s %*s %*s %399s", path) == 1 &&
		    strstr(path, "/libc.so"))
			snprintf(out, len, "%s", path);
	fclose(f);
	ck_assert_msg(out[0], "no libc.so in /proc/self/maps");
}

static bool same_row(const struct cfi_row *a, const struct cfi_row *b)
{
	if (a->signal != b->signal || a->cfa.kind != b->cfa.kind || a->cfa.reg != b->cfa.reg ||
	    a->cfa.off != b->cfa.off)
		return false;
	for (int i = 0; i < CFI_NKEPT; i++)
		if (a->rules[i].kind != b->rules[i].kind || a->rules[i].off != b->rules[i].off)
			return false;
	return true;
}

/*
 * The addresses a row is said to hold for, on the C library's real
 * tables: every address of a span has the span's row. libdw says a row
 * that DW_CFA_restore_state brought back (after an epilogue in the middle
 * of a function) starts where the epilogue does: such a span would give
 * the body's row to the epilogue's instructions.
 */
START_TEST(test_spans_libc)
{
	char path[400];
	struct cfi_pool pool = {0};
	struct load_seg *segs;
	int fd, n;
	Elf *e;
	Dwarf_CFI *cfi;
	size_t checked = 0;

	libc_path(path, sizeof(path));
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(e);
	cfi = dwarf_getcfi_elf(e);
	ck_assert_ptr_nonnull(cfi);
	n = elf_read_segments(e, &segs);
	for (int i = 0; i < n; i++) {
		if (!(segs[i].flags & PF_X))
			continue;
		for (uint64_t a = segs[i].vaddr;
		     a < segs[i].vaddr + segs[i].memsz && a < segs[i].vaddr + (256u << 10);
		     a += 13) {
			struct cfi_row row, at_lo;
			uint64_t lo, hi;

			if (cfi_row_find_span(cfi, a, &pool, &row, &lo, &hi) != 0)
				continue;
			ck_assert(lo <= a && a < hi);
			ck_assert_int_eq(cfi_row_find(cfi, lo, &pool, &at_lo), 0);
			ck_assert_msg(same_row(&row, &at_lo),
				      "%s+%#llx: its span starts at %#llx, another row", path,
				      (unsigned long long)a, (unsigned long long)lo);
			ck_assert_int_eq(cfi_row_find(cfi, hi - 1, &pool, &at_lo), 0);
			ck_assert_msg(same_row(&row, &at_lo),
				      "%s+%#llx: its span ends at %#llx, another row", path,
				      (unsigned long long)a, (unsigned long long)hi);
			checked++;
		}
	}
	ck_assert_uint_gt(checked, 5000);
	free(segs);
	cfi_pool_release(&pool);
	dwarf_cfi_end(cfi);
	elf_end(e);
	close(fd);
}
END_TEST

static Suite *unwind_suite(void)
{
	Suite *s = suite_create("unwind");
	TCase *tc = tcase_create("steps");

	tcase_add_test(tc, test_step_frame_pointer);
	tcase_add_test(tc, test_step_stack_pointer);
	tcase_add_test(tc, test_step_popped_slot);
	tcase_add_test(tc, test_step_expression);
	tcase_add_test(tc, test_step_outermost_and_short);
	tcase_add_test(tc, test_spans);
	tcase_add_test(tc, test_spans_libc);
	suite_add_tcase(s, tc);

	tc = tcase_create("own stack");
	tcase_add_test(tc, test_unwind_self);
	tcase_add_test(tc, test_unwind_self_spliced);
	tcase_add_test(tc, test_unwind_memo);
	tcase_add_test(tc, test_unwind_jump);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(unwind_suite());
}
