/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * load-kernel.c - the kernel's symbols, from /proc/kallsyms (ksyms.h):
 * those read meanwhile on a thread of their own if
 * symbolizer_read_kernel started a reading, else read here.
 */
#include "config.h"

#include <errno.h>

#include "symbol/symfile-int.h"

int symfile_load_kernel(struct symbolizer *z, struct symfile *f)
{
	int n;

	if (z->kernel_reader) {
		n = ksyms_read_wait(z->kernel_reader, &f->ksyms, &z->kernel_read_cpu_ns);
		z->kernel_reader = NULL;
	} else {
		n = ksyms_read_kernel(&f->ksyms);
	}
	if (n <= 0 || f->ksyms.n == 0) {
		f->reason = REASON_KERNEL_HIDDEN;
		return -EPERM;
	}
	/* The names' pages looked up are given back like a module file's. */
	symfile_remember_region(f, f->ksyms.map, f->ksyms.names_len);
	return 0;
}
