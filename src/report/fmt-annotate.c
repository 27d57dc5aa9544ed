/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt-annotate.c - --annotate: where in a function its samples fell.
 *
 * A function here is the outermost level of a frame (what the code was
 * compiled as), in one module, at one start (two static functions of one
 * name stay apart). Its samples are those whose innermost frame (after
 * the kernel filters) lies in it, inlined code included; each is counted
 * at the function's own source line that it came from (the sampled line,
 * or the line whose call was inlined), and under that line at each
 * inlined level's own file and line, nested as the inlining was.
 *
 * The source text is read from the files DWARF named at the recording,
 * or under --source-dir (source.c); without it, the lines and their
 * counts alone.
 * With --asm, the function's instructions follow (report.h's
 * annotate_code disassembles them), each with its samples, each change
 * of source line shown above the instructions it made.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/aggregate.h"
#include "report/report.h"
#include "report/source-int.h"
#include "util/alloc.h"
#include "util/hash.h"
#include "util/hmap.h"
#include "util/sbuf.h"
#include "util/utf8.h"

#define DEFAULT_FUNCTIONS 5
/* A function longer than this many source lines shows its sampled lines with context. */
#define WHOLE_LINES 150
#define CONTEXT	    2
/* How far past the last sampled line its closing brace is looked for. */
#define BRACE_LOOKAHEAD 300

/* A function: its module, name (outermost level's) and start (file offset). */
struct afunc {
	uint32_t module;
	const char *name;
	uint64_t start;
	uint64_t self;
};

/* One level of the tree of places: a source line of the function or an inlined level's. */
struct node {
	uint32_t parent; /* NO_NODE for the function's own lines */
	uint32_t depth;
	const char *func, *file; /* file "" when unknown */
	uint32_t line;
	uint64_t count;
};

#define NO_NODE UINT32_MAX

struct annotate {
	const struct profile *p;
	const struct report_opts *o;
	FILE *out;
	uint64_t *frame_self; /* by frame */
	uint64_t total;	      /* the samples selected */
	struct afunc *funcs;
	size_t nfuncs;
	struct hmap func_ix; /* key hash -> index + 1 */
	struct node *nodes;
	size_t nnodes, nodes_cap;
	struct hmap node_ix; /* (parent, func, file, line) hash -> index + 1 */
	struct srcfiles src;
	bool by_path; /* the function shown: its sources may be read where recorded */
};

static const char *str(const struct annotate *a, uint32_t id)
{
	return strtab_get(&a->p->str, id);
}

/* The outermost level of frame f, or NULL for a frame without a name. */
static const struct pm_line *outer(const struct annotate *a, uint32_t f)
{
	const struct pm_frame *fr = &a->p->frames[f];

	if (!fr->nlines || (fr->flags & PM_FRAME_KERNEL))
		return NULL;
	return &a->p->lines[fr->line0 + fr->nlines - 1];
}

static uint64_t func_key(uint32_t module, const char *name, uint64_t start)
{
	return hash_u64(hash_bytes(name, strlen(name)) ^ hash_u64(start) ^ module) | 1;
}

/* What func_ix's entries are matched with: a function, and where the others are. */
struct func_key {
	const struct annotate *a;
	struct afunc f;
};

static bool same_func(uint64_t val, const void *arg)
{
	const struct func_key *k = arg;
	const struct afunc *g = &k->a->funcs[val - 1];

	return g->module == k->f.module && g->start == k->f.start && !strcmp(g->name, k->f.name);
}

