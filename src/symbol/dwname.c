/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dwname.c - full C++ function names from the DWARF tree; see dwname.h.
 *
 * DWARF links a DIE to its children, not to its parent; the scopes of a
 * declaration are found through an index of every DIE's parent, built
 * once per unit that a name is built in.
 *
 * Invariant: every printer either appends its whole part and returns
 * true, or returns false, after which the caller throws the name away.
 *
 * One file for one concern, past the house's 700 lines: the printers
 * recurse into each other (a function's name holds its scopes and
 * parameter types, a type its scopes and template arguments, a template
 * argument a type or a lambda, whose name holds the function around
 * it), so any split into files would be a loop of calls between them.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "symbol/demangle.h"
#include "symbol/dwname-int.h"
#include "symbol/dwname.h"
#include "symbol/symfile-int.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/hmap.h"
#include "util/sbuf.h"

/* The parent of every DIE of a unit, ascending by offset (the order of a walk). */
struct die_parent {
	Dwarf_Off off, parent;
};

struct unit_parents {
	struct die_parent *dies;
	size_t n, cap;
	Dwarf_Off cu_off;
};

struct dwname {
	struct hmap units; /* Dwarf_CU pointer -> struct unit_parents */
};

struct dwname *dwname_new(void)
{
	struct dwname *d = xcalloc(1, sizeof(*d));

	hmap_init(&d->units);
	return d;
}

void dwname_free(struct dwname *d)
{
	if (!d)
		return;
	struct hmap_slot *s;

	for (size_t pos = 0; (s = hmap_next(&d->units, &pos));) {
		struct unit_parents *u = hmap_ptr(s);

		free(u->dies);
		free(u);
	}
	hmap_release(&d->units);
	free(d);
}

static void index_children(struct unit_parents *u, Dwarf_Die *die, Dwarf_Off parent, int depth)
{
	Dwarf_Die child;

	if (depth > 256 || dwarf_child(die, &child) != 0)
		return;
	do {
		Dwarf_Off off = dwarf_dieoffset(&child);

		xgrow(&u->dies, &u->cap, u->n + 1, sizeof(*u->dies));
		u->dies[u->n].off = off;
		u->dies[u->n].parent = parent;
		u->n++;
		if (dwarf_haschildren(&child) > 0)
			index_children(u, &child, off, depth + 1);
	} while (dwarf_siblingof(&child, &child) == 0);
}

static struct unit_parents *unit_parents(struct dwname *d, Dwarf_Die *die)
{
	struct hmap_slot *slot;
	struct unit_parents *u;
	Dwarf_Die cu;
	bool added;

	if (!die->cu || !dwarf_diecu(die, &cu, NULL, NULL))
		return NULL;
	slot = hmap_insert(&d->units, hmap_key_ptr(die->cu), &added);
	if (!added)
		return hmap_ptr(slot);
	u = xcalloc(1, sizeof(*u));
	u->cu_off = dwarf_dieoffset(&cu);
	index_children(u, &cu, u->cu_off, 0);
	hmap_set_ptr(slot, u);
	return u;
}

/* The parent of die into *out; false at the unit's top level or if unknown. */
static bool die_parent(struct dwname *d, Dwarf_Die *die, Dwarf_Die *out)
{
	struct unit_parents *u = unit_parents(d, die);
	Dwarf_Off off = dwarf_dieoffset(die);
	size_t lo = 0, hi;

	if (!u)
		return false;
	hi = u->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u->dies[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == u->n || u->dies[lo].off != off || u->dies[lo].parent == u->cu_off)
		return false;
	/* The parent lies in the same unit, of the same Dwarf as die. */
	return dwarf_offdie(dwarf_cu_getdwarf(die->cu), u->dies[lo].parent, out) != NULL;
}

bool dwn_ref_attr(Dwarf_Die *die, unsigned int name, Dwarf_Die *out)
{
	Dwarf_Attribute attr;

	return dwarf_attr(die, name, &attr) && dwarf_formref_die(&attr, out);
}

bool dwn_flag_attr(Dwarf_Die *die, unsigned int name)
{
	Dwarf_Attribute attr;
	bool v = false;

	return dwarf_attr_integrate(die, name, &attr) && dwarf_formflag(&attr, &v) == 0 && v;
}

