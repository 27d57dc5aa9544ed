/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_noise.c - the noise bars of a --diff: the test of one count
 * (noise.c) against values worked out by hand or from the hypergeometric
 * distribution's definition, the family (Tarone), and the marks as the
 * formats show them (functab.c through fmt-top, fmt-folded, fmt-svg,
 * fmt-pprof and fmt-series), on recordings built with the profile API.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "report/aggregate.h"
#include "report/functab.h"
#include "report/noise.h"
#include "report/report.h"
#include "store/profile.h"
#include "unit-helpers.h"
#include "util/alloc.h"

/* P(X = x), X hypergeometric: K of n0 + n1 drawn, n1 the new, by its definition. */
static double hyper_p(unsigned x, unsigned k, unsigned n0, unsigned n1)
{
	double lp = lgamma(n1 + 1.0) - lgamma(x + 1.0) - lgamma(n1 - x + 1.0) + lgamma(n0 + 1.0) -
		    lgamma(k - x + 1.0) - lgamma(n0 - (k - x) + 1.0) - lgamma(n0 + n1 + 1.0) +
		    lgamma(k + 1.0) + lgamma(n0 + n1 - k + 1.0);

	return exp(lp);
}

START_TEST(test_normal)
{
	ck_assert_double_eq_tol(noise_tail(0), 0.5, 1e-12);
	ck_assert_double_eq_tol(noise_tail(1.959963985), 0.025, 1e-9);
	ck_assert_double_eq_tol(noise_tail_inverse(0.025), 1.959963985, 1e-8);
	ck_assert_double_eq_tol(noise_tail_inverse(0.05 / 8), 2.497705474, 1e-8);
	ck_assert_double_eq_tol(noise_tail_inverse(0.5), 0, 1e-9);
}
END_TEST

/*
 * 140 of 200 samples in the base, 30 of 100 in the new recording, at
 * 0.0125: of the 170, the new one holds 47 at least in the test's
 * acceptance (the lower tail up to 46 is at most 0.00625, up to 47 more),
 * a change of 47/100 - 123/200 = -14.5 points; 30 is beyond it.
 */
START_TEST(test_exact)
{
	struct noise_test t;
	double tail = 0;
	unsigned bound = 0;

	for (unsigned x = 0; x <= 100; x++) {
		tail += hyper_p(x, 170, 200, 100);
		if (tail > 0.0125 / 2) {
			bound = x;
			break;
		}
	}
	ck_assert_uint_eq(bound, 47);
	noise_test(140, 200, 30, 100, 0.0125, &t);
	ck_assert_double_eq_tol(t.half, 0.145, 1e-12);
	ck_assert_int_eq(t.beyond, -1);
	ck_assert(t.p < 1e-9);

	/* The same change, seen the other way round: growth, the upper side. */
	noise_test(30, 100, 140, 200, 0.0125, &t);
	ck_assert_int_eq(t.beyond, 1);

	/* 2 samples against none, of 2000 each: P(both in the new one) is about 1/4. */
	noise_test(0, 2000, 2, 2000, 0.05, &t);
	ck_assert_double_eq_tol(t.p, 2 * hyper_p(2, 2, 2000, 2000), 1e-12);
	ck_assert_int_eq(t.beyond, 0);
	ck_assert_double_eq_tol(t.half, 2.0 / 2000, 1e-12); /* any split is accepted */

	/*
	 * One sample against none, the new recording 77 samples and the base
	 * 4865: the sample is the new one's with probability 77/4942, a
	 * p-value of 0.031, which the normal approximation would put at 1e-4.
	 */
	noise_test(0, 4865, 1, 77, 0.05, &t);
	ck_assert_double_eq_tol(t.p, 2 * 77.0 / 4942, 1e-9);
	noise_test(0, 4865, 1, 77, 0.01, &t);
	ck_assert_int_eq(t.beyond, 0);

	/* No change at all, and no samples. */
	noise_test(500, 1000, 500, 1000, 0.05, &t);
	ck_assert_int_eq(t.beyond, 0);
	ck_assert(t.p > 0.9);
	noise_test(0, 1000, 0, 1000, 0.05, &t);
	ck_assert_int_eq(t.beyond, 0);
	ck_assert_double_eq(t.half, 0);
	noise_test(3, 0, 3, 1000, 0.05, &t);
	ck_assert_double_eq(t.p, 1);
}
END_TEST

