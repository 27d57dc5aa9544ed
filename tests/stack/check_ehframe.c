/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_ehframe.c - unit tests of stack/ehframe.c: the rows it reads
 * straight from real files (the C library, the dynamic loader, this
 * test; the C compiler and libLLVM when they are there) against libdw's for the same
 * addresses, at the start, middle and end of every FDE the table lists;
 * and files whose bytes make no sense read without a crash.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stack/cfi.h"
#include "stack/ehframe.h"
#include "unit-helpers.h"

static bool same_rule(const struct cfi_rule *a, const struct cfi_rule *b)
{
	return a->kind == b->kind && a->off == b->off && (a->kind != CFI_REG || a->reg == b->reg);
}

static bool same_row(const struct cfi_row *a, const struct cfi_row *b)
{
	if (a->signal != b->signal)
		return false;
	if (a->signal)
		return true;
	if (!same_rule(&a->cfa, &b->cfa) || a->fp != b->fp)
		return false;
	for (int i = 0; i < CFI_NKEPT; i++)
		if (!same_rule(&a->rules[i], &b->rules[i]))
			return false;
	return true;
}

/* The path of the mapping of this process whose path has part in it, or "". */
static void mapped_path(const char *part, char *out, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512], path[400];

	ck_assert_ptr_nonnull(f);
	out[0] = '\0';
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %*s %*s %*s %*s %399s", path) == 1 && strstr(path, part))
			snprintf(out, len, "%s", path);
	fclose(f);
}

/* Memory as the steps below read it: a word made of its address. */
static int fake_read(void *arg, uint64_t addr, uint64_t *v)
{
	(void)arg;
	*v = addr * 3 + 1;
	return 0;
}

/*
 * Whether ours and libdw's row at vaddr agree: the same rules, or, where
 * libdw's CFA is an expression (a PLT's), the same step from the same
 * registers with the pc at vaddr.
 */
static bool same_at(const struct cfi_row *ours, const struct cfi_row *theirs,
		    const struct cfi_pool *pool, uint64_t vaddr)
{
	struct cfi_regs in = {0}, a = {0}, b = {0};
	uint64_t cfa_a = 0, cfa_b = 0;

	if (same_row(ours, theirs))
		return true;
	if (theirs->signal || theirs->cfa.kind != CFI_VAL_EXPR)
		return false;
	for (int r = 0; r < CFI_NREGS; r++)
		cfi_set(&in, r, 0x7ffd0000 + (uint64_t)r * 0x100);
	cfi_set(&in, CFI_RA, vaddr);
	if (cfi_step(ours, pool, &in, &a, &cfa_a, fake_read, NULL) != 0 ||
	    cfi_step(theirs, pool, &in, &b, &cfa_b, fake_read, NULL) != 0)
		return false;
	return cfa_a == cfa_b && a.known == b.known && !memcmp(a.r, b.r, sizeof(a.r));
}

struct tally {
	size_t same, left; /* rows alike; addresses left to libdw (-ENOTSUP) */
	size_t plt;	   /* of same, rows whose CFA libdw gives by an expression (PLTs') */
};

/* Ours against libdw's at vaddr. */
static void compare_at(const char *path, struct eh_frame *t, Dwarf_CFI *cfi, struct cfi_pool *pool,
		       uint64_t vaddr, struct tally *n)
{
	struct cfi_row ours, theirs, at;
	uint64_t lo, hi, llo, lhi;
	int a = eh_frame_row(t, vaddr, &ours, &lo, &hi);
	int b = cfi_row_find_span(cfi, vaddr, pool, &theirs, &llo, &lhi);

	if (a == -ENOTSUP) {
		n->left++;
		return;
	}
	ck_assert_msg(a == b, "%s+%#llx: %d, libdw %d", path, (unsigned long long)vaddr, a, b);
	if (a)
		return;
	ck_assert_msg(same_at(&ours, &theirs, pool, vaddr), "%s+%#llx: another row than libdw's",
		      path, (unsigned long long)vaddr);
	ck_assert(lo <= vaddr && vaddr < hi);
	/* The span is the row's: libdw says the same row at both of its ends. */
	ck_assert_int_eq(cfi_row_find(cfi, lo, pool, &at), 0);
	ck_assert_msg(same_at(&ours, &at, pool, lo),
		      "%s+%#llx: the span starts at %#llx, another row", path,
		      (unsigned long long)vaddr, (unsigned long long)lo);
	ck_assert_int_eq(cfi_row_find(cfi, hi - 1, pool, &at), 0);
	ck_assert_msg(same_at(&ours, &at, pool, hi - 1),
		      "%s+%#llx: the span ends at %#llx, another row", path,
		      (unsigned long long)vaddr, (unsigned long long)hi);
	n->same++;
	/* The first PLT met: every byte of three of its entries (both rows of each). */
	if (theirs.cfa.kind == CFI_VAL_EXPR && n->plt++ == 0)
		for (uint64_t k = 1; k < 48; k++)
			compare_at(path, t, cfi, pool, vaddr + k, n);
}

