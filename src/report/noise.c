/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * noise.c - the noise bars of a --diff: Fisher's exact test of each
 * function's count (its normal approximation where that is exact enough),
 * corrected for the family of tests; see noise.h.
 */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "report/noise.h"
#include "util/alloc.h"

/* Probabilities below this, relative to the mode's, are left out of the sums. */
#define TINY 1e-300

double noise_tail(double x)
{
	return 0.5 * erfc(x / M_SQRT2);
}

double noise_tail_inverse(double p)
{
	double lo = -40, hi = 40;

	/* tail falls from 1 to 0: bisect to far below a display's precision. */
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (noise_tail(mid) > p)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/*
 * The distribution of the new recording's count under no change: of the K
 * samples a function has in both, how many fall among the new recording's
 * n1 of N = n0 + n1 (hypergeometric). rel holds P(x) / P(mode) for x from
 * `from`, as far on each side as it stays above TINY.
 */
struct hyper {
	uint64_t k, n0, n1;
	uint64_t lo, hi; /* the support */
	uint64_t from;	 /* the first x of rel */
	double *rel;
	size_t n, cap;
	double sum; /* of rel */
};

/* P(x + 1) / P(x) and P(x - 1) / P(x). */
static double up(const struct hyper *h, uint64_t x)
{
	return (double)(h->n1 - x) * (double)(h->k - x) /
	       ((double)(x + 1) * (double)(h->n0 - h->k + x + 1));
}

static double down(const struct hyper *h, uint64_t x)
{
	return (double)x * (double)(h->n0 - h->k + x) /
	       ((double)(h->n1 - x + 1) * (double)(h->k - x + 1));
}

static void push(struct hyper *h, double v)
{
	xgrow(&h->rel, &h->cap, h->n + 1, sizeof(*h->rel));
	h->rel[h->n++] = v;
}

static void hyper_walk(struct hyper *h, uint64_t k, uint64_t n0, uint64_t n1)
{
	double big = (double)(k + 1) * (double)(n1 + 1) / (double)(n0 + n1 + 2), r = 1;
	uint64_t mode, x;
	size_t below;

	*h = (struct hyper){.k = k, .n0 = n0, .n1 = n1};
	h->lo = k > n0 ? k - n0 : 0;
	h->hi = k < n1 ? k : n1;
	mode = (uint64_t)big;
	mode = mode < h->lo ? h->lo : mode > h->hi ? h->hi : mode;
	/* Below the mode, walked down, then put in order. */
	for (x = mode; x > h->lo && (r *= down(h, x)) >= TINY; x--)
		push(h, r);
	below = h->n;
	for (size_t i = 0; i < below / 2; i++) {
		double t = h->rel[i];

		h->rel[i] = h->rel[below - 1 - i];
		h->rel[below - 1 - i] = t;
	}
	h->from = mode - below;
	push(h, 1);
	for (x = mode, r = 1; x < h->hi && (r *= up(h, x)) >= TINY; x++)
		push(h, r);
	for (size_t i = 0; i < h->n; i++)
		h->sum += h->rel[i];
}

/* P(X <= x) and P(X >= x); 0 for a tail beyond the values walked. */
static void tails(const struct hyper *h, uint64_t x, double *lower, double *upper)
{
	double s = 0;

	*lower = *upper = 0;
	if (x < h->from || x >= h->from + h->n) {
		if (x < h->from)
			*upper = 1;
		else
			*lower = 1;
		return;
	}
	for (size_t i = 0; i <= x - h->from; i++)
		s += h->rel[i];
	*lower = s / h->sum;
	s = 0;
	for (size_t i = h->n; i-- > x - h->from;)
		s += h->rel[i];
	*upper = s / h->sum;
}

/* The change in share, new minus base, if x of the k samples are the new recording's. */
static double change_at(uint64_t x, uint64_t k, uint64_t n0, uint64_t n1)
{
	return (double)x / (double)n1 - (double)(k - x) / (double)n0;
}

/* The test by the hypergeometric distribution itself. */
static void exact(uint64_t k0, uint64_t n0, uint64_t k1, uint64_t n1, double alpha,
		  struct noise_test *t)
{
	struct hyper h;
	double lower, upper, s = 0;
	uint64_t k = k0 + k1, bound;

	hyper_walk(&h, k, n0, n1);
	tails(&h, k1, &lower, &upper);
	t->p = 2 * (lower < upper ? lower : upper);
	t->p = t->p > 1 ? 1 : t->p;
	if (change_at(k1, k, n0, n1) >= 0) {
		/* The largest x whose upper tail is still above alpha / 2. */
		size_t i = h.n;

		while (i-- > 0 && (s += h.rel[i]) <= alpha / 2 * h.sum)
			;
		bound = h.from + (i < h.n ? i : 0);
		t->half = change_at(bound, k, n0, n1);
		t->beyond = k1 > bound;
	} else {
		size_t i = 0;

		while (i < h.n && (s += h.rel[i]) <= alpha / 2 * h.sum)
			i++;
		bound = h.from + (i < h.n ? i : h.n - 1);
		t->half = -change_at(bound, k, n0, n1);
		t->beyond = k1 < bound ? -1 : 0;
	}
	t->half = t->half > 0 ? t->half : 0;
	free(h.rel);
}

/* The standard error of the change under no change, and the continuity correction. */
static void spread(uint64_t k, uint64_t n0, uint64_t n1, double *se, double *cc)
{
	double s = (double)k / (double)(n0 + n1);
	double inv = 1 / (double)n0 + 1 / (double)n1;

	*se = sqrt(s * (1 - s) * inv);
	*cc = inv / 2;
}

/* The hypergeometric distribution's standard deviation. */
static double hyper_sd(uint64_t k, uint64_t n0, uint64_t n1)
{
	double n = (double)(n0 + n1);

	if (n < 2)
		return 0;
	return sqrt((double)k * ((double)n1 / n) * ((double)n0 / n) * (n - (double)k) / (n - 1));
}

void noise_test(uint64_t k0, uint64_t n0, uint64_t k1, uint64_t n1, double alpha,
		struct noise_test *t)
{
	double se, cc, d;

	t->p = 1;
	t->half = 0;
	t->beyond = 0;
	if (!n0 || !n1 || k0 > n0 || k1 > n1)
		return;
	if (hyper_sd(k0 + k1, n0, n1) <= NOISE_EXACT_SD) {
		exact(k0, n0, k1, n1, alpha, t);
		return;
	}
	spread(k0 + k1, n0, n1, &se, &cc);
	t->half = noise_tail_inverse(alpha / 2) * se + cc;
	d = (double)k1 / (double)n1 - (double)k0 / (double)n0;
	if (fabs(d) > t->half)
		t->beyond = d > 0 ? 1 : -1;
	d = fabs(d) - cc;
	t->p = d <= 0 ? 1 : se <= 0 ? 0 : 2 * noise_tail(d / se);
}

/* log P(X = x) of the hypergeometric distribution of k of n0 + n1, n1 the new. */
static double log_p(uint64_t x, uint64_t k, uint64_t n0, uint64_t n1)
{
	double n = (double)(n0 + n1);

	return lgamma((double)n1 + 1) - lgamma((double)x + 1) - lgamma((double)(n1 - x) + 1) +
	       lgamma((double)n0 + 1) - lgamma((double)(k - x) + 1) -
	       lgamma((double)(n0 - (k - x)) + 1) - lgamma(n + 1) + lgamma((double)k + 1) +
	       lgamma(n - (double)k + 1);
}

double noise_p_min(uint64_t k, uint64_t n0, uint64_t n1)
{
	uint64_t lo = k > n0 ? k - n0 : 0, hi = k < n1 ? k : n1;
	double p;

	if (!n0 || !n1 || k > n0 + n1 || lo == hi)
		return 1;
	if (hyper_sd(k, n0, n1) > NOISE_EXACT_SD) {
		struct noise_test a, b;

		/* The normal approximation's: all of k on one side or the other. */
		noise_test(k - lo, n0, lo, n1, 0.05, &a);
		noise_test(k - hi, n0, hi, n1, 0.05, &b);
		return a.p < b.p ? a.p : b.p;
	}
	p = 2 * exp(fmin(log_p(lo, k, n0, n1), log_p(hi, k, n0, n1)));
	return p > 1 ? 1 : p;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

size_t noise_family(double *p_min, size_t n, double alpha)
{
	size_t m, under = n;

	if (n)
		qsort(p_min, n, sizeof(*p_min), cmp_double);
	for (m = 1; m < n; m++) {
		/* The tests that could pass at alpha / m: the first `under` ones. */
		while (under && p_min[under - 1] > alpha / (double)m)
			under--;
		if (under <= m)
			break;
	}
	return m;
}

size_t noise_table(const uint64_t (*k)[4], size_t n, uint64_t n0, uint64_t n1, double level,
		   struct noise_test *t)
{
	double alpha = 1 - level, *p_min = xcalloc(2 * n + 1, sizeof(*p_min));
	size_t family;

	for (size_t i = 0; i < n; i++) {
		p_min[2 * i] = noise_p_min(k[i][0] + k[i][1], n0, n1);
		p_min[2 * i + 1] = noise_p_min(k[i][2] + k[i][3], n0, n1);
	}
	family = noise_family(p_min, 2 * n, alpha);
	free(p_min);
	for (size_t i = 0; i < n; i++) {
		noise_test(k[i][0], n0, k[i][1], n1, alpha / (double)family, &t[2 * i]);
		noise_test(k[i][2], n0, k[i][3], n1, alpha / (double)family, &t[2 * i + 1]);
	}
	return family;
}