/* The function of frame f (added when new); -1 for a frame without one. */
static long func_of(struct annotate *a, uint32_t f)
{
	const struct pm_line *l = outer(a, f);
	const struct pm_frame *fr = &a->p->frames[f];
	const char *name;
	uint64_t start, key;
	struct func_key fk;
	struct hmap_slot *s;
	bool added;

	if (!l || !*(name = str(a, l->func)) || fr->addr < l->symoff)
		return -1;
	start = fr->addr - l->symoff;
	key = func_key(fr->module, name, start);
	fk = (struct func_key){a, {fr->module, name, start, 0}};
	s = hmap_intern(&a->func_ix, key, same_func, &fk, &added);
	if (!added)
		return (long)s->val - 1;
	a->funcs = xrealloc(a->funcs, (a->nfuncs + 1) * sizeof(*a->funcs));
	a->funcs[a->nfuncs] = (struct afunc){fr->module, name, start, 0};
	s->val = ++a->nfuncs;
	return (long)a->nfuncs - 1;
}

/* Counts the self samples of every frame and function that o selects. */
static void count(struct annotate *a)
{
	struct aggregate *agg = aggregate_new(a->p, a->o, 0);

	srcfiles_init(&a->src, a->o);
	a->frame_self = xcalloc(a->p->nframes + 1, sizeof(*a->frame_self));
	hmap_init(&a->func_ix);
	hmap_init(&a->node_ix);
	for (size_t i = 0; i < agg->nstacks; i++) {
		const struct agg_stack *st = &agg->stacks[i];
		uint32_t leaf;
		long g;

		if (!st->depth)
			continue;
		leaf = agg->frames[st->off];
		a->frame_self[leaf] += st->count;
		if ((g = func_of(a, leaf)) >= 0)
			a->funcs[g].self += st->count;
	}
	a->total = agg->samples;
	aggregate_free(agg);
}

static int by_self(const void *x, const void *y)
{
	const struct afunc *f = x, *g = y;

	if (f->self != g->self)
		return f->self > g->self ? -1 : 1;
	return strcmp(f->name, g->name);
}

/*
 * Whether name is what the user asked for: the name itself, a C++ name
 * without its parameters ("ns::f" for "ns::f(int) const"), or the name
 * of a compiler's copy of it as its symbol reads ("f.constprop.0").
 */
static bool name_matches(const char *name, const char *want)
{
	size_t n = strlen(want);

	size_t m = strlen(name);

	/* "f.constprop.0", "f.part.0", "f.cold": the symbol of a copy of f. */
	if (m < n && !strncmp(name, want, m) && want[m] == '.')
		return true;
	return !strcmp(name, want) || (!strncmp(name, want, n) && name[n] == '(');
}

static void annotate_release(struct annotate *a)
{
	free(a->frame_self);
	free(a->funcs);
	free(a->nodes);
	hmap_release(&a->func_ix);
	hmap_release(&a->node_ix);
	srcfiles_release(&a->src);
}

int report_annotate_check(const struct profile *p, const struct report_opts *o, struct sbuf *why)
{
	struct annotate a = {.p = p, .o = o};
	bool found = false;

	if (!o->annotate)
		return 0;
	count(&a);
	for (size_t i = 0; i < a.nfuncs && !found; i++)
		found = a.funcs[i].self && name_matches(a.funcs[i].name, o->annotate);
	if (!found) {
		if (a.nfuncs)
			qsort(a.funcs, a.nfuncs, sizeof(*a.funcs), by_self);
		sbuf_adds(why, "no samples in a function named '");
		sbuf_add_printable(why, o->annotate);
		sbuf_adds(why, "'");
		for (size_t i = 0; i < a.nfuncs && i < 3; i++) {
			sbuf_adds(why, i ? ", " : "; the hottest: ");
			sbuf_add_printable(why, a.funcs[i].name);
		}
	}
	annotate_release(&a);
	return found ? 0 : -1;
}

/* The tree of places */

/* What node_ix's entries are matched with: a node, and where the others are. */
struct node_key {
	const struct annotate *a;
	struct node n;
};

static bool same_node(uint64_t val, const void *arg)
{
	const struct node_key *k = arg;
	const struct node *n = &k->a->nodes[val - 1];

	return n->parent == k->n.parent && n->line == k->n.line && !strcmp(n->func, k->n.func) &&
	       !strcmp(n->file, k->n.file);
}

