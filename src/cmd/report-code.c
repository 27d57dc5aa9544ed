/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report-code.c - see report-code.h.
 *
 * The module is the file at its recorded path, and must be the file
 * recorded: its build-id is compared with the one the data file holds.
 * The function runs from its start (a frame's address less its offset
 * into its symbol) for as long as the symbolizer names the instructions
 * after it, within its executable segment and at most MAX_BYTES.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gelf.h>

#include "cmd/recorded.h"
#include "cmd/report-code.h"
#include "elf/disasm.h"
#include "elf/elfread.h"
#include "symbol/symbolize.h"
#include "util/alloc.h"

#define MAX_BYTES (256 * 1024)

/*
 * The function's bytes: from file offset start to the end of its
 * executable segment, at most MAX_BYTES, into *code; its ELF address
 * into *vaddr. The count, or 0 with why.
 */
static size_t read_code(Elf *e, int fd, uint64_t start, uint8_t **code, uint64_t *vaddr,
			struct sbuf *why)
{
	struct load_seg *segs = NULL;
	int n = elf_read_segments(e, &segs);
	size_t len = 0;
	ssize_t got;

	for (int i = 0; i < n; i++)
		if ((segs[i].flags & PF_X) && start >= segs[i].offset &&
		    start - segs[i].offset < segs[i].filesz) {
			len = segs[i].offset + segs[i].filesz - start;
			*vaddr = segs[i].vaddr + (start - segs[i].offset);
		}
	free(segs);
	if (!len) {
		sbuf_addf(why, "offset 0x%llx is in no executable segment of the file",
			  (unsigned long long)start);
		return 0;
	}
	len = len < MAX_BYTES ? len : MAX_BYTES;
	*code = xmalloc(len);
	got = pread(fd, *code, len, (off_t)start);
	if (got <= 0) {
		sbuf_addf(why, "cannot read the file: %s",
			  got < 0 ? strerror(errno) : "it is short");
		free(*code);
		*code = NULL;
		return 0;
	}
	return (size_t)got;
}

/* The outermost function that symbolization names at file offset off, into r. */
static const char *outer_name(struct report_code *c, struct module *m, uint64_t off,
			      struct symres *r)
{
	if (!symbolize_addr(c->syms, m, off, false, r) || !r->n)
		return NULL;
	return r->lv[r->n - 1].func;
}

/* The instructions from code[0, len) while they are func's. */
static void decode(struct report_code *c, struct module *m, struct disasm *d, const uint8_t *code,
		   size_t len, uint64_t start, uint64_t vaddr, const char *func,
		   struct annotate_insn **insns, size_t *n)
{
	size_t cap = 0, size;
	char text[160];

	for (size_t at = 0; at < len; at += size) {
		struct symres r;
		const char *name = outer_name(c, m, start + at, &r);
		struct annotate_insn *in;

		size = disasm_one(d, code + at, len - at, vaddr + at, text, sizeof(text));
		if (!size || (at && (!name || strcmp(name, func)))) {
			symres_release(&r);
			break;
		}
		xgrow(insns, &cap, *n + 1, sizeof(**insns));
		in = &(*insns)[(*n)++];
		*in = (struct annotate_insn){.off = start + at, .vaddr = vaddr + at};
		in->text = xstrdup(text);
		if (name && r.lv[0].file) {
			in->file = xstrdup(r.lv[0].file);
			in->line = r.lv[0].line;
		}
		symres_release(&r);
	}
}

static int disasm_function(void *arg, const char *path, const char *build_id, uint32_t owner,
			   uint64_t start, const char *func, struct annotate_insn **insns,
			   size_t *n, struct sbuf *why)
{
	struct report_code *c = arg;
	struct module *m = recorded_open(&c->mods, path, build_id, owner, why);
	struct disasm *d = NULL;
	uint8_t *code = NULL;
	uint64_t vaddr = 0;
	size_t len;
	GElf_Ehdr eh;
	Elf *e;

	*insns = NULL;
	*n = 0;
	if (!m)
		return -1;
	e = elf_begin(m->fd, ELF_C_READ, NULL);
	if (!e || !gelf_getehdr(e, &eh))
		sbuf_addf(why, "%s is not an ELF file", path);
	else if (!recorded_same_build(e, build_id))
		sbuf_addf(why, "%s is not the file recorded: its build-id differs", path);
	else if (!disasm_available())
		sbuf_adds(why, "Capstone's library cannot be loaded: install libcapstone4");
	else if (!(d = disasm_new(eh.e_machine)))
		sbuf_addf(why, "no disassembler for %s's machine (%u)", path, eh.e_machine);
	else if ((len = read_code(e, m->fd, start, &code, &vaddr, why)))
		decode(c, m, d, code, len, start, vaddr, func, insns, n);
	disasm_free(d);
	free(code);
	if (e)
		elf_end(e);
	if (!*n && !why->len)
		sbuf_addf(why, "no instruction decoded at offset 0x%llx of %s",
			  (unsigned long long)start, path);
	return *n ? 0 : -1;
}

void report_code_init(struct report_code *c)
{
	memset(c, 0, sizeof(*c));
	elf_version(EV_CURRENT);
	module_set_init(&c->mods);
	c->syms = symbolizer_new(&c->mods, false);
	c->code.disasm = disasm_function;
	c->code.arg = c;
}

void report_code_release(struct report_code *c)
{
	symbolizer_free(c->syms);
	module_set_release(&c->mods);
}
