/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind.c - DWARF unwinding of sampled user stacks; see unwind.h.
 */
#include "config.h"

#include <asm/perf_regs.h>
#include <errno.h>
#include <gelf.h>
#include <libunwind.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "elf/addr.h"
#include "elf/elfread.h"
#include "stack/unwind.h"
#include "util/util.h"

/* Not in libunwind's public header, but exported (as perf uses it too). */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);
#define dwarf_search_unwind_table UNW_OBJ(dwarf_search_unwind_table)

/*
 * libunwind blocks every signal around each use of its register-state
 * cache and of its memory pools, so that a signal handler unwinding its
 * own thread cannot deadlock on a lock the interrupted code holds: two
 * rt_sigprocmask system calls per frame, four more per frame it has not
 * cached (Debian's build has no per-thread cache, which would skip them;
 * unw_set_caching_policy turns UNW_CACHE_PER_THREAD into the global one).
 * On a busy machine they were half of the recorder's own samples in
 * DWARF mode. perfmini unwinds copies of other processes' stacks and never
 * from a signal handler, so while a thread is inside unwind_sample the
 * masking is skipped. This definition takes libunwind's calls, the
 * executable's symbols coming first (the one function perfmini exports,
 * run-exports.sh); every other call goes on to pthread_sigmask, which
 * does what sigprocmask does.
 */
static __thread bool in_unwind;

__attribute__((visibility("default"))) int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int err;

	if (in_unwind) {
		/* Only libunwind's own restore, skipped the same way, reads it. */
		if (old)
			sigemptyset(old);
		return 0;
	}
	err = pthread_sigmask(how, set, old);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/* Everything an unwind of one sample needs, handed to the accessors. */
struct uctx {
	struct unwinder *u;
	uint32_t pid;
	const struct rec_sample *s;
	uint64_t sp;
	bool short_stack, no_info;
	/*
	 * Modules whose unwind tables this unwind may read, with their load
	 * bias: the tables lie in read-only segments, which the process model
	 * (executable mappings only) does not hold. Every frame's module is
	 * noted before libunwind steps from it, not only when find_proc_info
	 * runs: with its cache, libunwind skips find_proc_info for an address
	 * it has seen, yet evaluates a DWARF expression rule (the CFA of a
	 * .plt entry is one) from the table's bytes at every step.
	 */
	struct {
		struct unwind_image *img;
		uint64_t bias;
	} seen[8];
	unsigned nseen;
};

struct unwinder {
	struct model *model;
	struct hmap spaces;	      /* pid -> unw_addr_space_t */
	struct unwind_image **images; /* by module id; NULL until first needed */
	size_t nimages;
};

/* libunwind's register numbers to perf's. */
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

/* The value of perf register r in the sample, if it was captured. */
static int sample_reg(const struct rec_sample *s, int r, uint64_t *v)
{
	uint64_t mask = unwind_regs_mask(), below;
	uint32_t idx;

	if (!s->regs_abi || !(mask & (1ULL << r)))
		return -1;
	below = mask & ((1ULL << r) - 1);
	idx = (uint32_t)__builtin_popcountll(below);
	if (idx >= s->nregs)
		return -1;
	*v = load_u64(s->regs + idx * 8);
	return 0;
}

/*
 * Images. Nothing of a module's file is mapped: a file its owner cuts
 * short in place would make the next read through a mapping raise SIGBUS
 * on the recorder's thread. The unwind tables (.eh_frame_hdr through
 * .eh_frame, read on every step) are copied in when the image is opened;
 * other bytes (code, which libunwind reads to tell signal frames) come
 * through pread and a few cached pages.
 */

/* The file range [*lo, *hi) that holds .eh_frame_hdr and .eh_frame. */
static int table_range(Elf *e, uint64_t *lo, uint64_t *hi)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	*lo = UINT64_MAX;
	*hi = 0;
	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return -ENOENT;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(e, shstrndx, sh.sh_name)) ||
		    (strcmp(name, ".eh_frame_hdr") && strcmp(name, ".eh_frame")))
			continue;
		if (sh.sh_offset < *lo)
			*lo = sh.sh_offset;
		if (sh.sh_offset + sh.sh_size > *hi)
			*hi = sh.sh_offset + sh.sh_size;
	}
	return *lo < *hi ? 0 : -ENOENT;
}