/* The node of (func, file, line) under parent, added when new. */
static uint32_t node_get(struct annotate *a, uint32_t parent, uint32_t depth, const char *func,
			 const char *file, uint32_t line)
{
	uint64_t key = hash_u64(hash_bytes(func, strlen(func)) ^
				hash_u64(hash_bytes(file, strlen(file)) + line) ^ parent) |
		       1;
	struct node_key nk = {a, {parent, depth, func, file, line, 0}};
	struct hmap_slot *s;
	bool added;

	s = hmap_intern(&a->node_ix, key, same_node, &nk, &added);
	if (!added)
		return (uint32_t)s->val - 1;
	xgrow(&a->nodes, &a->nodes_cap, a->nnodes + 1, sizeof(*a->nodes));
	a->nodes[a->nnodes] = (struct node){parent, depth, func, file, line, 0};
	s->val = ++a->nnodes;
	return (uint32_t)a->nnodes - 1;
}

/* Frame f's self samples along its levels, outermost first. */
static void add_frame(struct annotate *a, uint32_t f)
{
	const struct pm_frame *fr = &a->p->frames[f];
	uint32_t parent = NO_NODE;

	for (uint32_t lv = 0; lv < fr->nlines; lv++) {
		const struct pm_line *l = &a->p->lines[fr->line0 + fr->nlines - 1 - lv];
		uint32_t n = node_get(a, parent, lv, str(a, l->func), str(a, l->file), l->line);

		a->nodes[n].count += a->frame_self[f];
		parent = n;
	}
}

static int by_place(const void *x, const void *y)
{
	const struct node *m = x, *n = y;
	int c = strcmp(m->file, n->file);

	if (c)
		return c;
	if (m->line != n->line)
		return m->line < n->line ? -1 : 1;
	return strcmp(m->func, n->func);
}

/* "  12.3%      1234" or blanks, the columns every row starts with. */
static void print_counts(struct annotate *a, uint64_t n, uint64_t of)
{
	if (!n) {
		fprintf(a->out, "%8s %9s", "", "");
		return;
	}
	fprintf(a->out, "%7.1f%% %9llu", of ? 100.0 * (double)n / (double)of : 0.0,
		(unsigned long long)n);
}

static void print_children(struct annotate *a, uint32_t parent, uint64_t of);

/*
 * "| " for each level of inlining: the rows of inlined code are told
 * apart. The last one without its space when nothing follows.
 */
static void bars(struct annotate *a, uint32_t depth, bool more)
{
	while (depth--)
		fputs(depth || more ? "| " : "|", a->out);
}

/* A row: counts, line number, the source text indented by depth, then what was inlined there. */
static void print_row(struct annotate *a, uint32_t node, const char *file, uint32_t line,
		      uint32_t depth, uint64_t of)
{
	const char *text =
		line ? srcfile_line(&a->src, srcfiles_get(&a->src, file, a->by_path), line) : "";

	print_counts(a, node == NO_NODE ? 0 : a->nodes[node].count, of);
	if (line)
		fprintf(a->out, " %6u", line);
	else
		fprintf(a->out, " %6s", "?");
	if (depth || *text) {
		fputs("  ", a->out);
		bars(a, depth, *text);
	}
	fprintf(a->out, "%s\n", text);
	if (node != NO_NODE)
		print_children(a, node, of);
}

