/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-dwarf.c - libFuzzer harness for the walk of a unit's DWARF: the
 * input is the debug information itself, put into a small ELF file made
 * around it (a header, one executable segment of code at 0x1000, and the
 * sections .debug_abbrev, .debug_info and .debug_str), which is pinned as
 * a module, loaded, and asked for the function levels (srcline.c: the
 * unit index, the scope walk, the inline chain) of a few addresses.
 *
 * Input: u32 abbrev size, u32 info size (little-endian), the
 * .debug_abbrev bytes, the .debug_info bytes, and the rest as .debug_str.
 * Sizes past the end are cut to what there is.
 *
 * Contract checked: nothing crashes, leaks, reads out of bounds or runs
 * long; a result has at most SRCLINE_MAX_DEPTH levels.
 */
#include "config.h"

#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-util.h"
#include "model/module.h"
#include "symbol/symbolize.h"
#include "util/alloc.h"
#include "util/bytes.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TEXT_ADDR 0x1000
#define TEXT_SIZE 0x100

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_file_init("fuzz-dwarf");
	return 0;
}

struct image {
	unsigned char *buf;
	size_t len, cap;
};

static size_t append(struct image *im, const void *p, size_t n, size_t align)
{
	size_t at;

	while (im->len % align)
		im->len++;
	xgrow(&im->buf, &im->cap, im->len + n, 1);
	at = im->len;
	memcpy(im->buf + at, p, n);
	im->len += n;
	return at;
}

/*
 * An ELF file of code and the three debug sections: the header, its
 * program header, the code, the sections, their names, the section table.
 */
static struct image make_elf(const uint8_t *abbrev, size_t na, const uint8_t *info, size_t ni,
			     const uint8_t *str, size_t ns)
{
	static const char names[] = "\0.text\0.debug_abbrev\0.debug_info\0.debug_str\0.shstrtab";
	const struct {
		const char *name;
		const uint8_t *data;
		size_t n;
	} debug[] = {
		{".debug_abbrev", abbrev, na}, {".debug_info", info, ni}, {".debug_str", str, ns}};
	struct image im = {0};
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	Elf64_Shdr sh[6];
	unsigned char code[TEXT_SIZE];
	size_t text, at[3], strs, shoff;

	memset(&eh, 0, sizeof(eh));
	memset(&ph, 0, sizeof(ph));
	memset(sh, 0, sizeof(sh));
	memset(code, 0x90, sizeof(code));
	append(&im, &eh, sizeof(eh), 1);
	append(&im, &ph, sizeof(ph), 1);
	text = append(&im, code, sizeof(code), 16);
	for (int i = 0; i < 3; i++)
		at[i] = append(&im, debug[i].data, debug[i].n, 1);
	strs = append(&im, names, sizeof(names), 1);

	sh[1] = (Elf64_Shdr){.sh_name = 1,
			     .sh_type = SHT_PROGBITS,
			     .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
			     .sh_addr = TEXT_ADDR,
			     .sh_offset = text,
			     .sh_size = TEXT_SIZE,
			     .sh_addralign = 16};
	for (int i = 0; i < 3; i++)
		sh[2 + i] = (Elf64_Shdr){
			.sh_name = (Elf64_Word)(strstr(names + 1, debug[i].name) - names),
			.sh_type = SHT_PROGBITS,
			.sh_offset = at[i],
			.sh_size = debug[i].n,
			.sh_addralign = 1};
	sh[5] = (Elf64_Shdr){.sh_name = (Elf64_Word)(strstr(names + 1, ".shstrtab") - names),
			     .sh_type = SHT_STRTAB,
			     .sh_offset = strs,
			     .sh_size = sizeof(names),
			     .sh_addralign = 1};
	shoff = append(&im, sh, sizeof(sh), 8);

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_entry = TEXT_ADDR;
	eh.e_phoff = sizeof(eh);
	eh.e_shoff = shoff;
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = 1;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 6;
	eh.e_shstrndx = 5;
	memcpy(im.buf, &eh, sizeof(eh));
	ph.p_type = PT_LOAD;
	ph.p_flags = PF_R | PF_X;
	ph.p_offset = text;
	ph.p_vaddr = ph.p_paddr = TEXT_ADDR;
	ph.p_filesz = ph.p_memsz = TEXT_SIZE;
	ph.p_align = 16;
	memcpy(im.buf + sizeof(eh), &ph, sizeof(ph));
	return im;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t na, ni;
	struct module_set s;
	struct symbolizer *z;
	struct module *m;
	struct image im;

	if (size < 8)
		return 0;
	na = load_u32(data);
	ni = load_u32(data + 4);
	data += 8;
	size -= 8;
	if (na > size)
		na = size;
	if (ni > size - na)
		ni = size - na;
	im = make_elf(data, na, data + na, ni, data + na + ni, size - na - ni);
	fuzz_file_write(im.buf, im.len);
	free(im.buf);
	module_set_init(&s);
	z = symbolizer_new(&s, false);
	m = fuzz_file_module(&s);
	for (uint64_t a = TEXT_ADDR; a < TEXT_ADDR + TEXT_SIZE; a += TEXT_SIZE / 8)
		fuzz_lookup(z, m, a, true);
	symbolizer_free(z);
	module_set_release(&s);
	return 0;
}
