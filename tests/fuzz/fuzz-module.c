/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-module.c - libFuzzer harness for the whole symbolization of a
 * binary the profiled program mapped: arbitrary bytes written to a file,
 * pinned as a module, loaded (symfile_get: segments, build-id, symbols
 * through libdwfl, separate debug files), opened for unwinding, and
 * asked for the names, source lines and inline chains (symbolize_addr,
 * srcline.c over libdw) of a few addresses, and for the call frame
 * information rows of a few, each row then stepped over registers and
 * memory that the input's last bytes give (cfi.c's rules and expression
 * evaluation). Kept bounded: at most 16 addresses an input.
 *
 * Contract checked: nothing crashes, leaks or reads out of bounds; a
 * result has at most SRCLINE_MAX_DEPTH levels, each NUL-terminated; the
 * module's symbol table is finished (fuzz-util.c checks); a step that
 * succeeds gives the caller a return address and stack pointer.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-util.h"
#include "model/module.h"
#include "stack/unwind.h"
#include "symbol/symbolize.h"
#include "symbol/symfile-int.h" /* white-box: what the module gave */
#include "util/bytes.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_file_init("fuzz-module");
	return 0;
}

/* Memory for the steps: the input's bytes, from address 0x1000. */
struct fmem {
	const uint8_t *data;
	size_t size;
};

static int fmem_read(void *arg, uint64_t addr, uint64_t *v)
{
	const struct fmem *m = arg;

	if (addr < 0x1000 || addr - 0x1000 > m->size || m->size - (addr - 0x1000) < 8)
		return -EFAULT;
	*v = load_u64(m->data + (addr - 0x1000));
	return 0;
}

/* The row of vaddr, stepped once from registers the input's bytes make up. */
static void step(struct unwind_image *img, uint64_t vaddr, const uint8_t *data, size_t size)
{
	struct fmem mem = {data, size};
	struct cfi_regs in = {0}, out;
	struct cfi_row row;
	uint64_t cfa;
	int ret;

	if (unwind_image_row(img, vaddr, &row) < 0)
		return;
	for (int r = 0; r < CFI_NREGS; r++)
		cfi_set(&in, r,
			0x1000 + (size > 8 ? load_u64(data + (r * 8) % (size - 7)) % size : 0));
	if (row.signal) {
		ret = cfi_step_signal(unwind_image_cfi(img), vaddr, &in, &out, &cfa, fmem_read,
				      &mem);
		if (ret == 0 && (!cfi_known(&out, CFI_RA) || !cfi_known(&out, CFI_RSP)))
			abort();
		return;
	}
	ret = cfi_step(&row, &img->pool, &in, &out, &cfa, fmem_read, &mem);
	if (ret == 0 && (!cfi_known(&out, CFI_RA) || !cfi_known(&out, CFI_RSP)))
		abort();
	sink += (uint64_t)ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct module_set s;
	struct symbolizer *z;
	struct unwind_image img;
	struct module *m;
	struct symfile *f;
	int probes = 0;

	fuzz_file_write(data, size);
	module_set_init(&s);
	z = symbolizer_new(&s, false);
	m = fuzz_file_module(&s);
	f = symfile_get(z, m);
	fuzz_check_symtab(&f->syms);
	if (f->build_id_len > BUILD_ID_MAX)
		abort();

	/* File offsets in each segment, the symbols' own addresses, and a few from the input. */
	for (size_t i = 0; i < f->nsegs && probes < 16; i++, probes += 2) {
		fuzz_lookup(z, m, f->segs[i].offset, false);
		fuzz_lookup(z, m, f->segs[i].offset + f->segs[i].filesz / 2, false);
	}
	for (size_t i = 0; i < f->syms.n && probes < 16; i += 1 + f->syms.n / 4, probes++)
		fuzz_lookup(z, m, f->syms.syms[i].addr + f->syms.syms[i].size / 2, true);
	for (size_t i = 0; i + 8 <= size && probes < 16 && i < 64; i += 8, probes++)
		fuzz_lookup(z, m, load_u64(data + size - 8 - i), i & 8);

	if (unwind_image_open(&img, m) == 0) {
		if (img.nbytes != size)
			abort();
		for (size_t i = 0; i < img.nsegs && i < 4; i++) {
			step(&img, img.segs[i].vaddr, data, size);
			step(&img, img.segs[i].vaddr + img.segs[i].memsz / 2, data, size);
		}
		for (size_t i = 0; i < f->syms.n && i < 8; i += 1 + f->syms.n / 8)
			step(&img, f->syms.syms[i].addr, data, size);
		unwind_image_close(&img);
	}
	symbolizer_free(z);
	module_set_release(&s);
	return 0;
}