/* The levels inlined at parent: a heading per function and file, their lines under it. */
static void print_children(struct annotate *a, uint32_t parent, uint64_t of)
{
	struct node *kids = NULL;
	size_t n = 0, cap = 0;
	uint32_t depth = a->nodes[parent].depth + 1;
	struct sbuf shown = SBUF_INIT;

	for (size_t i = 0; i < a->nnodes; i++)
		if (a->nodes[i].parent == parent) {
			xgrow(&kids, &cap, n + 1, sizeof(*kids));
			kids[n] = a->nodes[i];
			kids[n++].parent = (uint32_t)i; /* the copy remembers its index */
		}
	if (n)
		qsort(kids, n, sizeof(*kids), by_place);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || strcmp(kids[i].func, kids[i - 1].func) ||
		    strcmp(kids[i].file, kids[i - 1].file)) {
			fprintf(a->out, "%8s %9s %6s  ", "", "", "");
			bars(a, depth - 1, true);
			fprintf(a->out, "+ inlined %s",
				printable(&shown, *kids[i].func ? kids[i].func : "[unknown]"));
			fprintf(a->out, " (%s)\n",
				printable(&shown, *kids[i].file ? kids[i].file : "file unknown"));
		}
		print_row(a, kids[i].parent, kids[i].file, kids[i].line, depth, of);
	}
	free(kids);
	sbuf_release(&shown);
}

/* The function's own lines (level 0): sorted by file and line, into *out; their count. */
static size_t own_lines(struct annotate *a, struct node **out)
{
	struct node *v = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < a->nnodes; i++)
		if (a->nodes[i].parent == NO_NODE) {
			xgrow(&v, &cap, n + 1, sizeof(*v));
			v[n] = a->nodes[i];
			v[n++].parent = (uint32_t)i;
		}
	if (n)
		qsort(v, n, sizeof(*v), by_place);
	*out = v;
	return n;
}

/* The file with most of the function's samples among its own lines. */
static const char *home_file(const struct node *v, size_t n)
{
	const char *best = n ? v[0].file : "";
	uint64_t best_n = 0, run = 0;

	for (size_t i = 0; i < n; i++) {
		run = i && !strcmp(v[i].file, v[i - 1].file) ? run + v[i].count : v[i].count;
		if (run > best_n) {
			best_n = run;
			best = v[i].file;
		}
	}
	return best;
}

/*
 * The lines of the home file to show: from the function's first line
 * (DW_AT_decl_line) or a little before its first sampled one, to its
 * closing brace (a '}' alone at the start of a line, looked for past
 * from the last sampled line on) or its last sampled line.
 */
static void home_range(struct annotate *a, const struct node *v, size_t n, const char *home,
		       uint32_t decl, uint32_t *lo, uint32_t *hi)
{
	struct srcfile *f = srcfiles_get(&a->src, home, a->by_path);
	uint32_t first = UINT32_MAX, last = 0;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].file, home) && v[i].line) {
			first = v[i].line < first ? v[i].line : first;
			last = v[i].line > last ? v[i].line : last;
		}
	if (!last) {
		*lo = *hi = 0;
		return;
	}
	*lo = decl && decl <= first ? decl : first > CONTEXT ? first - CONTEXT : 1;
	*hi = last;
	for (uint32_t l = last; f->text && l <= f->nlines && l <= last + BRACE_LOOKAHEAD; l++)
		if (f->starts[l - 1][0] == '}') {
			*hi = l;
			break;
		}
}

/* Whether line l is within CONTEXT lines of a sampled line of home. */
static bool near_sample(const struct node *v, size_t n, const char *home, uint32_t l)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].file, home) && v[i].line + CONTEXT >= l &&
		    v[i].line <= l + CONTEXT)
			return true;
	return false;
}

static uint32_t own_node(const struct node *v, size_t n, const char *home, uint32_t l)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].line == l && !strcmp(v[i].file, home))
			return v[i].parent;
	return NO_NODE;
}

/*
 * Why the function's source is not shown: not found, or not looked for
 * where its module's debug information says (srcfiles_may_read).
 */
