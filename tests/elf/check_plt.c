/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_plt.c - NAME@plt symbols from hand-built x86-64 ELF files, written
 * with libelf into memory files: a lazy .plt with .plt.got (as GNU ld
 * lays them out without IBT), an IBT .plt with .plt.sec, GLOB_DAT slots
 * of data, an ifunc called through an IRELATIVE slot, and a file of
 * another machine.
 */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gelf.h>

#include "elf/elfread.h"
#include "elf/symtab.h"
#include "unit-helpers.h"
#include "util/array.h"

/* Addresses of the hand-built files. */
#define GOT	 0x3000 /* .got: GLOB_DAT slots */
#define GOTPLT	 0x3018 /* .got.plt: 3 reserved slots, then JUMP_SLOT ones */
#define PLT	 0x1000
#define PLTGOT	 0x1080
#define PLTSEC	 0x1100
#define TEXT	 0x5000
#define IFUNC_AT (TEXT + 0x40)

struct sec {
	const char *name;
	Elf64_Word type;
	Elf64_Xword flags, entsize;
	Elf64_Addr addr;
	Elf64_Word link; /* section index */
	Elf_Type dtype;
	const void *data;
	size_t size;
};

/* .dynsym: 1 plt_a, 2 plt_b, 3 data_c (an object), 4 fast (an ifunc defined in .text). */
static const char dynstr[] = "\0plt_a\0plt_b\0data_c\0fast\0fast_impl";
static const Elf64_Sym dynsym[] = {
	{0},
	{.st_name = 1, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC)},
	{.st_name = 7, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC)},
	{.st_name = 13, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT)},
	{.st_name = 20,
	 .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_GNU_IFUNC),
	 .st_shndx = 7,
	 .st_value = IFUNC_AT,
	 .st_size = 16},
	/* a local alias at the resolver: the global ifunc symbol ranks higher */
	{.st_name = 25,
	 .st_info = ELF64_ST_INFO(STB_LOCAL, STT_GNU_IFUNC),
	 .st_shndx = 7,
	 .st_value = IFUNC_AT,
	 .st_size = 16},
};

static const Elf64_Rela rela_plt[] = {
	{GOTPLT + 24, ELF64_R_INFO(1, R_X86_64_JUMP_SLOT), 0},
	{GOTPLT + 32, ELF64_R_INFO(2, R_X86_64_JUMP_SLOT), 0},
	{GOTPLT + 40, ELF64_R_INFO(0, R_X86_64_IRELATIVE), IFUNC_AT},
};

static const Elf64_Rela rela_dyn[] = {
	{GOT + 0, ELF64_R_INFO(2, R_X86_64_GLOB_DAT), 0},
	{GOT + 8, ELF64_R_INFO(3, R_X86_64_GLOB_DAT), 0},
};

/* Writes "jmp *SLOT(%rip)" at p, an instruction that sits at address at. */
static void put_jmp(unsigned char *p, uint64_t at, uint64_t slot)
{
	int32_t disp = (int32_t)(slot - (at + 6));

	p[0] = 0xff;
	p[1] = 0x25;
	memcpy(p + 2, &disp, 4);
}

static void put_u32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/*
 * The lazy layout: PLT0, then per JUMP_SLOT "jmp *slot; push i; jmp PLT0";
 * .plt.got entries "jmp *slot; xchg %ax,%ax".
 */
static void lazy_plt(unsigned char plt[64], unsigned char pltgot[16])
{
	memset(plt, 0x90, 64);
	plt[0] = 0xff; /* push GOTPLT+8(%rip); jmp *GOTPLT+16(%rip) */
	plt[1] = 0x35;
	put_jmp(plt + 6, PLT + 6, GOTPLT + 16);
	for (int i = 0; i < 3; i++) {
		unsigned char *e = plt + 16 * (i + 1);

		put_jmp(e, PLT + 16 * (i + 1), GOTPLT + 24 + 8 * (uint64_t)i);
		e[6] = 0x68;
		put_u32(e + 7, (uint32_t)i);
		e[11] = 0xe9;
		put_u32(e + 12, (uint32_t)(-(16 * (i + 2))));
	}
	for (int i = 0; i < 2; i++) {
		put_jmp(pltgot + 8 * i, PLTGOT + 8 * (uint64_t)i, GOT + 8 * (uint64_t)i);
		pltgot[8 * i + 6] = 0x66;
		pltgot[8 * i + 7] = 0x90;
	}
}

