/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.c - frame naming shared by the report formats, and the cutting
 * of names to a width; see report.h.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "report/report.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/parse.h"
#include "util/sbuf.h"
#include "util/utf8.h"

const char *report_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Whether s[0, n) ends with suffix. */
static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n > k && memcmp(s + n - k, suffix, k) == 0;
}

void report_cgroup_unit(const char *path, struct sbuf *b)
{
	sbuf_reset(b);
	for (const char *c = path; *c;) {
		size_t n;

		c += strspn(c, "/");
		n = strcspn(c, "/");
		if (ends_with(c, n, ".service") || ends_with(c, n, ".scope")) {
			sbuf_reset(b);
			sbuf_addn(b, c, n);
		}
		c += n;
	}
}

void report_cgroup_container(const char *path, struct sbuf *b)
{
	sbuf_reset(b);
	for (const char *c = path; *c;) {
		size_t n, id;

		c += strspn(c, "/");
		n = strcspn(c, "/");
		id = ends_with(c, n, ".scope") ? n - 6 : n;
		if (id >= 64 && strspn(c + id - 64, "0123456789abcdef") >= 64 &&
		    (id == 64 || c[id - 65] == '-')) {
			sbuf_reset(b);
			sbuf_addn(b, c + id - 64, 64);
		}
		c += n;
	}
}

uint64_t report_normalize(uint64_t v, uint64_t to, uint64_t from)
{
	long double x;

	if (!from)
		return 0;
	x = (long double)v * (long double)to / (long double)from + 0.5L;
	return x >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)x;
}

uint32_t report_frame_levels(const struct profile *p, uint32_t f, const struct name_opts *o)
{
	const struct pm_frame *fr = &p->frames[f];

	return fr->nlines == 0 || o->no_inline ? 1 : fr->nlines;
}

const struct pm_line *report_level_line(const struct profile *p, uint32_t f, uint32_t level,
					const struct name_opts *o)
{
	const struct pm_frame *fr = &p->frames[f];

	(void)o;
	if (fr->nlines == 0)
		return NULL;
	/* Lines are stored innermost first; level 0 is the outermost. */
	return &p->lines[fr->line0 + fr->nlines - 1 - level];
}

void report_unresolved_name(const struct profile *p, uint32_t f, struct sbuf *b)
{
	const struct pm_frame *fr = &p->frames[f];
	const char *mod;
	size_t len;

	/*
	 * Runtime addresses move with ASLR and JIT heaps: a frame in no
	 * mapping, or in anonymous memory that no perf map names, is named
	 * without one, so that two recordings of a program fold alike.
	 */
	if (fr->module == PM_NONE || (fr->flags & PM_FRAME_NOMAP)) {
		sbuf_adds(b, "[unknown]");
		return;
	}
	if (p->modules[fr->module].flags & (PM_MODULE_PERFMAP | PM_MODULE_ANON)) {
		sbuf_adds(b, "[anon]");
		return;
	}
	mod = report_base_name(strtab_get(&p->str, p->modules[fr->module].path));
	len = strlen(mod);
	/* "[vdso]" reads as "[vdso+0x...]", not "[[vdso]+0x...]". */
	if (len >= 2 && mod[0] == '[' && mod[len - 1] == ']') {
		mod++;
		len -= 2;
	}
	sbuf_adds(b, "[");
	{
		struct sbuf m = SBUF_INIT;

		sbuf_addn(&m, mod, len);
		sbuf_add_sanitized(b, m.buf);
		sbuf_release(&m);
	}
	sbuf_addf(b, "+0x%llx]", (unsigned long long)fr->addr);
}

void report_module_name(const struct profile *p, uint32_t module, struct sbuf *b)
{
	if (module == PM_NONE)
		sbuf_adds(b, "[unknown]");
	else
		sbuf_add_sanitized(b,
				   report_base_name(strtab_get(&p->str, p->modules[module].path)));
}

