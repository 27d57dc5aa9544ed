/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sym-cxx.cc - C++ names: the time is spent in a member function of a
 * class template inside a namespace, ns::Worker<int>::hot(int), whose
 * symbol is the mangled _ZN2ns6WorkerIiE3hotEi. Built without the C++
 * runtime (no exceptions, no RTTI, no library calls of C++).
 *
 * Usage: sym-cxx [SECONDS]   (CPU seconds, default 1)
 */
#include "sym-hot.h"

namespace ns {

template <typename T> struct Worker {
	T state;
	T hot(T x);
};

template <typename T> SYM_HOT_FN T Worker<T>::hot(T x)
{
	uint64_t v = (uint64_t)x + (uint64_t)state;

	SYM_FRAME();
	SYM_SPIN(v);
	return (T)v;
}

template struct Worker<int>;

} // namespace ns

volatile int sym_cxx_sink;

int main(int argc, char **argv)
{
	double secs = argc > 1 ? sym_seconds("sym-cxx", argv[1]) : 1.0;
	ns::Worker<int> w = {1};
	int x = 1;

	while (sym_thread_cpu() < secs)
		x = w.hot(x);
	sym_cxx_sink = x;
	return 0;
}