/* Reads [lo, hi) of fd into img's table copy. */
static int copy_tables(struct unwind_image *img, int fd, uint64_t lo, uint64_t hi)
{
	size_t n = (size_t)(hi - lo), done = 0;

	if (hi > img->nbytes || hi - lo > (256u << 20))
		return -EFBIG;
	img->tab = xmalloc(n ? n : 1);
	img->tab_off = lo;
	while (done < n) {
		ssize_t r = pread(fd, img->tab + done, n - done, (off_t)(lo + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		done += (size_t)r;
	}
	img->ntab = n;
	return 0;
}

int unwind_image_open(struct unwind_image *img, const struct module *m)
{
	uint64_t lo, hi;
	struct stat st;
	Elf *e = NULL;
	size_t phnum;
	int n, ret = -ENOEXEC;

	memset(img, 0, sizeof(*img));
	img->fd = -1;
	if (m->kind == MODULE_VDSO) {
		unsigned char *copy;

		if (module_vdso_copy(&copy, &img->nbytes) < 0)
			return -ENOENT;
		img->tab = copy; /* the whole image is its own table copy */
		img->ntab = img->nbytes;
		e = elf_memory((char *)copy, img->nbytes);
	} else if (m->kind == MODULE_FILE && m->fd >= 0) {
		if (fstat(m->fd, &st) < 0 || st.st_size <= 0)
			return -ENOENT;
		img->fd = m->fd;
		img->nbytes = (size_t)st.st_size;
		elf_version(EV_CURRENT);
		/* Read through pread, not mapped. */
		e = elf_begin(m->fd, ELF_C_READ, NULL);
	} else {
		return -ENOENT;
	}
	if (!e || (n = elf_read_segments(e, &img->segs)) <= 0)
		goto fail;
	img->nsegs = (size_t)n;
	if (elf_getphdrnum(e, &phnum) == 0) {
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_GNU_EH_FRAME) {
				img->eh_hdr_vaddr = ph.p_vaddr;
				img->eh_hdr_size = ph.p_memsz;
			}
		}
	}
	if (!img->tab && img->eh_hdr_vaddr) {
		uint64_t off;

		/* Without section headers: from the header to the end of its segment. */
		if (table_range(e, &lo, &hi) < 0) {
			if (addr_vaddr_to_file_offset(img->segs, img->nsegs, img->eh_hdr_vaddr,
						      &off) < 0)
				goto fail;
			lo = off;
			hi = off;
			for (size_t i = 0; i < img->nsegs; i++)
				if (off >= img->segs[i].offset &&
				    off < img->segs[i].offset + img->segs[i].filesz)
					hi = img->segs[i].offset + img->segs[i].filesz;
		}
		if ((ret = copy_tables(img, m->fd, lo, hi)) < 0)
			goto fail;
	}
	elf_end(e);
	return 0;
fail:
	if (e)
		elf_end(e);
	unwind_image_close(img);
	return ret;
}

void unwind_image_close(struct unwind_image *img)
{
	free(img->tab);
	free(img->segs);
	for (size_t i = 0; i < ARRAY_SIZE(img->pages); i++)
		free(img->pages[i].bytes);
	memset(img, 0, sizeof(*img));
	img->fd = -1;
}

/* Reads 8 bytes at file offset off of an image. */
static int read_file(struct unwind_image *img, uint64_t off, uint64_t *v)
{
	enum { PAGE = 4096 };
	struct unwind_page *pg;
	uint64_t base;

	if (off > img->nbytes || img->nbytes - off < 8)
		return -1;
	if (off >= img->tab_off && off - img->tab_off <= img->ntab &&
	    img->ntab - (off - img->tab_off) >= 8) {
		*v = load_u64(img->tab + (off - img->tab_off));
		return 0;
	}
	if (img->fd < 0)
		return -1;
	/* A value across two pages: read it directly. */
	base = off & ~(uint64_t)(PAGE - 1);
	if (off + 8 > base + PAGE)
		return pread(img->fd, v, 8, (off_t)off) == 8 ? 0 : -1;
	pg = &img->pages[(base / PAGE) % ARRAY_SIZE(img->pages)];
	if (!pg->bytes || pg->base != base) {
		ssize_t r;

		if (!pg->bytes)
			pg->bytes = xmalloc(PAGE);
		pg->base = base;
		pg->len = 0;
		r = pread(img->fd, pg->bytes, PAGE, (off_t)base);
		if (r > 0)
			pg->len = (size_t)r;
	}
	if (off - base + 8 > pg->len)
		return -1;
	*v = load_u64(pg->bytes + (off - base));
	return 0;
}

/* The image of m, opened on first use; NULL when it cannot be read. */
static struct unwind_image *image_of(struct unwinder *u, const struct module *m)
{
	if (m->id >= u->nimages) {
		size_t n = u->nimages ? u->nimages : 64;

		while (n <= m->id)
			n *= 2;
		u->images = xrealloc(u->images, n * sizeof(*u->images));
		memset(u->images + u->nimages, 0, (n - u->nimages) * sizeof(*u->images));
		u->nimages = n;
	}
	if (!u->images[m->id]) {
		struct unwind_image *img = xcalloc(1, sizeof(*img));

		if (unwind_image_open(img, m) < 0)
			img->nbytes = 0; /* tried: stays unreadable */
		u->images[m->id] = img;
	}
	return u->images[m->id]->nbytes ? u->images[m->id] : NULL;
}

