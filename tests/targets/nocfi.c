/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nocfi.c - a hot loop in assembly without call frame information, as Go's
 * runtime and hand-written assembly have: nocfi_spin() has no .cfi
 * directives, so an unwinder finds no rule for its frame. A stack sampled
 * there does not reach the process entry, whatever the unwinder returns.
 *
 * Usage: nocfi [SECONDS]   (CPU seconds, default 1)
 */
#include "hot.h"

void nocfi_spin(long n);

#if defined(__x86_64__)
__asm__(".text\n"
	".globl nocfi_spin\n"
	".type nocfi_spin, @function\n"
	"nocfi_spin:\n"
	"1:	dec %rdi\n"
	"	jnz 1b\n"
	"	ret\n"
	".size nocfi_spin, .-nocfi_spin\n");
#else
#error "nocfi: no assembly loop for this architecture"
#endif

int main(int argc, char **argv)
{
	double secs = argc > 1 ? strtod(argv[1], NULL) : 1.0;

	while (hot_thread_cpu() < secs)
		nocfi_spin(1000000);
	return 0;
}
