/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symbolize.h - giving frames their names.
 *
 * A frame is a module and a file offset (or, for the kernel and JIT perf
 * maps, an absolute address). Its names come from the module's symfile
 * (symfile.h): the offset becomes an ELF address through the load
 * segments (addr.h), then a symbol, and, from DWARF, source lines and the
 * chain of inlined functions. A frame that finds no name is left without
 * lines; its module and offset still say where it is.
 */
#ifndef PERFMINI_SYMBOLIZE_H
#define PERFMINI_SYMBOLIZE_H

#include <stdbool.h>
#include <stdio.h>

#include "elf/addr.h"
#include "elf/elfread.h"
#include "model/module.h"
#include "store/profile.h"
#include "symbol/srcline.h"
#include "symbol/symfile.h"

/* Everything known of one address: its function levels, innermost first. */
struct symres {
	int n; /* levels; 0: no name at all */
	struct srcline lv[SRCLINE_MAX_DEPTH];
	uint64_t symoff; /* offset into the outermost function's symbol */
	char *symname;	 /* the symbol's demangled name (malloc'd), or NULL */
	/*
	 * Set by the naming thread alone (namer.h): the frame is at its
	 * module's ELF entry point (symbolize_at_entry), asked there because
	 * the symbolizer is that thread's while it runs.
	 */
	bool at_entry;
};

/*
 * Resolves a frame address of m (a file offset, or an absolute address
 * for the kernel and perf maps) or, with is_vaddr, an ELF address, to its
 * levels: DWARF lines and inline chain where the module has them, the
 * symbol's name for the outermost level where DWARF names none. Returns
 * r->n. A level's func is NULL only for the outermost level of a place
 * that neither DWARF nor the symbols name. Release with symres_release.
 */
int symbolize_addr(struct symbolizer *z, struct module *m, uint64_t addr, bool is_vaddr,
		   struct symres *r);
void symres_release(struct symres *r);
/* The bytes of r's levels' strings (symres_copy_levels copies them). */
size_t symres_strings_size(const struct symres *r);
/*
 * r's levels into lv, their strings copied to strs (symres_strings_size
 * bytes): a copy that holds nothing of the symbolizer's.
 */
void symres_copy_levels(const struct symres *r, struct srcline *lv, char *strs);

/*
 * symbolize_addr for a frame of a profile, with its flags: a JIT frame
 * that says which line of its perf map was in force for its address
 * (PM_FRAME_PERFMAP_LINE) is named by that line, not by the map as a
 * whole.
 */
int symbolize_frame(struct symbolizer *z, struct module *m, uint32_t flags, uint64_t addr,
		    struct symres *r);

/*
 * Whether file offset off of m is the code at its ELF entry point (the
 * first 64 bytes: _start), for a binary whose symbols do not say so.
 * Reads m's headers if nothing of it was read yet.
 */
bool symbolize_at_entry(struct symbolizer *z, struct module *m, uint64_t off);

/* Gives frame its levels r in p, when they name it (a place without a function is no name). */
void symbolize_add_levels(struct profile *p, uint32_t frame, const struct symres *r);

/*
 * Gives the frames of p that have no lines yet theirs, resolved now
 * through z, but for those resolved (when not NULL) says were resolved
 * already without a name (by the naming thread), and all of them when
 * cut_short (naming was cut short: they stay unnamed). Then gives p its
 * modules (symbolize_modules; final unless cut short). Returns how many
 * frames stayed unresolved because naming was cut short.
 */
/*
 * Gives p one module entry per module of z's set, in set order, so that
 * module ids and profile module indexes agree: those it lacks, by path
 * and kind, while the naming thread may still be reading z; with final,
 * when it is done, every one again with its build-id, what naming found
 * and its segments.
 */
void symbolize_modules(struct profile *p, struct symbolizer *z, bool final);
/*
 * The rows of p, the slice recorded now, whose ids were given to new
 * modules (module_set.reused) given to them; the list emptied.
 */
void symbolize_modules_reused(struct profile *p, struct symbolizer *z);

/*
 * What naming found of one module, as a profile's module table takes it:
 * its build-id, its flags (kind, why it names less than it could), the
 * reason's text and its ELF segments (malloc'd: the caller frees segs).
 */
struct module_facts {
	uint32_t module; /* its id */
	uint32_t flags;	 /* pm_module_flags */
	char build_id[2 * BUILD_ID_MAX + 1];
	const char *reason; /* static text, or NULL */
	struct load_seg *segs;
	size_t nsegs;
};
/* Those of m, from what z read of it (kind and path only when it read nothing). */
void symbolize_module_facts(struct symbolizer *z, const struct module *m, struct module_facts *out);
/*
 * Gives p's module f->module (given it by symbolize_modules) what f
 * says; its segments only when p has none of it yet.
 */
void symbolize_set_module(struct profile *p, const struct module_facts *f);

/*
 * The names kept between recordings (namecache.h). symbolize_cached: a
 * frame of m at file offset addr (with its flags) named from them,
 * without reading m, where they have it (true; r as symbolize_frame's,
 * its strings z's until m is let go). symbolize_keep: what
 * symbolize_frame found for it kept, where m was named as well as it can
 * be. symbolizer_save_names writes out what was kept of m (NULL: of every
 * module); symbolizer_names_cached: how many frames were named from them
 * (any thread).
 */
bool symbolize_cached(struct symbolizer *z, struct module *m, uint32_t flags, uint64_t addr,
		      struct symres *r);
void symbolize_keep(struct symbolizer *z, struct module *m, uint32_t flags, uint64_t addr,
		    const struct symres *r);
void symbolizer_save_names(struct symbolizer *z, const struct module *m);
uint64_t symbolizer_names_cached(struct symbolizer *z);

size_t symbolize_profile(struct profile *p, struct symbolizer *z,
			 bool (*resolved)(uint32_t frame, void *arg), void *arg, bool cut_short);

#endif