/*
 * Beyond the exact test's reach (a standard deviation over 20,000 samples),
 * the normal approximation: 40% of 10^10 samples against 40.1% of as
 * many, half = z se + cc.
 */
START_TEST(test_normal_approximation)
{
	uint64_t n = 10000000000ULL;
	double s = 0.4005, inv = 2.0 / 1e10, z = noise_tail_inverse(0.05 / 2);
	struct noise_test t;

	noise_test(4000000000ULL, n, 4010000000ULL, n, 0.05, &t);
	ck_assert_double_eq_tol(t.half, z * sqrt(s * (1 - s) * inv) + inv / 2, 1e-12);
	ck_assert_int_eq(t.beyond, 1);
	/* Where both apply, they agree: a standard deviation of about 15,800 samples. */
	noise_test(n / 2, n, n / 2, n, 0.05, &t);
	ck_assert_int_eq(t.beyond, 0);
	{
		struct noise_test e;
		uint64_t m = 500000000ULL;

		/* A standard deviation of about 9,700 samples: exact, and as the normal. */
		noise_test(m / 2, m, m / 2 + 60000, m, 0.05, &e);
		ck_assert_double_eq_tol(e.half, z * sqrt(0.25 * 2.0 / (double)m), 2e-7);
		ck_assert_int_eq(e.beyond, 1);
	}
}
END_TEST

START_TEST(test_family)
{
	double p[] = {1e-6, 0.3, 1e-6, 0.3, 0.2, 0.3};
	double all[] = {0.01, 0.01, 0.01};
	struct noise_test t;

	/* m = 1: two could pass at 0.05, more than 1; m = 2: two at 0.025. */
	ck_assert_uint_eq(noise_family(p, 6, 0.05), 2);
	ck_assert_uint_eq(noise_family(all, 3, 0.05), 3);
	ck_assert_uint_eq(noise_family(NULL, 0, 0.05), 1);
	/* All of K on one side: 5 of 1000 + 1000, 2 P(X = 5). */
	ck_assert_double_eq_tol(noise_p_min(5, 1000, 1000), 2 * hyper_p(5, 5, 1000, 1000), 1e-12);
	ck_assert_double_eq(noise_p_min(0, 1000, 1000), 1);
	ck_assert_double_eq(noise_p_min(2000, 1000, 1000), 1); /* in every sample of both */
	/* The least p-value is what the test gives at that split. */
	noise_test(0, 1000, 5, 1000, 0.05, &t);
	ck_assert_double_eq_tol(t.p, noise_p_min(5, 1000, 1000), 1e-12);
}
END_TEST

/*
 * A recording of nf samples in f and ng in g (main calling each), of a
 * program at path: two recordings to compare.
 */
static struct profile *two_fn(const char *path, unsigned nf, unsigned ng)
{
	struct profile *p = profile_new();
	uint32_t m = profile_add_module(p, path, "", 0);
	const char *names[] = {"main", "f", "g"};
	uint32_t fr[3], stack[2];

	for (int i = 0; i < 3; i++) {
		struct pm_line l = {.func = strtab_add(&p->str, names[i])};

		fr[i] = profile_intern_frame(p, m, 0, 0x1000 + 0x100 * (uint64_t)i);
		profile_add_line(p, fr[i], &l);
	}
	for (unsigned i = 0; i < nf + ng; i++) {
		struct pm_sample s = {.time = i, .period = 1000, .pid = 1, .tid = 1};

		stack[0] = fr[i < nf ? 1 : 2];
		stack[1] = fr[0];
		s.stack = profile_intern_stack(p, stack, 2);
		s.comm = strtab_add(&p->str, "prog");
		profile_add_sample(p, &s);
	}
	profile_add_thread(p, 1, 1, "prog");
	return p;
}

static char *run_format(const char *name, const struct profile *p, const struct report_opts *o,
			size_t *len)
{
	char *text = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&text, &n);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(report_write(report_format_find(name), p, o, out), 0);
	fclose(out);
	if (len)
		*len = n;
	return text;
}

