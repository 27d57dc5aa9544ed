/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dwarf-nest-gen.c - writes assembly for a function with hostile debug
 * information: nest_hot, a busy loop, whose DWARF holds LEVELS lexical
 * blocks nested one in the other (two bytes each, no DW_AT_sibling), as
 * anyone who can run a program can make a profiler read. A walk of the
 * DIE tree that recurses per level overflows a thread's stack; one that
 * asks libdw for each level's sibling costs the square of LEVELS. For
 * tests/hostile/run-safe-dwarf.sh.
 *
 * usage: dwarf-nest-gen LEVELS > nest-hot.s   (x86-64)
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long levels = argc == 2 ? strtol(argv[1], NULL, 10) : -1;

	if (levels < 0 || levels > 10000000) {
		fprintf(stderr, "usage: dwarf-nest-gen LEVELS\n");
		return 2;
	}
	/* The code: void nest_hot(long n) spins n times. */
	printf("\t.text\n"
	       "\t.globl nest_hot\n"
	       "\t.type nest_hot, @function\n"
	       "nest_hot:\n"
	       ".Lstart:\n"
	       "\tpush %%rbp\n"
	       "\tmov %%rsp, %%rbp\n"
	       "1:\tdec %%rdi\n"
	       "\tjnz 1b\n"
	       "\tpop %%rbp\n"
	       "\tret\n"
	       ".Lend:\n"
	       "\t.size nest_hot, .-nest_hot\n");
	/* Abbreviations: a unit, a subprogram, and a lexical block with children and nothing else. */
	printf("\t.section .debug_abbrev,\"\",@progbits\n"
	       "\t.uleb128 1\n\t.uleb128 0x11\n\t.byte 1\n" /* compile_unit, children */
	       "\t.uleb128 0x03\n\t.uleb128 0x08\n"	    /* name: string */
	       "\t.uleb128 0x11\n\t.uleb128 0x01\n"	    /* low_pc: addr */
	       "\t.uleb128 0x12\n\t.uleb128 0x07\n"	    /* high_pc: data8 */
	       "\t.uleb128 0\n\t.uleb128 0\n"
	       "\t.uleb128 2\n\t.uleb128 0x2e\n\t.byte 1\n" /* subprogram, children */
	       "\t.uleb128 0x03\n\t.uleb128 0x08\n"
	       "\t.uleb128 0x11\n\t.uleb128 0x01\n"
	       "\t.uleb128 0x12\n\t.uleb128 0x07\n"
	       "\t.uleb128 0\n\t.uleb128 0\n"
	       "\t.uleb128 3\n\t.uleb128 0x0b\n\t.byte 1\n" /* lexical_block, children */
	       "\t.uleb128 0\n\t.uleb128 0\n"
	       "\t.uleb128 0\n");
	/* The unit: DWARF 4, 64-bit addresses. */
	printf("\t.section .debug_info,\"\",@progbits\n"
	       "\t.long .Linfo_end - .Linfo_start\n"
	       ".Linfo_start:\n"
	       "\t.value 4\n\t.long 0\n\t.byte 8\n"
	       "\t.uleb128 1\n\t.string \"nest.s\"\n\t.quad .Lstart\n\t.quad .Lend - .Lstart\n"
	       "\t.uleb128 2\n\t.string \"nest_hot\"\n\t.quad .Lstart\n\t.quad .Lend - .Lstart\n");
	printf("\t.rept %ld\n\t.byte 3\n\t.endr\n", levels);
	/* The ends of the blocks' child lists, the subprogram's and the unit's. */
	printf("\t.rept %ld\n\t.byte 0\n\t.endr\n", levels + 2);
	printf(".Linfo_end:\n");
	/* Address ranges, so that readers that go by them find the unit too. */
	printf("\t.section .debug_aranges,\"\",@progbits\n"
	       "\t.long .Lar_end - .Lar_start\n"
	       ".Lar_start:\n"
	       "\t.value 2\n\t.long 0\n\t.byte 8\n\t.byte 0\n\t.long 0\n"
	       "\t.quad .Lstart\n\t.quad .Lend - .Lstart\n\t.quad 0\n\t.quad 0\n"
	       ".Lar_end:\n"
	       "\t.section .note.GNU-stack,\"\",@progbits\n");
	return ferror(stdout) ? 1 : 0;
}
