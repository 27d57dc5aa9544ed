/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_folded.c - the folded format on a hand-built profile, compared
 * with the exact expected text (DESIGN.md section 3).
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "store/profile.h"
#include "unit-helpers.h"
#include "util/sbuf.h"
#include "util/utf8.h"

static void add_line(struct profile *p, uint32_t f, const char *func, uint32_t flags)
{
	struct pm_line l = {
		.func = strtab_add(&p->str, func),
		.file = strtab_add(&p->str, "x.c"),
		.line = 1,
		.flags = flags,
	};

	profile_add_line(p, f, &l);
}

static const struct name_opts no_opts;

static void add_samples(struct profile *p, const char *comm, uint32_t stack, int n)
{
	struct pm_sample s = {.pid = 1, .tid = 1, .stack = stack};

	s.comm = strtab_add(&p->str, comm);
	for (int i = 0; i < n; i++) {
		s.time = (uint64_t)i;
		profile_add_sample(p, &s);
	}
}

static uint32_t stack_of(struct profile *p, const uint32_t *frames, uint32_t depth)
{
	return profile_intern_stack(p, frames, depth);
}

/*
 * The profile: an application with main -> work (which has two levels
 * inlined into it), a call into an unresolved library, the vdso, an
 * address in no mapping, kernel frames resolved and not, a function name
 * with ';' and a newline in it, and two frames of main that print alike.
 */
static struct profile *make_profile(void)
{
	struct profile *p = profile_new();
	uint32_t app = profile_add_module(p, "/usr/bin/app", "", 0);
	uint32_t lib = profile_add_module(p, "/usr/lib/x86_64-linux-gnu/libfoo.so", "", 0);
	uint32_t kern = profile_add_module(p, "[kernel.kallsyms]", "", PM_MODULE_KERNEL);
	uint32_t vdso = profile_add_module(p, "[vdso]", "", PM_MODULE_VDSO);
	uint32_t fmain, fmain2, fwork, flib, fvdso, fnone, fkleaf, fkentry, fkunres, fweird, fempty;

	fmain = profile_intern_frame(p, app, 0, 0x1000);
	add_line(p, fmain, "main", 0);
	fmain2 = profile_intern_frame(p, app, 0, 0x1010);
	add_line(p, fmain2, "main", 0);
	fwork = profile_intern_frame(p, app, 0, 0x2000);
	add_line(p, fwork, "leaf_inl", PM_LINE_INLINED); /* innermost first */
	add_line(p, fwork, "mid_inl", PM_LINE_INLINED);
	add_line(p, fwork, "work", 0);
	flib = profile_intern_frame(p, lib, 0, 0x1a2b);
	fvdso = profile_intern_frame(p, vdso, 0, 0x950);
	fnone = profile_intern_frame(p, PM_NONE, 0, 0x7f0012345678ULL);
	fkleaf = profile_intern_frame(p, kern, PM_FRAME_KERNEL, 0xffffffff81001000ULL);
	add_line(p, fkleaf, "clear_page_erms", 0);
	fkentry = profile_intern_frame(p, kern, PM_FRAME_KERNEL, 0xffffffff81c00000ULL);
	add_line(p, fkentry, "entry_SYSCALL_64", 0);
	fkunres = profile_intern_frame(p, kern, PM_FRAME_KERNEL, 0xffffffff81234567ULL);
	fweird = profile_intern_frame(p, app, 0, 0x3000);
	add_line(p, fweird, "operator;weird\nname", 0);
	fempty = profile_intern_frame(p, app, 0, 0x4000);
	add_line(p, fempty, "", 0);

	add_samples(p, "app", stack_of(p, (uint32_t[]){fmain}, 1), 2);
	add_samples(p, "app", stack_of(p, (uint32_t[]){fmain2}, 1), 1);
	add_samples(p, "app", stack_of(p, (uint32_t[]){fwork, fmain}, 2), 3);
	add_samples(p, "app", stack_of(p, (uint32_t[]){fkleaf, fkentry, fwork, fmain}, 4), 2);
	add_samples(p, "app", stack_of(p, (uint32_t[]){flib, fmain}, 2), 1);
	add_samples(p, "app", stack_of(p, (uint32_t[]){fvdso, fnone, fmain}, 3), 1);
	add_samples(p, "app", stack_of(p, (uint32_t[]){fweird, fempty, fmain}, 3), 1);
	add_samples(p, "app", stack_of(p, (uint32_t[]){fkunres, fmain}, 2), 1);
	add_samples(p, "worker", stack_of(p, (uint32_t[]){fwork, fmain}, 2), 4);
	add_samples(p, "we;ird", stack_of(p, (uint32_t[]){flib, fmain}, 2), 1);
	return p;
}