/*
 * Every FDE of the file at path (every step-th of a large one) at three
 * addresses; the tally. Returns false when the file is not there.
 */
static bool compare_file(const char *path, size_t step, struct tally *n)
{
	struct cfi_pool pool = {0};
	struct eh_frame t;
	Dwarf_CFI *cfi;
	Elf *e;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(e);
	ck_assert_msg(eh_frame_open(&t, e, fd, NULL, 0) == 0, "%s: no table read", path);
	cfi = dwarf_getcfi_elf(e);
	ck_assert_ptr_nonnull(cfi);
	for (size_t i = 0; i < t.n; i += step) {
		uint64_t start = t.hdr_addr + (uint64_t)(int64_t)t.table[i][0];
		uint64_t next = i + 1 < t.n ? t.hdr_addr + (uint64_t)(int64_t)t.table[i + 1][0]
					    : start + 64;

		compare_at(path, &t, cfi, &pool, start, n);
		compare_at(path, &t, cfi, &pool, start + (next - start) / 2, n);
		compare_at(path, &t, cfi, &pool, next - 1, n);
	}
	/* Below the first FDE: none. */
	if (t.n && t.hdr_addr + (uint64_t)(int64_t)t.table[0][0] > 0) {
		struct cfi_row row;
		uint64_t lo, hi;

		ck_assert_int_eq(eh_frame_row(&t, t.hdr_addr + (uint64_t)(int64_t)t.table[0][0] - 1,
					      &row, &lo, &hi),
				 -ENOENT);
	}
	eh_frame_close(&t);
	cfi_pool_release(&pool);
	dwarf_cfi_end(cfi);
	elf_end(e);
	close(fd);
	return true;
}

START_TEST(test_rows_as_libdw)
{
	char path[400];
	struct tally n = {0};

	mapped_path("/libc.so", path, sizeof(path));
	ck_assert(compare_file(path, 1, &n));
	/* A few hand-written functions have expressions; its PLT's are read here. */
	ck_assert_msg(n.left * 100 < n.same, "libc: %zu alike, %zu left to libdw", n.same, n.left);
	ck_assert_msg(n.plt > 0, "libc: no PLT row read");
	mapped_path("/ld-linux", path, sizeof(path));
	ck_assert(compare_file(path, 1, &n));
	ck_assert(compare_file("/proc/self/exe", 1, &n));
	compare_file("/usr/lib/gcc/x86_64-linux-gnu/12/cc1", 7, &n);
	/* Linked by lld: its unwind sections are SHT_X86_64_UNWIND, not PROGBITS. */
	compare_file("/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1", 13, &n);
	ck_assert_uint_gt(n.same, 10000);
	ck_assert_msg(n.left * 50 < n.same, "%zu alike, %zu left to libdw", n.same, n.left);
}
END_TEST

/*
 * Bytes that make no sense: the C library's tables with its .eh_frame
 * overwritten by a pattern, read from memory; every lookup returns.
 */
START_TEST(test_garbage)
{
	char path[400];
	unsigned char *bytes;
	struct eh_frame t;
	uint64_t state = 7;
	size_t len;
	Elf *e;
	FILE *f;

	mapped_path("/libc.so", path, sizeof(path));
	f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	len = (size_t)ftell(f);
	rewind(f);
	bytes = malloc(len);
	ck_assert_uint_eq(fread(bytes, 1, len, f), len);
	fclose(f);
	elf_version(EV_CURRENT);
	e = elf_memory((char *)bytes, len);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(eh_frame_open(&t, e, -1, bytes, len), 0);
	for (int round = 0; round < 4; round++) {
		for (uint64_t off = t.eh_off; off < t.eh_off + t.eh_size; off++)
			if (unit_rand(&state) % 8 == 0)
				bytes[off] = (unsigned char)unit_rand(&state);
		for (size_t i = 0; i < t.n; i++) {
			struct cfi_row row;
			uint64_t lo, hi, a = t.hdr_addr + (uint64_t)(int64_t)t.table[i][0] + 1;
			int ret = eh_frame_row(&t, a, &row, &lo, &hi);

			ck_assert(ret == 0 || ret == -ENOENT || ret == -ENOTSUP || ret == -EIO);
			if (ret == 0)
				ck_assert(lo <= a && a < hi);
		}
		for (unsigned k = 0; k < EH_CIES; k++)
			t.cies[k].off = UINT64_MAX; /* the bytes changed under them */
	}
	eh_frame_close(&t);
	elf_end(e);
	free(bytes);
}
END_TEST

static Suite *ehframe_suite(void)
{
	Suite *s = suite_create("ehframe");
	TCase *tc = tcase_create("ehframe");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_rows_as_libdw);
	tcase_add_test(tc, test_garbage);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(ehframe_suite());
}