/*
 * The IBT layout: PLT0, then per JUMP_SLOT "endbr64; push i; bnd jmp
 * PLT0"; .plt.sec entries "endbr64; bnd jmp *slot; nop".
 */
static void ibt_plt(unsigned char plt[64], unsigned char pltsec[48])
{
	memset(plt, 0x90, 64);
	memset(pltsec, 0x90, 48);
	for (int i = 0; i < 3; i++) {
		unsigned char *e = plt + 16 * (i + 1), *s = pltsec + 16 * i;

		memcpy(e, "\xf3\x0f\x1e\xfa", 4);
		e[4] = 0x68;
		put_u32(e + 5, (uint32_t)i);
		e[9] = 0xf2;
		e[10] = 0xe9;
		memcpy(s, "\xf3\x0f\x1e\xfa\xf2", 5);
		put_jmp(s + 5, PLTSEC + 16 * (uint64_t)i + 5, GOTPLT + 24 + 8 * (uint64_t)i);
	}
}

/*
 * A memory file holding an ELF file of machine with the given sections
 * after the ones every file has (1 .dynsym, 2 .dynstr, 3 .rela.plt,
 * 4 .rela.dyn, then 5.. as given, then .text and .shstrtab). Returns the
 * descriptor.
 */
static int build_elf(Elf64_Half machine, const struct sec *extra, size_t nextra)
{
	static const unsigned char text[0x80];
	struct sec secs[16] = {
		{".dynsym", SHT_DYNSYM, SHF_ALLOC, sizeof(Elf64_Sym), 0x400, 2, ELF_T_SYM, dynsym,
		 sizeof(dynsym)},
		{".dynstr", SHT_STRTAB, SHF_ALLOC, 0, 0x600, 0, ELF_T_BYTE, dynstr, sizeof(dynstr)},
		{".rela.plt", SHT_RELA, SHF_ALLOC | SHF_INFO_LINK, sizeof(Elf64_Rela), 0x700, 1,
		 ELF_T_RELA, rela_plt, sizeof(rela_plt)},
		{".rela.dyn", SHT_RELA, SHF_ALLOC, sizeof(Elf64_Rela), 0x800, 1, ELF_T_RELA,
		 rela_dyn, sizeof(rela_dyn)},
	};
	size_t n = 4, shstrndx;
	char shstr[256] = "";
	size_t shlen = 1;
	Elf64_Word names[16];
	Elf *e;
	Elf64_Ehdr *eh;
	int fd = memfd_create("check_plt", MFD_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	for (size_t i = 0; i < nextra; i++)
		secs[n++] = extra[i];
	secs[n++] = (struct sec){".text",    SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR,
				 0,	     TEXT,	   0,
				 ELF_T_BYTE, text,	   sizeof(text)};
	shstrndx = n + 1;
	secs[n++] = (struct sec){".shstrtab", SHT_STRTAB, 0, 0, 0, 0, ELF_T_BYTE, NULL, 0};
	for (size_t i = 0; i < n; i++) {
		names[i] = (Elf64_Word)shlen;
		memcpy(shstr + shlen, secs[i].name, strlen(secs[i].name) + 1);
		shlen += strlen(secs[i].name) + 1;
	}
	secs[n - 1].data = shstr;
	secs[n - 1].size = shlen;

	e = elf_begin(fd, ELF_C_WRITE, NULL);
	ck_assert_ptr_nonnull(e);
	eh = elf64_newehdr(e);
	ck_assert_ptr_nonnull(eh);
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_type = ET_DYN;
	eh->e_machine = machine;
	eh->e_version = EV_CURRENT;
	for (size_t i = 0; i < n; i++) {
		Elf_Scn *scn = elf_newscn(e);
		Elf_Data *d = elf_newdata(scn);
		Elf64_Shdr *sh = elf64_getshdr(scn);

		d->d_buf = (void *)(uintptr_t)secs[i].data;
		d->d_size = secs[i].size;
		d->d_type = secs[i].dtype;
		d->d_align = 8;
		d->d_version = EV_CURRENT;
		sh->sh_name = names[i];
		sh->sh_type = secs[i].type;
		sh->sh_flags = secs[i].flags;
		sh->sh_addr = secs[i].addr;
		sh->sh_link = secs[i].link;
		sh->sh_entsize = secs[i].entsize;
		sh->sh_addralign = 8;
		if (secs[i].type == SHT_DYNSYM)
			sh->sh_info = 1; /* the first global symbol */
	}
	eh->e_shstrndx = (Elf64_Half)shstrndx;
	ck_assert_int_ge(elf_update(e, ELF_C_WRITE), 0);
	elf_end(e);
	return fd;
}

/* The table elf_read_plt makes of fd, finished; *added gets its result. */
static void read_plt(int fd, struct symtab *t, int *added)
{
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);

	ck_assert_ptr_nonnull(e);
	symtab_init(t);
	*added = elf_read_plt(e, t);
	symtab_finish(t);
	elf_end(e);
}