void report_level_name(const struct profile *p, uint32_t f, uint32_t level,
		       const struct name_opts *o, struct sbuf *b)
{
	const struct pm_frame *fr = &p->frames[f];
	const struct pm_line *l = report_level_line(p, f, level, o);
	const char *name;

	if (!l) {
		report_unresolved_name(p, f, b);
	} else {
		if (o->modules) {
			report_module_name(p, fr->module, b);
			sbuf_adds(b, "`");
		}
		name = strtab_get(&p->str, l->func);
		sbuf_add_sanitized(b, *name ? name : "[unknown]");
		if (o->lines && l->file) {
			const char *file = strtab_get(&p->str, l->file);

			sbuf_adds(b, ":");
			sbuf_add_sanitized(b, o->full_paths ? file : report_base_name(file));
			sbuf_addf(b, ":%u", l->line);
		}
		if (l->flags & PM_LINE_INLINED)
			sbuf_adds(b, "_[i]");
	}
	if (fr->flags & PM_FRAME_KERNEL)
		sbuf_adds(b, "_[k]");
}

void report_frame_names(const struct profile *p, uint32_t f, const struct name_opts *o,
			const char *sep, struct sbuf *b)
{
	uint32_t n = report_frame_levels(p, f, o);

	for (uint32_t i = 0; i < n; i++) {
		if (i)
			sbuf_adds(b, sep);
		report_level_name(p, f, i, o, b);
	}
}

/* Text width and cutting, in code points of UTF-8 (a continuation byte adds no column). */

static bool is_cont(char c)
{
	return ((unsigned char)c & 0xc0) == 0x80;
}

size_t report_text_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += !is_cont(*s);
	return n;
}

static size_t width_n(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += !is_cont(s[i]);
	return n;
}

/* The number of bytes of s's first cols code points. */
static size_t bytes_of(const char *s, size_t len, size_t cols)
{
	size_t i = 0, n = 0;

	for (; i < len; i++) {
		if (is_cont(s[i]))
			continue;
		if (n == cols)
			break;
		n++;
	}
	return i;
}

static void cut_end(const char *s, size_t len, size_t width, const char *tail, struct sbuf *b)
{
	size_t tw = report_text_width(tail);

	if (width_n(s, len) + tw <= width) {
		sbuf_addn(b, s, len);
	} else if (width >= tw + 4) {
		sbuf_addn(b, s, bytes_of(s, len, width - tw - 3));
		sbuf_adds(b, "...");
	} else {
		/* No room for the tail: the bare start. */
		sbuf_addn(b, s, bytes_of(s, len, width > 3 ? width - 3 : 0));
		sbuf_addn(b, "...", width < 3 ? width : 3);
		return;
	}
	sbuf_adds(b, tail);
}

void report_cut_end(const char *s, size_t width, struct sbuf *b)
{
	cut_end(s, strlen(s), width, "", b);
}

void report_cut_start(const char *s, size_t width, struct sbuf *b)
{
	size_t w = report_text_width(s), len = strlen(s);

	if (w <= width) {
		sbuf_adds(b, s);
		return;
	}
	if (width < 4) {
		sbuf_addn(b, "...", width);
		return;
	}
	sbuf_adds(b, "...");
	sbuf_adds(b, s + bytes_of(s, len, w - (width - 3)));
}

/*
 * The parts of a function name: qualifiers "ns::Class<T>::", the own
 * name "f<U>", the parameters and what follows them "(args) const",
 * and the annotations "_[i]_[k]". Brackets are matched, and an
 * "operator" ends the scan for qualifiers (its own name may hold '<',
 * '>' or '(' that match nothing).
 */
struct name_parts {
	size_t own, params, annot, len; /* offsets: qualifiers start at 0 */
};

static struct name_parts split_name(const char *s)
{
	struct name_parts np = {0};
	size_t len = strlen(s), i;
	int depth = 0;

	while (len >= 4 &&
	       (strncmp(s + len - 4, "_[i]", 4) == 0 || strncmp(s + len - 4, "_[k]", 4) == 0))
		len -= 4;
	np.annot = np.len = len;
	np.params = len;
	/* The parameters: the last ')' and its '(' (clone suffixes may follow). */
	for (i = len; i-- > 0;) {
		if (s[i] == ')')
			break;
	}
	if (i < len && s[i] == ')') {
		for (size_t j = i + 1; j-- > 0;) {
			if (s[j] == ')')
				depth++;
			else if (s[j] == '(' && --depth == 0) {
				if (j > 0)
					np.params = j;
				break;
			}
		}
	}
	/* The qualifiers end after the last "::" outside brackets. */
	depth = 0;
	for (i = 0; i < np.params; i++) {
		char c = s[i];

		if (depth == 0 && strncmp(s + i, "operator", 8) == 0 &&
		    (i == 0 || s[i - 1] == ':' || s[i - 1] == ' '))
			break;
		if (c == '<' || c == '(' || c == '[' || c == '{')
			depth++;
		else if ((c == '>' || c == ')' || c == ']' || c == '}') && depth > 0)
			depth--;
		else if (depth == 0 && c == ':' && s[i + 1] == ':')
			np.own = i + 2;
	}
	return np;
}

