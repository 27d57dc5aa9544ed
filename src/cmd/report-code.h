/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report-code.h - --asm's disassembler for report (report.h's
 * annotate_code): a recorded module's function read from its file,
 * disassembled (elf/disasm.h) and each instruction given its source line
 * by the symbolizer that names recordings.
 */
#ifndef PERFMINI_REPORT_CODE_H
#define PERFMINI_REPORT_CODE_H

#include "model/module.h"
#include "report/report.h"
#include "symbol/symfile.h"

struct report_code {
	struct annotate_code code; /* what report_opts.code points at */
	struct module_set mods;
	struct symbolizer *syms;
};

void report_code_init(struct report_code *c);
void report_code_release(struct report_code *c);

#endif
