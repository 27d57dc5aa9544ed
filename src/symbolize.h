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

#include "module.h"
#include "profile.h"

struct symbolize_stats {
	size_t frames, resolved;
};

void symbolize_profile(struct profile *p, struct module_set *mods, struct symbolize_stats *st);

/*
 * Looks up one file offset of a loaded module: the function name and the
 * offset into it. Returns the name or NULL.
 */
const char *symbolize_offset(struct module *m, uint64_t off, uint64_t *symoff);

#endif