static void expect(const struct symtab *t, uint64_t addr, const char *name, uint64_t size)
{
	const struct sym *s = symtab_lookup(t, addr);

	if (!name) {
		ck_assert_msg(!s || s->addr != addr, "0x%llx is named %s", (unsigned long long)addr,
			      s ? symtab_name(t, s) : "");
		return;
	}
	ck_assert_msg(s && s->addr == addr, "no symbol at 0x%llx", (unsigned long long)addr);
	ck_assert_str_eq(symtab_name(t, s), name);
	ck_assert_uint_eq(s->size, size);
	ck_assert_uint_eq(s->rank, ELF_PLT_RANK);
}

START_TEST(test_lazy)
{
	unsigned char plt[64], pltgot[16];
	const struct sec extra[] = {
		{".plt", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 16, PLT, 0, ELF_T_BYTE, plt,
		 sizeof(plt)},
		{".plt.got", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 8, PLTGOT, 0, ELF_T_BYTE,
		 pltgot, sizeof(pltgot)},
	};
	struct symtab t;
	int fd, added;

	lazy_plt(plt, pltgot);
	fd = build_elf(EM_X86_64, extra, ARRAY_SIZE(extra));
	read_plt(fd, &t, &added);
	ck_assert_int_eq(added, 5);
	expect(&t, PLT, ".plt", 16); /* the entry that calls the lazy binder */
	expect(&t, PLT + 16, "plt_a@plt", 16);
	expect(&t, PLT + 32, "plt_b@plt", 16);
	expect(&t, PLT + 48, "fast@plt", 16); /* IRELATIVE: the ifunc's best name */
	expect(&t, PLTGOT, "plt_b@plt", 8);   /* GLOB_DAT of a function */
	expect(&t, PLTGOT + 8, NULL, 0);      /* GLOB_DAT of data */
	ck_assert_ptr_null(symtab_lookup(&t, PLTGOT + 8));
	symtab_release(&t);
	close(fd);
}
END_TEST

