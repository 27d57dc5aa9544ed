// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stk-cxx - a C++ workload for bench/stack-truth: std::sort and std::map.
 *
 * usage: stk-cxx [SECONDS]   (default 3)
 *
 * SECONDS is CPU time, not wall time: on a busy machine every recording
 * then covers the same work and gets about as many samples (999 a second
 * at -F 999), so two recordings compare.
 *
 * Built with -O2 -g -fno-omit-frame-pointer. The template code (std::sort's
 * introsort, the map's tree walk) is instantiated in this program and keeps
 * frame pointers; the tree's rebalancing and operator new live in
 * libstdc++ and libc, which do not. Names to expect: a comparator function
 * called from std::__introsort_loop and friends, Item's operator<, and
 * std::_Rb_tree members with long template parameter lists, the hard case
 * for matching names across tools.
 */
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <map>
#include <string>
#include <vector>

#define NOINLINE __attribute__((noinline))

namespace stk
{

struct Item {
	uint64_t key;
	double weight;
};

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static volatile uint64_t sink;

static uint64_t next_rand()
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

// std::sort's comparator: a function, not a lambda, so that it has a name
// of its own in both tools.
NOINLINE bool by_key(const Item &a, const Item &b)
{
	return a.key < b.key;
}

NOINLINE void sort_items(std::vector<Item> &v)
{
	// Fresh data each call, or std::sort would be sorting sorted input.
	for (auto &it : v)
		it = Item{next_rand() % 1000000, 0.5};
	std::sort(v.begin(), v.end(), by_key);
	sink += v[v.size() / 2].key;
}

// A fresh map each call, so that every round does the same work: a map
// kept across rounds would grow and shrink, and two recordings would catch
// it at different sizes.
NOINLINE void map_work(int n)
{
	std::map<std::string, uint64_t> m;
	std::string k;

	for (int i = 0; i < n; i++) {
		k = "key-" + std::to_string(next_rand() % 50000);
		m[k] += i;
		auto it = m.find("key-" + std::to_string(next_rand() % 50000));
		if (it != m.end())
			sink += it->second;
	}
}

NOINLINE void run_round(std::vector<Item> &v)
{
	sort_items(v);
	map_work(20000);
	sink++;
}

// The process's CPU time, in seconds.
static double cpu_now()
{
	timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

} // namespace stk

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? std::atof(argv[1]) : 3;
	double end = stk::cpu_now() + seconds;
	std::vector<stk::Item> v(100000);

	while (stk::cpu_now() < end)
		stk::run_round(v);
	return stk::sink == 42;
}
