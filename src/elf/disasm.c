/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * disasm.c - Capstone behind disasm.h.
 *
 * The library is loaded when first needed (dlopen), not linked: its
 * relocations cost every perfmini command about a millisecond at its
 * start, a record -- true's fixed cost half again, for the one report
 * option that disassembles.
 */
#include "config.h"

#include <dlfcn.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>

#include <capstone/capstone.h>

#include "elf/disasm.h"
#include "util/alloc.h"

struct disasm {
	csh cs;
	cs_insn *insn;
};

/* Capstone's functions, once loaded. */
static struct {
	bool tried, ok;
	cs_err (*open)(cs_arch, cs_mode, csh *);
	cs_err (*option)(csh, cs_opt_type, size_t);
	cs_insn *(*malloc)(csh);
	bool (*disasm_iter)(csh, const uint8_t **, size_t *, uint64_t *, cs_insn *);
	void (*free)(cs_insn *, size_t);
	cs_err (*close)(csh *);
} cs;

/* Loads Capstone (its Debian soname first); whether it could be. */
static bool load_capstone(void)
{
	static const char *const names[] = {"libcapstone.so.4", "libcapstone.so.5",
					    "libcapstone.so"};
	void *h = NULL;

	if (cs.tried)
		return cs.ok;
	cs.tried = true;
	for (size_t i = 0; !h && i < sizeof(names) / sizeof(names[0]); i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return false;
	*(void **)&cs.open = dlsym(h, "cs_open");
	*(void **)&cs.option = dlsym(h, "cs_option");
	*(void **)&cs.malloc = dlsym(h, "cs_malloc");
	*(void **)&cs.disasm_iter = dlsym(h, "cs_disasm_iter");
	*(void **)&cs.free = dlsym(h, "cs_free");
	*(void **)&cs.close = dlsym(h, "cs_close");
	cs.ok = cs.open && cs.option && cs.malloc && cs.disasm_iter && cs.free && cs.close;
	return cs.ok;
}

bool disasm_available(void)
{
	return load_capstone();
}

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
	if (!load_capstone())
		return NULL;
	d = xcalloc(1, sizeof(*d));
	if (cs.open(arch, mode, &d->cs) != CS_ERR_OK) {
		free(d);
		return NULL;
	}
	if (arch == CS_ARCH_X86)
		cs.option(d->cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	d->insn = cs.malloc(d->cs);
	if (!d->insn) {
		cs.close(&d->cs);
		free(d);
		return NULL;
	}
	return d;
}

void disasm_free(struct disasm *d)
{
	if (!d)
		return;
	cs.free(d->insn, 1);
	cs.close(&d->cs);
	free(d);
}

size_t disasm_one(struct disasm *d, const uint8_t *code, size_t n, uint64_t vaddr, char *buf,
		  size_t size)
{
	const uint8_t *p = code;
	uint64_t at = vaddr;
	size_t left = n;

	if (!cs.disasm_iter(d->cs, &p, &left, &at, d->insn))
		return 0;
	if (d->insn->op_str[0])
		snprintf(buf, size, "%-6s %s", d->insn->mnemonic, d->insn->op_str);
	else
		snprintf(buf, size, "%s", d->insn->mnemonic);
	return d->insn->size;
}