/* Reads 8 bytes at runtime address a of the code or tables of a module. */
static int read_module(struct uctx *c, uint64_t a, uint64_t *v)
{
	const struct mapping *map = model_find(c->u->model, c->pid, a);
	struct unwind_image *img;
	uint64_t off;

	if (map && map->mod && (img = image_of(c->u, map->mod)))
		return read_file(img, addr_to_file_offset(a, map->start, map->pgoff), v);
	for (unsigned i = 0; i < c->nseen; i++) {
		img = c->seen[i].img;
		if (addr_vaddr_to_file_offset(img->segs, img->nsegs, a - c->seen[i].bias, &off) ==
		    0)
			return read_file(img, off, v);
	}
	return -1;
}

static void note_seen(struct uctx *c, struct unwind_image *img, uint64_t bias)
{
	for (unsigned i = 0; i < c->nseen; i++)
		if (c->seen[i].img == img)
			return;
	if (c->nseen == ARRAY_SIZE(c->seen))
		c->nseen = 0; /* the oldest go: they are the outer frames' */
	c->seen[c->nseen].img = img;
	c->seen[c->nseen].bias = bias;
	c->nseen++;
}

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp, int write, void *arg)
{
	struct uctx *c = arg;
	const struct rec_sample *s = c->s;
	uint64_t v;

	(void)as;
	if (write)
		return -UNW_EINVAL;
	if (addr >= c->sp && addr - c->sp + 8 <= s->stack_dyn_size) {
		*valp = load_u64(s->stack + (addr - c->sp));
		return 0;
	}
	if (read_module(c, addr, &v) == 0) {
		*valp = v;
		return 0;
	}
	/* Above the copy but close: the stack went on beyond what was copied. */
	if (addr >= c->sp && addr - c->sp < (8u << 20))
		c->short_stack = true;
	return -UNW_EINVAL;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t regnum, unw_word_t *valp, int write,
		      void *arg)
{
	struct uctx *c = arg;
	uint64_t v;

	(void)as;
	if (write || regnum < 0 || (size_t)regnum >= ARRAY_SIZE(perf_reg_of))
		return -UNW_EBADREG;
	if (sample_reg(c->s, perf_reg_of[regnum], &v) < 0)
		return -UNW_EBADREG;
	*valp = v;
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
	/* libunwind frees what dwarf_search_unwind_table allocated itself. */
	(void)as, (void)pi, (void)arg;
}

/* A DW_EH_PE-encoded value of .eh_frame_hdr; only the forms it uses. */
static int read_encoded(const unsigned char *p, const unsigned char *end, uint8_t enc,
			uint64_t here, uint64_t *v, size_t *len)
{
	uint64_t x;

	switch (enc & 0x0f) {
	case 0x03: /* udata4 */
	case 0x0b: /* sdata4 */
		if (end - p < 4)
			return -1;
		x = (enc & 0x0f) == 0x0b ? (uint64_t)(int64_t)(int32_t)load_u32(p) : load_u32(p);
		*len = 4;
		break;
	case 0x04: /* udata8 */
	case 0x0c: /* sdata8 */
		if (end - p < 8)
			return -1;
		x = load_u64(p);
		*len = 8;
		break;
	default:
		return -1;
	}
	if ((enc & 0x70) == 0x10) /* pcrel */
		x += here;
	*v = x;
	return 0;
}

/*
 * The image of mapping map's module, noted as seen; *bias gets its load
 * bias. NULL when it cannot be read.
 */
static struct unwind_image *see_mapping(struct uctx *c, const struct mapping *map, uint64_t *bias)
{
	struct unwind_image *img = map && map->mod ? image_of(c->u, map->mod) : NULL;

	if (!img || addr_load_bias(img->segs, img->nsegs, map->start, map->end, map->pgoff,
				   map->prot, bias) < 0)
		return NULL;
	note_seen(c, img, *bias);
	return img;
}

