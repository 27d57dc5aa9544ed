/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * demangle.c - C++ and Rust names to their source form through libiberty's
 * demanglers, the ones binutils (c++filt, addr2line -C) and perf use.
 *
 * Invariant: a name is demangled by at most one scheme, tried Rust first:
 * a legacy Rust name is also a valid Itanium C++ name, which the C++
 * demangler would turn into "Type$LT$T$GT$::hot::h0123456789abcdef".
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

/* libiberty.h defines its own, the same; util.h's is the project's. */
#undef ARRAY_SIZE

#include "symbol/demangle.h"
#include "util/alloc.h"
#include "util/array.h"

/*
 * Parameters and qualifiers on, as addr2line -C prints C++ functions;
 * no DMGL_VERBOSE, which would keep a legacy Rust name's hash and a v0
 * name's crate disambiguators.
 */
#define DEMANGLE_OPTS (DMGL_PARAMS | DMGL_ANSI)

char *demangle(const char *name)
{
	char *out;

	if (name[0] != '_')
		return NULL;
	if (name[1] == 'R' || name[1] == 'Z') {
		out = rust_demangle(name, DEMANGLE_OPTS);
		if (out)
			return out;
	}
	if (name[1] == 'Z')
		return cplus_demangle_v3(name, DEMANGLE_OPTS);
	return NULL;
}

size_t demangle_base_len(const char *name)
{
	/*
	 * Manglings and C identifiers hold no '.', but a legacy Rust name
	 * spells "::" inside generic arguments as "..": a suffix starts at a
	 * lone dot followed by a letter, digit or underscore.
	 */
	if (!name[0])
		return 0;
	for (size_t i = 1; name[i]; i++) {
		char c = name[i + 1];

		if (name[i] != '.' || name[i - 1] == '.' || c == '.')
			continue;
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')
			return i;
	}
	return strlen(name);
}

char *demangle_function(const char *symbol)
{
	char *base = xstrndup(symbol, demangle_base_len(symbol));
	char *d = demangle(base);

	if (!d)
		return base;
	free(base);
	return d;
}