static void not_shown(struct annotate *a, const struct afunc *g)
{
	uint32_t owner = a->p->modules[g->module].owner;
	const char *where = a->o->nsource_dirs ? "not under --source-dir" : "give --source-dir DIR";

	if (a->by_path)
		fprintf(a->out, " (not found%s: lines and counts alone)",
			a->o->nsource_dirs ? " under --source-dir" : "; give --source-dir DIR");
	else if (!a->o->own_sources)
		fprintf(a->out, " (not read where recorded: the data file is another user's; %s)",
			where);
	else if (owner == PM_OWNER_UNKNOWN)
		fprintf(a->out,
			" (not read where recorded: the recording does not say who owned the "
			"module; %s)",
			where);
	else
		fprintf(a->out,
			" (not read where recorded: the module belonged to uid %u, whose debug "
			"information may name any file; %s)",
			owner, where);
}

/* The function's source with its counts. */
static void print_source(struct annotate *a, const struct afunc *g, uint32_t decl)
{
	struct node *v;
	size_t n = own_lines(a, &v);
	const char *home = home_file(v, n);
	struct srcfile *f = srcfiles_get(&a->src, home, a->by_path);
	struct sbuf shown = SBUF_INIT;
	uint32_t lo, hi;
	bool gap = false;

	home_range(a, v, n, home, decl, &lo, &hi);
	fprintf(a->out, "Source: %s", *home ? printable(&shown, home) : "unknown");
	if (*home && !f->text)
		not_shown(a, g);
	fprintf(a->out, "\n\n%8s %9s %6s  %s\n", "Percent", "Samples", "Line", "Source");
	for (uint32_t l = lo; l && l <= hi; l++) {
		/* Without the text, a line without samples says nothing. */
		if (!f->text && own_node(v, n, home, l) == NO_NODE)
			continue;
		if (hi - lo >= WHOLE_LINES && !near_sample(v, n, home, l)) {
			if (!gap)
				fprintf(a->out, "%8s %9s %6s\n", "", "", "...");
			gap = true;
			continue;
		}
		gap = false;
		print_row(a, own_node(v, n, home, l), home, l, 0, g->self);
	}
	/* Lines of the function in other files (code included from elsewhere), or unknown ones. */
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(v[i].file, home) && v[i].line)
			continue;
		if (i == 0 || strcmp(v[i].file, v[i - 1].file))
			fprintf(a->out, "%8s %9s %6s  (in %s)\n", "", "", "",
				*v[i].file ? printable(&shown, v[i].file) : "no known file");
		print_row(a, v[i].parent, v[i].file, v[i].line, 0, g->self);
	}
	free(v);
	sbuf_release(&shown);
}

void annotate_insns_free(struct annotate_insn *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].text);
		free(v[i].file);
	}
	free(v);
}

/* The instructions of g (function gi), each with its self samples, its source lines above. */
static void print_asm(struct annotate *a, const struct afunc *g, long gi)
{
	const struct pm_module *mod = &a->p->modules[g->module];
	struct sbuf why = SBUF_INIT, shown[2] = {SBUF_INIT, SBUF_INIT};
	struct annotate_insn *ins = NULL;
	char addr[24];
	const char *file = NULL;
	uint64_t placed = 0;
	uint32_t line = 0;
	struct hmap at;
	size_t n = 0;

	if (a->o->code->disasm(a->o->code->arg, str(a, mod->path), str(a, mod->build_id),
			       mod->owner, g->start, g->name, &ins, &n, &why) < 0) {
		fprintf(a->out, "\nInstructions: none shown: %s\n", why.buf ? why.buf : "");
		sbuf_release(&why);
		return;
	}
	hmap_init(&at);
	for (uint32_t f = 0; f < a->p->nframes; f++)
		if (a->frame_self[f] && func_of(a, f) == gi)
			hmap_insert(&at, a->p->frames[f].addr, NULL)->val += a->frame_self[f];
	fprintf(a->out, "\n%8s %9s %-10s %s\n", "Percent", "Samples", "Address", "Instruction");
	for (size_t i = 0; i < n; i++) {
		struct hmap_slot *s = hmap_find(&at, ins[i].off);
		uint64_t c = s ? s->val : 0;
		const char *text;

		if (ins[i].file && (!file || line != ins[i].line || strcmp(file, ins[i].file))) {
			file = ins[i].file;
			line = ins[i].line;
			text = srcfile_line(&a->src, srcfiles_get(&a->src, file, a->by_path), line);
			fprintf(a->out, "%8s %9s %s:%u%s%s\n", "", "",
				printable(&shown[0], report_base_name(file)), line,
				*text ? "  " : "", text);
		}
		placed += c;
		print_counts(a, c, g->self);
		snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)ins[i].vaddr);
		fprintf(a->out, " %-10s %s\n", addr, printable(&shown[0], ins[i].text));
	}
	if (placed < g->self)
		fprintf(a->out,
			"%8s %9llu samples at addresses that begin none of these instructions\n",
			"", (unsigned long long)(g->self - placed));
	hmap_release(&at);
	annotate_insns_free(ins, n);
	sbuf_release(&why);
	sbuf_release(&shown[0]);
	sbuf_release(&shown[1]);
}

