/*
 * symbolize.h - giving the frames of a profile their names.
 *
 * Runs once at the end of a recording, over each distinct frame once:
 * loads each module a frame points into (segments, build-id, symbols),
 * converts the frame's file offset to an ELF address (addr.h) and looks the
 * symbol up. Kernel frames go through /proc/kallsyms. A frame that finds no
 * name is left without lines; its module and offset still say where it is.
 * Afterwards the profile holds one module entry per module of the set, in
 * set order, so module ids and profile module indexes agree.
 */
#ifndef PERFMINI_SYMBOLIZE_H
#define PERFMINI_SYMBOLIZE_H

#include <stdio.h>

#include "module.h"
#include "srcline.h"
#include "profile.h"

struct symbolize_stats {
	size_t frames, resolved;
};

struct prefetch;
/* pf: what a stopped prefetch thread resolved, or NULL. */
void symbolize_profile(struct profile *p, struct module_set *mods, struct prefetch *pf,
		       struct symbolize_stats *st);

/* Everything known of one address: its function levels, innermost first. */
struct symres {
	int n; /* levels; 0: no name at all */
	struct srcline lv[SRCLINE_MAX_DEPTH];
	uint64_t symoff; /* offset into the outermost function's symbol */
	char *symname;	 /* the symbol's demangled name (malloc'd), or NULL */
};

/*
 * Resolves a frame address of m (a file offset, or an absolute address
 * for the kernel and perf maps) or, with is_vaddr, an ELF address, to its
 * levels: DWARF lines and inline chain where the module has them, the
 * symbol's name for the outermost level where DWARF names none. Returns r->n. A level's func is NULL only for the outermost
 * level of a place that neither DWARF nor the symbols name. Release with
 * symres_release.
 */
int symbolize_addr(struct module_set *s, struct module *m, uint64_t addr, bool is_vaddr,
		   struct symres *r);
void symres_release(struct symres *r);

/*
 * Symbolizing while recording. Each new frame is handed to a thread that
 * resolves it (loading its module's symbols and DWARF the first time), so
 * that at the stop only the frames of the last moments are left to do.
 * The thread touches modules only under their lock; its results are read
 * after prefetch_stop has joined it. Perf-map (JIT) frames are left to
 * the stop: the map keeps growing while the program runs.
 */
struct prefetch;

struct prefetch *prefetch_start(struct module_set *s);
/* Queues frame id frame, at addr of m, for resolution (recorder thread). */
void prefetch_frame(struct prefetch *pf, struct module *m, uint32_t frame, uint64_t addr);
/* Resolves what is still queued, then joins the thread. */
void prefetch_stop(struct prefetch *pf);
void prefetch_free(struct prefetch *pf);

/* Per module, how many sampled frames have no name, and no source line. */
struct missing {
	uint32_t module; /* PM_NONE: frames in no known mapping */
	uint64_t frames, unnamed;
	uint64_t named, unplaced; /* frames with a name; of them, without a line */
};

/*
 * The modules with unnamed sampled frames, most unnamed first; returns the
 * count and a malloc'd array through *out.
 */
size_t symbolize_missing(const struct profile *p, struct missing **out);
/*
 * The modules whose named sampled frames lack source lines for a reason
 * recorded (PM_MODULE_LINES), 5% of them or more, most such frames first;
 * as above.
 */
size_t symbolize_missing_lines(const struct profile *p, struct missing **out);
/*
 * One line per module with unnamed frames (at most max): share, reason
 * and fix; then the same for modules whose frames lack source lines.
 */
void symbolize_print_missing(const struct profile *p, FILE *f, size_t max);

#endif
