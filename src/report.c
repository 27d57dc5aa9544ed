/*
 * report.c - frame naming shared by the report formats; see report.h.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "report.h"
#include "util.h"

const char *report_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
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
	if (fr->module == PM_NONE) {
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
		struct sbuf m = {0};

		sbuf_addn(&m, mod, len);
		sbuf_add_sanitized(b, m.buf ? m.buf : "");
		sbuf_release(&m);
	}
	sbuf_addf(b, "+0x%llx]", (unsigned long long)fr->addr);
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
