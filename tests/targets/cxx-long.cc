/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cxx-long.cc - a C++ program whose time goes to one function with a
 * name longer than a terminal is wide: a const member of a class template
 * instantiated with library types, in nested namespaces,
 *
 *   shop::detail::ledger<std::pair<int, long>, std::less<std::pair<int, long> > >
 *       ::balance(std::pair<int, long> const&) const
 *
 * called from main. Header-only library types: no C++ runtime is linked.
 *
 * Usage: cxx-long [SECONDS]   (CPU seconds, default 1)
 */
#include <functional>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <utility>

namespace shop {
namespace detail {

template <typename K, typename Cmp> struct ledger {
	K first;
	uint64_t balance(const K &k) const;
};

/* Not inlined, cloned or folded: the samples land in a frame of this name. */
template <typename K, typename Cmp>
__attribute__((noipa, used)) uint64_t ledger<K, Cmp>::balance(const K &k) const
{
	uint64_t v = (uint64_t)k.first + (uint64_t)k.second + (Cmp()(first, k) ? 1 : 2);

	__asm__ volatile("" : : "r"(__builtin_frame_address(0)));
	for (long i = 0; i < 1000000L; i++) {
		v = v * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(v));
	}
	return v;
}

template struct ledger<std::pair<int, long>, std::less<std::pair<int, long> > >;

} // namespace detail
} // namespace shop

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

volatile uint64_t cxx_long_sink;

int main(int argc, char **argv)
{
	double secs = argc > 1 ? strtod(argv[1], NULL) : 1.0;
	shop::detail::ledger<std::pair<int, long>, std::less<std::pair<int, long> > > l = {{1, 2}};
	std::pair<int, long> k(3, 4);

	while (thread_cpu() < secs)
		k.second += (long)l.balance(k);
	cxx_long_sink = (uint64_t)k.second;
	return 0;
}