static int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			  int need_unwind_info, void *arg)
{
	struct uctx *c = arg;
	const struct mapping *map = model_find(c->u->model, c->pid, ip);
	struct unwind_image *img;
	const unsigned char *hdr, *end;
	uint64_t bias, hdr_off, hdr_rt, eh_frame, count;
	size_t l1, l2;
	unw_dyn_info_t di;

	img = see_mapping(c, map, &bias);
	if (!img || !img->eh_hdr_vaddr ||
	    addr_vaddr_to_file_offset(img->segs, img->nsegs, img->eh_hdr_vaddr, &hdr_off) < 0 ||
	    hdr_off < img->tab_off || hdr_off - img->tab_off + 4 > img->ntab) {
		c->no_info = true;
		return -UNW_ENOINFO;
	}
	hdr = img->tab + (hdr_off - img->tab_off);
	end = img->tab + img->ntab;
	hdr_rt = bias + img->eh_hdr_vaddr;
	/* version 1; the search table must be datarel sdata4 pairs */
	if (hdr[0] != 1 || hdr[3] != 0x3b ||
	    read_encoded(hdr + 4, end, hdr[1], hdr_rt + 4, &eh_frame, &l1) < 0 ||
	    read_encoded(hdr + 4 + l1, end, hdr[2], hdr_rt + 4 + l1, &count, &l2) < 0) {
		c->no_info = true;
		return -UNW_ENOINFO;
	}
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = map->start;
	di.end_ip = map->end;
	di.u.rti.segbase = hdr_rt;
	di.u.rti.table_data = hdr_rt + 4 + l1 + l2;
	di.u.rti.table_len = count * 8 / sizeof(unw_word_t);
	return dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info, arg);
}

static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = NULL,
};

struct unwinder *unwinder_new(struct model *model)
{
	struct unwinder *u = xcalloc(1, sizeof(*u));

	u->model = model;
	hmap_init(&u->spaces);
	return u;
}

void unwinder_free(struct unwinder *u)
{
	struct hmap_slot *s;

	if (!u)
		return;
	for (size_t pos = 0; (s = hmap_next(&u->spaces, &pos));)
		unw_destroy_addr_space((unw_addr_space_t)(uintptr_t)s->val);
	hmap_release(&u->spaces);
	for (size_t i = 0; i < u->nimages; i++) {
		if (u->images[i])
			unwind_image_close(u->images[i]);
		free(u->images[i]);
	}
	free(u->images);
	free(u);
}

static unw_addr_space_t space_of(struct unwinder *u, uint32_t pid)
{
	bool added;
	struct hmap_slot *slot = hmap_insert(&u->spaces, pid, &added);

	if (added) {
		unw_addr_space_t as = unw_create_addr_space(&accessors, 0);

		if (!as)
			die("libunwind: cannot create an address space");
		unw_set_caching_policy(as, UNW_CACHE_GLOBAL);
		slot->val = (uintptr_t)as;
	}
	return (unw_addr_space_t)(uintptr_t)slot->val;
}

void unwinder_forget(struct unwinder *u, uint32_t pid)
{
	uint64_t as;

	if (hmap_remove(&u->spaces, pid, &as))
		unw_destroy_addr_space((unw_addr_space_t)(uintptr_t)as);
}

void unwinder_invalidate(struct unwinder *u, uint32_t pid)
{
	struct hmap_slot *slot = hmap_find(&u->spaces, pid);

	if (slot)
		unw_flush_cache((unw_addr_space_t)(uintptr_t)slot->val, 0, 0);
}

int unwind_sample(struct unwinder *u, uint32_t pid, const struct rec_sample *s, uint64_t *ips,
		  int max, enum unwind_end *end, struct module **last)
{
	struct uctx c = {.u = u, .pid = pid, .s = s};
	unw_cursor_t cursor;
	int n = 0, ret = 0;

	*end = UNWIND_BAD_FRAME;
	*last = NULL;
	if (sample_reg(s, PERF_REG_X86_SP, &c.sp) < 0 || !s->stack_size)
		return 0;
	in_unwind = true;
	if (unw_init_remote(&cursor, space_of(u, pid), &c) < 0) {
		in_unwind = false;
		return 0;
	}
	do {
		unw_word_t ip;
		const struct mapping *map;
		uint64_t bias;

		if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0) {
			ret = -1;
			break;
		}
		if (ip == 0) {
			ret = 0; /* the outermost frame says its caller is nowhere */
			break;
		}
		if (n == max) {
			in_unwind = false;
			*end = UNWIND_TOO_DEEP;
			return n;
		}
		ips[n++] = ip;
		map = model_find(u->model, pid, ip);
		*last = map ? map->mod : NULL;
		see_mapping(&c, map, &bias); /* the tables unw_step reads now */
		ret = unw_step(&cursor);
	} while (ret > 0);
	in_unwind = false;
	if (ret == 0)
		*end = UNWIND_COMPLETE;
	else if (c.short_stack)
		*end = UNWIND_SHORT_STACK;
	else if (c.no_info)
		*end = UNWIND_NO_INFO;
	else
		*end = UNWIND_BAD_FRAME;
	return n;
}
