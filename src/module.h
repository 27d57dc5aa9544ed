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

#include <elfutils/libdwfl.h>
#include <pthread.h>

#include "addr.h"
#include "dwname.h"
#include "elfread.h"
#include "hmap.h"
#include "symtab.h"

enum module_kind {
	MODULE_FILE,	/* a regular file */
	MODULE_ANON,	/* executable memory with no file: JIT, [heap], //anon */
	MODULE_VDSO,	/* [vdso], [vsyscall] */
	MODULE_KERNEL,	/* the kernel and its modules */
	MODULE_PERFMAP, /* a JIT's /tmp/perf-PID.map; frame addresses are absolute */
};

/* Why a module's frames may lack names; see module_reason_text(). */
enum module_reason {
	REASON_NONE = 0,
	REASON_STRIPPED,      /* only .dynsym: internal functions have no names */
	REASON_NO_SYMBOLS,    /* no symbol table at all */
	REASON_FILE_GONE,     /* the file could not be opened */
	REASON_NOT_ELF,	      /* the file is not ELF */
	REASON_ANON,	      /* executable memory with no file and no perf map */
	REASON_KERNEL_HIDDEN, /* kallsyms shows no addresses */
	REASON_NO_MAPPING,    /* the address was in no known mapping */
	REASON_VDSO,	      /* the vdso image could not be read */
};

/*
 * Why frames of a module that have names may lack source lines; see
 * module_lines_text(). Set when the module's DWARF is first read.
 */
enum module_lines {
	LINES_OK = 0,
	LINES_NO_DWARF,	     /* no DWARF in the file nor in a debug file found */
	LINES_COMPRESSION,   /* debug sections compressed with an unknown method */
	LINES_EXPAND_FAILED, /* compressed debug sections that do not expand */
	LINES_UNCOVERED,     /* code in no DWARF unit: built without -g, assembly */
};

struct srcline_units;

struct module {
	uint32_t id; /* index in its set */
	enum module_kind kind;
	char *path;
	uint32_t maj, min;
	uint64_t ino;
	int fd; /* pinned file, -1 when it could not be opened */
	uint8_t build_id[BUILD_ID_MAX];
	size_t build_id_len;

	uint32_t pid; /* MODULE_PERFMAP: whose map */

	/*
	 * Serializes module_load, the first module_prepare_unwind and the
	 * lookups of the prefetch thread (recursive), which may run on the
	 * prefetch thread and the recorder thread at once. What the first two
	 * fill in is not changed afterwards.
	 */
	pthread_mutex_t lock;

	/* Filled by module_load at symbolization. */
	bool loaded;
	enum module_reason reason;
	struct load_seg *segs;
	size_t nsegs;
	struct symtab syms;
	int symsrc;	 /* enum elf_symsrc, of the file itself */
	uint64_t entry;	 /* ELF entry point (e_entry), 0 when none */
	char *debugfile; /* separate debug file found, or NULL */
	Dwfl *dwfl;	 /* DWARF access, NULL without a file */
	Dwfl_Module *dwmod;
	uint64_t dwbias;      /* dwfl address = ELF address + dwbias */
	unsigned char *image; /* MODULE_VDSO: a copy of the image */

	/* For unwinding (module_prepare_unwind): the file's bytes and tables. */
	const unsigned char *bytes;
	size_t nbytes;
	bool bytes_mapped;     /* bytes is an mmap of fd (else it is image) */
	bool unwind_ready;     /* module_prepare_unwind ran */
	uint64_t eh_hdr_vaddr; /* PT_GNU_EH_FRAME, 0 when the file has none */
	uint64_t eh_hdr_size;
	struct hmap demangled;	     /* linkage name in libdw's data -> malloc'd display name */
	struct hmap paths;	     /* (directory, file) in libdw's data -> struct joined_path */
	struct srcline_units *lines; /* units by address, their scopes (srcline.c) */
	enum module_lines lines_reason;
	/* What expanding compressed debug sections met (module_expand_fd). */
	enum module_lines zreason;
	/*
	 * A separate debug file with zstd sections: its expanded copy and its
	 * name, for the module's second Dwfl (module_dwfl_reload).
	 */
	int zfd;
	char *zname;
	bool zreloaded;
	const Dwfl_Callbacks *dwfl_cb; /* the set's */
	bool no_lines;		       /* the set's */
	struct dwname *dwname; /* DIE parents for names built from DWARF, NULL until needed */
};

struct module_set {
	struct module **mods;
	size_t n, cap;
	struct hmap index;
	char *debuginfo_path;	/* for libdwfl: "-:.debug:/usr/lib/debug[:DIR...]" */
	Dwfl_Callbacks dwfl_cb; /* points at debuginfo_path: the set must not move */
	bool no_lines;		/* names from symbol tables only: DWARF is never read */
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
 * The pid in the innermost PID namespace from /proc/PID/status text (the
 * last field of its "NSpid:" line). Returns 0, -ENOENT without such a line,
 * or -EINVAL.
 */
int perfmap_nspid_parse(FILE *f, uint32_t *nspid);
/*
 * Adds a directory searched for debug files (by build-id and by name),
 * made absolute. Returns 0 or -errno (no such directory).
 */
int module_set_add_debug_dir(struct module_set *s, const char *dir);

/* Kind of a mapping name as the kernel reports it. */
enum module_kind module_kind_of(const char *path, uint64_t ino);

/*
 * Reads segments, build-id and symbols from the pinned file, once, with
 * separate debug files found through libdwfl (build-id, .gnu_debuglink,
 * MiniDebugInfo, debuginfod). Returns 0 when the module has symbols, else
 * -errno with m->reason saying why.
 */
int module_load(struct module_set *s, struct module *m);

/*
 * Makes the module's bytes and load segments available for reading code
 * and unwind tables (mapping the pinned file, or copying the vdso), once.
 * Cheap compared with module_load: no symbols are read. Returns 0 or
 * -errno.
 */
int module_prepare_unwind(struct module *m);

/* A sentence on the reason, and one on what would fix it. */
const char *module_reason_text(enum module_reason r);
const char *module_reason_fix(enum module_reason r);

/* The same for source lines. */
const char *module_lines_text(enum module_lines r);
const char *module_lines_fix(enum module_lines r);

/*
 * A descriptor of the ELF file fd from which libelf reads every debug
 * section: fd itself, or (when fd has zstd-compressed sections, which
 * libelf 0.188 cannot read) a memfd holding the file's image with its
 * compressed sections expanded (elfz.h). Takes fd: it is closed when the
 * memfd replaces it (the memfd is made while fd is open, so the two
 * numbers differ). When sections cannot be expanded, returns fd and
 * sets *why (if not NULL) to the reason.
 */
int module_expand_fd(int fd, enum module_lines *why);

/*
 * The module's DWARF (see dwfl_module_getdwarf), from its expanded copy
 * when it is in a separate debug file with zstd sections; NULL when it
 * has none or before module_load.
 */
Dwarf *module_dwarf(struct module *m, Dwarf_Addr *bias);

/*
 * Reports the module again in a new Dwfl when its separate debug file
 * turned out to have zstd sections (so that libdwfl reads the expanded
 * copy); a no-op otherwise or the second time. Pointers into the old
 * Dwfl's data die: call it before anything keeps one. Returns 0 or -errno.
 */
int module_dwfl_reload(struct module *m);

/* Reads a perf map ("START SIZE NAME" lines, hex) into t and finishes it. */
int perfmap_parse(FILE *f, struct symtab *t);

#endif