/*
 * The DIE that declares the function of die: DW_AT_abstract_origin and
 * DW_AT_specification followed to the end. Its parents are the function's
 * scopes, its children the typed parameters.
 */
static void declaration(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Die next;

	*out = *die;
	for (int i = 0; i < 8; i++) {
		if (!dwn_ref_attr(out, DW_AT_abstract_origin, &next) &&
		    !dwn_ref_attr(out, DW_AT_specification, &next))
			return;
		*out = next;
	}
}

static bool is_cxx(Dwarf_Die *die)
{
	Dwarf_Die cu;
	Dwarf_Attribute attr;
	Dwarf_Word lang;

	if (!dwarf_diecu(die, &cu, NULL, NULL) ||
	    dwarf_formudata(dwarf_attr(&cu, DW_AT_language, &attr), &lang) != 0)
		return false;
	return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
	       lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
}

/* GCC's spelling of the builtin types and the demangler's. */
static const char *const base_types[][2] = {
	{"long int", "long"},
	{"long unsigned int", "unsigned long"},
	{"short int", "short"},
	{"short unsigned int", "unsigned short"},
	{"long long int", "long long"},
	{"long long unsigned int", "unsigned long long"},
	{"__int128 unsigned", "unsigned __int128"},
};

static const char *base_type_name(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(base_types); i++)
		if (!strcmp(name, base_types[i][0]))
			return base_types[i][1];
	return name;
}

/*
 * A DW_AT_name as the demangler would spell it: GCC writes the template
 * arguments of a class's name with its own spelling of the builtin types
 * ("W<long unsigned int>").
 */
void dwn_add_name(struct sbuf *b, const char *name)
{
	const char *p = name;

	while (*p) {
		size_t best = 0, k = 0;

		for (size_t i = 0; i < ARRAY_SIZE(base_types); i++) {
			size_t l = strlen(base_types[i][0]);

			/* p[l] is read only once p is known to hold l bytes. */
			if (l > best && !strncmp(p, base_types[i][0], l) &&
			    (p == name || strchr("<, (*&", p[-1])) && strchr(">, )*&", p[l])) {
				best = l;
				k = i;
			}
		}
		if (best) {
			sbuf_adds(b, base_types[k][1]);
			p += best;
		} else {
			sbuf_addn(b, p++, 1);
		}
	}
}

static bool add_function(struct dwname *d, struct sbuf *b, Dwarf_Die *die, int depth);
static bool add_scopes(struct dwname *d, struct sbuf *b, Dwarf_Die *die, int depth);
static bool add_parameters(struct dwname *d, struct sbuf *b, Dwarf_Die *fn, int depth);