/* The folded format's whole output as a string (free it). */
static char *folded_with(const struct profile *p, bool no_kernel, const struct name_opts *names)
{
	struct report_opts o = {.input = "test.data", .no_kernel = no_kernel, .names = *names};
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(report_write(report_format_find("folded"), p, &o, out), 0);
	fclose(out);
	ck_assert_uint_eq(strlen(text), len);
	return text;
}

static char *folded(const struct profile *p, bool no_kernel)
{
	return folded_with(p, no_kernel, &no_opts);
}

/*
 * A frame with two levels inlined into it, each level with its own place:
 * the innermost at the sampled line, the outer ones at their call sites.
 */
static struct profile *make_lines_profile(void)
{
	struct profile *p = profile_new();
	uint32_t app = profile_add_module(p, "/usr/bin/app", "", 0);
	uint32_t fmain = profile_intern_frame(p, app, 0, 0x1000);
	uint32_t fwork = profile_intern_frame(p, app, 0, 0x2000);
	uint32_t fnofile = profile_intern_frame(p, app, 0, 0x3000);
	struct pm_line l = {0};

	l.func = strtab_add(&p->str, "main");
	l.file = strtab_add(&p->str, "/src/app/main.c");
	l.line = 40;
	profile_add_line(p, fmain, &l);
	l.func = strtab_add(&p->str, "leaf");
	l.file = strtab_add(&p->str, "/src/app/leaf.h");
	l.line = 7;
	l.flags = PM_LINE_INLINED;
	profile_add_line(p, fwork, &l);
	l.func = strtab_add(&p->str, "mid");
	l.file = strtab_add(&p->str, "/src/app/mid.h");
	l.line = 12;
	profile_add_line(p, fwork, &l);
	l.func = strtab_add(&p->str, "work");
	l.file = strtab_add(&p->str, "/src/app/work.c");
	l.line = 99;
	l.flags = 0;
	profile_add_line(p, fwork, &l);
	l.func = strtab_add(&p->str, "nofile");
	l.file = 0;
	l.line = 0;
	profile_add_line(p, fnofile, &l);
	add_samples(p, "app", stack_of(p, (uint32_t[]){fwork, fmain}, 2), 3);
	add_samples(p, "app", stack_of(p, (uint32_t[]){fnofile, fmain}, 2), 1);
	return p;
}

START_TEST(test_folded_lines)
{
	struct profile *p = make_lines_profile();
	struct name_opts lines = {.lines = true};
	struct name_opts full = {.lines = true, .full_paths = true};
	struct name_opts noinl = {.no_inline = true};
	struct name_opts noinl_lines = {.lines = true, .no_inline = true};
	char *text;

	text = folded_with(p, false, &lines);
	ck_assert_str_eq(
		text, "app;main:main.c:40;nofile 1\n"
		      "app;main:main.c:40;work:work.c:99;mid:mid.h:12_[i];leaf:leaf.h:7_[i] 3\n");
	free(text);
	text = folded_with(p, false, &full);
	ck_assert_str_eq(text, "app;main:/src/app/main.c:40;nofile 1\n"
			       "app;main:/src/app/main.c:40;work:/src/app/work.c:99;"
			       "mid:/src/app/mid.h:12_[i];leaf:/src/app/leaf.h:7_[i] 3\n");
	free(text);
	text = folded_with(p, false, &noinl);
	ck_assert_str_eq(text, "app;main;nofile 1\n"
			       "app;main;work 3\n");
	free(text);
	/* The real function's line is where it called the first inlined level. */
	text = folded_with(p, false, &noinl_lines);
	ck_assert_str_eq(text, "app;main:main.c:40;nofile 1\n"
			       "app;main:main.c:40;work:work.c:99 3\n");
	free(text);
	profile_free(p);
}
END_TEST

START_TEST(test_folded)
{
	struct profile *p = make_profile();
	char *text = folded(p, false);

	ck_assert_str_eq(text, "app;main 3\n"
			       "app;main;[kernel.kallsyms+0xffffffff81234567]_[k] 1\n"
			       "app;main;[libfoo.so+0x1a2b] 1\n"
			       "app;main;[unknown];[vdso+0x950] 1\n"
			       "app;main;[unknown];operator:weird?name 1\n"
			       "app;main;work;mid_inl_[i];leaf_inl_[i] 3\n"
			       "app;main;work;mid_inl_[i];leaf_inl_[i];entry_SYSCALL_64_[k];"
			       "clear_page_erms_[k] 2\n"
			       "we:ird;main;[libfoo.so+0x1a2b] 1\n"
			       "worker;main;work;mid_inl_[i];leaf_inl_[i] 4\n");
	free(text);
	profile_free(p);
}
END_TEST

