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
#include <sys/types.h>

#include "addr.h"
#include "elfread.h"
#include "hmap.h"
#include "symtab.h"

enum module_kind {
	MODULE_FILE,   /* a regular file */
	MODULE_ANON,   /* executable memory with no file: JIT, [heap], //anon */
	MODULE_VDSO,   /* [vdso], [vsyscall] */
	MODULE_KERNEL, /* the kernel and its modules */
};

struct module {
	uint32_t id; /* index in its set */
	enum module_kind kind;
	char *path;
	uint32_t maj, min;
	uint64_t ino;
	int fd; /* pinned file, -1 when it could not be opened */
	uint8_t build_id[BUILD_ID_MAX];
	size_t build_id_len;

	/* Filled by module_load at symbolization. */
	bool loaded;
	const char *reason; /* why names are missing (static string), or NULL */
	struct load_seg *segs;
	size_t nsegs;
	struct symtab syms;
	int symsrc; /* enum elf_symsrc */
};

struct module_set {
	struct module **mods;
	size_t n, cap;
	struct hmap index;
};

/* What identifies the file behind a mapping. */
struct module_key {
	const char *path;
	uint32_t maj, min;
	uint64_t ino;
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

/* Kind of a mapping name as the kernel reports it. */
enum module_kind module_kind_of(const char *path, uint64_t ino);

/*
 * Reads segments, build-id and symbols from the pinned file, once.
 * Returns 0 or -errno; m->reason then says why.
 */
int module_load(struct module *m);

#endif
