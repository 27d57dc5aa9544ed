/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_dwname.c - full C++ names built from DWARF (symbol/dwname.c,
 * template arguments included), on tests/targets/dwname-names, built
 * unoptimized by make check: every function DWARF gives no linkage name is
 * named as the demangler names its symbol (the symbol at the function's
 * entry), each of the shapes the fixture holds is among them, the inlined
 * member too; a function with a linkage name is left to the demangler.
 * And, white-box (dwname-int.h), where a name's template arguments begin
 * and GCC's spelling of the builtin types respelled.
 */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include "symbol/demangle.h"
#include "symbol/dwname-int.h" /* white-box: dwn_template_args, dwn_add_name */
#include "symbol/dwname.h"
#include "unit-helpers.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/msg.h"
#include "util/sbuf.h"

#ifndef DWNAME_FIXTURE
#error "DWNAME_FIXTURE: the path of tests/targets/dwname-names"
#endif

/* The names the fixture's functions must get, whatever their order in DWARF. */
static const char *const expected[] = {
	"(anonymous namespace)::Engine::Engine(unsigned long)",
	"(anonymous namespace)::Engine::step(unsigned long)",
	"(anonymous namespace)::Engine::mix(unsigned long) const",
	"(anonymous namespace)::Engine::poke(int (*)(int), char const*) volatile",
	"(anonymous namespace)::Engine::fold(int) const", /* inlined only */
	"(anonymous namespace)::Klass<int>::method(int)",
	"(anonymous namespace)::Klass<unsigned long>::method(unsigned long)",
	"(anonymous namespace)::Klass<int>::both(int const&, int&&) const",
	"(anonymous namespace)::Box<(anonymous namespace)::Klass<int> >::size() const",
	"int (anonymous namespace)::pick<3, true>(long)",
	"(anonymous namespace)::twice(int)",
	"ns::(anonymous namespace)::Inner::get(short, unsigned short, long long)",
	"helper(signed char, unsigned char, double)",
	"c_entry",
	"main",
	"main::{lambda(int)#1}::operator()(int) const",
	"main::{lambda(unsigned long, char const*)#2}::operator()(unsigned long, char const*) "
	"const",
	"main::{lambda(double)#3}::operator()(double) const",
};

/* A function symbol of the fixture. */
struct fsym {
	uint64_t addr;
	char *name;
};

struct walk {
	struct dwname *names;
	struct fsym *syms;
	size_t nsyms, syms_cap;
	bool found[ARRAY_SIZE(expected)];
	int compared;	     /* out-of-line functions checked against their symbol */
	int inlined;	     /* inlined instances named */
	int linkage_skipped; /* DIEs with a linkage name, given no name */
};

/* The fixture's function symbols from its .symtab. */
static void read_symbols(Elf *elf, struct walk *w)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		ck_assert_ptr_nonnull(data);
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_value)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			xgrow(&w->syms, &w->syms_cap, w->nsyms + 1, sizeof(*w->syms));
			w->syms[w->nsyms].addr = sym.st_value;
			w->syms[w->nsyms].name = demangle(name);
			if (!w->syms[w->nsyms].name)
				w->syms[w->nsyms].name = xstrdup(name);
			w->nsyms++;
		}
	}
	ck_assert_uint_gt(w->nsyms, 0);
}

static void mark_found(struct walk *w, const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(expected); i++)
		if (!strcmp(name, expected[i]))
			w->found[i] = true;
}

static bool has_linkage_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	       dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr);
}

/* Checks the name of one function DIE: a definition, or an inlined instance. */
static void check_function(struct walk *w, Dwarf_Die *die)
{
	int tag = dwarf_tag(die);
	Dwarf_Addr entry;
	char *name;
	bool matched = false;

	if (tag == DW_TAG_subprogram && dwarf_lowpc(die, &entry) != 0)
		return; /* a declaration or an abstract instance */
	name = dwname_function(w->names, die);
	if (has_linkage_name(die)) {
		ck_assert_msg(name == NULL, "%s: has a linkage name, given '%s'",
			      dwarf_diename(die), name);
		w->linkage_skipped++;
		return;
	}
	ck_assert_msg(name != NULL, "no name built for %s at DIE %#llx", dwarf_diename(die),
		      (unsigned long long)dwarf_dieoffset(die));
	mark_found(w, name);
	if (tag == DW_TAG_inlined_subroutine) {
		w->inlined++;
		free(name);
		return;
	}
	for (size_t i = 0; i < w->nsyms; i++) {
		if (w->syms[i].addr != entry)
			continue;
		ck_assert_msg(!strcmp(name, w->syms[i].name), "built '%s', the symbol says '%s'",
			      name, w->syms[i].name);
		matched = true;
	}
	ck_assert_msg(matched, "no symbol at %#llx for '%s'", (unsigned long long)entry, name);
	w->compared++;
	free(name);
}

