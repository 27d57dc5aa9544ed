/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt-svg.c - the profile as one self-contained interactive flame graph:
 * SVG with an embedded script (svg-script.c), no external resource.
 *
 * The graph is the tree of the folded stacks (a root frame, then the
 * frames outermost first, each inlined level a frame of its own), drawn
 * root at the bottom; a frame's width is proportional to its samples:
 * count * (width - 2 * PAD) / samples. Siblings are sorted by name, as
 * flamegraph.pl does.
 *
 * The whole tree is in the file, compactly: a JSON document (the
 * distinct names with their kind and colour, then three numbers per
 * frame in preorder: name, samples, children) that the script draws
 * from. What is drawn at a zoom is the frames with at least 1/MIN_SHARE
 * of the samples of the frame zoomed into, and the picture is as tall as
 * they are deep. The same frames at the first zoom (the whole profile)
 * are also in the file as SVG elements, so viewers that run no script
 * show the graph too. Names go through xml_text (elements) and
 * json_text (the tree): the output is well-formed XML whatever the bytes.
 *
 * With --diff, the tree holds both recordings, stacks matched by their
 * names: widths are the reported recording's samples, a fourth number per
 * node is the base's, and the colour is the change in share of each
 * recording's own total, from grey (none) to red (grew most) or blue
 * (shrank most). Frames found only in the base have no width: not drawn.
 * The names are the key (aggregate_prepare): without the thread in it,
 * no root frame; with the module, "MODULE`FUNCTION". A frame of a function
 * whose share of CPU samples changed beyond the noise (functab.h) is
 * outlined, its mark a fifth number per node; with --diff-significant the
 * other frames are grey.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/aggregate.h"
#include "report/functab.h"
#include "report/noise.h"
#include "report/report.h"
#include "report/svg-script.h"
#include "util/alloc.h"
#include "util/hash.h"
#include "util/hmap.h"
#include "util/msg.h"
#include "util/parse.h"
#include "util/sbuf.h"
#include "util/utf8.h"

#define WIDTH	     1200
#define PAD	     10
#define FRAME_HEIGHT 16
#define TOP	     84	  /* title, subtitle, legend and controls */
#define BOTTOM	     34	  /* the status line */
#define CHAR_WIDTH   7.2  /* of the 12px monospace font, as the script assumes */
#define MIN_SHARE    1000 /* frames under 1/MIN_SHARE of the zoomed frame are not drawn */

enum kind { KIND_ALL, KIND_ROOT, KIND_USER, KIND_KERNEL, KIND_INLINED, KIND_JIT, NKINDS };

static const struct {
	const char *label;
	unsigned char base[3], range[3]; /* colour: base + range * (a value from the name) */
} kinds[NKINDS] = {
	[KIND_ALL] = {"all", {200, 200, 200}, {20, 20, 20}},
	[KIND_ROOT] = {"root", {185, 185, 195}, {40, 40, 40}},
	[KIND_USER] = {"user", {215, 70, 30}, {40, 150, 40}},
	[KIND_KERNEL] = {"kernel", {70, 115, 215}, {40, 35, 35}},
	[KIND_INLINED] = {"inlined", {60, 195, 185}, {50, 50, 50}},
	[KIND_JIT] = {"JIT", {75, 185, 70}, {60, 60, 50}},
};

struct node {
	uint32_t name; /* in the local strings */
	uint32_t kind;
	uint32_t parent, child, next; /* child and next: PM_NONE for none */
	uint32_t depth;
	uint64_t count;
	uint64_t base;	/* --diff: the base recording's samples */
	uint32_t entry; /* its (name, kind) in the JSON names, + 1; 0 not yet */
	int32_t mark;	/* --diff: its function's mark (functab.h), +1 grew, -1 shrank, 0 */
};

struct svg {
	const struct profile *p;
	const struct report_opts *o;
	struct strtab str;
	struct node *nodes;
	size_t nnodes, nodes_cap;
	struct hmap index; /* hash of (parent, name, kind) -> node */
	uint64_t total;
	uint64_t base_total; /* --diff: the base's samples */
	double max_change;   /* --diff: the largest change in share of a node */
	uint32_t max_depth;  /* of the frames drawn at first */
	struct hmap entries; /* name << 8 | kind -> JSON names index + 1 */
	uint32_t nentries;
	uint32_t *kids; /* scratch for sorted children, a stack of them */
	size_t nkids, kids_cap;
	struct functab *ft; /* --diff of CPU samples: the functions' marks */
	struct sbuf b;
};

