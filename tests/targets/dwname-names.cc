/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dwname-names.cc - C++ functions that GCC gives no linkage name in DWARF
 * (internal linkage), in the shapes dwname.c builds names for: members of
 * an anonymous namespace, of a class template and of a nested one,
 * function templates with value arguments, constructors, const and
 * volatile members, lambdas numbered in source order (one in a nested
 * block), parameters through typedefs, references and function pointers,
 * a member inlined at -O0 (always_inline); with external linkage but no
 * mangled name, main and an extern "C" function; and one function with a
 * linkage name, which dwname leaves to the demangler. Built without the
 * C++ runtime, unoptimized: each function but the inlined one out of
 * line, with the symbol whose demangled name check_dwname compares.
 */
typedef unsigned long u64;
typedef const char *cstr;

namespace {

struct Engine {
	u64 seed;
	explicit Engine(u64 s) : seed(s) {}
	u64 step(u64 x);
	u64 mix(u64 x) const { return x ^ seed; }
	int poke(int (*fp)(int), cstr s) volatile { return fp(s[0]) + (int)seed; }
	__attribute__((always_inline)) int fold(int x) const { return x * 3 + (int)seed; }
};

u64 Engine::step(u64 x)
{
	return x + seed;
}

template <typename T> struct Klass {
	T v;
	T method(T x) { return v + x; }
	T both(const T &a, T &&b) const { return a + b + v; }
};

template <typename T> struct Box {
	T t;
	int size() const { return (int)sizeof(T); }
};

template <int N, bool B> int pick(long x)
{
	return N + B + (int)x;
}

int twice(int x)
{
	return 2 * x;
}

} // namespace

namespace ns {
namespace {
struct Inner {
	short s;
	int get(short a, unsigned short b, long long c) { return a + b + (int)c + s; }
};
} // namespace
} // namespace ns

namespace pub {
int api(int x);
int api(int x)
{
	return x - 1;
}
} // namespace pub

static int helper(signed char c, unsigned char u, double d)
{
	return c + u + (int)d;
}

extern "C" int c_entry(int x);
extern "C" int c_entry(int x)
{
	return x + 1;
}

volatile int dwname_sink;

int main(int argc, char **argv)
{
	Engine e(3);
	volatile Engine ve(4);
	Klass<int> ki = {1};
	Klass<u64> ku = {2};
	Box<Klass<int> > bk = {{5}};
	auto first = [](int x) { return x + 1; };
	auto second = [](u64 y, cstr s) { return y + (u64)s[0]; };
	int r = 0;

	{
		auto third = [&r](double d) { r += (int)d; };

		third(argc);
	}
	r += (int)e.step((u64)argc) + (int)e.mix(1) + ve.poke(twice, argv[0]) + e.fold(argc);
	r += ki.method(argc) + (int)ku.method(1) + ki.both(1, 2) + bk.size();
	r += pick<3, true>(argc) + ns::Inner{1}.get(1, 2, 3) + helper(1, 2, 3.0) + c_entry(argc) +
	     pub::api(argc);
	r += first(argc) + (int)second(1, "a");
	dwname_sink = r;
	return 0;
}