/* Without kernel frames, stacks that differed only there merge. */
START_TEST(test_folded_no_kernel)
{
	struct profile *p = make_profile();
	char *text = folded(p, true);

	ck_assert_str_eq(text, "app;main 4\n"
			       "app;main;[libfoo.so+0x1a2b] 1\n"
			       "app;main;[unknown];[vdso+0x950] 1\n"
			       "app;main;[unknown];operator:weird?name 1\n"
			       "app;main;work;mid_inl_[i];leaf_inl_[i] 5\n"
			       "we:ird;main;[libfoo.so+0x1a2b] 1\n"
			       "worker;main;work;mid_inl_[i];leaf_inl_[i] 4\n");
	free(text);
	profile_free(p);
}
END_TEST

/* Whatever the input, each line is "frames COUNT" with no stray separators. */
START_TEST(test_folded_line_shape)
{
	struct profile *p = make_profile();
	char *text = folded(p, false), *line, *save = NULL;
	uint64_t total = 0;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' '), *end;
		unsigned long long n;

		ck_assert_ptr_nonnull(sp);
		n = strtoull(sp + 1, &end, 10);
		ck_assert(*end == '\0' && n > 0);
		total += n;
		ck_assert_ptr_null(strstr(line, ";;"));
		ck_assert(line[0] != ';' && sp[-1] != ';');
		for (char *c = line; *c; c++)
			ck_assert((unsigned char)*c >= 0x20 && *c != 0x7f);
	}
	ck_assert_uint_eq(total, p->nsamples);
	free(text);
	profile_free(p);
}
END_TEST

START_TEST(test_folded_empty)
{
	struct profile *p = profile_new();
	char *text = folded(p, false);

	ck_assert_str_eq(text, "");
	free(text);
	profile_free(p);
}
END_TEST

START_TEST(test_frame_names)
{
	struct profile *p = profile_new();
	uint32_t odd = profile_add_module(p, "/opt/we;ird/lib;x\tz.so", "", 0);
	uint32_t plain = profile_add_module(p, "libbare.so", "", 0);
	uint32_t kern = profile_add_module(p, "[kernel.kallsyms]", "", PM_MODULE_KERNEL);
	uint32_t f1 = profile_intern_frame(p, odd, 0, 0x10);
	uint32_t f2 = profile_intern_frame(p, plain, 0, 0xabc);
	uint32_t f3 = profile_intern_frame(p, kern, PM_FRAME_KERNEL, 0xffffffff81000000ULL);
	uint32_t f4 = profile_intern_frame(p, plain, 0, 0xdef);
	struct sbuf b = SBUF_INIT;

	add_line(p, f3, "inl_k", PM_LINE_INLINED);
	add_line(p, f3, "outer_k", 0);
	add_line(p, f4, "only", 0);

	report_frame_names(p, f1, &no_opts, ";", &b);
	ck_assert_str_eq(b.buf, "[lib:x?z.so+0x10]");
	sbuf_reset(&b);
	report_frame_names(p, f2, &no_opts, ";", &b);
	ck_assert_str_eq(b.buf, "[libbare.so+0xabc]");
	sbuf_reset(&b);
	report_frame_names(p, f3, &no_opts, " <- ", &b);
	ck_assert_str_eq(b.buf, "outer_k_[k] <- inl_k_[i]_[k]");
	sbuf_reset(&b);
	report_frame_names(p, f4, &no_opts, " <- ", &b); /* one level: no separator */
	ck_assert_str_eq(b.buf, "only");
	sbuf_release(&b);
	profile_free(p);
}
END_TEST

START_TEST(test_sanitize)
{
	struct sbuf b = SBUF_INIT;

	sbuf_adds(&b, "keep;");
	sbuf_add_sanitized(&b, "a;b\nc\td\x7f"
			       "e\r");
	ck_assert_str_eq(b.buf, "keep;a:b?c?d?e?");
	ck_assert_uint_eq(b.len, strlen(b.buf));
	sbuf_addf(&b, "+%d", 42);
	ck_assert_str_eq(b.buf, "keep;a:b?c?d?e?+42");
	/* UTF-8 (C++ and Rust names) passes through. */
	sbuf_reset(&b);
	sbuf_add_sanitized(&b, "caf\xc3\xa9::\xe2\x88\x9a");
	ck_assert_str_eq(b.buf, "caf\xc3\xa9::\xe2\x88\x9a");
	sbuf_release(&b);
}
END_TEST

static Suite *folded_suite(void)
{
	Suite *s = suite_create("folded");
	TCase *tc = tcase_create("folded");

	tcase_add_test(tc, test_folded);
	tcase_add_test(tc, test_folded_no_kernel);
	tcase_add_test(tc, test_folded_line_shape);
	tcase_add_test(tc, test_folded_empty);
	tcase_add_test(tc, test_folded_lines);
	suite_add_tcase(s, tc);

	tc = tcase_create("names");
	tcase_add_test(tc, test_frame_names);
	tcase_add_test(tc, test_sanitize);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(folded_suite());
}
