/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symfile-int.h - struct symbolizer and struct symfile, for the files of
 * symbol/ alone: what naming read of each module, and the caches
 * srcline.c and dwname.c keep in it, read through libdwfl. Everything
 * outside symbol/ goes through symfile.h's calls, and sees no libdwfl.
 */
#ifndef PERFMINI_SYMFILE_INT_H
#define PERFMINI_SYMFILE_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdwfl.h>

#include "elf/addr.h"
#include "elf/elfread.h"
#include "elf/ksyms.h"
#include "elf/perfmap.h"
#include "elf/symtab.h"
#include "symbol/dwname.h"
#include "symbol/symfile.h"
#include "util/hmap.h"
#include "util/memlevel.h"

struct srcline_units;

struct symbolizer {
	struct module_set *mods; /* the model's: what the ids stand for */
	struct symfile **files;	 /* by module id, NULL until first used */
	size_t nfiles;
	/*
	 * The files whose source lines were looked up (f->lines), which
	 * symbolizer_trim looks at: not every module ever met, thousands on
	 * a machine that runs new programs all the time. f->lined says
	 * which; one whose lines went is dropped at the next trim.
	 */
	struct symfile **lined;
	size_t nlined, lined_cap;
	char *debuginfo_path;	/* for libdwfl: "-:.debug:/usr/lib/debug[:DIR...]" */
	Dwfl_Callbacks dwfl_cb; /* points at debuginfo_path: the symbolizer must not move */
	bool no_lines;
	/*
	 * symbolizer_hold_lines: lines are not read, to stay within the
	 * memory budget; the modules read meanwhile say so (LINES_MEMORY).
	 */
	bool lines_off;
	/*
	 * The memory budget (symbolizer_memory_look): the level and what
	 * led to it, kept by the naming thread, and its figures for others
	 * to read (memstats), from statm.
	 */
	struct memlevel mem;
	uint64_t mem_look_ns;
	enum mem_level mem_applied;
	_Atomic int mem_level_now;
	_Atomic uint64_t mem_peak, mem_entered[MEM_LEVELS];
	/* Frames named without lines, and left unnamed, to stay within the budget. */
	_Atomic uint64_t mem_no_lines, mem_unnamed;
	/* Frames named from the names kept by earlier recordings (symbolize_cached). */
	_Atomic uint64_t names_cached;
	int pagemap; /* /proc/self/pagemap for symbolizer_trim; -1 when not open, -2 when it cannot be */
	int statm; /* /proc/self/statm, the same way */
	/*
	 * symbolizer_trim gives the pages back once this many more bytes of
	 * files are resident than after the last time (0: at every call);
	 * file_pages is how many were resident then; statm_at, when
	 * symbolizer_give_back_due last looked (now_coarse_ns).
	 */
	size_t give_back_bytes;
	uint64_t file_pages;
	uint64_t statm_at;
	size_t lines_budget; /* symbolizer_trim's: SYMBOLIZER_LINES_BUDGET (tests set less) */
	struct ksyms_reader *kernel_reader; /* see symbolizer_read_kernel, NULL if none */
	uint64_t kernel_read_cpu_ns;	    /* the CPU time its thread used, once waited for */
	/*
	 * Build-id hash -> module id of the first file read with it: copies
	 * of one binary (containers' libraries, a program copied and run
	 * many times) look their lines up in one module's DWARF.
	 */
	struct hmap build_ids;
	/* Build-id hash -> the names kept for it (namecache.h), shared by its copies. */
	struct hmap names;
	/* Module id -> struct symfile_kept, of the modules let go (symfile_shrink). */
	struct hmap kept;
};

/*
 * What is kept of a module let go (symbolizer_retire) in place of its
 * symfile: what the profile's module table and the entry-point test take
 * of it. A program run once leaves this behind, not a whole symfile.
 */
struct symfile_kept {
	struct module *mod; /* its module, whose id is no other's until symbolizer_drop */
	struct load_seg *segs;
	uint64_t entry;
	uint32_t nsegs;
	uint8_t build_id[BUILD_ID_MAX];
	uint8_t build_id_len;
	uint8_t reason;	      /* enum module_reason */
	uint8_t lines_reason; /* enum module_lines */
};