struct node_key {
	const struct svg *g;
	uint32_t parent, name, kind;
};

static bool same_node(uint64_t val, const void *arg)
{
	const struct node_key *k = arg;
	const struct node *n = &k->g->nodes[val];

	return n->parent == k->parent && n->name == k->name && n->kind == k->kind;
}

/* The child of parent named name, of kind, added if new. */
static uint32_t child_of(struct svg *g, uint32_t parent, uint32_t name, uint32_t kind)
{
	struct node_key k = {g, parent, name, kind};
	struct hmap_slot *slot;
	struct node *n;
	uint64_t key;
	bool added;

	key = hash_u64(((uint64_t)parent << 32 | name) ^ hash_u64(kind + 1));
	slot = hmap_intern(&g->index, key, same_node, &k, &added);
	if (!added)
		return (uint32_t)slot->val;
	xgrow(&g->nodes, &g->nodes_cap, g->nnodes + 1, sizeof(*g->nodes));
	n = &g->nodes[g->nnodes];
	n->name = name;
	n->kind = kind;
	n->parent = parent;
	n->child = PM_NONE;
	n->next = g->nodes[parent].child;
	n->depth = g->nodes[parent].depth + 1;
	n->count = n->base = 0;
	n->entry = 0;
	n->mark = 0;
	g->nodes[parent].child = (uint32_t)g->nnodes;
	slot->val = g->nnodes;
	return (uint32_t)g->nnodes++;
}

static uint32_t level_kind(const struct profile *p, uint32_t f, uint32_t level,
			   const struct name_opts *o)
{
	const struct pm_frame *fr = &p->frames[f];
	const struct pm_line *l = report_level_line(p, f, level, o);

	if (fr->flags & PM_FRAME_KERNEL)
		return KIND_KERNEL;
	if (l && (l->flags & PM_LINE_INLINED))
		return KIND_INLINED;
	if (fr->module != PM_NONE &&
	    (p->modules[fr->module].flags & (PM_MODULE_PERFMAP | PM_MODULE_ANON)) &&
	    (l || !(fr->flags & PM_FRAME_NOMAP)))
		return KIND_JIT;
	return KIND_USER;
}

/* The mark of level k of frame f in a stack of root (the base's with base). */
static int row_mark(struct functab *ft, bool base, uint32_t f, uint32_t k, const char *root)
{
	const struct ft_row *r = &ft->rows[functab_row(ft, base, f, k, root)];

	return r->self_mark ? r->self_mark : r->total_mark;
}

/* Adds the stacks of a (recorded in p) to the tree: to counts, or with base to bases. */
static void build(struct svg *g, const struct profile *p, const struct aggregate *a, bool base)
{
	if (!g->nnodes) {
		xgrow(&g->nodes, &g->nodes_cap, 1, sizeof(*g->nodes));
		g->nodes[0] = (struct node){.name = strtab_add(&g->str, "all"),
					    .kind = KIND_ALL,
					    .parent = PM_NONE,
					    .child = PM_NONE,
					    .next = PM_NONE};
		g->nnodes = 1;
	}
	for (size_t i = 0; i < a->nstacks; i++) {
		const struct agg_stack *s = &a->stacks[i];
		uint32_t n;

		*(base ? &g->nodes[0].base : &g->nodes[0].count) += s->count;
		n = 0;
		if (g->o->root != REPORT_ROOT_NONE) {
			sbuf_reset(&g->b);
			sbuf_add_sanitized(&g->b, a->roots[s->root]);
			n = child_of(g, 0, strtab_addn(&g->str, g->b.buf, g->b.len), KIND_ROOT);
			*(base ? &g->nodes[n].base : &g->nodes[n].count) += s->count;
		}
		for (uint32_t d = s->depth; d-- > 0;) {
			uint32_t f = a->frames[s->off + d];
			uint32_t levels = report_frame_levels(p, f, &g->o->names);

			for (uint32_t k = 0; k < levels; k++) {
				sbuf_reset(&g->b);
				report_level_name(p, f, k, &g->o->names, &g->b);
				n = child_of(g, n, strtab_addn(&g->str, g->b.buf, g->b.len),
					     level_kind(p, f, k, &g->o->names));
				*(base ? &g->nodes[n].base : &g->nodes[n].count) += s->count;
				if (g->ft)
					g->nodes[n].mark =
						row_mark(g->ft, base, f, k, a->roots[s->root]);
			}
		}
	}
	if (base)
		g->base_total = g->nodes[0].base;
	else
		g->total = g->nodes[0].count;
}

