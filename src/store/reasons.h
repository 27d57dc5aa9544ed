/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reasons.h - why frames lack names or source lines, as data files store
 * it: the codes are numbers in the file format (perfmini-data(5)), so
 * they live with the store, and the sentences that explain them to a
 * user live beside them for every reader of a data file to share.
 */
#ifndef PERFMINI_REASONS_H
#define PERFMINI_REASONS_H

/*
 * Why a module's frames may lack names; see module_reason_text(). The
 * numbers are stored in data files (perfmini-data(5)): never renumber
 * them, only add at the end.
 */
enum module_reason {
	REASON_NONE = 0,
	REASON_STRIPPED = 1,	     /* only .dynsym: internal functions have no names */
	REASON_NO_SYMBOLS = 2,	     /* no symbol table at all */
	REASON_FILE_GONE = 3,	     /* the file could not be opened */
	REASON_NOT_ELF = 4,	     /* the file is not ELF */
	REASON_ANON = 5,	     /* executable memory with no file and no perf map */
	REASON_KERNEL_HIDDEN = 6,    /* kallsyms shows no addresses */
	REASON_NO_MAPPING = 7,	     /* the address was in no known mapping */
	REASON_VDSO = 8,	     /* the vdso image could not be read */
	REASON_NO_DESCRIPTORS = 9,   /* perfmini ran out of file descriptors */
	REASON_CHANGED = 10,	     /* the file shrank while perfmini read it */
	REASON_PERFMAP_EMPTY = 11,   /* a perf map that names no function */
	REASON_PERFMAP_REFUSED = 12, /* a perf map there, refused (owner, links, mount) */
	REASON_MEMORY = 13,	     /* some frames left unnamed to stay within --max-memory */
};

/*
 * Why frames of a module that have names may lack source lines; see
 * module_lines_text(). Set when the module's DWARF is first read. Stored
 * in data files like enum module_reason: never renumbered.
 */
enum module_lines {
	LINES_OK = 0,
	LINES_NO_DWARF = 1,	 /* no DWARF in the file nor in a debug file found */
	LINES_COMPRESSION = 2,	 /* debug sections compressed with an unknown method */
	LINES_EXPAND_FAILED = 3, /* compressed debug sections that do not expand */
	LINES_UNCOVERED = 4,	 /* code in no DWARF unit: built without -g, assembly */
	LINES_MEMORY = 5,	 /* read without DWARF to stay within --max-memory */
};

/* A sentence on the reason, and one on what would fix it. */
const char *module_reason_text(enum module_reason r);
const char *module_reason_fix(enum module_reason r);

/* The same for source lines. */
const char *module_lines_text(enum module_lines r);
const char *module_lines_fix(enum module_lines r);

#endif
