/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * noise.h - how far a function's share of the samples may move between
 * two recordings by chance alone: the noise bars of a --diff.
 *
 * The model is binomial. A recording's N samples are N draws, each landing
 * in a function or not; a function whose true share is s gets k of them,
 * k ~ Binomial(N, s). Not Poisson: a recording's counts add up to its N,
 * and a function holding most of it varies less than a Poisson count of
 * the same size would (s(1 - s)N, not sN).
 *
 * Two recordings of one unchanged program share s, which is not known.
 * Given the K = k0 + k1 samples the function has in both, the number in
 * the new recording (n1 of N = n0 + n1 samples) is then hypergeometric,
 * whatever s is: Fisher's exact test. Its two-sided p-value is twice the
 * smaller tail; the interval of the change in share, k1/n1 - k0/n0, holds
 * the values of k1 the test accepts at the level. Where the distribution
 * is too wide to sum (a standard deviation over NOISE_EXACT_SD samples),
 * its normal approximation stands in (the two-proportion test, with a
 * continuity correction), which is accurate there.
 *
 * The level is for a table as a whole (Bonferroni): each test is made at
 * alpha / m, alpha = 1 - level, m the family, the tests that could come
 * out significant at all (Tarone's refinement): K bounds a test's p-value
 * from below (all K on one side), and a function seen a few times can
 * never pass, so it does not widen every other function's interval.
 *
 * Pure functions, no state.
 */
#ifndef PERFMINI_NOISE_H
#define PERFMINI_NOISE_H

#include <stddef.h>
#include <stdint.h>

/* The default level of the marks (--diff-level). */
#define NOISE_LEVEL 0.95

/* Above this standard deviation (in samples), the normal approximation. */
#define NOISE_EXACT_SD 20000.0

/* The test of a count: k0 of n0 samples in the base, k1 of n1 in the new recording. */
struct noise_test {
	double p; /* its two-sided p-value */
	/*
	 * Half its interval at the level asked, as a fraction (not points): the
	 * largest change in share the test accepts on the side of the change
	 * seen (growth, or no change: the upper side). The change is beyond
	 * the noise exactly when its size exceeds this.
	 */
	double half;
	/* +1 when the change is growth beyond the noise, -1 shrinkage beyond it, else 0 */
	int beyond;
};

/* The test of k0 of n0 against k1 of n1 at alpha (one test's: the family's share). */
void noise_test(uint64_t k0, uint64_t n0, uint64_t k1, uint64_t n1, double alpha,
		struct noise_test *t);

/* The least p-value K = k0 + k1 samples can give (all of them on one side). */
double noise_p_min(uint64_t k, uint64_t n0, uint64_t n1);

/*
 * Tarone's family: the least m >= 1 such that at most m of the n tests
 * have p_min[i] <= alpha / m. p_min is reordered.
 */
size_t noise_family(double *p_min, size_t n, double alpha);

/*
 * The tests of a table of n rows at level (a fraction; the table's as a
 * whole): row i's self count k[i][0] of n0 samples in the base and k[i][1]
 * of n1 in the new recording, its total count k[i][2] and k[i][3]; into
 * t[2i] (self) and t[2i + 1] (total), each made at alpha over the family
 * of all 2n tests. Returns the family.
 */
size_t noise_table(const uint64_t (*k)[4], size_t n, uint64_t n0, uint64_t n1, double level,
		   struct noise_test *t);

/* The standard normal distribution's upper tail, P(Z > x), and its inverse. */
double noise_tail(double x);
double noise_tail_inverse(double p);

#endif