/* One function: its heading, its source, its instructions with --asm. */
static void print_function(struct annotate *a, long gi)
{
	const struct afunc *g = &a->funcs[gi];
	const struct pm_module *mod = &a->p->modules[g->module];
	struct sbuf shown = SBUF_INIT;
	uint32_t decl = 0;

	a->nnodes = 0;
	hmap_release(&a->node_ix);
	hmap_init(&a->node_ix);
	for (uint32_t f = 0; f < a->p->nframes; f++) {
		if (!a->frame_self[f] || func_of(a, f) != gi)
			continue;
		add_frame(a, f);
		if (!decl)
			decl = outer(a, f)->start_line;
	}
	a->by_path = srcfiles_may_read(&a->src, mod->owner);
	fprintf(a->out, "Function: %s", printable(&shown, g->name));
	fprintf(a->out, " (%s): %llu samples, %.1f%% of the %llu selected\n",
		printable(&shown, report_base_name(str(a, mod->path))), (unsigned long long)g->self,
		a->total ? 100.0 * (double)g->self / (double)a->total : 0.0,
		(unsigned long long)a->total);
	print_source(a, g, decl);
	if (a->o->code)
		print_asm(a, g, gi);
	sbuf_release(&shown);
}

static const struct afunc *sort_funcs;

static int by_self_ix(const void *x, const void *y)
{
	return by_self(&sort_funcs[*(const size_t *)x], &sort_funcs[*(const size_t *)y]);
}

int fmt_annotate(const struct report_data *d, FILE *out)
{
	const struct profile *p = d->p;
	const struct report_opts *o = d->o;
	struct annotate a = {.p = p, .o = o, .out = out};
	size_t *order, shown = 0, limit;

	count(&a);
	order = xcalloc(a.nfuncs + 1, sizeof(*order));
	for (size_t i = 0; i < a.nfuncs; i++)
		order[i] = i;
	sort_funcs = a.funcs;
	qsort(order, a.nfuncs, sizeof(*order), by_self_ix);
	limit = o->annotate    ? SIZE_MAX
		: o->rows > 0  ? (size_t)o->rows
		: o->rows == 0 ? SIZE_MAX
			       : DEFAULT_FUNCTIONS;
	for (size_t i = 0; i < a.nfuncs && shown < limit; i++) {
		const struct afunc *g = &a.funcs[order[i]];

		if (!g->self || (o->annotate && !name_matches(g->name, o->annotate)))
			continue;
		if (shown++)
			fputc('\n', out);
		print_function(&a, (long)order[i]);
	}
	if (!shown)
		fprintf(out, "No function has samples of its own among those selected.\n");
	free(order);
	annotate_release(&a);
	return 0;
}
