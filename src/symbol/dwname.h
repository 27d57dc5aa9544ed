/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dwname.h - full names of C++ functions that DWARF names only briefly.
 *
 * GCC gives DW_AT_linkage_name only to functions of external linkage. A
 * function of internal linkage (a lambda's operator(), a method or a
 * function in an anonymous namespace, a static function) has only its
 * DW_AT_name: "operator()", "step". Out of line, the symbol table has its
 * mangled name; inlined, nothing does. dwname builds, from the DWARF
 * tree, the name the demangler would give the mangled one:
 * "(anonymous namespace)::Engine::step(unsigned long)",
 * "main::{lambda(int)#2}::operator()(int) const".
 */
#ifndef PERFMINI_DWNAME_H
#define PERFMINI_DWNAME_H

#include <elfutils/libdw.h>

/* A cache of the DIE parents of the units names were built in. */
struct dwname;

struct dwname *dwname_new(void);
/* dwname_free(NULL) is a no-op. */
void dwname_free(struct dwname *d);

/*
 * The full name of the C++ function of a subprogram or inlined subroutine
 * DIE without a linkage name, as a malloc'd string; NULL when its unit is
 * not C++, it has a linkage name, a part of it (a scope, a parameter's
 * type) has no demangler form perfmini knows, or nothing could be built
 * (a damaged tree), in which case the caller keeps DWARF's name: a name
 * is built whole or not at all.
 *
 * The parts: the enclosing namespaces ("(anonymous namespace)" for an
 * unnamed one), classes and function (for a local class); a lambda's
 * closure type as "{lambda(PARAMETERS)#N}", N counting the lambdas of the
 * enclosing function in source order, as GCC 12 numbers them; the
 * parameters, typedefs resolved, in the demangler's spelling
 * ("unsigned long", "char const*"); " const" for a const member. A
 * function of external linkage without a linkage name (main, extern "C")
 * is its bare name, as it is not mangled.
 */
char *dwname_function(struct dwname *d, Dwarf_Die *die);

#endif
