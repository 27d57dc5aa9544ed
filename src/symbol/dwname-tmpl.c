/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dwname-tmpl.c - template argument lists in the demangler's form, from
 * a DIE's template parameters: types (dwname.c's), and values as the
 * demangler prints them (3, 3u, true); see dwname.h.
 */
#include "config.h"

#include <ctype.h>
#include <dwarf.h>
#include <string.h>

#include "symbol/dwname-int.h"
#include "util/array.h"
#include "util/sbuf.h"

/* The length of the operator token at p ("<<=", "=", "->*"), longest first; 0 if none. */
static size_t operator_len(const char *p)
{
	static const char *const ops[] = {
		"<<=", ">>=", "<=>", "->*", "<<", ">>", "<=", ">=", "==", "!=", "->", "&&", "||",
		"++",  "--",  "+=",  "-=",  "*=", "/=", "%=", "^=", "&=", "|=", "<",  ">",  "=",
		"!",   "+",   "-",   "*",   "/",  "%",	"^",  "&",  "|",  "~",	",",
	};

	for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
		if (!strncmp(p, ops[i], strlen(ops[i])))
			return strlen(ops[i]);
	return 0;
}

/*
 * Where the template argument list of a DW_AT_name begins, or NULL: the
 * first '<', but after an operator's own ("operator<<", "operator()<T>");
 * a conversion operator's type is not its template argument list.
 */
const char *dwn_template_args(const char *name)
{
	const char *p = name;

	if (!strncmp(name, "operator", 8) && !isalnum((unsigned char)name[8]) && name[8] != '_') {
		p = name + 8;
		while (*p == ' ')
			p++;
		if (!strncmp(p, "()", 2) || !strncmp(p, "[]", 2))
			p += 2;
		else if (isalpha((unsigned char)*p) || *p == '_')
			return NULL; /* operator new, operator int ... */
		else
			p += operator_len(p);
		while (*p == ' ')
			p++;
	}
	return strchr(p, '<');
}

/* A non-type template argument as the demangler prints it: 3, 3u, 3ul, true. */
static bool add_value_arg(struct sbuf *b, Dwarf_Die *param)
{
	static const char *const suffix[][2] = {
		{"int", ""},
		{"unsigned int", "u"},
		{"long int", "l"},
		{"long unsigned int", "ul"},
		{"long long int", "ll"},
		{"long long unsigned int", "ull"},
	};
	Dwarf_Attribute attr;
	Dwarf_Die type;
	Dwarf_Sword sv;
	Dwarf_Word uv;
	const char *tn;

	if (!dwn_ref_attr(param, DW_AT_type, &type))
		return false;
	while (dwarf_tag(&type) == DW_TAG_typedef || dwarf_tag(&type) == DW_TAG_const_type)
		if (!dwn_ref_attr(&type, DW_AT_type, &type))
			return false;
	if (dwarf_tag(&type) != DW_TAG_base_type || !(tn = dwarf_diename(&type)) ||
	    !dwarf_attr(param, DW_AT_const_value, &attr))
		return false;
	if (!strcmp(tn, "bool")) {
		if (dwarf_formudata(&attr, &uv) != 0)
			return false;
		sbuf_adds(b, uv ? "true" : "false");
		return true;
	}
	for (size_t i = 0; i < ARRAY_SIZE(suffix); i++) {
		if (strcmp(tn, suffix[i][0]))
			continue;
		if (strstr(tn, "unsigned")) {
			if (dwarf_formudata(&attr, &uv) != 0)
				return false;
			sbuf_addf(b, "%llu%s", (unsigned long long)uv, suffix[i][1]);
		} else {
			if (dwarf_formsdata(&attr, &sv) != 0)
				return false;
			sbuf_addf(b, "%lld%s", (long long)sv, suffix[i][1]);
		}
		return true;
	}
	return false;
}

/* The template arguments among the children of die, each after ", " but the first. */
static bool add_template_args(struct dwname *d, struct sbuf *b, Dwarf_Die *die, bool *first,
			      int depth)
{
	Dwarf_Die child, type;

	if (depth > DWNAME_MAX_DEPTH)
		return false;
	if (dwarf_child(die, &child) != 0)
		return true;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_template_type_parameter:
			if (!*first)
				sbuf_adds(b, ", ");
			*first = false;
			if (!dwn_ref_attr(&child, DW_AT_type, &type) ||
			    !dwn_add_type(d, b, &type, depth + 1))
				return false;
			break;
		case DW_TAG_template_value_parameter:
			if (!*first)
				sbuf_adds(b, ", ");
			*first = false;
			if (!add_value_arg(b, &child))
				return false;
			break;
		case DW_TAG_GNU_template_parameter_pack:
			if (!add_template_args(d, b, &child, first, depth + 1))
				return false;
			break;
		case DW_TAG_GNU_template_template_param:
			return false;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return true;
}

/*
 * A template's name (a class's or a function's) with its arguments in
 * the demangler's form, from the DIE's template parameters: GCC's
 * DW_AT_name spells them its own way ("apply<main(int, char**)::<lambda
 * (uint64_t)> >"). Else, when an argument cannot be printed, DW_AT_name
 * with the builtin types respelled.
 */
void dwn_add_template_name(struct dwname *d, struct sbuf *b, Dwarf_Die *die, const char *name,
			   int depth)
{
	const char *args = dwn_template_args(name);
	size_t mark = b->len;
	bool first = true;

	if (!args) {
		dwn_add_name(b, name);
		return;
	}
	sbuf_addn(b, name, (size_t)(args - name));
	sbuf_addn(b, "<", 1);
	if (add_template_args(d, b, die, &first, depth + 1) && !first) {
		if (b->buf[b->len - 1] == '>')
			sbuf_addn(b, " ", 1);
		sbuf_addn(b, ">", 1);
		return;
	}
	sbuf_truncate(b, mark);
	dwn_add_name(b, name);
}