/* The marks of a table: 3000 of 10000 in f against 3300 (marked) or 3100 (not). */
START_TEST(test_marks)
{
	struct profile *base = two_fn("/a/prog", 3000, 7000);
	struct profile *big = two_fn("/b/prog", 3300, 6700);
	struct profile *small = two_fn("/b/prog", 3100, 6900);
	struct report_opts o = {.rows = -1, .columns = 120, .base = base};
	struct aggregate *a, *b;
	struct functab *ft;
	char *text;

	aggregate_prepare(&o, big);
	a = aggregate_new(big, &o, 0);
	b = aggregate_new(base, &o, 0);
	ft = functab_new(big, &o, a, b);
	ck_assert(ft->noise);
	ck_assert_uint_eq(ft->family, 4); /* f's and g's self and total */
	ck_assert_uint_eq(ft->marked, 2);
	for (size_t i = 0; i < ft->nrows; i++) {
		const struct ft_row *r = &ft->rows[i];
		const char *name = functab_str(ft, r->name);

		if (!strcmp(name, "f"))
			ck_assert(r->self_mark == 1 && r->total_mark == 1);
		else if (!strcmp(name, "g"))
			ck_assert(r->self_mark == -1 && r->total_mark == -1);
		else
			ck_assert(r->self_mark == 0 && r->total_mark == 0);
	}
	functab_free(ft);
	aggregate_free(a);
	aggregate_free(b);

	text = run_format("top", big, &o, NULL);
	ck_assert_msg(strstr(text, "   30.0     33.0    +3.0*"), "%s", text);
	free(text);
	text = run_format("folded", big, &o, NULL);
	ck_assert_str_eq(text, "main;f_[+] 3000 3300\nmain;g_[-] 7000 6700\n");
	free(text);

	/* 1 point: within the noise (about 1.6 points at 4 tests), nothing marked. */
	aggregate_prepare(&o, small);
	text = run_format("top", small, &o, NULL);
	ck_assert_msg(strstr(text, "   30.0     31.0    +1.0 "), "%s", text);
	ck_assert_msg(strstr(text, "0 rows marked"), "%s", text);
	free(text);
	text = run_format("folded", small, &o, NULL);
	ck_assert_str_eq(text, "main;f 3000 3100\nmain;g 7000 6900\n");
	free(text);

	/* --diff-level=99.9: the interval widens, 3 points is still beyond it. */
	o.diff_level = 0.999;
	aggregate_prepare(&o, big);
	text = run_format("top", big, &o, NULL);
	ck_assert_msg(strstr(text, "at 99.9% for the table"), "%s", text);
	ck_assert_msg(strstr(text, "2 rows marked"), "%s", text);
	free(text);
	aggregate_opts_release(&o);
	profile_free(base);
	profile_free(big);
	profile_free(small);
}
END_TEST

/*
 * --diff-significant: rows and stacks of the marked functions alone; an
 * unchanged third function h (its own stack) is left out.
 */
static struct profile *three_fn(unsigned nf, unsigned nh)
{
	struct profile *p = two_fn("/p/prog", nf, 10000 - nf - nh);
	uint32_t m = 0, fr[2], stack[2];
	struct pm_line l = {.func = strtab_add(&p->str, "h")};

	fr[0] = profile_find_frame(p, m, 0, 0x1000);
	fr[1] = profile_intern_frame(p, m, 0, 0x1400);
	profile_add_line(p, fr[1], &l);
	stack[0] = fr[1];
	stack[1] = fr[0];
	for (unsigned i = 0; i < nh; i++) {
		struct pm_sample s = {.time = 20000 + i, .period = 1000, .pid = 1, .tid = 1};

		s.stack = profile_intern_stack(p, stack, 2);
		s.comm = strtab_add(&p->str, "prog");
		profile_add_sample(p, &s);
	}
	return p;
}