/* --diff: node n's change in share, new minus base, as a fraction. */
static double node_change(const struct svg *g, const struct node *n)
{
	double now = g->total ? (double)n->count / (double)g->total : 0;
	double before = g->base_total ? (double)n->base / (double)g->base_total : 0;

	return now - before;
}

static int cmp_child(const void *a, const void *b, void *arg)
{
	const struct svg *g = arg;
	const struct node *x = &g->nodes[*(const uint32_t *)a];
	const struct node *y = &g->nodes[*(const uint32_t *)b];
	int c = strcmp(strtab_get(&g->str, x->name), strtab_get(&g->str, y->name));

	return c ? c : (x->kind > y->kind) - (x->kind < y->kind);
}

static bool visible(const struct svg *g, uint32_t n)
{
	return g->nodes[n].count * MIN_SHARE >= g->total;
}

/*
 * Off-CPU time in colours of its own, so that it is never read as CPU
 * time: blues for user code, violets for the kernel (where it waits).
 */
static const struct {
	unsigned char base[3], range[3];
} offcpu_kinds[NKINDS] = {
	[KIND_ALL] = {{200, 200, 200}, {20, 20, 20}},
	[KIND_ROOT] = {{185, 185, 195}, {40, 40, 40}},
	[KIND_USER] = {{40, 90, 200}, {40, 70, 50}},
	[KIND_KERNEL] = {{130, 70, 190}, {50, 40, 50}},
	[KIND_INLINED] = {{50, 150, 210}, {40, 50, 40}},
	[KIND_JIT] = {{60, 120, 170}, {40, 50, 50}},
};

/* --diff: grey for no change, to red for the most growth, blue for the most shrinkage. */
static const unsigned char diff_same[3] = {215, 215, 215}, diff_grew[3] = {225, 40, 40},
			   diff_shrank[3] = {45, 95, 225};

/* --diff: the colour of node n's change. */
static void diff_colour(const struct svg *g, const struct node *n, FILE *out)
{
	double d = node_change(g, n), k = g->max_change > 0 ? fabs(d) / g->max_change : 0;
	const unsigned char *to = d > 0 ? diff_grew : diff_shrank;
	int c[3];

	if (g->o->diff_significant && !n->mark)
		k = 0; /* --diff-significant: only the marked functions have colour */
	for (int i = 0; i < 3; i++)
		c[i] = (int)(diff_same[i] + (to[i] - diff_same[i]) * k + 0.5);
	fprintf(out, "rgb(%d,%d,%d)", c[0], c[1], c[2]);
}

/* The colour of a frame: its kind's family, the shade from its name. */
static void colour(const struct svg *g, const struct node *n, FILE *out)
{
	const char *name = strtab_get(&g->str, n->name);
	uint64_t h = hash_bytes(name, strlen(name));
	bool off = g->o->sample_type == REPORT_OFF_CPU;
	const unsigned char *base = off ? offcpu_kinds[n->kind].base : kinds[n->kind].base;
	const unsigned char *range = off ? offcpu_kinds[n->kind].range : kinds[n->kind].range;
	int rgb[3];

	if (g->o->base) {
		diff_colour(g, n, out);
		return;
	}
	for (int i = 0; i < 3; i++) {
		/* Greys (the root frames) take one shade for all three channels. */
		unsigned v = (unsigned)(h >> (n->kind <= KIND_ROOT ? 0 : 8 * i)) & 0xff;

		rgb[i] = base[i] + (int)(range[i] * v / 255);
		if (rgb[i] > 255)
			rgb[i] = 255;
	}
	fprintf(out, "rgb(%d,%d,%d)", rgb[0], rgb[1], rgb[2]);
}

