/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ksyms.h - the kernel's function symbols, read from /proc/kallsyms and
 * kept small.
 *
 * A kernel has some 120,000 function symbols and 3 MB of names; a plain
 * symbol table (symtab.h) holds them in about 6 MB, and more while it
 * grows. Here each symbol is 8 bytes (its address as 32 bits, its name's
 * number) and the names, once they pass 64 KiB, are written as they come
 * to an unnamed file (util.h), which is mapped once read: only the pages
 * of the names looked up are resident, and they can be given back like
 * any file's. Fewer names, or names where no such file can be made, stay
 * in memory. A name is found by its
 * block of KSYMS_BLOCK names, whose start is kept.
 *
 * x86-64 kernel text, the core kernel's and the modules' (and BPF
 * programs'), lies in the top 2 GiB of the address space: every address
 * kept has its high 32 bits all set. Symbols elsewhere are not kept.
 *
 * The rules are symtab.h's: types t, T, w, W only, under their bare names
 * (a module's "[name]" suffix dropped); among symbols at one address a
 * global one (T, W) wins, then the shorter name, then the smaller in byte
 * order; a symbol ends where the next one starts, the last 4096 bytes
 * after its start.
 */
#ifndef PERFMINI_KSYMS_H
#define PERFMINI_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Names per block: the start of each block is kept. */
#define KSYMS_BLOCK 16
/* The high 32 bits of every kernel text address kept. */
#define KSYMS_HIGH 0xffffffff00000000ULL

struct ksym {
	uint32_t lo;   /* the address's low 32 bits */
	uint32_t name; /* the name's number, in the order read */
};

struct ksyms {
	struct ksym *syms; /* by address, one per address */
	size_t n, cap;
	/* The names, each ending in its NUL, in the order read. */
	int fd;	      /* their file, or -1 */
	bool no_file; /* none could be made: all stay in buf */
	char *map;    /* the file mapped, once read */
	char *buf;    /* while reading, those not yet written; without a file, all */
	size_t buf_len, buf_cap;
	size_t names_len; /* bytes of names */
	uint32_t *blk;	  /* block b of names starts at byte blk[b] */
	size_t nblk, blkcap;
	size_t nnames;
};

void ksyms_init(struct ksyms *k);
void ksyms_release(struct ksyms *k);

/*
 * Reads /proc/kallsyms text into an empty k. Returns the number of
 * function symbols read (aliases counted), or -errno: -EIO when the
 * stream failed, another when the names could not be written or mapped.
 */
int ksyms_read(struct ksyms *k, FILE *f);

/*
 * Reads /proc/kallsyms into an empty k: as ksyms_read, or -errno when it
 * cannot be opened.
 */
int ksyms_read_kernel(struct ksyms *k);

/*
 * The same on a thread of its own, for a caller with other work to do
 * meanwhile (reading /proc/kallsyms is some 40 ms of the kernel's time,
 * spent formatting every symbol). ksyms_read_start starts it, NULL when
 * no thread could be made (the caller reads by itself);
 * ksyms_read_done tells whether it has ended; ksyms_read_wait waits for
 * it to end, gives what it read to an empty k and the CPU time the
 * thread used to *cpu_ns (if not NULL), frees r and returns what
 * ksyms_read_kernel returned.
 */
struct ksyms_reader;
struct ksyms_reader *ksyms_read_start(void);
bool ksyms_read_done(struct ksyms_reader *r);
int ksyms_read_wait(struct ksyms_reader *r, struct ksyms *k, uint64_t *cpu_ns);

/*
 * The symbol holding addr: true with its start address in *start and its
 * name in *name (valid until k is released), false when none does.
 */
bool ksyms_lookup(struct ksyms *k, uint64_t addr, uint64_t *start, const char **name);

/* The name of k->syms[i] (valid until k is released), or NULL. */
const char *ksyms_name(struct ksyms *k, size_t i);

#endif