/* Appends s[0, len) with the contents of each outermost <...> as "...". */
static void add_collapsed(struct sbuf *b, const char *s, size_t len)
{
	int depth = 0;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (depth == 0 && strncmp(s + i, "operator", 8) == 0 &&
		    (i == 0 || s[i - 1] == ':' || s[i - 1] == ' ')) {
			/* "operator<", "operator>>": nothing to match. */
			sbuf_addn(b, s + i, len - i);
			return;
		}
		if (c == '<') {
			if (depth++ == 0)
				sbuf_adds(b, "<...");
			continue;
		}
		if (c == '>' && depth > 0) {
			if (--depth == 0)
				sbuf_adds(b, ">");
			continue;
		}
		if (depth == 0)
			sbuf_addn(b, &c, 1);
	}
}

/* How each part of a name is shortened, in the order report_cut_name tries them. */
enum { KEEP, COLLAPSE, ELIDE };
static const unsigned char cut_steps[][3] = {
	/* qualifiers, own name, parameters */
	{COLLAPSE, KEEP, KEEP},	  {COLLAPSE, KEEP, COLLAPSE},  {ELIDE, KEEP, KEEP},
	{ELIDE, KEEP, COLLAPSE},  {ELIDE, COLLAPSE, COLLAPSE}, {ELIDE, KEEP, ELIDE},
	{ELIDE, COLLAPSE, ELIDE},
};

void report_cut_name(const char *name, size_t width, struct sbuf *b)
{
	struct name_parts np;
	struct sbuf c = SBUF_INIT;
	const char *annot;
	size_t close;

	if (report_text_width(name) <= width) {
		sbuf_adds(b, name);
		return;
	}
	np = split_name(name);
	annot = name + np.annot;
	/* What follows the parameters' ')' (" const", " [clone .cold]"). */
	for (close = np.annot; close > np.params && name[close - 1] != ')'; close--)
		;
	for (size_t i = 0; i < ARRAY_SIZE(cut_steps); i++) {
		const unsigned char *st = cut_steps[i];

		sbuf_reset(&c);
		if (st[0] == COLLAPSE)
			add_collapsed(&c, name, np.own);
		else if (np.own)
			sbuf_adds(&c, "...::");
		if (st[1] == KEEP)
			sbuf_addn(&c, name + np.own, np.params - np.own);
		else
			add_collapsed(&c, name + np.own, np.params - np.own);
		if (st[2] == KEEP)
			sbuf_addn(&c, name + np.params, np.annot - np.params);
		else if (st[2] == COLLAPSE)
			add_collapsed(&c, name + np.params, np.annot - np.params);
		else if (np.params < np.annot) {
			sbuf_adds(&c, "(...)");
			sbuf_addn(&c, name + close, np.annot - close);
		}
		if (report_text_width(c.buf) + report_text_width(annot) <= width) {
			sbuf_addn(b, c.buf, c.len);
			sbuf_adds(b, annot);
			sbuf_release(&c);
			return;
		}
	}
	/* The shortest form cut at the end, the annotations kept. */
	cut_end(c.buf, c.len, width, annot, b);
	sbuf_release(&c);
}

int report_terminal_columns(FILE *out)
{
	struct winsize ws;

	if (!isatty(fileno(out)))
		return 0;
	if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return REPORT_COLUMNS;
}

int report_env_columns(void)
{
	const char *env;
	uint64_t v;

	env = getenv("COLUMNS");
	if (env && parse_u64(env, &v) == 0 && v > 0 && v < 100000)
		return (int)v;
	return REPORT_COLUMNS;
}

