/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dwname-int.h - dwname.c's steps that its white-box test calls, and
 * the printers of names, types and template arguments it declares before
 * their mutual recursion. Private to symbol/.
 */
#ifndef PERFMINI_DWNAME_INT_H
#define PERFMINI_DWNAME_INT_H

#include <stdbool.h>

#include <elfutils/libdw.h>

#include "symbol/dwname.h"
#include "util/sbuf.h"

/* Deep enough for any real name; ends the recursion of a cyclic DWARF. */
#define DWNAME_MAX_DEPTH 24

/* The DIE attribute name of die refers to, into out; false without one. */
bool dwn_ref_attr(Dwarf_Die *die, unsigned int name, Dwarf_Die *out);
/* Whether die has the flag attribute name set. */
bool dwn_flag_attr(Dwarf_Die *die, unsigned int name);
/* A DW_AT_name as the demangler would spell it (GCC's builtin type names respelled). */
void dwn_add_name(struct sbuf *b, const char *name);
/* A type in the demangler's spelling: "unsigned long", "char const*", "void (*)(int)". */
bool dwn_add_type(struct dwname *d, struct sbuf *b, Dwarf_Die *t, int depth);

/* Where the template argument list of a DW_AT_name begins, or NULL. */
const char *dwn_template_args(const char *name);
/* A template's name with its arguments in the demangler's form. */
void dwn_add_template_name(struct dwname *d, struct sbuf *b, Dwarf_Die *die, const char *name,
			   int depth);

#endif
