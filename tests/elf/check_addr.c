/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_addr.c - the address formulas of addr.h on the program headers of
 * every layout that matters (DESIGN.md section 2).
 *
 * The tables are real. They were obtained with gcc 12.2 / GNU ld 2.40 and
 * clang 14 / lld 14 (Debian 12, x86-64) from this program:
 *
 *   #include <stdio.h>
 *   #include <string.h>
 *   __attribute__((noinline)) int hot(int x) { return x * 3; }
 *   int main(void) { char l[512]; FILE *f = fopen("/proc/self/maps", "r");
 *     printf("hot=%p\n", (void *)hot);
 *     while (fgets(l, sizeof l, f)) if (strstr(l, "/m-")) fputs(l, stdout); }
 *
 * built as
 *   m-nopie  gcc -O1 -no-pie
 *   m-pie    gcc -O1                                  (PIE is the default)
 *   m-gcc2m  gcc -O1 -Wl,-z,max-page-size=0x200000
 *   m-lld    clang -O1 -fuse-ld=lld                   (p_vaddr != p_offset)
 *   m-lldsep clang -O1 -fuse-ld=lld -Wl,-z,separate-code
 *   m-lld2m  clang -O1 -fuse-ld=lld -Wl,-z,max-page-size=0x200000
 *
 * then `readelf -lW` (the PT_LOAD lines), `nm` (the address of hot) and
 * `setarch -R ./m-X` (ASLR off: its own mappings and the runtime address
 * of hot). The load bias is then known: runtime address - nm address.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <sys/mman.h>

#include "elf/addr.h"
#include "unit-helpers.h"
#include "util/array.h"

#define R  PF_R
#define RX (PF_R | PF_X)
#define RW (PF_R | PF_W)

struct rt_map {
	uint64_t start, end, pgoff;
	const char *perms;
};

struct layout {
	const char *name;
	struct load_seg segs[5];
	size_t nsegs;
	uint64_t hot_vaddr;   /* nm */
	uint64_t hot_runtime; /* printed by the program */
	uint64_t bias;	      /* hot_runtime - hot_vaddr */
	struct rt_map maps[5];
	size_t nmaps;
	size_t exec_map; /* index of the r-xp mapping */
};