/* A lambda's closure type: a class without a name, with an operator(). */
static bool is_closure(Dwarf_Die *type)
{
	Dwarf_Die child;

	if (dwarf_diename(type) || dwarf_child(type, &child) != 0)
		return false;
	do {
		const char *n;

		if (dwarf_tag(&child) == DW_TAG_subprogram && (n = dwarf_diename(&child)) &&
		    !strcmp(n, "operator()"))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* The operator() of a closure type. */
static bool closure_call(Dwarf_Die *type, Dwarf_Die *out)
{
	if (dwarf_child(type, out) != 0)
		return false;
	do {
		const char *n;

		if (dwarf_tag(out) == DW_TAG_subprogram && (n = dwarf_diename(out)) &&
		    !strcmp(n, "operator()"))
			return true;
	} while (dwarf_siblingof(out, out) == 0);
	return false;
}

struct src_pos {
	Dwarf_Word file, line, col;
	Dwarf_Off off;
};

static struct src_pos src_pos(Dwarf_Die *die)
{
	struct src_pos p = {0, 0, 0, dwarf_dieoffset(die)};
	Dwarf_Attribute attr;

	dwarf_formudata(dwarf_attr(die, DW_AT_decl_file, &attr), &p.file);
	dwarf_formudata(dwarf_attr(die, DW_AT_decl_line, &attr), &p.line);
	dwarf_formudata(dwarf_attr(die, DW_AT_decl_column, &attr), &p.col);
	return p;
}

static bool pos_before(const struct src_pos *a, const struct src_pos *b)
{
	if (a->file != b->file)
		return a->file < b->file;
	if (a->line != b->line)
		return a->line < b->line;
	if (a->col != b->col)
		return a->col < b->col;
	return a->off < b->off;
}

/*
 * The closure types declared in scope (a function, or a block in it) that
 * come before pos in the source; nested functions and classes are other
 * scopes of numbering and are not entered.
 */
static unsigned closures_before(Dwarf_Die *scope, const struct src_pos *pos, int depth)
{
	Dwarf_Die child;
	unsigned n = 0;

	if (depth > DWNAME_MAX_DEPTH || dwarf_child(scope, &child) != 0)
		return 0;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_lexical_block:
			n += closures_before(&child, pos, depth + 1);
			break;
		case DW_TAG_structure_type:
		case DW_TAG_class_type: {
			struct src_pos p = src_pos(&child);

			if (is_closure(&child) && pos_before(&p, pos))
				n++;
			break;
		}
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}

/*
 * "{lambda(PARAMETERS)#N}": GCC 12 numbers the lambdas of a function 1,
 * 2, ... in source order, whatever their parameters, and counts the
 * lambdas of its nested blocks with its own.
 */
static bool add_closure(struct dwname *d, struct sbuf *b, Dwarf_Die *type, int depth)
{
	Dwarf_Die call, scope, fn;
	struct src_pos pos = src_pos(type);
	size_t mark = b->len;
	bool ok;

	if (!closure_call(type, &call))
		return false;
	/* A generic lambda's parameters are mangled as auto:1, not as the instances. */
	if (dwarf_child(&call, &scope) == 0) {
		do {
			if (dwarf_tag(&scope) == DW_TAG_template_type_parameter)
				return false;
		} while (dwarf_siblingof(&scope, &scope) == 0);
	}
	/* The numbering scope: the function around the closure type. */
	scope = *type;
	do {
		if (!die_parent(d, &scope, &fn))
			return false; /* a lambda outside a function */
		scope = fn;
	} while (dwarf_tag(&fn) == DW_TAG_lexical_block);
	if (dwarf_tag(&fn) != DW_TAG_subprogram)
		return false;
	sbuf_adds(b, "{lambda");
	ok = add_parameters(d, b, &call, depth + 1);
	if (ok)
		sbuf_addf(b, "#%u}", closures_before(&fn, &pos, 0) + 1);
	if (!ok)
		sbuf_truncate(b, mark);
	return ok;
}

/* A class, union or enum type: its scopes, then its name. */
static bool add_class(struct dwname *d, struct sbuf *b, Dwarf_Die *type, int depth)
{
	const char *name = dwarf_diename(type);

	if (!add_scopes(d, b, type, depth + 1))
		return false;
	if (name) {
		dwn_add_template_name(d, b, type, name, depth + 1);
		return true;
	}
	return is_closure(type) && add_closure(d, b, type, depth + 1);
}

/* The parameters of a function (subprogram) or function type, with parentheses. */
static bool add_parameters(struct dwname *d, struct sbuf *b, Dwarf_Die *fn, int depth)
{
	Dwarf_Die child, type;
	bool first = true;

	sbuf_addn(b, "(", 1);
	if (dwarf_child(fn, &child) == 0) {
		do {
			int tag = dwarf_tag(&child);

			if (tag == DW_TAG_unspecified_parameters) {
				sbuf_adds(b, first ? "..." : ", ...");
				first = false;
				continue;
			}
			if (tag != DW_TAG_formal_parameter ||
			    dwn_flag_attr(&child, DW_AT_artificial))
				continue;
			if (!first)
				sbuf_adds(b, ", ");
			first = false;
			if (!dwn_ref_attr(&child, DW_AT_type, &type) ||
			    !dwn_add_type(d, b, &type, depth + 1))
				return false;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	sbuf_addn(b, ")", 1);
	return true;
}

/* The type of a reference to the next type of t, "void" when it has none. */
static bool add_inner(struct dwname *d, struct sbuf *b, Dwarf_Die *t, int depth)
{
	Dwarf_Die inner;

	if (!dwn_ref_attr(t, DW_AT_type, &inner)) {
		sbuf_adds(b, "void");
		return true;
	}
	return dwn_add_type(d, b, &inner, depth + 1);
}

/* A type in the demangler's spelling: "unsigned long", "char const*", "void (*)(int)". */
bool dwn_add_type(struct dwname *d, struct sbuf *b, Dwarf_Die *t, int depth)
{
	Dwarf_Die inner;
	const char *name;

	if (depth > DWNAME_MAX_DEPTH)
		return false;
	switch (dwarf_tag(t)) {
	case DW_TAG_base_type:
	case DW_TAG_unspecified_type:
		if (!(name = dwarf_diename(t)))
			return false;
		sbuf_adds(b, base_type_name(name));
		return true;
	case DW_TAG_typedef:
		return add_inner(d, b, t, depth);
	case DW_TAG_subroutine_type:
		/* A function type, as a template argument: "int (int)". */
		if (!add_inner(d, b, t, depth))
			return false;
		sbuf_addn(b, " ", 1);
		return add_parameters(d, b, t, depth + 1);
	case DW_TAG_const_type:
		if (!add_inner(d, b, t, depth))
			return false;
		sbuf_adds(b, " const");
		return true;
	case DW_TAG_volatile_type:
		if (!add_inner(d, b, t, depth))
			return false;
		sbuf_adds(b, " volatile");
		return true;
	case DW_TAG_pointer_type:
		if (dwn_ref_attr(t, DW_AT_type, &inner) &&
		    dwarf_tag(&inner) == DW_TAG_subroutine_type) {
			/* A pointer to a function: "RET (*)(PARAMETERS)". */
			if (!add_inner(d, b, &inner, depth))
				return false;
			sbuf_adds(b, " (*)");
			return add_parameters(d, b, &inner, depth + 1);
		}
		if (!add_inner(d, b, t, depth))
			return false;
		sbuf_addn(b, "*", 1);
		return true;
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		if (!add_inner(d, b, t, depth))
			return false;
		sbuf_adds(b, dwarf_tag(t) == DW_TAG_reference_type ? "&" : "&&");
		return true;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		/* A declaration in a type unit: the type itself is there. */
		if (dwn_ref_attr(t, DW_AT_signature, &inner))
			return add_class(d, b, &inner, depth + 1);
		return add_class(d, b, t, depth + 1);
	default:
		return false; /* arrays, pointers to members, ...: no parameter has them */
	}
}

/*
 * The scopes of die, each followed by "::": namespaces, classes, and for a
 * local declaration the function it is declared in (whose full name holds
 * the scopes outside it).
 */
static bool add_scopes(struct dwname *d, struct sbuf *b, Dwarf_Die *die, int depth)
{
	Dwarf_Die chain[DWNAME_MAX_DEPTH], cur = *die;
	size_t n = 0;

	if (depth > DWNAME_MAX_DEPTH)
		return false;
	/* Outward to the first function or the unit. */
	while (n < ARRAY_SIZE(chain) && die_parent(d, &cur, &chain[n])) {
		int tag = dwarf_tag(&chain[n]);

		cur = chain[n];
		if (tag == DW_TAG_lexical_block)
			continue;
		n++;
		if (tag == DW_TAG_subprogram)
			break;
	}
	if (n == ARRAY_SIZE(chain))
		return false;
	while (n-- > 0) {
		Dwarf_Die *s = &chain[n];
		const char *name = dwarf_diename(s);

		switch (dwarf_tag(s)) {
		case DW_TAG_namespace:
			sbuf_adds(b, name ? name : "(anonymous namespace)");
			break;
		case DW_TAG_structure_type:
		case DW_TAG_class_type:
		case DW_TAG_union_type:
			if (name)
				dwn_add_template_name(d, b, s, name, depth + 1);
			else if (!is_closure(s) || !add_closure(d, b, s, depth + 1))
				return false;
			break;
		case DW_TAG_subprogram:
			if (!add_function(d, b, s, depth + 1))
				return false;
			break;
		default:
			return false;
		}
		sbuf_adds(b, "::");
	}
	return true;
}

/* " const" (and " volatile") of a member function whose this points to const. */
static void add_qualifiers(Dwarf_Die *decl, struct sbuf *b)
{
	Dwarf_Die this, t;

	if (!dwn_ref_attr(decl, DW_AT_object_pointer, &this))
		return;
	if (!dwn_ref_attr(&this, DW_AT_type, &t))
		return;
	while (dwarf_tag(&t) == DW_TAG_const_type || dwarf_tag(&t) == DW_TAG_volatile_type ||
	       dwarf_tag(&t) == DW_TAG_typedef)
		if (!dwn_ref_attr(&t, DW_AT_type, &t))
			return;
	if (dwarf_tag(&t) != DW_TAG_pointer_type || !dwn_ref_attr(&t, DW_AT_type, &t))
		return;
	if (dwarf_tag(&t) == DW_TAG_const_type) {
		sbuf_adds(b, " const");
		if (dwn_ref_attr(&t, DW_AT_type, &t) && dwarf_tag(&t) == DW_TAG_volatile_type)
			sbuf_adds(b, " volatile");
	} else if (dwarf_tag(&t) == DW_TAG_volatile_type) {
		sbuf_adds(b, " volatile");
		if (dwn_ref_attr(&t, DW_AT_type, &t) && dwarf_tag(&t) == DW_TAG_const_type)
			sbuf_adds(b, " const");
	}
	if (dwn_flag_attr(decl, DW_AT_reference))
		sbuf_adds(b, " &");
	else if (dwn_flag_attr(decl, DW_AT_rvalue_reference))
		sbuf_adds(b, " &&");
}

/* Whether the function named name, declared by decl, is a constructor or destructor. */
static bool is_structor(struct dwname *d, Dwarf_Die *decl, const char *name)
{
	Dwarf_Die parent;
	const char *cls, *end;
	size_t n;

	if (name[0] == '~')
		return true;
	if (!die_parent(d, decl, &parent) || !(cls = dwarf_diename(&parent)))
		return false;
	end = strchr(name, '<');
	n = end ? (size_t)(end - name) : strlen(name);
	return strlen(cls) >= n && !strncmp(cls, name, n) && (cls[n] == '\0' || cls[n] == '<');
}

/* The full name of the function of die, with or without a linkage name. */
static bool add_function(struct dwname *d, struct sbuf *b, Dwarf_Die *die, int depth)
{
	Dwarf_Attribute attr;
	Dwarf_Die decl;
	const char *name;
	char *dm;

	if (depth > DWNAME_MAX_DEPTH)
		return false;
	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	if (name) {
		if (!(dm = demangle(name)))
			return false;
		sbuf_adds(b, dm);
		free(dm);
		return true;
	}
	if (!(name = dwarf_diename(die)))
		return false;
	declaration(die, &decl);
	if (dwn_flag_attr(die, DW_AT_external) && dwarf_tag(&decl) == DW_TAG_subprogram) {
		Dwarf_Die parent;

		/* Not mangled: main, or extern "C" (which a class member never is). */
		if (!die_parent(d, &decl, &parent) || dwarf_tag(&parent) == DW_TAG_namespace) {
			sbuf_adds(b, name);
			return true;
		}
	}
	/*
	 * A function template's demangled name leads with its return type,
	 * but for a constructor or destructor, which has none.
	 */
	if (dwn_template_args(name) && !is_structor(d, &decl, name)) {
		if (!add_inner(d, b, &decl, depth + 1))
			return false;
		sbuf_addn(b, " ", 1);
	}
	if (!add_scopes(d, b, &decl, depth + 1))
		return false;
	dwn_add_template_name(d, b, &decl, name, depth + 1);
	if (!add_parameters(d, b, &decl, depth + 1))
		return false;
	add_qualifiers(&decl, b);
	return true;
}

char *dwname_function(struct dwname *d, Dwarf_Die *die)
{
	struct sbuf b = SBUF_INIT;
	Dwarf_Attribute attr;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr) || !is_cxx(die))
		return NULL;
	/* Nothing built (a damaged tree may give no name): none, not the static empty one. */
	if (!add_function(d, &b, die, 0) || !b.len) {
		sbuf_release(&b);
		return NULL;
	}
	return sbuf_detach(&b, NULL);
}

/* Template arguments in the demangler's form: types, and values as it prints them (3, 3u, true). */

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
