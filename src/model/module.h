/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * module.h - the files (and pseudo-files) that processes map code from.
 *
 * A module is identified by device and inode when it has them, else by
 * name, so one library mapped by many processes is one module. It is
 * pinned when first seen: its file is opened through the mapping itself
 * (/proc/PID/map_files/START-END), else through the process's root,
 * checking device and inode, and the descriptor is kept until
 * symbolization. A binary deleted or replaced later still reads as the
 * code that ran.
 */
#ifndef PERFMINI_MODULE_H
#define PERFMINI_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "util/hmap.h"

enum module_kind {
	MODULE_FILE,	/* a regular file */
	MODULE_ANON,	/* executable memory with no file: JIT, [heap], //anon */
	MODULE_VDSO,	/* [vdso], [vsyscall] */
	MODULE_KERNEL,	/* the kernel and its modules */
	MODULE_PERFMAP, /* a JIT's /tmp/perf-PID.map; frame addresses are absolute */
};

/*
 * A module, as the model knows it. Every field is set when the module is
 * made, on the thread that drains the rings, and never changed after but
 * for the descriptor of a MODULE_PERFMAP module (module_perfmap_open, on
 * that same thread, once; the naming thread is handed that module's
 * frames only after it is set, or at the stop).
 * What the stages above learn of a module they keep themselves, by id:
 * the symbolizer its symbols and DWARF (symfile.h), the unwinder its image
 * (unwind.h).
 */
struct module {
	uint32_t id; /* index in its set, and in a profile's modules */
	/*
	 * 1 + the id of the module met before it with a generation and its
	 * device and inode, or 0; and of the one met after it.
	 */
	uint32_t prev_same_ino, next_same_ino;
	enum module_kind kind;
	char *path;
	uint32_t maj, min;
	uint64_t ino;
	uint64_t gen;  /* the inode's generation, 0 when not known */
	int fd;	       /* pinned file, -1 when it could not be opened (or was let go) */
	uint32_t uid;  /* the owner of the file pinned, MODULE_NO_UID until one was */
	int pin_error; /* why not: the errno of the last attempt (0: gone, or another file) */
	uint32_t pid;  /* MODULE_PERFMAP: whose map */
	/*
	 * Kept open for good: frames or an unwind were made in it (set by
	 * module_use, on the recording thread). A module without, past the
	 * set's budget of open files, has its file closed (unpinned) and
	 * opened again when first used, through the mapping it was seen at.
	 */
	bool used, unpinned;
	uint32_t seen_pid;
	uint64_t seen_start, seen_end;
	/*
	 * The mappings of it the model holds (maps.c counts them); at 0 the
	 * module is noted idle (module_set.idle) for its owner to let its
	 * file and what was read of it go (module_unpin). Recording thread.
	 */
	uint32_t nmaps;
	uint32_t idle_gen; /* how often nmaps fell to 0: tells an idle spell from an older */
	bool noted_idle;   /* in module_set.idle now */
	bool retired;	   /* module_unpin let it go: opened at its next mapping */
	/*
	 * A frame was made in it, or an unwind (set by module_touch and
	 * module_use, and never cleared): the stages above may keep
	 * something of it by id, which is then never given to another.
	 */
	bool touched;
	bool unlisted; /* no lookup finds it (module_set_unlist): its id is to be given back */
	bool free;     /* module_set_recycle gave its id back: no module now */
	struct module_set *set; /* the set it is of */
};

/* module.uid of a module whose file was never opened. */
#define MODULE_NO_UID UINT32_MAX

struct module_set {
	struct module **mods;
	size_t n, cap;
	struct hmap index;
	/*
	 * Device and inode (their hash) -> the latest module of them met with
	 * a generation; the others before it through module.prev_same_ino.
	 */
	struct hmap latest;
	size_t pinned;	     /* files of modules held open */
	size_t pin_budget;   /* at most this many of unused modules' (0: no limit) */
	uint32_t *pin_order; /* module ids, in the order they were pinned */
	size_t npin_order, pin_order_cap;
	size_t pin_next; /* the first of pin_order that may still be let go */
	uint32_t *idle;	 /* ids of modules whose last mapping went (module_set_take_idle) */
	size_t nidle, idle_cap;
	/* Ids given back (module_set_recycle), for the next new modules, latest last. */
	uint32_t *free_ids;
	size_t nfree, free_cap;
	/*
	 * Ids below n given to a new module again, in that order, since the
	 * owner last emptied the list (nreused = 0): a profile's row of that
	 * id is another module's from then on.
	 */
	uint32_t *reused;
	size_t nreused, reused_cap;
	uint64_t made; /* modules made, ids given again included */
};

