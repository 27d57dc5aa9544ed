/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oracle-lu.c - libunwind's side of the unwinding oracle: a remote
 * address space whose accessors read the captured sample (its registers,
 * its stack copy) and the binaries of its mappings, and find a
 * procedure's unwind information by searching .eh_frame_hdr's table
 * (dwarf_search_unwind_table), as perf's libunwind unwinder does. Nothing
 * of perfmini's stepper is used here: only its process model, to know
 * which file a mapping is of.
 */
#include "config.h"

#include <asm/perf_regs.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/elfread.h"
#include "oracle.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/bytes.h"

/* In libunwind's library, though not in its public header. */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);

/* perf's register numbers, by libunwind's. */
static const int8_t perf_reg_of[] = {
	[UNW_X86_64_RAX] = PERF_REG_X86_AX,  [UNW_X86_64_RDX] = PERF_REG_X86_DX,
	[UNW_X86_64_RCX] = PERF_REG_X86_CX,  [UNW_X86_64_RBX] = PERF_REG_X86_BX,
	[UNW_X86_64_RSI] = PERF_REG_X86_SI,  [UNW_X86_64_RDI] = PERF_REG_X86_DI,
	[UNW_X86_64_RBP] = PERF_REG_X86_BP,  [UNW_X86_64_RSP] = PERF_REG_X86_SP,
	[UNW_X86_64_R8] = PERF_REG_X86_R8,   [UNW_X86_64_R9] = PERF_REG_X86_R9,
	[UNW_X86_64_R10] = PERF_REG_X86_R10, [UNW_X86_64_R11] = PERF_REG_X86_R11,
	[UNW_X86_64_R12] = PERF_REG_X86_R12, [UNW_X86_64_R13] = PERF_REG_X86_R13,
	[UNW_X86_64_R14] = PERF_REG_X86_R14, [UNW_X86_64_R15] = PERF_REG_X86_R15,
	[UNW_X86_64_RIP] = PERF_REG_X86_IP,
};

static void open_image(struct oracle_image *img, const struct mapping *map)
{
	struct stat st;
	size_t phnum;
	int n;

	img->mod = map->mod;
	img->start = map->start;
	img->end = map->end;
	elf_version(EV_CURRENT);
	if (map->mod->kind == MODULE_VDSO && module_vdso_copy(&img->bytes, &img->nbytes) == 0) {
		img->elf = elf_memory((char *)img->bytes, img->nbytes);
	} else if (map->mod->kind == MODULE_FILE && map->mod->fd >= 0 &&
		   fstat(map->mod->fd, &st) == 0 && st.st_size > 0) {
		/* The whole file in memory: libunwind reads its tables a word at a time. */
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, map->mod->fd, 0);

		if (p != MAP_FAILED) {
			img->map = p;
			img->nbytes = (size_t)st.st_size;
			img->elf = elf_memory(p, img->nbytes);
		}
	}
	if (!img->elf || (n = elf_read_segments(img->elf, &img->segs)) <= 0)
		return;
	img->nsegs = (size_t)n;
	if (addr_load_bias(img->segs, img->nsegs, map->start, map->end, map->pgoff, map->prot,
			   &img->bias) < 0) {
		img->nsegs = 0;
		return;
	}
	img->rows_ok = unwind_image_open(&img->rows, map->mod) == 0;
	if (elf_getphdrnum(img->elf, &phnum) == 0)
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(img->elf, (int)i, &ph) && ph.p_type == PT_GNU_EH_FRAME)
				img->hdr = ph.p_vaddr;
		}
}

void oracle_images(struct oracle_ctx *o)
{
	o->imgs = xcalloc(o->c->nmaps + 1, sizeof(*o->imgs));
	for (size_t i = 0; i < o->c->nmaps; i++) {
		const struct mapping *map = model_find(o->model, o->pid, o->c->maps[i].start);
		bool known = false;

		if (!map || !map->mod || map->start != o->c->maps[i].start)
			continue;
		for (size_t k = 0; k < o->nimgs; k++)
			known |= o->imgs[k].start == map->start;
		if (!known)
			open_image(&o->imgs[o->nimgs++], map);
	}
}

void oracle_images_free(struct oracle_ctx *o)
{
	for (size_t i = 0; i < o->nimgs; i++) {
		if (o->imgs[i].elf)
			elf_end(o->imgs[i].elf);
		if (o->imgs[i].map)
			munmap(o->imgs[i].map, o->imgs[i].nbytes);
		if (o->imgs[i].rows_ok)
			unwind_image_close(&o->imgs[i].rows);
		free(o->imgs[i].bytes);
		free(o->imgs[i].segs);
	}
	free(o->imgs);
}

const struct oracle_image *oracle_image_at(const struct oracle_ctx *o, uint64_t a)
{
	for (size_t i = 0; i < o->nimgs; i++)
		if (o->imgs[i].nsegs && a >= o->imgs[i].start && a < o->imgs[i].end)
			return &o->imgs[i];
	return NULL;
}

bool oracle_has_row(const struct oracle_ctx *o, uint64_t a)
{
	struct oracle_image *img = (struct oracle_image *)oracle_image_at(o, a);
	struct cfi_row row;

	return img && img->rows_ok && a >= img->bias &&
	       unwind_image_row(&img->rows, a - img->bias, &row) == 0;
}