/* The name cut to what fits w pixels, as the script's label() does. */
static void label(FILE *out, const char *name, double w)
{
	long fit = (long)((w - 6) / CHAR_WIDTH);
	size_t len = 0, cps = 0, i;

	if (fit < 3)
		return;
	for (i = 0; name[i]; i++)
		if (((unsigned char)name[i] & 0xc0) != 0x80)
			cps++;
	if (cps <= (size_t)fit) {
		svg_xml_text(out, name);
		return;
	}
	/* The bytes of the first fit - 2 code points, then "..". */
	for (cps = 0, i = 0; name[i]; i++) {
		if (((unsigned char)name[i] & 0xc0) == 0x80)
			continue;
		if (cps == (size_t)fit - 2)
			break;
		cps++;
	}
	len = i;
	{
		char *cut = xstrndup(name, len);

		svg_xml_text(out, cut);
		free(cut);
	}
	fputs("..", out);
}

static double scale(const struct svg *g)
{
	return (double)(WIDTH - 2 * PAD) / (double)g->total;
}

/* Frame n at x samples from the left, then its children, left to right. */
static void draw(struct svg *g, uint32_t n, uint64_t x, FILE *out)
{
	const struct node *nd = &g->nodes[n];
	const char *name = strtab_get(&g->str, nd->name);
	double k = scale(g), px = PAD + (double)x * k, w = (double)nd->count * k;
	double y = TOP + (double)(g->max_depth - nd->depth) * FRAME_HEIGHT;
	uint32_t *kids = NULL;
	size_t nkids = 0, cap = 0;

	fputs("<g class=\"f\"><title>", out);
	svg_xml_text(out, name);
	if (g->o->base)
		fprintf(out, " (%llu sample%s, %.2f%%; base %.2f%%, %+.2f points%s)</title>",
			(unsigned long long)nd->count, nd->count == 1 ? "" : "s",
			100.0 * (double)nd->count / (double)g->total,
			g->base_total ? 100.0 * (double)nd->base / (double)g->base_total : 0.0,
			100.0 * node_change(g, nd),
			nd->mark ? "; its function changed beyond the noise" : "");
	else if (g->o->sample_type == REPORT_CPU)
		fprintf(out, " (%llu sample%s, %.2f%%)</title>", (unsigned long long)nd->count,
			nd->count == 1 ? "" : "s", 100.0 * (double)nd->count / (double)g->total);
	else
		fprintf(out, " (%.1f ms, %.2f%%)</title>", (double)nd->count / 1e6,
			100.0 * (double)nd->count / (double)g->total);
	fprintf(out, "<rect%s x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\" fill=\"",
		nd->mark ? " class=\"m\"" : "", px, y, w, FRAME_HEIGHT - 1);
	colour(g, nd, out);
	fprintf(out, "\"/><text x=\"%.2f\" y=\"%.0f\">", px + 3, y + FRAME_HEIGHT - 4);
	label(out, name, w);
	fputs("</text></g>\n", out);

	for (uint32_t c = nd->child; c != PM_NONE; c = g->nodes[c].next) {
		if (!visible(g, c))
			continue;
		xgrow(&kids, &cap, nkids + 1, sizeof(*kids));
		kids[nkids++] = c;
	}
	if (nkids)
		qsort_r(kids, nkids, sizeof(*kids), cmp_child, g);
	for (size_t i = 0; i < nkids; i++) {
		draw(g, kids[i], x, out);
		x += g->nodes[kids[i]].count;
	}
	free(kids);
}