/* What identifies the file behind a mapping. */
struct module_key {
	const char *path;
	uint32_t maj, min;
	uint64_t ino;
	/*
	 * The inode's generation where the kernel says it (MMAP2), else 0:
	 * an inode number reused by a new file (a program deleted, another
	 * written) is another module.
	 */
	uint64_t gen;
};

void module_set_init(struct module_set *s);
void module_set_release(struct module_set *s);

/*
 * The module for key, created and pinned if new. pid, start and end name
 * a live mapping of it, used to open the file; pid 0 opens by path.
 */
struct module *module_set_get(struct module_set *s, const struct module_key *k, pid_t pid,
			      uint64_t start, uint64_t end);
/* The kernel's module (one per set). */
struct module *module_set_kernel(struct module_set *s);
/*
 * Past max_open files held open, those of the modules not used yet (the
 * oldest first) are closed as new ones are opened: a process that maps
 * thousands of files leaves descriptors to the rest of the recording.
 */
void module_set_budget(struct module_set *s, size_t max_open);
/*
 * Marks m used (its file is kept open from now on), opening it again if
 * it was let go. Recording thread. Returns m->fd.
 */
int module_use(struct module_set *s, struct module *m);
/*
 * m is mapped once more, or once less (maps.c): at 0 it is noted idle in
 * its set. Recording thread.
 */
void module_mapped(struct module *m, int delta);
/*
 * The modules noted idle since the last call (into *ids, malloc'd; their
 * count returned), those mapped again meanwhile left out.
 */
size_t module_set_take_idle(struct module_set *s, uint32_t **ids);
/*
 * Closes m's file, if open, and marks it not used and let go (retired),
 * to be opened again at its next mapping (module_set_get): a module no
 * process maps any more holds no descriptor. Recording thread,
 * and only once nothing else reads m's file (the naming thread, the
 * unwinder). Returns whether a file was closed.
 */
bool module_unpin(struct module_set *s, struct module *m);
/* A frame was made in m: module.touched. */
static inline void module_touch(struct module *m)
{
	m->touched = true;
}
/*
 * No lookup finds m from now on (a mapping of its file makes another
 * module): the first step of giving its id back, while the stages above
 * forget what they keep of it (module_forgotten). Whether it could be:
 * a file let go (module_unpin) that no process maps.
 */
bool module_set_unlist(struct module_set *s, struct module *m);
/* What the stages above kept of m is let go: nothing is made of it any more. */
static inline void module_forgotten(struct module *m)
{
	m->touched = false;
}
/*
 * Gives m's id back for a new module to take (unlisting it first), if m
 * could be unlisted and nothing is made of it (not touched, or
 * forgotten since): a machine that runs new programs all the time holds
 * the modules of those that run, not of every one it ran. The caller
 * says that no profile still names m; m is no module from then on
 * (free). Returns whether it was given back.
 */
bool module_set_recycle(struct module_set *s, struct module *m);
/*
 * The module of pid's anonymous executable memory (JIT code), named by its
 * perf map /tmp/perf-N.map, N the pid the process knows itself by (its own
 * PID namespace's when live, else pid), inside its root. Created on first
 * use without looking for the file: see module_perfmap_open.
 */
struct module *module_set_perfmap(struct module_set *s, uint32_t pid, bool live);
/*
 * Opens the perf map of a MODULE_PERFMAP module if it is not open yet and
 * exists, is a regular file (not a symlink) and belongs to the process's
 * user or root; the descriptor is kept, so the map is read whole at
 * symbolization even if the process removed it. Returns 0 when open, else
 * -ENOENT.
 */
int module_perfmap_open(struct module *m);
/*
 * The perf map of process pid opened as module_perfmap_open opens one,
 * for a process with no module for it yet: a descriptor, or -1.
 */
int module_perfmap_probe(uint32_t pid);
/*
 * The pid in the innermost PID namespace from /proc/PID/status text (the
 * last field of its "NSpid:" line). Returns 0, -ENOENT without such a line,
 * or -EINVAL.
 */
int perfmap_nspid_parse(FILE *f, uint32_t *nspid);

/* Kind of a mapping name as the kernel reports it. */
enum module_kind module_kind_of(const char *path, uint64_t ino);

/*
 * A copy of the vdso, from perfmini's own memory (every process maps the
 * same image): *bytes malloc'd, *len bytes. Returns 0 or -errno.
 */
int module_vdso_copy(unsigned char **bytes, size_t *len);

#endif