static void walk_dies(struct walk *w, Dwarf_Die *parent, int depth)
{
	Dwarf_Die child;

	ck_assert_int_lt(depth, 64);
	if (dwarf_child(parent, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
			check_function(w, &child);
		walk_dies(w, &child, depth + 1);
	} while (dwarf_siblingof(&child, &child) == 0);
}

START_TEST(test_fixture_names)
{
	int fd = open(DWNAME_FIXTURE, O_RDONLY | O_CLOEXEC);
	struct walk w = {0};
	Dwarf_Off off = 0, next;
	size_t header;
	Elf *elf;
	Dwarf *dw;
	int units = 0;

	ck_assert_msg(fd >= 0, "cannot open %s", DWNAME_FIXTURE);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(elf);
	read_symbols(elf, &w);
	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	ck_assert_ptr_nonnull(dw);
	w.names = dwname_new();
	while (dwarf_nextcu(dw, off, &next, &header, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		const char *file;

		ck_assert_ptr_nonnull(dwarf_offdie(dw, off + header, &cu));
		file = dwarf_diename(&cu);
		/* Only the fixture's own unit: the C start files may have DWARF too. */
		if (file && strstr(file, "dwname-names.cc")) {
			units++;
			walk_dies(&w, &cu, 0);
		}
		off = next;
	}
	ck_assert_int_eq(units, 1);
	for (size_t i = 0; i < ARRAY_SIZE(expected); i++)
		ck_assert_msg(w.found[i], "no function named '%s'", expected[i]);
	ck_assert_int_ge(w.compared, (int)ARRAY_SIZE(expected) - 1);
	ck_assert_int_ge(w.inlined, 1);
	ck_assert_int_ge(w.linkage_skipped, 1); /* pub::api(int) */

	dwname_free(w.names);
	dwname_free(NULL);
	for (size_t i = 0; i < w.nsyms; i++)
		free(w.syms[i].name);
	free(w.syms);
	dwarf_end(dw);
	elf_end(elf);
	close(fd);
}
END_TEST

/* Where the template arguments of a DW_AT_name begin, operators' own '<' aside. */
START_TEST(test_template_args)
{
	static const struct {
		const char *name;
		const char *args; /* NULL: none */
	} cases[] = {
		{"Klass<int>", "<int>"},
		{"step", NULL},
		{"pick<3, true>", "<3, true>"},
		{"operator<< <char>", "<char>"},
		{"operator<<", NULL},
		{"operator<", NULL},
		{"operator<=><int>", "<int>"},
		{"operator< <int>", "<int>"},
		{"operator()<int>", "<int>"},
		{"operator[]", NULL},
		{"operator new", NULL},
		{"operator int", NULL},
		{"operator_less<int>", "<int>"},
		{"operator->*", NULL},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *got = dwn_template_args(cases[i].name);

		if (!cases[i].args)
			ck_assert_msg(got == NULL, "%s: args at '%s'", cases[i].name, got);
		else
			ck_assert_msg(got && !strcmp(got, cases[i].args), "%s: '%s', want '%s'",
				      cases[i].name, got ? got : "(none)", cases[i].args);
	}
}
END_TEST

/* GCC's builtin type names respelled as the demangler writes them, and only those. */
START_TEST(test_add_name)
{
	static const struct {
		const char *name, *want;
	} cases[] = {
		{"W<long unsigned int>", "W<unsigned long>"},
		{"pair<long int, short unsigned int*>", "pair<long, unsigned short*>"},
		{"F<void (long long int)>", "F<void (long long)>"},
		{"G<long long unsigned int&>", "G<unsigned long long&>"},
		{"H<__int128 unsigned>", "H<unsigned __int128>"},
		{"X<mylong int>", "X<mylong int>"},
		{"long int", "long"},
		{"Y<long intx>", "Y<long intx>"},
		{"plain", "plain"},
	};
	struct sbuf b = SBUF_INIT;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		sbuf_reset(&b);
		dwn_add_name(&b, cases[i].name);
		ck_assert_str_eq(b.buf, cases[i].want);
	}
	sbuf_release(&b);
}
END_TEST

static Suite *dwname_suite(void)
{
	Suite *s = suite_create("dwname");
	TCase *tc = tcase_create("dwname");

	tcase_add_test(tc, test_fixture_names);
	tcase_add_test(tc, test_template_args);
	tcase_add_test(tc, test_add_name);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(dwname_suite());
}