static void subtitle(struct svg *g, const struct aggregate *a, struct sbuf *b)
{
	const struct profile *p = g->p;
	const char *event = profile_get_meta(p, "event");
	const char *freq = profile_get_meta(p, "frequency");
	const char *period = profile_get_meta(p, "period");
	const char *dur = profile_get_meta(p, "duration-ns");
	uint64_t v;

	if (g->o->sample_type == REPORT_OFF_CPU)
		sbuf_addf(b, "%.1f ms off CPU", (double)a->samples / 1e6);
	else if (g->o->sample_type == REPORT_WALL)
		sbuf_addf(b, "%.1f ms of wall time (CPU and off-CPU)", (double)a->samples / 1e6);
	else if (g->o->sample_type == REPORT_LATENCY)
		sbuf_addf(b, "%.1f ms of latency (CPU time shared among the threads running)",
			  (double)a->samples / 1e6);
	else
		sbuf_addf(b, "%llu samples", (unsigned long long)a->samples);
	if (aggregate_filtered(g->o)) {
		sbuf_addf(b, " of %zu (", p->nsamples);
		aggregate_describe(g->o, b);
		sbuf_adds(b, ")");
	}
	if (dur && parse_u64(dur, &v) == 0)
		sbuf_addf(b, " in %.2f s", (double)v / 1e9);
	if (g->o->base) {
		sbuf_adds(b, ", compared with ");
		sbuf_add_sanitized(b, g->o->base_input ? g->o->base_input : "the base");
		sbuf_addf(b, " (%llu): colour is the change in share of each one's total",
			  (unsigned long long)g->base_total);
		if (g->ft)
			sbuf_addf(b,
				  "; outlined: %zu function%s whose share changed beyond the noise "
				  "(%g%%)%s",
				  g->ft->marked, g->ft->marked == 1 ? "" : "s",
				  100 * (g->o->diff_level > 0 ? g->o->diff_level : NOISE_LEVEL),
				  g->o->diff_significant ? ", the others grey" : "");
		return;
	}
	if (event) {
		sbuf_adds(b, ", ");
		sbuf_add_sanitized(b, event);
	}
	if (freq)
		sbuf_addf(b, " at %s Hz", freq);
	else if (period)
		sbuf_addf(b, ", one sample every %s events", period);
}

static void header(struct svg *g, const struct aggregate *a, int height, FILE *out)
{
	const char *command = profile_get_meta(g->p, "command");
	double x = PAD;

	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" data-pad=\"%d\" data-samples=\"%llu\" "
		"data-top=\"%d\" data-bottom=\"%d\" data-frame-height=\"%d\" "
		"data-min-share=\"%d\" data-unit=\"%s\"",
		WIDTH, height, WIDTH, height, PAD, (unsigned long long)g->total, TOP, BOTTOM,
		FRAME_HEIGHT, MIN_SHARE, g->o->sample_type == REPORT_CPU ? "samples" : "ns");
	if (g->o->base)
		fprintf(out, " data-base-samples=\"%llu\" data-max-change=\"%.9g\"",
			(unsigned long long)g->base_total, g->max_change);
	if (g->ft)
		fprintf(out, " data-noise=\"%s\"", g->o->diff_significant ? "only" : "marks");
	fputs(">\n", out);
	fputs("<style>\n"
	      "text { font-family: monospace; font-size: 12px; fill: #000; }\n"
	      "g.f { cursor: pointer; }\n"
	      "g.f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
	      "rect.m { stroke: #000; stroke-width: 1.5; }\n"
	      "text.title { font-size: 17px; text-anchor: middle; }\n"
	      "text.sub { fill: #444; text-anchor: middle; }\n"
	      ".ctl { cursor: pointer; fill: #1a5fb4; }\n"
	      "</style>\n",
	      out);
	fprintf(out,
		"<rect id=\"background\" x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
		"fill=\"#f8f8f4\"/>\n",
		WIDTH, height);
	fprintf(out, "<text class=\"title\" x=\"%d\" y=\"24\">perfmini", WIDTH / 2);
	if (command && *command) {
		fputs(": ", out);
		svg_xml_text(out, command);
	}
	fputs("</text>\n", out);
	sbuf_reset(&g->b);
	subtitle(g, a, &g->b);
	fprintf(out, "<text class=\"sub\" x=\"%d\" y=\"44\">", WIDTH / 2);
	svg_xml_text(out, g->b.buf);
	fputs("</text>\n", out);
	/* The legend: one swatch per kind of frame; with --diff, per direction of change. */
	for (int k = 0; g->o->base && k < 3; k++) {
		static const char *const what[] = {"grew", "shrank", "unchanged"};
		const unsigned char *c = k == 0 ? diff_grew : k == 1 ? diff_shrank : diff_same;

		fprintf(out,
			"<rect x=\"%.0f\" y=\"58\" width=\"12\" height=\"12\" "
			"fill=\"rgb(%d,%d,%d)\"/><text x=\"%.0f\" y=\"68\">%s</text>\n",
			x, c[0], c[1], c[2], x + 16, what[k]);
		x += 16 + CHAR_WIDTH * (double)strlen(what[k]) + 14;
	}
	for (int k = KIND_USER; !g->o->base && k < NKINDS; k++) {
		const unsigned char *c = kinds[k].base;

		fprintf(out,
			"<rect x=\"%.0f\" y=\"58\" width=\"12\" height=\"12\" "
			"fill=\"rgb(%d,%d,%d)\"/><text x=\"%.0f\" y=\"68\">%s</text>\n",
			x, c[0] + kinds[k].range[0] / 2, c[1] + kinds[k].range[1] / 2,
			c[2] + kinds[k].range[2] / 2, x + 16, kinds[k].label);
		x += 16 + CHAR_WIDTH * (double)strlen(kinds[k].label) + 14;
	}
	fprintf(out,
		"<text id=\"reset\" class=\"ctl\" x=\"%.0f\" y=\"68\" style=\"display: "
		"none\">Reset "
		"zoom</text>\n"
		"<text id=\"search\" class=\"ctl\" x=\"%d\" y=\"68\" "
		"style=\"text-anchor: end\">Search (Ctrl-F)</text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"68\" style=\"text-anchor: end\"></text>\n",
		x + 20, WIDTH - PAD, WIDTH - PAD - 140);
}