START_TEST(test_significant)
{
	struct profile *base = three_fn(3000, 1000), *p = three_fn(3600, 1000);
	struct report_opts o = {.rows = -1, .columns = 120, .base = base, .diff_significant = true};
	char *text, *gz, *raw;
	size_t len;
	z_stream z = {0};

	aggregate_prepare(&o, p);
	text = run_format("top", p, &o, NULL);
	ck_assert_msg(strstr(text, " f\n") && strstr(text, " g\n"), "%s", text);
	ck_assert_msg(!strstr(text, " h\n") && !strstr(text, " main\n"), "%s", text);
	free(text);
	text = run_format("folded", p, &o, NULL);
	ck_assert_str_eq(text, "main;f_[+] 3000 3600\nmain;g_[-] 6000 5400\n");
	free(text);

	/* SVG: marked frames outlined, h grey (its change alone would colour it). */
	text = run_format("svg", p, &o, NULL);
	ck_assert_ptr_nonnull(strstr(text, "data-noise=\"only\""));
	ck_assert_ptr_nonnull(strstr(text, "<title>f (3600 samples, 36.00%; base 30.00%, +6.00 "
					   "points; its function changed beyond the noise)</title>"
					   "<rect class=\"m\" "));
	ck_assert_ptr_nonnull(strstr(text, "<title>h (1000 samples, 10.00%; base 10.00%, +0.00 "
					   "points)</title><rect x="));
	free(text);

	/* pprof: the comments, and h's stacks left out. */
	gz = run_format("pprof", p, &o, &len);
	raw = xmalloc(1 << 20);
	ck_assert_int_eq(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)raw;
	z.avail_out = 1 << 20;
	ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
	ck_assert_ptr_nonnull(
		memmem(raw, z.total_out,
		       "perfmini: 2 functions changed beyond the "
		       "noise (95%)",
		       strlen("perfmini: 2 functions changed beyond the noise (95%)")));
	ck_assert_ptr_nonnull(memmem(raw, z.total_out, "f: self +6.0 (noise ", 20));
	inflateEnd(&z);
	free(raw);
	free(gz);
	aggregate_opts_release(&o);
	profile_free(base);
	profile_free(p);
}
END_TEST

/* --series: the files in turn, read through the callback. */
struct fake_files {
	unsigned nf[3];
	unsigned reads;
};

static struct profile *fake_read(void *arg, const char *path)
{
	struct fake_files *f = arg;
	unsigned i = (unsigned)(path[strlen(path) - 1] - '0');

	f->reads++;
	return i < 3 ? two_fn("/p/prog", f->nf[i], 10000 - f->nf[i]) : NULL;
}

START_TEST(test_series)
{
	static const char *const paths[] = {"/d/slice0", "/d/slice1", "/d/slice2"};
	struct fake_files files = {{3000, 3020, 3600}, 0};
	struct report_series s = {paths, 3, fake_read, &files};
	struct report_opts o = {.rows = -1, .series = &s};
	struct profile *first = fake_read(&files, paths[0]);
	char *text;

	text = run_format("series", first, &o, NULL);
	ck_assert_uint_eq(files.reads, 3);
	ck_assert_msg(strstr(text, "slice0       0.0     10000\n"), "%s", text);
	ck_assert_msg(strstr(text, "slice1       0.0     10000\n"), "%s", text);
	ck_assert_msg(strstr(text, "slice2       0.0     10000  f +5.8 ("), "%s", text);
	ck_assert_msg(strstr(text, "), g -5.8 ("), "%s", text);
	free(text);

	/* --diff-significant: the files with a change alone. */
	o.diff_significant = true;
	text = run_format("series", first, &o, NULL);
	ck_assert_msg(!strstr(text, "slice0") && !strstr(text, "slice1 ") &&
			      strstr(text, "slice2 "),
		      "%s", text);
	free(text);

	/* A file that cannot be read stops it. */
	{
		static const char *const bad[] = {"/d/slice0", "/d/slice9"};
		struct report_series s2 = {bad, 2, fake_read, &files};
		FILE *out = fopen("/dev/null", "w");

		o.series = &s2;
		ck_assert_int_eq(report_write(report_format_find("series"), first, &o, out),
				 -ECANCELED);
		fclose(out);
	}
	profile_free(first);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("noise");
	TCase *tc = tcase_create("noise");

	tcase_add_test(tc, test_normal);
	tcase_add_test(tc, test_exact);
	tcase_add_test(tc, test_normal_approximation);
	tcase_add_test(tc, test_family);
	tcase_add_test(tc, test_marks);
	tcase_add_test(tc, test_significant);
	tcase_add_test(tc, test_series);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