struct symfile {
	struct module *mod; /* what it is and its pinned file */
	enum module_reason reason;
	struct load_seg *segs;
	size_t nsegs;
	uint8_t build_id[BUILD_ID_MAX];
	size_t build_id_len;
	uint64_t entry; /* ELF entry point (e_entry), 0 when none */
	struct symtab syms;
	struct ksyms ksyms;   /* the kernel's, instead of syms */
	int symsrc;	      /* enum elf_symsrc, of the file itself */
	char *debugfile;      /* separate debug file found, or NULL */
	unsigned char *image; /* MODULE_VDSO: a copy of the image */
	size_t nimage;

	/* DWARF, through libdwfl: NULL without a file. */
	Dwfl *dwfl;
	Dwfl_Module *dwmod;
	uint64_t dwbias; /* dwfl address = ELF address + dwbias */
	const Dwfl_Callbacks *dwfl_cb;
	bool no_lines; /* names from symbol tables only: DWARF is never read */
	/* What expanding compressed debug sections met (symfile_expand_fd). */
	enum module_lines zreason;
	/*
	 * A separate debug file with compressed sections: its expanded copy
	 * and its name, for the module's second Dwfl (symfile_dwfl_reload).
	 */
	int zfd;
	char *zname;
	bool zreloaded;
	bool debug_no_fd; /* the search for a debug file ran out of descriptors */
	/*
	 * Its file shrank while libelf or libdw read it (SIGBUS, busguard.h):
	 * nothing more is read of it, and it has no names from then on.
	 */
	bool changed;

	/*
	 * Where libelf mapped the module's files (private, from a file), and
	 * the kernel's names (ksyms.h), so that symbolizer_trim can give their
	 * pages back; forgotten whenever the Dwfl that mapped them ends.
	 * touched: read since the last trim.
	 */
	struct {
		uintptr_t start, end;
	} rmaps[3];
	int nrmaps;
	bool touched;
	/*
	 * Something new was read since the last give-back: its symbols, the
	 * index of its DWARF's units, a unit's scopes or line table (whole
	 * regions of its files read at once).
	 */
	bool fresh;

	/* srcline.c's and dwname.c's caches. */
	struct hmap demangled;	     /* linkage name in libdw's data -> malloc'd display name */
	struct hmap paths;	     /* (directory, file) in libdw's data -> struct joined_path */
	struct srcline_units *lines; /* units by address, their scopes */
	bool lined;		     /* in z->lined */
	enum module_lines lines_reason;
	struct dwname *dwname; /* DIE parents for names built from DWARF, NULL until needed */

	uint64_t used_ns;   /* when symfile_get last gave it (now_coarse_ns) */
	uint64_t loaded_ns; /* when symfile_get read it (now_coarse_ns) */
	/*
	 * 1 + the id of a module read before whose file has the same
	 * build-id and segments: lines and inline chains are looked up in its
	 * DWARF, read once for every copy. 0: none.
	 */
	uint32_t twin;
	uint32_t twinned; /* symfiles whose twin this one is */
	/*
	 * symbolizer_forget_idle freed what it read to name frames: only the
	 * module's reason, build-id, segments and entry are left (what the
	 * profile's module table takes); symfile_get reads it again.
	 */
	bool unloaded;
	bool told; /* symfile_take_news said it was read */
	/*
	 * The names kept for its build-id by earlier recordings, and what
	 * this one adds (namecache.h), shared with its copies (z->names);
	 * names_tried: looked for once.
	 */
	struct namecache *names;
	bool names_tried;
};

/*
 * Lets go of f's hold on the names kept for its build: the last user of
 * them saves them to their file and frees them.
 */
void symfile_drop_names(struct symbolizer *z, struct symfile *f);