/* The JSON names index of node n's (name, kind), written to names if new. */
static uint32_t entry_of(struct svg *g, uint32_t n, FILE *names, FILE *kind_out, FILE *fills)
{
	struct node *nd = &g->nodes[n];
	struct hmap_slot *slot;
	bool added;

	if (nd->entry)
		return nd->entry - 1;
	slot = hmap_insert(&g->entries, (uint64_t)nd->name << 8 | nd->kind, &added);
	if (added) {
		fputs(g->nentries ? ",\"" : "\"", names);
		svg_json_text(names, strtab_get(&g->str, nd->name));
		fputc('"', names);
		fprintf(kind_out, "%s%u", g->nentries ? "," : "", nd->kind);
		fputs(g->nentries ? ",\"" : "\"", fills);
		colour(g, nd, fills);
		fputc('"', fills);
		slot->val = ++g->nentries;
	}
	nd->entry = (uint32_t)slot->val;
	return nd->entry - 1;
}

/*
 * The whole tree as JSON: {"names": [...], "kinds": [...], "fills":
 * [...], "nodes": [NAME, SAMPLES, CHILDREN, ...]}, the nodes in preorder,
 * children sorted as drawn; with --diff, a fourth number per node, the
 * base's samples (the fills are then the script's to compute). Iterative: stacks can be thousands deep.
 */
