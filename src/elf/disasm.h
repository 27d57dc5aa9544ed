/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * disasm.h - machine code to text, one instruction at a time, through
 * Capstone: x86-64 and i386 in AT&T syntax (as objdump and perf annotate
 * print them), AArch64 in its own.
 */
#ifndef PERFMINI_DISASM_H
#define PERFMINI_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct disasm;

/* Whether Capstone's library could be loaded (libcapstone4 on Debian). */
bool disasm_available(void);
/*
 * A disassembler for ELF machine (e_machine); NULL when none is known for
 * it, or Capstone cannot be loaded.
 */
struct disasm *disasm_new(unsigned machine);
void disasm_free(struct disasm *d);

/*
 * The instruction at code[0, n), at address vaddr: its length, its text
 * ("mnemonic operands") into buf (size bytes, always terminated); 0 when
 * the bytes begin no instruction.
 */
size_t disasm_one(struct disasm *d, const uint8_t *code, size_t n, uint64_t vaddr, char *buf,
		  size_t size);

#endif