void report_fit_columns(size_t *w, const size_t *min, size_t n, size_t width)
{
	size_t total = n ? 2 * (n - 1) : 0;

	for (size_t i = 0; i < n; i++)
		total += w[i];
	while (total > width) {
		size_t widest = n;

		for (size_t i = 0; i < n; i++)
			if (w[i] > min[i] &&
			    (widest == n || w[i] - min[i] > w[widest] - min[widest]))
				widest = i;
		if (widest == n)
			return; /* every column at its least */
		w[widest]--;
		total--;
	}
}

int report_table_width(const struct report_opts *o, FILE *out)
{
	int w = o->columns > 0 ? o->columns : report_terminal_columns(out);

	return w > 0 ? w : report_env_columns();
}

size_t report_text_columns(const struct report_opts *o, FILE *out, size_t numbers)
{
	size_t w = (size_t)report_table_width(o, out);

	return w > numbers + MIN_TEXT_COLUMNS ? w - numbers : MIN_TEXT_COLUMNS;
}

void report_stack_text(const struct profile *p, const struct name_opts *o, const uint32_t *frames,
		       int n, bool outer_first, bool user_only, const char *sep, struct sbuf *b)
{
	bool first = true;

	for (int k = 0; k < n; k++) {
		uint32_t f = frames[outer_first ? n - 1 - k : k];
		uint32_t levels = report_frame_levels(p, f, o);

		if (user_only && (p->frames[f].flags & PM_FRAME_KERNEL))
			continue;
		for (uint32_t l = 0; l < levels; l++) {
			if (!first)
				sbuf_adds(b, sep);
			first = false;
			report_level_name(p, f, outer_first ? l : levels - 1 - l, o, b);
		}
	}
}

void report_wrap(FILE *out, const char *text, size_t width, const char *indent)
{
	size_t col = 0, iw = report_text_width(indent);

	while (*text) {
		size_t n = strcspn(text, " "), w;
		char *word = xstrndup(text, n);

		w = report_text_width(word);
		if (col && col + 1 + w > width) {
			fprintf(out, "\n%s", indent);
			col = iw;
		} else if (col) {
			fputc(' ', out);
			col++;
		}
		fputs(word, out);
		col += w;
		free(word);
		text += n;
		text += strspn(text, " ");
	}
	fputc('\n', out);
}

/* Whether frame f is in a shared library: a file named *.so or *.so.N..., or the vDSO. */
static bool in_library(const struct profile *p, uint32_t f)
{
	const struct pm_frame *fr = &p->frames[f];
	const char *name, *so;

	if (fr->module == PM_NONE)
		return false;
	if (p->modules[fr->module].flags & PM_MODULE_VDSO)
		return true;
	name = report_base_name(strtab_get(&p->str, p->modules[fr->module].path));
	so = strstr(name, ".so");
	return so && (so[3] == '\0' || so[3] == '.');
}

void report_stack_brief(const struct profile *p, const struct name_opts *o, const uint32_t *frames,
			int n, bool kernel, const char *sep, struct sbuf *b)
{
	int first = 0, run;

	/* The kernel's frames, innermost, left out; then the library's run but its outermost. */
	while (!kernel && first < n && (p->frames[frames[first]].flags & PM_FRAME_KERNEL))
		first++;
	for (run = first; run < n && in_library(p, frames[run]); run++)
		;
	if (run > first && run < n &&
	    p->frames[frames[run - 1]].module == p->frames[frames[first]].module) {
		/* The function called: the real one of the frame, not what is inlined into it. */
		report_level_name(p, frames[run - 1], 0, o, b);
		sbuf_adds(b, sep);
		first = run;
	}
	report_stack_text(p, o, frames + first, n - first, false, !kernel, sep, b);
}

void report_cells(FILE *out, const char *const *cells, const size_t *w, size_t n, int name_col)
{
	struct sbuf b = SBUF_INIT;

	for (size_t k = 0; k < n; k++) {
		sbuf_reset(&b);
		if ((int)k == name_col)
			report_cut_name(cells[k], w[k], &b);
		else
			report_cut_end(cells[k], w[k], &b);
		fputs(b.buf, out);
		if (k + 1 < n)
			fprintf(out, "%*s  ", (int)(w[k] - report_text_width(b.buf)), "");
	}
	fputc('\n', out);
	sbuf_release(&b);
}
