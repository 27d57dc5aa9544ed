/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * memlevel.h - what a recorder gives up, step by step, to stay within a
 * budget of memory (record --max-memory).
 *
 * The memory counted is the process's own: its heap and anonymous
 * mappings (RssAnon), what grows with what it reads and keeps. The pages
 * of the files it maps are not counted (the kernel takes them back when
 * it needs them, and the recorder gives them back as it goes), nor the
 * ring buffers, which are the kernel's and of a size fixed at the start.
 *
 * The levels, in the order they are reached:
 *   MEM_FULL      names, source lines and inlined frames, as without a budget;
 *   MEM_NO_LINES  at three quarters of the budget: the DWARF read so far is
 *                 let go, and frames are named from the symbol tables alone;
 *   MEM_NO_NAMES  at the budget, a second after MEM_NO_LINES could show its
 *                 effect: the symbol tables are let go too, and the frames of
 *                 programs' and libraries' files keep only their build-id and
 *                 file offset, which report names from the files later.
 * Samples and stacks are never given up: a recording over its budget keeps
 * every sample, with less said of it. A level is left, one step at a time,
 * once the memory has stayed under half the budget for MEM_HOLD_NS since
 * the level was last changed.
 *
 * The logic is pure: the caller reads the memory (memlevel_read_anon) and
 * the clock, so that tests drive it.
 */
#ifndef PERFMINI_MEMLEVEL_H
#define PERFMINI_MEMLEVEL_H

#include <stdbool.h>
#include <stdint.h>

enum mem_level {
	MEM_FULL = 0,
	MEM_NO_LINES = 1,
	MEM_NO_NAMES = 2,
};
#define MEM_LEVELS 3

/*
 * How long a level holds before it may be stepped down, and the wait to
 * step up again; how often the memory is looked at (MEM_SOON_NS just
 * after something was read).
 */
#define MEM_HOLD_NS 30000000000ULL
#define MEM_STEP_NS 1000000000ULL
#define MEM_LOOK_NS 1000000000ULL
#define MEM_SOON_NS 50000000ULL

/* The default budget: 256 MiB, within a fleet agent's usual 250 MB to 1 GB. */
#define MEM_DEFAULT_BUDGET (256ULL << 20)

struct memlevel {
	uint64_t budget; /* bytes; 0: no budget, always MEM_FULL */
	enum mem_level level;
	uint64_t changed_ns;	      /* when level last changed (0: never) */
	uint64_t peak;		      /* the most memory seen */
	uint64_t entered[MEM_LEVELS]; /* how often each level was entered */
};

void memlevel_init(struct memlevel *m, uint64_t budget);

/*
 * The level for memory bytes in use at now_ns (a monotonic clock): the
 * new one, which m keeps, when it changes.
 */
enum mem_level memlevel_update(struct memlevel *m, uint64_t bytes, uint64_t now_ns);

/*
 * The process's own memory (RssAnon) read from *fd, /proc/self/statm,
 * opened at the first call (*fd < 0) and kept open; 0 when it cannot be
 * read.
 */
uint64_t memlevel_read_anon(int *fd);

/* A name of level l for messages and the data file: "full", "no-lines", "no-names". */
const char *memlevel_name(enum mem_level l);

#endif
