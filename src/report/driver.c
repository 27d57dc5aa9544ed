/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * driver.c - the table of report formats, and the run of one: what every
 * format shares is done here once, not in each.
 *
 * Invariant: a format that groups samples gets them grouped (aggregate.h)
 * by the flags of its row, for the recording and for --diff's base
 * alike, and never frees them; whatever a format returns, an error on
 * its stream is the run's -EIO.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "report/aggregate.h"
#include "report/report.h"
#include "util/array.h"

/*
 * A new format is a function of report.h's shape, a row here, its
 * FORMAT row in cmd-report.c's options and its lines in
 * perfmini-report(1).
 */
static const struct report_format formats[] = {
	{.name = "top", .write = fmt_top, .aggregated = true, .diff = true},
	{.name = "tree", .write = fmt_tree, .aggregated = true, .diff = true},
	{.name = "folded", .write = fmt_folded, .aggregated = true, .diff = true},
	{.name = "pprof",
	 .write = fmt_pprof,
	 .aggregated = true,
	 .agg_flags = AGG_BY_THREAD | AGG_BY_CGROUP | AGG_BY_WAKER,
	 .default_output = "perfmini.pb.gz",
	 .binary = true,
	 .diff = true},
	{.name = "svg",
	 .write = fmt_svg,
	 .aggregated = true,
	 .default_output = "perfmini.svg",
	 .diff = true},
	{.name = "script", .write = fmt_script},
	{.name = "json", .write = fmt_json},
	{.name = "speedscope",
	 .write = fmt_speedscope,
	 .default_output = "perfmini.speedscope.json"},
	{.name = "firefox", .write = fmt_firefox, .default_output = "perfmini.firefox.json"},
	{.name = "annotate", .write = fmt_annotate},
	{.name = "series", .write = fmt_series},
};

const struct report_format *report_format_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		if (strcmp(formats[i].name, name) == 0)
			return &formats[i];
	return NULL;
}

int report_write(const struct report_format *f, const struct profile *p,
		 const struct report_opts *o, FILE *out)
{
	struct aggregate *a = NULL, *base = NULL;
	struct report_data d = {.p = p, .o = o};
	int ret;

	if (f->aggregated) {
		d.a = a = aggregate_new(p, o, f->agg_flags);
		if (o->base)
			d.base = base = aggregate_new(o->base, o, f->agg_flags);
	}
	ret = f->write(&d, out);
	aggregate_free(base);
	aggregate_free(a);
	if (ret < 0)
		return ret;
	return ferror(out) ? -EIO : 0;
}
