/*
 * report.c - frame naming shared by the report formats; see report.h.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "report.h"
#include "util.h"

void sbuf_addn(struct sbuf *b, const char *s, size_t n)
{
	xgrow(&b->buf, &b->cap, b->len + n + 1, 1);
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = '\0';
}

void sbuf_adds(struct sbuf *b, const char *s)
{
	sbuf_addn(b, s, strlen(s));
}

void sbuf_addf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	xgrow(&b->buf, &b->cap, b->len + (size_t)n + 1, 1);
	va_start(ap, fmt);
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void sbuf_release(struct sbuf *b)
{
	free(b->buf);
	b->buf = NULL;
	b->len = b->cap = 0;
}

void sbuf_add_sanitized(struct sbuf *b, const char *s)
{
	size_t start = b->len;

	sbuf_adds(b, s);
	for (size_t i = start; i < b->len; i++) {
		unsigned char c = (unsigned char)b->buf[i];

		if (c == ';')
			b->buf[i] = ':';
		else if (c < 0x20 || c == 0x7f)
			b->buf[i] = '?';
	}
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

void report_frame_names(const struct profile *p, uint32_t f, const struct name_opts *o,
			const char *sep, struct sbuf *b)
{
	const struct pm_frame *fr = &p->frames[f];
	const char *kernel = (fr->flags & PM_FRAME_KERNEL) ? "_[k]" : "";

	if (fr->nlines == 0) {
		const char *mod = "unknown";
		size_t len;

		if (fr->module != PM_NONE)
			mod = base_name(strtab_get(&p->str, p->modules[fr->module].path));
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
		sbuf_addf(b, "+0x%llx]%s", (unsigned long long)fr->addr, kernel);
		return;
	}
	/* Lines are stored innermost first; print outermost first. */
	for (uint32_t i = fr->nlines; i-- > 0;) {
		const struct pm_line *l = &p->lines[fr->line0 + i];
		const char *name = strtab_get(&p->str, l->func);

		sbuf_add_sanitized(b, *name ? name : "[unknown]");
		if (o->lines && l->file) {
			const char *file = strtab_get(&p->str, l->file);

			sbuf_adds(b, ":");
			sbuf_add_sanitized(b, o->full_paths ? file : base_name(file));
			sbuf_addf(b, ":%u", l->line);
		}
		if (l->flags & PM_LINE_INLINED)
			sbuf_adds(b, "_[i]");
		sbuf_adds(b, kernel);
		if (i == 0 || o->no_inline)
			break;
		sbuf_adds(b, sep);
	}
}
