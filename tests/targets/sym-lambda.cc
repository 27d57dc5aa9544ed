/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sym-lambda.cc - C++ functions that GCC gives no linkage name in DWARF
 * (internal linkage), each spending a quarter of the time:
 *   (anonymous namespace)::Engine::step(unsigned long)         out of line
 *   main::{lambda(unsigned long)#1}::operator()(unsigned long) const
 *                                                              out of line
 *   run_inlined(unsigned long)::{lambda(unsigned long)#1}::operator()
 *       (unsigned long) const                inlined into run_inlined
 *   (anonymous namespace)::Engine::mix(unsigned long) const
 *                                            inlined into run_mix
 * Built a second time with -DSYM_LAMBDA_OUTLINE, where the inlined ones
 * are not inlined: their symbols then carry the mangled names that the
 * DWARF of the first build lacks. Built without the C++ runtime.
 *
 * Usage: sym-lambda [SECONDS]   (CPU seconds, default 1)
 */
#include "sym-hot.h"

#ifdef SYM_LAMBDA_OUTLINE
#define SYM_INLINE SYM_HOT_FN
#else
#define SYM_INLINE __attribute__((always_inline))
#endif

namespace {

struct Engine {
	uint64_t seed;
	SYM_HOT_FN uint64_t step(uint64_t x);
	SYM_INLINE uint64_t mix(uint64_t x) const
	{
		x ^= seed;
		SYM_SPIN(x);
		return x;
	}
};

SYM_HOT_FN uint64_t Engine::step(uint64_t x)
{
	SYM_FRAME();
	x += seed;
	SYM_SPIN(x);
	return x;
}

} // namespace

SYM_HOT_FN static uint64_t run_inlined(uint64_t x)
{
	auto body = [](uint64_t y) SYM_INLINE {
		SYM_SPIN(y);
		return y;
	};

	SYM_FRAME();
	return body(x) + 1;
}

SYM_HOT_FN static uint64_t run_mix(const Engine *e, uint64_t x)
{
	SYM_FRAME();
	return e->mix(x) + 1;
}

volatile uint64_t sym_lambda_sink;

int main(int argc, char **argv)
{
	double secs = argc > 1 ? sym_seconds("sym-lambda", argv[1]) : 1.0;
	Engine e = {3};
	uint64_t x = 1;
	auto outer = [](uint64_t y) SYM_HOT_FN {
		SYM_FRAME();
		SYM_SPIN(y);
		return y;
	};

	while (sym_thread_cpu() < secs) {
		x = e.step(x);
		x = outer(x);
		x = run_inlined(x);
		x = run_mix(&e, x);
	}
	sym_lambda_sink = x;
	return 0;
}
