/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * disasm.c - Capstone behind disasm.h.
 */
#include "config.h"

#include <capstone/capstone.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>

#include "elf/disasm.h"
#include "util/alloc.h"

struct disasm {
	csh cs;
	cs_insn *insn;
};

struct disasm *disasm_new(unsigned machine)
{
	cs_arch arch;
	cs_mode mode;
	struct disasm *d;

	switch (machine) {
	case EM_X86_64:
		arch = CS_ARCH_X86;
		mode = CS_MODE_64;
		break;
	case EM_386:
		arch = CS_ARCH_X86;
		mode = CS_MODE_32;
		break;
	case EM_AARCH64:
		arch = CS_ARCH_ARM64;
		mode = CS_MODE_ARM;
		break;
	default:
		return NULL;
	}
	d = xcalloc(1, sizeof(*d));
	if (cs_open(arch, mode, &d->cs) != CS_ERR_OK) {
		free(d);
		return NULL;
	}
	if (arch == CS_ARCH_X86)
		cs_option(d->cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	d->insn = cs_malloc(d->cs);
	if (!d->insn) {
		cs_close(&d->cs);
		free(d);
		return NULL;
	}
	return d;
}

void disasm_free(struct disasm *d)
{
	if (!d)
		return;
	cs_free(d->insn, 1);
	cs_close(&d->cs);
	free(d);
}

size_t disasm_one(struct disasm *d, const uint8_t *code, size_t n, uint64_t vaddr, char *buf,
		  size_t size)
{
	const uint8_t *p = code;
	uint64_t at = vaddr;
	size_t left = n;

	if (!cs_disasm_iter(d->cs, &p, &left, &at, d->insn))
		return 0;
	if (d->insn->op_str[0])
		snprintf(buf, size, "%-6s %s", d->insn->mnemonic, d->insn->op_str);
	else
		snprintf(buf, size, "%s", d->insn->mnemonic);
	return d->insn->size;
}