/*
 * The loaders, one per source of symbols (load-*.c), called by
 * symfile_get on a symfile whose module and shared fields are set: each
 * reads what f's module is into f, and sets f->reason when it names less
 * than it could (then it returns -errno, or 0 when it has names but
 * falls short, an ELF file stripped of its .symtab say).
 *   symfile_load_elf: a file module (MODULE_FILE), through libdwfl.
 *   symfile_load_kernel: the kernel's kallsyms, waiting for z's reading
 *	if symbolizer_read_kernel started one.
 *   symfile_load_vdso: the vdso, from perfmini's own copy.
 *   symfile_load_perfmap: a JIT's perf map, through the module's pinned
 *	descriptor.
 */
int symfile_load_elf(struct symfile *f);
/* Of a file module, only what symfile_load_elf reads first: segments, build-id, entry. */
void symfile_load_identity(struct symfile *f);
/*
 * m's symfile, made with only its identity read (symfile_load_identity)
 * and taken as let go (symfile_get reads the rest) if it has none yet.
 */
struct symfile *symfile_get_identity(struct symbolizer *z, struct module *m);
int symfile_load_kernel(struct symbolizer *z, struct symfile *f);
int symfile_load_vdso(struct symfile *f);
int symfile_load_perfmap(struct symfile *f);

/*
 * libdwfl's find_debuginfo callback for every symbolizer's modules
 * (debugfile.c): the separate debug file of mod, checked against its
 * build-id; its descriptor, or -1.
 */
int symfile_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
			   const char *file_name, const char *debuglink_file,
			   GElf_Word debuglink_crc, char **debuginfo_file_name);

/*
 * Where libelf mapped n bytes at raw (a module file's image, or the
 * kernel's names), remembered so that symbolizer_trim can give their
 * pages back (held.c); symfile_remember_map the same for e's image.
 */
void symfile_remember_region(struct symfile *f, const void *raw, size_t n);
void symfile_remember_map(struct symfile *f, Elf *e);
/* Ends f's Dwfl, and with it the mappings remembered. */
void symfile_end_dwfl(struct symfile *f);
/* /proc/self/pagemap, opened at the first call; -1 when it cannot be. */
int symbolizer_pagemap(struct symbolizer *z);
/*
 * The pages of f's remembered mappings given back now, those libelf did
 * not write to (pagemap: symbolizer_pagemap's; nothing when -1).
 */
void symfile_give_back(struct symfile *f, int pagemap);
/*
 * Frees what f read to name frames (symbols, DWARF, the caches), keeping
 * what the profile's module table takes: its reason, build-id, segments
 * and entry.
 */
void symfile_unload(struct symfile *f);
/* Frees f and all it holds (symfile_get makes it). */
void symfile_free(struct symfile *f);
/*
 * f, unloaded and let go (symbolizer_retire), replaced by what is kept of
 * it (struct symfile_kept): symfile_find, symfile_get and
 * symfile_get_identity make it again, unloaded, when its module is asked
 * for. Not a symfile whose file changed, or that others name as theirs.
 */
void symfile_shrink(struct symbolizer *z, struct symfile *f);

/*
 * A descriptor of the ELF file fd from which libelf reads every debug
 * section: fd itself, or (when fd has zstd-compressed sections, which
 * libelf 0.188 cannot read, or with zlib, zlib-compressed ones, which
 * libelf would expand into the recorder's memory) an unnamed file
 * holding the file's image with its compressed sections expanded
 * (elfz.h), on disk where possible, so that only the pages libdw reads
 * are in memory. Takes fd: it is closed when the copy replaces it (the
 * copy is made while fd is open, so the two numbers differ). When
 * sections cannot be expanded, returns fd and sets *why (if not NULL)
 * to the reason (not for zlib alone: libelf reads those itself).
 */
int symfile_expand_fd(int fd, enum module_lines *why, bool zlib);

/*
 * The module's DWARF (see dwfl_module_getdwarf), from its expanded copy
 * when it is in a separate debug file with compressed sections; NULL when it
 * has none.
 */
Dwarf *symfile_dwarf(struct symfile *f, Dwarf_Addr *bias);

/*
 * Reports the module again in a new Dwfl when its separate debug file
 * turned out to have compressed sections (so that libdwfl reads the expanded
 * copy); a no-op otherwise or the second time. Pointers into the old
 * Dwfl's data die: call it before anything keeps one. Returns 0 or -errno.
 */
int symfile_dwfl_reload(struct symfile *f);

#endif