/* n bytes at runtime address a of any image's loaded segments. */
static int read_image(const struct oracle_ctx *o, uint64_t a, void *out, size_t n)
{
	for (size_t i = 0; i < o->nimgs; i++) {
		const struct oracle_image *img = &o->imgs[i];
		uint64_t off;

		if (!img->nsegs || a < img->bias ||
		    addr_vaddr_to_file_offset(img->segs, img->nsegs, a - img->bias, &off) < 0)
			continue;
		if (off > img->nbytes || img->nbytes - off < n)
			return -1;
		memcpy(out, (img->bytes ? img->bytes : img->map) + off, n);
		return 0;
	}
	return -1;
}

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp, int write, void *arg)
{
	const struct oracle_ctx *o = arg;
	const struct uc_sample *s = &o->c->samples[o->sample];
	uint64_t sp, v;
	int idx = __builtin_popcountll(o->c->regs_mask & ((1ULL << PERF_REG_X86_SP) - 1));

	(void)as;
	if (write || (uint32_t)idx >= s->nregs)
		return -UNW_EINVAL;
	sp = s->regs[idx];
	if (addr >= sp && s->stack_len >= 8 && addr - sp <= s->stack_len - 8) {
		*valp = load_u64(s->stack + (addr - sp));
		return 0;
	}
	if (read_image(o, addr, &v, 8) < 0) {
		/* Below the stack pointer: nothing of the stack there is copied. */
		if (addr < sp && sp - addr <= 4096)
			((struct oracle_ctx *)o)->below_sp = true;
		return -UNW_EINVAL;
	}
	*valp = v;
	return 0;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t regnum, unw_word_t *valp, int write,
		      void *arg)
{
	const struct oracle_ctx *o = arg;
	const struct uc_sample *s = &o->c->samples[o->sample];
	int r, idx;

	(void)as;
	if (write || regnum < 0 || (size_t)regnum >= ARRAY_SIZE(perf_reg_of))
		return -UNW_EBADREG;
	r = perf_reg_of[regnum];
	idx = __builtin_popcountll(o->c->regs_mask & ((1ULL << r) - 1));
	if (!(o->c->regs_mask >> r & 1) || (uint32_t)idx >= s->nregs)
		return -UNW_EBADREG;
	*valp = s->regs[idx];
	return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t num, unw_fpreg_t *val, int write,
			void *arg)
{
	(void)as, (void)num, (void)val, (void)write, (void)arg;
	return -UNW_EINVAL;
}

static int resume(unw_addr_space_t as, unw_cursor_t *cu, void *arg)
{
	(void)as, (void)cu, (void)arg;
	return -UNW_EINVAL;
}

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dilap, void *arg)
{
	(void)as, (void)dilap, (void)arg;
	return -UNW_ENOINFO;
}

static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	(void)as, (void)pi, (void)arg;
}

static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len,
			 unw_word_t *offp, void *arg)
{
	(void)as, (void)addr, (void)buf, (void)len, (void)offp, (void)arg;
	return -UNW_ENOINFO;
}

/* Bytes of a DW_EH_PE encoding .eh_frame_hdr uses (4 or 8), 0 for another. */
static int enc_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case 0x03:
	case 0x0b:
		return 4;
	case 0x04:
	case 0x0c:
		return 8;
	default:
		return 0;
	}
}

/*
 * The table of .eh_frame_hdr (version 1, its count absolute or pc
 * relative, its entries datarel sdata4 pairs) handed to libunwind's
 * search, all at runtime addresses.
 */
static int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			  int need_unwind_info, void *arg)
{
	struct oracle_ctx *o = arg;
	const struct oracle_image *img = oracle_image_at(o, ip);
	unsigned char h[4];
	uint64_t hdr, count = 0, at;
	unw_dyn_info_t di;
	int ptr_size, count_size;

	if (!img || !img->hdr)
		return -UNW_ENOINFO;
	hdr = img->hdr + img->bias;
	if (read_image(o, hdr, h, 4) < 0 || h[0] != 1 || h[3] != 0x3b ||
	    !(ptr_size = enc_size(h[1])) || !(count_size = enc_size(h[2])))
		return -UNW_ENOINFO;
	at = hdr + 4 + (uint64_t)ptr_size;
	if (read_image(o, at, &count, (size_t)count_size) < 0 || count == 0)
		return -UNW_ENOINFO;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = img->start;
	di.end_ip = img->end;
	di.u.rti.segbase = hdr;
	di.u.rti.table_data = at + (uint64_t)count_size;
	di.u.rti.table_len = count * 8 / sizeof(unw_word_t);
	return UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, need_unwind_info, arg);
}

unw_addr_space_t oracle_space(void)
{
	static unw_accessors_t acc = {
		.find_proc_info = find_proc_info,
		.put_unwind_info = put_unwind_info,
		.get_dyn_info_list_addr = get_dyn_info_list_addr,
		.access_mem = access_mem,
		.access_reg = access_reg,
		.access_fpreg = access_fpreg,
		.resume = resume,
		.get_proc_name = get_proc_name,
	};
	unw_addr_space_t as = unw_create_addr_space(&acc, 0);

	if (!as)
		abort();
	unw_set_caching_policy(as, UNW_CACHE_GLOBAL);
	return as;
}