/* clang-format off */
/*       offset    vaddr               filesz    memsz     flags */
static const struct layout layouts[] = {
	{
		"m-nopie",
		{{0x000000, 0x400000, 0x000610, 0x000610, R},
		 {0x001000, 0x401000, 0x0001f1, 0x0001f1, RX},
		 {0x002000, 0x402000, 0x00011c, 0x00011c, R},
		 {0x002df8, 0x403df8, 0x000240, 0x000250, RW}},
		4, 0x401166, 0x401166, 0,
		{{0x400000, 0x401000, 0x0000, "r--p"},
		 {0x401000, 0x402000, 0x1000, "r-xp"},
		 {0x402000, 0x403000, 0x2000, "r--p"},
		 {0x403000, 0x404000, 0x2000, "r--p"},
		 {0x404000, 0x405000, 0x3000, "rw-p"}},
		5, 1,
	},
	{
		"m-pie",
		{{0x000000, 0x0000, 0x000730, 0x000730, R},
		 {0x001000, 0x1000, 0x000205, 0x000205, RX},
		 {0x002000, 0x2000, 0x000124, 0x000124, R},
		 {0x002dd0, 0x3dd0, 0x000268, 0x000278, RW}},
		4, 0x1179, 0x555555555179ULL, 0x555555554000ULL,
		{{0x555555554000ULL, 0x555555555000ULL, 0x0000, "r--p"},
		 {0x555555555000ULL, 0x555555556000ULL, 0x1000, "r-xp"},
		 {0x555555556000ULL, 0x555555557000ULL, 0x2000, "r--p"},
		 {0x555555557000ULL, 0x555555558000ULL, 0x2000, "r--p"},
		 {0x555555558000ULL, 0x555555559000ULL, 0x3000, "rw-p"}},
		5, 1,
	},
	{
		"m-gcc2m",
		{{0x000000, 0x000000, 0x000730, 0x000730, R},
		 {0x200000, 0x200000, 0x000205, 0x000205, RX},
		 {0x400000, 0x400000, 0x000124, 0x000124, R},
		 {0x5ffdd0, 0x7ffdd0, 0x000268, 0x000278, RW}},
		4, 0x200179, 0x555555600179ULL, 0x555555400000ULL,
		{{0x555555400000ULL, 0x555555401000ULL, 0x000000, "r--p"},
		 {0x555555600000ULL, 0x555555601000ULL, 0x200000, "r-xp"},
		 {0x555555800000ULL, 0x555555801000ULL, 0x400000, "r--p"},
		 {0x555555bff000ULL, 0x555555c00000ULL, 0x5ff000, "r--p"},
		 {0x555555c00000ULL, 0x555555c01000ULL, 0x600000, "rw-p"}},
		5, 1,
	},
	{
		"m-lld",
		{{0x000000, 0x0000, 0x0007f4, 0x0007f4, R},
		 {0x000800, 0x1800, 0x000250, 0x000250, RX},
		 {0x000a50, 0x2a50, 0x0001f0, 0x0001f0, RW},
		 {0x000c40, 0x3c40, 0x000058, 0x000059, RW}},
		4, 0x18f0, 0x5555555558f0ULL, 0x555555554000ULL,
		{{0x555555554000ULL, 0x555555555000ULL, 0, "r--p"},
		 {0x555555555000ULL, 0x555555556000ULL, 0, "r-xp"},
		 {0x555555556000ULL, 0x555555557000ULL, 0, "r--p"},
		 {0x555555557000ULL, 0x555555558000ULL, 0, "rw-p"}},
		4, 1,
	},
	{
		"m-lldsep",
		{{0x000000, 0x0000, 0x0007f4, 0x0007f4, R},
		 {0x001000, 0x1000, 0x000250, 0x000250, RX},
		 {0x002000, 0x2000, 0x0001f0, 0x0001f0, RW},
		 {0x0021f0, 0x31f0, 0x000058, 0x000059, RW}},
		4, 0x10f0, 0x5555555550f0ULL, 0x555555554000ULL,
		{{0x555555554000ULL, 0x555555555000ULL, 0x0000, "r--p"},
		 {0x555555555000ULL, 0x555555556000ULL, 0x1000, "r-xp"},
		 {0x555555556000ULL, 0x555555557000ULL, 0x2000, "r--p"},
		 {0x555555557000ULL, 0x555555558000ULL, 0x2000, "rw-p"}},
		4, 1,
	},
	{
		"m-lld2m",
		{{0x000000, 0x000000, 0x0007f4, 0x0007f4, R},
		 {0x000800, 0x200800, 0x000250, 0x000250, RX},
		 {0x000a50, 0x400a50, 0x0001f0, 0x0001f0, RW},
		 {0x000c40, 0x600c40, 0x000058, 0x000059, RW}},
		4, 0x2008f0, 0x5555556008f0ULL, 0x555555400000ULL,
		{{0x555555400000ULL, 0x555555401000ULL, 0, "r--p"},
		 {0x555555600000ULL, 0x555555601000ULL, 0, "r-xp"},
		 {0x555555800000ULL, 0x555555801000ULL, 0, "r--p"},
		 {0x555555a00000ULL, 0x555555a01000ULL, 0, "rw-p"}},
		4, 1,
	},
};
/* clang-format on */

#define NLAYOUTS ((int)ARRAY_SIZE(layouts))

/* The sampled address of hot, through its mapping, to the ELF address nm gives. */
#define RXP (PROT_READ | PROT_EXEC)

