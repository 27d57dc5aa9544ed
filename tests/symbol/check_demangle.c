/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_demangle.c - C++, legacy Rust and v0 Rust names through
 * libiberty's demanglers, with the options perfmini picks, and the
 * clone suffixes that demangle_base_len drops.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "symbol/demangle.h"
#include "unit-helpers.h"
#include "util/array.h"

static void check_demangle(const char *mangled, const char *want)
{
	char *got = demangle(mangled);

	if (!want) {
		ck_assert_msg(!got, "%s demangled to %s", mangled, got);
		return;
	}
	ck_assert_msg(got && !strcmp(got, want), "%s: got %s, want %s", mangled, got ? got : "NULL",
		      want);
	free(got);
}

START_TEST(test_cxx)
{
	check_demangle("_ZN2ns6WorkerIiE3hotEi", "ns::Worker<int>::hot(int)");
	check_demangle("_ZN12_GLOBAL__N_16Engine4stepEm",
		       "(anonymous namespace)::Engine::step(unsigned long)");
	check_demangle("_ZZ4mainENKUlmE_clEm",
		       "main::{lambda(unsigned long)#1}::operator()(unsigned long) const");
	check_demangle("_ZZ4mainENKUlmE0_clEm",
		       "main::{lambda(unsigned long)#2}::operator()(unsigned long) const");
	check_demangle("_ZNKSt6vectorIiSaIiEE4sizeEv",
		       "std::vector<int, std::allocator<int> >::size() const");
	check_demangle("_ZL6helperPKc", "helper(char const*)");
	check_demangle("_Z3fooi.constprop.0", "foo(int) [clone .constprop.0]");
	check_demangle("_Z3fooi.cold", "foo(int) [clone .cold]");
	check_demangle("_Znwm", "operator new(unsigned long)");
}
END_TEST

START_TEST(test_rust_legacy)
{
	/* The hash goes, the escapes are read, and so is an LLVM suffix. */
	check_demangle("_ZN8sym_rust6module13Type$LT$T$GT$3hot17hff8dce564be7df4aE",
		       "sym_rust::module::Type<T>::hot");
	check_demangle("_ZN8sym_rust4main28_$u7b$$u7b$closure$u7d$$u7d$17hb334095e0f5f4950E",
		       "sym_rust::main::{{closure}}");
	check_demangle("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$"
		       "17he006507bba65ec4fE.llvm.13753302772062189803",
		       "std::rt::lang_start::{{closure}}");
	check_demangle("_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$.."
		       "$u7b$$u7b$closure$u7d$$u7d$$GT$17h6b6dfb86daa88281E",
		       "core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>");
}
END_TEST

START_TEST(test_rust_v0)
{
	/* A method of a generic type in a module, instantiated for u32. */
	check_demangle("_RNvMNtCsi7GFBnvyxwE_1r6moduleINtB2_4TypemE3hotB4_",
		       "<r::module::Type<u32>>::hot");
	/* A generic function instantiated with a closure. */
	check_demangle("_RINvCsjWuZ2HiPqgj_8sym_rust5applyNCNvB2_4main0EB2_",
		       "sym_rust::apply::<sym_rust::main::{closure#0}>");
	/* A closure of a generic function, with an LLVM suffix. */
	check_demangle("_RNCINvNtCsdyIG5SqMl5y_3std2rt10lang_startuE0CsjWuZ2HiPqgj_8sym_rust"
		       ".llvm.18359473083876284575",
		       "std::rt::lang_start::<()>::{closure#0}");
	check_demangle("_RNvCsjWuZ2HiPqgj_8sym_rust4main", "sym_rust::main");
}
END_TEST

START_TEST(test_not_mangled)
{
	check_demangle("main", NULL);
	check_demangle("__strcoll_l", NULL);
	check_demangle("_init", NULL);
	check_demangle("_R", NULL);
	check_demangle("_Z", NULL);
	check_demangle("", NULL);
	check_demangle("_ZN3fooE@plt", NULL);
}
END_TEST

START_TEST(test_base_len)
{
	static const struct {
		const char *name;
		size_t len;
	} cases[] = {
		{"foo", 3},
		{"foo.constprop.0", 3},
		{"foo.part.0.isra.0", 3},
		{"foo.cold", 3},
		{"_Z3fooi.isra.0", 7},
		{"_ZN1r4main17h0123456789abcdefE.llvm.123", 30},
		/* a legacy Rust name spells :: in generics as .. */
		{"_ZN4core3ptr13drop_in_place$LT$std..rt..X$GT$17h0123456789abcdefE", 65},
		{".hidden", 7},
		{"", 0},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		ck_assert_msg(demangle_base_len(cases[i].name) == cases[i].len, "%s: %zu, want %zu",
			      cases[i].name, demangle_base_len(cases[i].name), cases[i].len);
}
END_TEST

START_TEST(test_function)
{
	static const char *const cases[][2] = {
		{"_ZZ4mainENKUlmE_clEm.constprop.0",
		 "main::{lambda(unsigned long)#1}::operator()(unsigned long) const"},
		{"foo.cold", "foo"},
		{"__strcoll_l", "__strcoll_l"},
		{"_ZN8sym_rust4main17h0123456789abcdefE.llvm.1", "sym_rust::main"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *got = demangle_function(cases[i][0]);

		ck_assert_str_eq(got, cases[i][1]);
		free(got);
	}
}
END_TEST

static Suite *demangle_suite(void)
{
	Suite *s = suite_create("demangle");
	TCase *tc = tcase_create("demangle");

	tcase_add_test(tc, test_cxx);
	tcase_add_test(tc, test_rust_legacy);
	tcase_add_test(tc, test_rust_v0);
	tcase_add_test(tc, test_not_mangled);
	tcase_add_test(tc, test_base_len);
	tcase_add_test(tc, test_function);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(demangle_suite());
}