START_TEST(test_ibt)
{
	unsigned char plt[64], pltsec[48];
	const struct sec extra[] = {
		{".plt", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 16, PLT, 0, ELF_T_BYTE, plt,
		 sizeof(plt)},
		{".plt.sec", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 16, PLTSEC, 0, ELF_T_BYTE,
		 pltsec, sizeof(pltsec)},
	};
	struct symtab t;
	int fd, added;

	ibt_plt(plt, pltsec);
	fd = build_elf(EM_X86_64, extra, ARRAY_SIZE(extra));
	read_plt(fd, &t, &added);
	ck_assert_int_eq(added, 7);
	expect(&t, PLT, ".plt", 16);
	/* .plt's lazy entries, by the index they push */
	expect(&t, PLT + 16, "plt_a@plt", 16);
	expect(&t, PLT + 32, "plt_b@plt", 16);
	expect(&t, PLT + 48, "fast@plt", 16);
	/* .plt.sec's, by their slot */
	expect(&t, PLTSEC, "plt_a@plt", 16);
	expect(&t, PLTSEC + 16, "plt_b@plt", 16);
	expect(&t, PLTSEC + 32, "fast@plt", 16);
	symtab_release(&t);
	close(fd);
}
END_TEST

START_TEST(test_other_machine)
{
	unsigned char plt[64], pltgot[16];
	const struct sec extra[] = {
		{".plt", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 16, PLT, 0, ELF_T_BYTE, plt,
		 sizeof(plt)},
		{".plt.got", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 8, PLTGOT, 0, ELF_T_BYTE,
		 pltgot, sizeof(pltgot)},
	};
	struct symtab t;
	int fd, added;

	lazy_plt(plt, pltgot);
	fd = build_elf(EM_AARCH64, extra, ARRAY_SIZE(extra));
	read_plt(fd, &t, &added);
	ck_assert_int_eq(added, 0);
	ck_assert_uint_eq(t.n, 0);
	symtab_release(&t);
	close(fd);
}
END_TEST

START_TEST(test_garbage_entries)
{
	/* Entries of no known form, and slots no relocation names: no symbol. */
	unsigned char plt[64], pltgot[16];
	const struct sec extra[] = {
		{".plt", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 16, PLT, 0, ELF_T_BYTE, plt,
		 sizeof(plt)},
		{".plt.got", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 8, PLTGOT, 0, ELF_T_BYTE,
		 pltgot, sizeof(pltgot)},
	};
	struct symtab t;
	int fd, added;

	lazy_plt(plt, pltgot);
	memset(plt + 16, 0xcc, 16);	       /* int3 */
	put_jmp(plt + 32, PLT + 32, 0x9000);   /* a slot without relocation */
	put_jmp(pltgot, PLTGOT, 0xfffffffff0); /* far away */
	fd = build_elf(EM_X86_64, extra, ARRAY_SIZE(extra));
	read_plt(fd, &t, &added);
	ck_assert_int_eq(added, 2);
	expect(&t, PLT + 48, "fast@plt", 16);
	symtab_release(&t);
	close(fd);
}
END_TEST

START_TEST(test_real_file)
{
	/* This test program itself: whatever its PLT holds, no entry is unnamed or misplaced. */
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	struct symtab t;
	int added;

	ck_assert_int_ge(fd, 0);
	read_plt(fd, &t, &added);
	ck_assert_int_ge(added, 1); /* it calls libc through its PLT */
	for (size_t i = 0; i < t.n; i++) {
		const char *name = symtab_name(&t, &t.syms[i]);
		size_t len = strlen(name);

		if (!strcmp(name, ".plt"))
			continue;
		ck_assert_uint_gt(len, 4);
		ck_assert_str_eq(name + len - 4, "@plt");
		ck_assert(t.syms[i].size == 8 || t.syms[i].size == 16);
	}
	symtab_release(&t);
	close(fd);
}
END_TEST

static Suite *plt_suite(void)
{
	Suite *s = suite_create("plt");
	TCase *tc = tcase_create("plt");

	elf_version(EV_CURRENT);
	tcase_add_test(tc, test_lazy);
	tcase_add_test(tc, test_ibt);
	tcase_add_test(tc, test_other_machine);
	tcase_add_test(tc, test_garbage_entries);
	tcase_add_test(tc, test_real_file);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(plt_suite());
}
