/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symfile.h - what naming reads of the modules: for each, its load
 * segments, build-id and entry point, its function symbols (the file's
 * .symtab, a separate debug file's found by build-id or .gnu_debuglink,
 * MiniDebugInfo, debuginfod, .dynsym, and NAME@plt entries; kallsyms for
 * the kernel; the perf map of a process's JIT code; the vdso from
 * perfmini's own memory), and access to its DWARF.
 *
 * Ownership: a symbolizer and its symfiles belong to one thread at a time,
 * the one that names frames (while recording, the naming thread; at the
 * stop, the recorder after joining it), so nothing here takes a lock. A
 * symfile is made on first use, by module id, and read from the module's
 * pinned file (module.h), which nothing else reads through libelf.
 */
#ifndef PERFMINI_SYMFILE_H
#define PERFMINI_SYMFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/module.h"
#include "store/reasons.h"
#include "util/memlevel.h"

/*
 * What naming read of one module: private to symbol/ (symfile-int.h);
 * the rest use the calls below.
 */
struct symfile;
/* The symfiles of a set of modules, by module id (symfile-int.h). */
struct symbolizer;

/*
 * A symbolizer of the modules of mods (the model's: what their ids
 * stand for). no_lines: names from symbol tables only, DWARF never read.
 */
struct symbolizer *symbolizer_new(struct module_set *mods, bool no_lines);
/* Frees z, its symfiles and all they hold; NULL is a no-op. */
void symbolizer_free(struct symbolizer *z);
/*
 * Adds a directory searched for debug files (by build-id and by name),
 * made absolute. Returns 0 or -errno (no such directory).
 */
int symbolizer_add_debug_dir(struct symbolizer *z, const char *dir);
/*
 * Debug files are looked for on this machine alone: no debuginfod server
 * is asked, whatever DEBUGINFOD_URLS says (report's late naming, which
 * must not wait on a network). Before the first symfile_get.
 */
void symbolizer_local_only(struct symbolizer *z);

/*
 * Starts reading the kernel's symbols on a thread of their own, if m is
 * the kernel and not read yet: the kernel's symfile, when first used,
 * waits for them instead of reading them itself. For a caller that has
 * other modules to read meanwhile (ksyms.h). Returns whether a reading
 * is under way (false: none could be started, or m is not the kernel).
 */
bool symbolizer_read_kernel(struct symbolizer *z, const struct module *m);
/* Whether using the kernel's symbols would not wait: no reading is under way, or it ended. */
bool symbolizer_kernel_ready(struct symbolizer *z);
/*
 * The CPU time that the reading of the kernel's symbols used on its own
 * thread, once the kernel's symfile waited for it (0 before, and when it
 * was read without a thread).
 */
uint64_t symbolizer_kernel_read_cpu_ns(const struct symbolizer *z);

/*
 * The symfile of m, read on first use: segments, build-id and symbols
 * from the pinned file, with separate debug files found through libdwfl.
 * Never NULL; its reason says why it has no (or few) names.
 */
struct symfile *symfile_get(struct symbolizer *z, struct module *m);

/*
 * Gives back the pages of the modules' files that libelf and libdw read
 * through their mappings since the last call (madvise MADV_DONTNEED on
 * private file mappings: the pages stay in the page cache and come back
 * on the next read). Only pages that still hold the file's bytes are
 * given back: /proc/self/pagemap tells them from those libelf wrote to
 * (a private copy, which would be lost); without pagemap nothing is. So
 * the recorder's resident memory holds what naming is reading now, not
 * all it ever read. The naming thread calls it every few dozen frames and
 * before it sleeps.
 *
 * It also keeps what source lines hold while they are looked up (each
 * unit's line rows and scope index, srcline_trim) to
 * SYMBOLIZER_LINES_BUDGET bytes (tests set less) where it can: above
 * that, those of the units not looked up in since the last call are
 * dropped, to be read again if a later frame needs them. What the frames being named need at once is kept whatever
 * its size.
 */
#define SYMBOLIZER_LINES_BUDGET (2u << 20)
void symbolizer_trim(struct symbolizer *z);

/*
 * symbolizer_trim's giving back of pages alone, cheap enough to follow
 * every frame whose naming read something new of its module
 * (symfile_fresh): reading a unit's DWARF touches much of the file at
 * once.
 */
void symbolizer_give_back(struct symbolizer *z);
/*
 * Makes symbolizer_give_back_due wait for bytes more of files resident
 * than after the last give-back (0, the default: due at every call).
 */
void symbolizer_set_give_back_bytes(struct symbolizer *z, size_t bytes);

/*
 * Whether symbolizer_give_back has something worth its cost to do: with
 * symbolizer_set_give_back_bytes set, once that many more bytes of files are resident
 * in this process than after the last give-back. Each give-back flushes
 * the TLBs of the other CPUs that run this process's threads, and what
 * the next frames of the same modules read comes back at the price of a
 * fault: done after every few frames of a busy machine, that was most of
 * the recorder's own time. It looks at most every 50 ms (false between).
 */
bool symbolizer_give_back_due(struct symbolizer *z);

/*
 * Frees what was read to name frames of the modules of files (not the
 * kernel's symbols, nor the vdso's or a perf map's) that symfile_get has
 * not given out for idle_ns: over a long recording of a whole machine,
 * what naming holds is the code run lately, not all code ever run. Their
 * symfiles stay, with what the profile's module table needs; symfile_get
 * reads them again. Returns how many modules were let go; the caller
 * gives the memory back to the system (malloc_trim), once for both
 * this and symbolizer_forget_old.
 */
size_t symbolizer_forget_idle(struct symbolizer *z, uint64_t now, uint64_t idle_ns);
/*
 * The same for the modules of files read age_ns or more ago, used or not:
 * what a module's reading keeps adding to (libdw's units of a library
 * sampled all day) starts again from nothing, so that a long recording
 * holds what its latest minutes need. Returns how many were let go.
 */
size_t symbolizer_forget_old(struct symbolizer *z, uint64_t now, uint64_t age_ns);
/*
 * The same for m alone, now (memory is not given back: what the next
 * module reads takes its place). Returns whether anything was let go.
 */
bool symbolizer_forget(struct symbolizer *z, const struct module *m);
/*
 * Lets go of what was read of m for good: as symbolizer_forget, and no
 * copy of its file looks its lines up in its DWARF any more (the
 * recorder closes its file next). Read again by symfile_get should its
 * file be opened again.
 */
void symbolizer_retire(struct symbolizer *z, const struct module *m);
/*
 * Everything kept of module id let go, its record (symfile_shrink's)
 * too: the id is to be another module's (module_set_recycle). Nothing
 * of the module struct is read.
 */
void symbolizer_drop(struct symbolizer *z, uint32_t id);
/*
 * Lets go of what was read of perf map m, so that the next frame named
 * in it reads the map again, with what its program has added since.
 * Returns whether it had been read.
 */
bool symbolizer_reread_perfmap(struct symbolizer *z, const struct module *m);
/*
 * To stay within a memory budget (util/memlevel.h). symbolizer_forget_all
 * lets go of what was read of every module of a file, as
 * symbolizer_forget_idle does of idle ones, and of the names kept
 * (written out first, namecache.h), and gives the memory back; returns
 * how many. symbolizer_hold_lines(z, true): modules read from
 * now on are read without DWARF (named from their symbol tables; their
 * lines reason says LINES_MEMORY); false again: those are read again,
 * with lines, when next used. symbolizer_identify: for a frame of m
 * left without a name to save memory, reads only m's identity (its
 * build-id and segments, for report to name it later) and marks m
 * REASON_MEMORY; false when m's names are held already (or it is not a
 * file's), so that naming the frame costs nothing more.
 */
size_t symbolizer_forget_all(struct symbolizer *z);
/*
 * A memory budget of bytes (0: none) for the recorder, kept by whoever
 * names frames (util/memlevel.h): symbolizer_memory_look, between two
 * frames, reads the process's memory at most once a second (every 50 ms
 * when soon: something was just read) and takes the level it calls for.
 * A step up lets go of what was read (symbolizer_forget_all); from
 * MEM_NO_LINES modules are read without DWARF; at MEM_NO_NAMES
 * symbolizer_memory_skips says a frame of a file not read yet goes
 * unnamed (symbolizer_identify), for report to name. Both are counted,
 * and symbolizer_memory_stats gives the figures to any thread.
 */
struct memstats {
	uint64_t budget, peak;
	enum mem_level level;
	uint64_t entered[MEM_LEVELS];
	uint64_t no_lines, unnamed; /* frames named without lines, left unnamed */
};
void symbolizer_memory_budget(struct symbolizer *z, uint64_t bytes);
void symbolizer_memory_look(struct symbolizer *z, bool soon);
bool symbolizer_memory_skips(struct symbolizer *z, struct module *m);
void symbolizer_memory_stats(struct symbolizer *z, struct memstats *st);
void symbolizer_hold_lines(struct symbolizer *z, bool off);
bool symbolizer_identify(struct symbolizer *z, struct module *m);

/* Why f's module has no names, or few; REASON_NONE when it has them. */
enum module_reason symfile_reason(const struct symfile *f);
/* The number of function symbols f's symbol tables gave. */
size_t symfile_nsyms(const struct symfile *f);
/*
 * Whether what was read of f's module to name frames is held: false once
 * it was let go (symbolizer_forget_idle, symbolizer_forget,
 * symbolizer_reread_perfmap), until symfile_get reads it again.
 */
bool symfile_loaded(const struct symfile *f);
/*
 * Whether something new was read of f's module since the last
 * give-back (symbolizer_give_back): its symbols, the index of its
 * DWARF's units, a unit's scopes or line table, each a whole region of
 * its files read at once.
 */
bool symfile_fresh(const struct symfile *f);
/*
 * True once for each reading of f's module (the first call after
 * symfile_get read it, or read it again after it was let go), false
 * after: so that what was read is told once (namer.c).
 */
bool symfile_take_news(struct symfile *f);

/*
 * m's symfile if it was read already, else NULL (nothing is read); made
 * again from what was kept of it if it was let go (symfile_shrink).
 */
struct symfile *symfile_find(struct symbolizer *z, const struct module *m);

/*
 * Marks m's symfile changed (see above): called after SIGBUS cut a read
 * of its files short.
 */
void symfile_changed(struct symbolizer *z, struct module *m);

#endif
