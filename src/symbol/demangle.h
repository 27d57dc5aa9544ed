/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * demangle.h - C++ (Itanium ABI) and Rust (legacy and v0) names to their
 * source form.
 */
#ifndef PERFMINI_DEMANGLE_H
#define PERFMINI_DEMANGLE_H

#include <stddef.h>

/*
 * The demangled form of name as a malloc'd string, or NULL when name is
 * not a mangled C++ or Rust name (or cannot be demangled). C++ functions
 * keep their parameters and qualifiers, and a clone suffix reads
 * " [clone .constprop.0]" (as addr2line -C prints them); Rust names lose
 * the legacy scheme's "::h<16 hex digits>" hash, a v0 name its crate
 * disambiguators, and both an LLVM ".llvm.NNN" suffix (as rustfilt and
 * perf print them).
 */
char *demangle(const char *name);

/*
 * The length of a symbol name without the suffix a compiler gives a
 * clone or a split-off part of a function (".constprop.0", ".isra.0",
 * ".part.0", ".cold", ".lto_priv.0", ".llvm.123"): the name of the
 * function as written in the source, mangled or not.
 */
size_t demangle_base_len(const char *name);

/*
 * The source name of the function a symbol stands for: its name without
 * a clone suffix, demangled if mangled; malloc'd.
 */
char *demangle_function(const char *symbol);

#endif