static void write_tree(struct svg *g, FILE *out)
{
	char *nb = NULL, *kb = NULL, *fb = NULL, *tb = NULL;
	size_t nl = 0, kl = 0, fl = 0, tl = 0;
	FILE *names = open_memstream(&nb, &nl), *kind_out = open_memstream(&kb, &kl);
	FILE *fills = open_memstream(&fb, &fl), *tree = open_memstream(&tb, &tl);
	/* A stack of sibling ranges in kids: first, next to write, end. */
	size_t *top = NULL, ntop = 0, top_cap = 0;
	bool first = true;

	if (!names || !kind_out || !fills || !tree)
		die("out of memory for the flame graph");
	g->nkids = 0;
	xgrow(&g->kids, &g->kids_cap, 1, sizeof(*g->kids));
	g->kids[g->nkids++] = 0;
	xgrow(&top, &top_cap, 3, sizeof(*top));
	top[ntop++] = 0;
	top[ntop++] = 0;
	top[ntop++] = 1;
	while (ntop) {
		size_t at = top[ntop - 2], end = top[ntop - 1], start;
		uint32_t n, nk = 0;

		if (at == end) {
			g->nkids = top[ntop - 3];
			ntop -= 3;
			continue;
		}
		n = g->kids[at];
		top[ntop - 2]++;
		start = g->nkids;
		for (uint32_t c = g->nodes[n].child; c != PM_NONE; c = g->nodes[c].next) {
			xgrow(&g->kids, &g->kids_cap, g->nkids + 1, sizeof(*g->kids));
			g->kids[g->nkids++] = c;
			nk++;
		}
		if (nk > 1)
			qsort_r(g->kids + start, nk, sizeof(*g->kids), cmp_child, g);
		fprintf(tree, "%s%u,%llu,%u", first ? "" : ",",
			entry_of(g, n, names, kind_out, fills),
			(unsigned long long)g->nodes[n].count, nk);
		if (g->o->base)
			fprintf(tree, ",%llu", (unsigned long long)g->nodes[n].base);
		if (g->ft)
			fprintf(tree, ",%d", g->nodes[n].mark);
		first = false;
		if (nk) {
			xgrow(&top, &top_cap, ntop + 3, sizeof(*top));
			top[ntop++] = start;
			top[ntop++] = start;
			top[ntop++] = start + nk;
		}
	}
	if (fclose(names) || fclose(kind_out) || fclose(fills) || fclose(tree))
		die("out of memory for the flame graph");
	fputs("<script id=\"tree\" type=\"application/json\"><![CDATA[{\"names\":[", out);
	fwrite(nb, 1, nl, out);
	fputs("],\n\"kinds\":[", out);
	fwrite(kb, 1, kl, out);
	fputs("],\n\"fills\":[", out);
	fwrite(fb, 1, fl, out);
	fputs("],\n\"nodes\":[", out);
	fwrite(tb, 1, tl, out);
	fputs("]}]]></script>\n", out);
	free(nb);
	free(kb);
	free(fb);
	free(tb);
	free(top);
}

/* The depth of the deepest frame drawn at first. */
static uint32_t drawn_depth(const struct svg *g)
{
	uint32_t d = 0;

	for (size_t i = 0; i < g->nnodes; i++)
		if (visible(g, (uint32_t)i) && g->nodes[i].depth > d)
			d = g->nodes[i].depth;
	return d;
}

int fmt_svg(const struct report_data *d, FILE *out)
{
	const struct profile *p = d->p;
	const struct report_opts *o = d->o;
	const struct aggregate *a = d->a, *base = d->base;
	struct svg g = {.p = p, .o = o, .b = SBUF_INIT};
	int height;

	if (base && (g.ft = functab_new(p, o, a, base)) && !g.ft->noise) {
		functab_free(g.ft); /* time compared, not counts: no marks */
		g.ft = NULL;
	}
	strtab_init(&g.str);
	hmap_init(&g.index);
	hmap_init(&g.entries);
	build(&g, p, a, false);
	if (base) {
		build(&g, o->base, base, true);
		for (size_t i = 0; i < g.nnodes; i++) {
			double change = fabs(node_change(&g, &g.nodes[i]));

			g.max_change = change > g.max_change ? change : g.max_change;
		}
	}
	g.max_depth = g.total ? drawn_depth(&g) : 0;
	/* The frames go to a buffer first: the subtitle counts what they leave out. */
	{
		char *frames = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&frames, &len);

		if (!mem)
			die("out of memory for the flame graph");
		if (g.total)
			draw(&g, 0, 0, mem);
		if (fclose(mem) != 0)
			die("out of memory for the flame graph");
		height = TOP + (int)(g.max_depth + 1) * FRAME_HEIGHT + BOTTOM;
		header(&g, a, height, out);
		if (!g.total)
			fprintf(out, "<text class=\"sub\" x=\"%d\" y=\"%d\">No samples.</text>\n",
				WIDTH / 2, TOP + 12);
		fputs("<g id=\"frames\">\n", out);
		fwrite(frames, 1, len, out);
		fputs("</g>\n", out);
		free(frames);
	}
	if (g.total)
		write_tree(&g, out);
	fprintf(out,
		"<text id=\"status\" x=\"%d\" y=\"%d\">Hover a frame for its samples; click "
		"to zoom; Ctrl-F or / to search; Esc to reset</text>\n",
		PAD, height - 12);
	fprintf(out, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n</svg>\n",
		svg_script);
	free(g.nodes);
	free(g.kids);
	functab_free(g.ft);
	hmap_release(&g.index);
	hmap_release(&g.entries);
	strtab_release(&g.str);
	sbuf_release(&g.b);
	return 0;
}