/* PROT_* of a "r-xp" permission string. */
static uint32_t perms_prot(const char *perms)
{
	return (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
	       (perms[2] == 'x' ? PROT_EXEC : 0);
}

START_TEST(test_runtime_to_vaddr)
{
	const struct layout *l = &layouts[_i];
	const struct rt_map *x = &l->maps[l->exec_map];
	uint64_t off, vaddr = 0;

	ck_assert(l->hot_runtime >= x->start && l->hot_runtime < x->end);
	ck_assert_uint_eq(l->hot_runtime - l->hot_vaddr, l->bias);
	off = addr_to_file_offset(l->hot_runtime, x->start, x->pgoff);
	ck_assert_msg(addr_file_offset_to_vaddr(l->segs, l->nsegs, off, &vaddr) == 0,
		      "%s: file offset 0x%llx in no segment", l->name, (unsigned long long)off);
	ck_assert_msg(vaddr == l->hot_vaddr, "%s: vaddr 0x%llx, expected 0x%llx", l->name,
		      (unsigned long long)vaddr, (unsigned long long)l->hot_vaddr);
}
END_TEST

/* Every byte of every segment's file part converts to vaddr and back. */
START_TEST(test_round_trip)
{
	const struct layout *l = &layouts[_i];

	for (size_t i = 0; i < l->nsegs; i++) {
		const struct load_seg *s = &l->segs[i];

		for (uint64_t d = 0; d < s->filesz; d++) {
			uint64_t vaddr = 0, off = 0;

			ck_assert_int_eq(
				addr_file_offset_to_vaddr(l->segs, l->nsegs, s->offset + d, &vaddr),
				0);
			ck_assert_uint_eq(vaddr, s->vaddr + d);
			ck_assert_int_eq(addr_vaddr_to_file_offset(l->segs, l->nsegs, vaddr, &off),
					 0);
			ck_assert_uint_eq(off, s->offset + d);
		}
	}
}
END_TEST

/* File bytes no PT_LOAD covers (padding between segments), and .bss. */
START_TEST(test_outside_segments)
{
	const struct layout *l = &layouts[_i];
	uint64_t v = 0, off = 0;

	for (size_t i = 0; i + 1 < l->nsegs; i++) {
		const struct load_seg *s = &l->segs[i], *next = &l->segs[i + 1];

		/* Between the end of one file range and the start of the next. */
		if (s->offset + s->filesz < next->offset) {
			ck_assert_int_eq(addr_file_offset_to_vaddr(l->segs, l->nsegs,
								   s->offset + s->filesz, &v),
					 -ENOENT);
			ck_assert_int_eq(
				addr_file_offset_to_vaddr(l->segs, l->nsegs, next->offset - 1, &v),
				-ENOENT);
		}
		/* Memory between the segments. */
		if (s->vaddr + s->memsz < next->vaddr)
			ck_assert_int_eq(addr_vaddr_to_file_offset(l->segs, l->nsegs,
								   s->vaddr + s->memsz, &off),
					 -ENOENT);
	}
	/* .bss: in the last segment's memory but beyond its file part. */
	{
		const struct load_seg *s = &l->segs[l->nsegs - 1];

		ck_assert_uint_gt(s->memsz, s->filesz);
		ck_assert_int_eq(
			addr_vaddr_to_file_offset(l->segs, l->nsegs, s->vaddr + s->filesz, &off),
			-ENOENT);
		ck_assert_int_eq(
			addr_vaddr_to_file_offset(l->segs, l->nsegs, s->vaddr + s->memsz - 1, &off),
			-ENOENT);
		ck_assert_int_eq(
			addr_file_offset_to_vaddr(l->segs, l->nsegs, s->offset + s->filesz, &v),
			-ENOENT);
	}
	ck_assert_int_eq(addr_file_offset_to_vaddr(l->segs, l->nsegs, 1ULL << 40, &v), -ENOENT);
	ck_assert_int_eq(addr_vaddr_to_file_offset(l->segs, l->nsegs, 1ULL << 40, &off), -ENOENT);
	ck_assert_int_eq(addr_file_offset_to_vaddr(l->segs, 0, 0, &v), -ENOENT);
}
END_TEST

/*
 * The bias from the executable mapping, the one perfmini keeps (only
 * PROT_EXEC mappings enter the process model). In the lld layouts this
 * mapping starts at the page boundary below the text segment, whose
 * p_offset (0x800) is not page aligned: the mapping's file range [0, 0x1000)
 * also holds the read-only segment before it.
 */
START_TEST(test_bias_exec_mapping)
{
	const struct layout *l = &layouts[_i];
	const struct rt_map *x = &l->maps[l->exec_map];
	uint64_t bias = 1;

	ck_assert_str_eq(x->perms, "r-xp");
	ck_assert_int_eq(addr_load_bias(l->segs, l->nsegs, x->start, x->end, x->pgoff,
					perms_prot(x->perms), &bias),
			 0);
	ck_assert_msg(bias == l->bias, "%s: bias 0x%llx from the r-xp mapping, expected 0x%llx",
		      l->name, (unsigned long long)bias, (unsigned long long)l->bias);
}
END_TEST

/* The first mapping (offset 0, the ELF header's) gives the bias too. */
START_TEST(test_bias_first_mapping)
{
	const struct layout *l = &layouts[_i];
	const struct rt_map *x = &l->maps[0];
	uint64_t bias = 1;

	ck_assert_int_eq(addr_load_bias(l->segs, l->nsegs, x->start, x->end, x->pgoff,
					perms_prot(x->perms), &bias),
			 0);
	ck_assert_uint_eq(bias, l->bias);
}
END_TEST

/*
 * p_align 2 MiB and p_vaddr not aligned to it (m-lld2m: text at 0x200800):
 * rounding p_vaddr down to p_align would give 0x200000 and a bias off by
 * 0x800. The formula uses no alignment at all.
 */
START_TEST(test_align_2m)
{
	const struct layout *l = &layouts[5];
	const struct load_seg *text = &l->segs[1];
	uint64_t vaddr = 0;

	ck_assert_str_eq(l->name, "m-lld2m");
	ck_assert_uint_ne(text->vaddr % 0x200000, 0);
	ck_assert_int_eq(addr_file_offset_to_vaddr(l->segs, l->nsegs, 0x8f0, &vaddr), 0);
	ck_assert_uint_eq(vaddr, 0x2008f0);
	ck_assert_uint_eq(l->hot_runtime - vaddr, 0x555555400000ULL);
}
END_TEST

/*
 * Two executable segments, as BOLT writes them: the original text, and the
 * rewritten functions in a new PT_LOAD appended at a higher address, at a
 * distance between p_offset and p_vaddr unlike the first one's. (Made by
 * hand: llvm-bolt is not installed here. The first four segments are
 * m-pie's.)
 */
/* clang-format off */
static const struct load_seg bolt[] = {
	{0x000000, 0x000000, 0x000730, 0x000730, R},
	{0x001000, 0x001000, 0x000205, 0x000205, RX},
	{0x002000, 0x002000, 0x000124, 0x000124, R},
	{0x002dd0, 0x003dd0, 0x000268, 0x000278, RW},
	{0x200000, 0x600000, 0x001c40, 0x001c40, RX},
};
/* clang-format on */

START_TEST(test_two_exec_segments)
{
	const uint64_t base = 0x7f3a00000000ULL;
	uint64_t vaddr = 0, off = 0, bias = 0;

	/* A sample in each text, through the mapping the loader made for it. */
	ck_assert_int_eq(addr_file_offset_to_vaddr(
				 bolt, ARRAY_SIZE(bolt),
				 addr_to_file_offset(base + 0x1100, base + 0x1000, 0x1000), &vaddr),
			 0);
	ck_assert_uint_eq(vaddr, 0x1100);
	ck_assert_int_eq(addr_file_offset_to_vaddr(
				 bolt, ARRAY_SIZE(bolt),
				 addr_to_file_offset(base + 0x600123, base + 0x600000, 0x200000),
				 &vaddr),
			 0);
	ck_assert_uint_eq(vaddr, 0x600123);
	ck_assert_int_eq(addr_vaddr_to_file_offset(bolt, ARRAY_SIZE(bolt), 0x600123, &off), 0);
	ck_assert_uint_eq(off, 0x200123);
	/* The same bias from either executable mapping. */
	ck_assert_int_eq(addr_load_bias(bolt, ARRAY_SIZE(bolt), base + 0x1000, base + 0x2000,
					0x1000, RXP, &bias),
			 0);
	ck_assert_uint_eq(bias, base);
	ck_assert_int_eq(addr_load_bias(bolt, ARRAY_SIZE(bolt), base + 0x600000, base + 0x602000,
					0x200000, RXP, &bias),
			 0);
	ck_assert_uint_eq(bias, base);
	/* Between the end of the data and the new text: nothing. */
	ck_assert_int_eq(addr_file_offset_to_vaddr(bolt, ARRAY_SIZE(bolt), 0x100000, &vaddr),
			 -ENOENT);
}
END_TEST

/* A text segment at offset 0x1000 but vaddr 0x2000, read-only data before it. */
START_TEST(test_text_shifted)
{
	static const struct load_seg segs[] = {
		{0x0000, 0x0000, 0x05c0, 0x05c0, R},
		{0x1000, 0x2000, 0x0400, 0x0400, RX},
		{0x1400, 0x3400, 0x0100, 0x0200, RW},
	};
	const uint64_t base = 0x560000000000ULL;
	uint64_t vaddr = 0, off = 0, bias = 0;

	/* Loaded: text at base + 0x2000, mapped from file offset 0x1000. */
	ck_assert_int_eq(addr_load_bias(segs, 3, base + 0x2000, base + 0x3000, 0x1000, RXP, &bias),
			 0);
	ck_assert_uint_eq(bias, base);
	ck_assert_int_eq(addr_file_offset_to_vaddr(segs, 3, 0x1234, &vaddr), 0);
	ck_assert_uint_eq(vaddr, 0x2234);
	ck_assert_uint_eq(base + vaddr, base + 0x2234);
	ck_assert_int_eq(addr_vaddr_to_file_offset(segs, 3, 0x2234, &off), 0);
	ck_assert_uint_eq(off, 0x1234);
	/* The data segment's first byte shares the text's last file page. */
	ck_assert_int_eq(addr_file_offset_to_vaddr(segs, 3, 0x1400, &vaddr), 0);
	ck_assert_uint_eq(vaddr, 0x3400);
	ck_assert_int_eq(addr_file_offset_to_vaddr(segs, 3, 0x13ff, &vaddr), 0);
	ck_assert_uint_eq(vaddr, 0x23ff);
	/* .bss of the data segment. */
	ck_assert_int_eq(addr_vaddr_to_file_offset(segs, 3, 0x3500, &off), -ENOENT);
	/* A mapping of a file range no segment holds. */
	ck_assert_int_eq(addr_load_bias(segs, 3, base + 0x9000, base + 0xa000, 0x9000, RXP, &bias),
			 -ENOENT);
}
END_TEST

/*
 * Text moved to anonymous memory (huge pages): the anonymous executable
 * mapping where the text segment belongs stands for the file's offsets,
 * the load bias taken from a neighbouring read-only mapping of the file.
 */
START_TEST(test_moved_text)
{
	static const struct load_seg segs[] = {
		{0x0000, 0x0000, 0x05c0, 0x05c0, R},
		{0x1000, 0x2000, 0x3400, 0x3400, RX},
		{0x5000, 0x6000, 0x0100, 0x0200, RW},
	};
	const uint64_t base = 0x560000000000ULL;
	uint64_t off = 0;

	/* The headers' mapping [base, base + 0x1000) from offset 0: the whole text moved. */
	ck_assert_int_eq(addr_moved_text(segs, 3, base, base + 0x1000, 0, PROT_READ, base + 0x2000,
					 base + 0x6000, &off),
			 0);
	ck_assert_uint_eq(off, 0x1000);
	/* Its second page only, from the data's mapping after it. */
	ck_assert_int_eq(addr_moved_text(segs, 3, base + 0x6000, base + 0x7000, 0x5000,
					 PROT_READ | PROT_WRITE, base + 0x3000, base + 0x4000,
					 &off),
			 0);
	ck_assert_uint_eq(off, 0x2000);
	/* Past the text's last page, or where the read-only data is: not the text. */
	ck_assert_int_eq(addr_moved_text(segs, 3, base, base + 0x1000, 0, PROT_READ, base + 0x5000,
					 base + 0x7000, &off),
			 -ENOENT);
	ck_assert_int_eq(addr_moved_text(segs, 3, base, base + 0x1000, 0, PROT_READ, base,
					 base + 0x1000, &off),
			 -ENOENT);
	/* A neighbour that is no segment of the file gives no load bias. */
	ck_assert_int_eq(addr_moved_text(segs, 3, base, base + 0x1000, 0x9000, PROT_READ,
					 base + 0x2000, base + 0x3000, &off),
			 -ENOENT);
}
END_TEST

static Suite *addr_suite(void)
{
	Suite *s = suite_create("addr");
	TCase *tc = tcase_create("real layouts");

	tcase_add_loop_test(tc, test_runtime_to_vaddr, 0, NLAYOUTS);
	tcase_add_loop_test(tc, test_round_trip, 0, NLAYOUTS);
	tcase_add_loop_test(tc, test_outside_segments, 0, NLAYOUTS);
	tcase_add_loop_test(tc, test_bias_first_mapping, 0, NLAYOUTS);
	tcase_add_loop_test(tc, test_bias_exec_mapping, 0, NLAYOUTS);
	tcase_add_test(tc, test_align_2m);
	suite_add_tcase(s, tc);

	tc = tcase_create("made-up layouts");
	tcase_add_test(tc, test_two_exec_segments);
	tcase_add_test(tc, test_text_shifted);
	tcase_add_test(tc, test_moved_text);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(addr_suite());
}
