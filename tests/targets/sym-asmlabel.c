/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sym-asmlabel.c - a hot loop in hand-written assembly whose symbol has
 * neither a type nor a size, as zstd's decoding loops and ld.so's _start
 * have: asm_label_loop is a bare global label, with call frame
 * information. Symbolizers name such code from the label up to the next
 * symbol; asm_label_after follows it so that the label has an end.
 *
 * Usage: sym-asmlabel [SECONDS]   (CPU seconds, default 1)
 */
#include "sym-hot.h"

void asm_label_loop(long n);
void asm_label_after(void);

#if defined(__x86_64__)
__asm__(".text\n"
	".globl asm_label_loop\n"
	"asm_label_loop:\n"
	"	.cfi_startproc\n"
	"1:	dec %rdi\n"
	"	jnz 1b\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".globl asm_label_after\n"
	".type asm_label_after, @function\n"
	"asm_label_after:\n"
	"	ret\n"
	".size asm_label_after, .-asm_label_after\n");
#else
#error "sym-asmlabel: no assembly loop for this architecture"
#endif

SYM_HOT_FN static void run_loop(double secs)
{
	while (sym_thread_cpu() < secs)
		asm_label_loop(1000000);
	asm_label_after();
}

int main(int argc, char **argv)
{
	run_loop(argc > 1 ? strtod(argv[1], NULL) : 1.0);
	return 0;
}
