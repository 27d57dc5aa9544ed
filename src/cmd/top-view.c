/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * top-view.c - the view of 'perfmini top': its table made at each refresh,
 * its keys, its screen and its snapshots; see top-view.h.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/top-view.h"
#include "report/report.h"
#include "util/array.h"
#include "util/utf8.h"

/* The window's length when -w is not given: 5 s, or the delay when longer. */
#define WINDOW_DEFAULT 5.0

/* The lines above the table (heading's three) and below it (the keys). */
#define TOP_LINES    3
#define BOTTOM_LINES 1

/* What 'r' steps through: the rows of the table, as --sort's keys. */
static const struct {
	unsigned keys;
	const char *what;
} row_presets[] = {
	{0, "functions"},
	{REPORT_ROW_PID | REPORT_ROW_MODULE | REPORT_ROW_SYMBOL, "functions per process"},
	{REPORT_ROW_TID | REPORT_ROW_MODULE | REPORT_ROW_SYMBOL, "functions per thread"},
	{REPORT_ROW_COMM | REPORT_ROW_MODULE | REPORT_ROW_SYMBOL, "functions per command"},
	{REPORT_ROW_MODULE, "modules"},
};

static const char *const help_text =
	"perfmini top: keys\n"
	"\n"
	"  Up, Down, j, k    move the cursor; PgUp, PgDn, Home, End too\n"
	"  Enter, Right, c   the callers of the function under the cursor\n"
	"  e                 its callees\n"
	"  Left, Esc, b      back to the table of functions\n"
	"  p                 only the process most of its samples are of (again: all)\n"
	"  t                 only the thread most of its samples are of (again: all)\n"
	"  s                 order by self or by total share\n"
	"  r                 rows: functions, per process, per thread, per command,\n"
	"                    or modules\n"
	"  l                 source locations of the functions (FILE:LINE) or not\n"
	"  Space             pause the table (the recording goes on); again: go on\n"
	"  q, Control-C      quit\n"
	"\n"
	"Self%: of the samples shown, those in the function itself; Total%: those\n"
	"in it or in what it calls. The samples shown are those of the last\n"
	"seconds (the window, -w). Any key to go back.\n";

/* The root frame (the thread column) that --sort's keys make, as report's --sort. */
static enum report_root root_of_keys(unsigned keys)
{
	if (keys & REPORT_ROW_CGROUP)
		return REPORT_ROOT_CGROUP;
	if (keys & REPORT_ROW_TID)
		return REPORT_ROOT_TID;
	if (keys & REPORT_ROW_PID)
		return REPORT_ROOT_PID;
	return REPORT_ROOT_COMM;
}

/* "command 'make -j2'", "process 12", "all CPUs": the target, then the event and call graphs. */
static void describe(struct sbuf *b, const struct record_opts *r)
{
	const struct event_opts *ev = &r->ev;

	if (r->argv) {
		sbuf_adds(b, r->system_wide ? "all CPUs while '" : "command '");
		for (char **a = r->argv; *a; a++)
			sbuf_addf(b, "%s%s", a == r->argv ? "" : " ", *a);
		sbuf_adds(b, "' runs");
	} else if (r->npids || r->ntids) {
		sbuf_adds(b, r->npids ? (r->npids > 1 ? "processes" : "process")
				      : (r->ntids > 1 ? "threads" : "thread"));
		for (size_t i = 0; i < (r->npids ? r->npids : r->ntids); i++)
			sbuf_addf(b, "%s%u", i ? "," : " ", r->npids ? r->pids[i] : r->tids[i]);
	} else {
		sbuf_adds(b, "all CPUs");
	}
	if (r->cpulist)
		sbuf_addf(b, " (CPUs %s)", r->cpulist);
	sbuf_addf(b, "; %s", ev->ev ? ev->ev->name : "cpu-clock");
	if (ev->period)
		sbuf_addf(b, " every %llu events", (unsigned long long)ev->period);
	else
		sbuf_addf(b, " at %llu Hz", (unsigned long long)ev->freq);
	sbuf_adds(b, !ev->callchain    ? ", no call graphs"
		     : ev->hybrid      ? ", hybrid call graphs"
		     : ev->dwarf_stack ? ", DWARF call graphs"
				       : ", frame-pointer call graphs");
	if (ev->no_kernel)
		sbuf_adds(b, ", no kernel");
}

void top_view_init(struct top_view *v, const struct top_opts *o, struct term *term, uint64_t start)
{
	double window = o->window > 0		    ? o->window
			: o->delay > WINDOW_DEFAULT ? o->delay
						    : WINDOW_DEFAULT;

	memset(v, 0, sizeof(*v));
	v->o = o;
	v->term = term;
	v->start = start;
	v->ro = o->view;
	v->ro.rows = -1;
	v->ro.root = root_of_keys(v->ro.row_keys);
	sbuf_init(&v->zoom_name);
	sbuf_init(&v->what);
	sbuf_init(&v->note);
	sbuf_init(&v->message);
	live_window_init(&v->win, (uint64_t)(window * 1e9));
	describe(&v->what, &o->rec);
}

void top_view_release(struct top_view *v)
{
	live_table_free(v->t);
	live_window_release(&v->win);
	live_key_clear(&v->sel);
	live_key_clear(&v->focus);
	live_key_clear(&v->back);
	sbuf_release(&v->zoom_name);
	sbuf_release(&v->what);
	sbuf_release(&v->note);
	sbuf_release(&v->message);
}

void top_view_sample(const struct pm_sample *smp, void *arg)
{
	struct top_view *v = arg;

	v->heard++;
	if (!v->paused)
		live_window_add(&v->win, smp);
}

/* The cursor on row i of the table (clamped), its key kept for the next table. */
static void put_cursor(struct top_view *v, size_t i)
{
	struct live_table *t = v->t;

	if (!t->nrows) {
		t->selected = SIZE_MAX;
		return;
	}
	if (i >= t->nrows)
		i = t->nrows - 1;
	if (t->selected != i) {
		/* The thread of another row is not known: the next table says it. */
		t->sel_pid = t->sel_tid = 0;
		t->sel_comm = 0;
	}
	t->selected = i;
	live_key_set(&v->sel, t, i);
}

/* The table made again of the window and p, the cursor on its row (or the first). */
static void rebuild(struct top_view *v, const struct profile *p)
{
	struct profile view = live_window_view(&v->win, p);
	struct live_query q = {&v->sel, v->focus.name ? &v->focus : NULL, v->callees};
	size_t was = v->t && v->t->selected != SIZE_MAX ? v->t->selected : 0;

	live_table_free(v->t);
	v->t = live_table_new(&view, &v->ro, &q);
	if (!v->picked)
		put_cursor(v, 0);
	else if (v->t->selected == SIZE_MAX)
		put_cursor(v, was); /* its row is gone: the cursor stays where it was */
}

void top_view_refresh(struct top_view *v, const struct profile *p, uint64_t now)
{
	if (!v->paused)
		live_window_slide(&v->win, now > v->start ? now - v->start : 0);
	rebuild(v, p);
}

/* "rows by pid,symbol": --sort's keys, as it spells them. */
static void sort_keys(struct sbuf *b, unsigned keys)
{
	static const struct {
		unsigned key;
		const char *word;
	} words[] = {{REPORT_ROW_COMM, "comm"},	    {REPORT_ROW_PID, "pid"},
		     {REPORT_ROW_TID, "tid"},	    {REPORT_ROW_CGROUP, "cgroup"},
		     {REPORT_ROW_MODULE, "module"}, {REPORT_ROW_SYMBOL, "symbol"}};

	sbuf_adds(b, "rows by ");
	for (size_t i = 0, n = 0; i < ARRAY_SIZE(words); i++)
		if (keys & words[i].key)
			sbuf_addf(b, "%s%s", n++ ? "," : "", words[i].word);
}

/* The seconds the window covers now: its length, or less at the start. */
static double covered(const struct top_view *v, uint64_t now)
{
	double since = now > v->start ? (double)(now - v->start) / 1e9 : 0;
	double span = (double)v->win.span_ns / 1e9;

	return since < span ? since : span;
}

/*
 * The lines on what is shown: the rate and the window; what is recorded;
 * the rows, their order and the zoom.
 */
static void heading(struct top_view *v, struct sbuf *b, uint64_t now)
{
	const struct live_table *t = v->t;
	double secs = covered(v, now);
	struct sbuf keys = SBUF_INIT;
	const char *rows = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(row_presets); i++)
		if (row_presets[i].keys == v->ro.row_keys)
			rows = row_presets[i].what;
	if (!rows) {
		sort_keys(&keys, v->ro.row_keys);
		rows = keys.buf;
	}
	sbuf_addf(b, "perfmini top: %.0f samples/s, %llu in the last %.1f s%s\n",
		  secs > 0 ? (double)t->samples / secs : 0.0, (unsigned long long)t->samples, secs,
		  v->paused ? "  [paused: space goes on]" : "");
	sbuf_addf(b, "%s\n", v->what.buf);
	sbuf_addf(b, "%s by %s share; %s\n", rows,
		  v->ro.sort == REPORT_SORT_TOTAL ? "total" : "self",
		  v->zoom_name.len ? v->zoom_name.buf : "no zoom");
	sbuf_release(&keys);
}

/* The last line: a note, a message of the session's, or the keys. */
static void footer(struct top_view *v, struct sbuf *b)
{
	if (v->note.len)
		sbuf_addf(b, "%s\n", v->note.buf);
	else if (v->term && term_message(v->term, &v->message))
		sbuf_addf(b, "%s\n", v->message.buf);
	else
		sbuf_adds(b, "q quit  c callers  e callees  p/t zoom  s sort  r rows  "
			     "space pause  ? keys\n");
}

void top_view_draw(struct top_view *v, uint64_t now)
{
	struct term *term = v->term;
	struct sbuf b = SBUF_INIT;
	int area = term->rows - TOP_LINES - BOTTOM_LINES;
	struct live_layout l = {.width = term->cols, .marks = !term->colour};
	long cursor = -1, heads = (long)live_draw_heading_lines(v->t), shown = 0;

	if (v->help) {
		term_frame(term, help_text, -1, 0);
		return;
	}
	heading(v, &b, now);
	if (area > heads) {
		struct live_table *t = v->t;

		v->page = (size_t)(area - heads);
		/* The cursor's row on the screen. */
		if (t->selected != SIZE_MAX && t->selected < v->first)
			v->first = t->selected;
		if (t->selected != SIZE_MAX && t->selected >= v->first + v->page)
			v->first = t->selected - v->page + 1;
		if (v->first + v->page > t->nrows)
			v->first = t->nrows > v->page ? t->nrows - v->page : 0;
		l.first = v->first;
		l.rows = v->page;
		shown = (long)live_draw(t, &l, &b, &cursor);
	}
	while (shown++ < (area > 0 ? area : 0))
		sbuf_adds(&b, "\n");
	footer(v, &b);
	term_frame(term, b.buf, cursor >= 0 ? TOP_LINES + cursor : -1, TOP_LINES + heads - 1);
	sbuf_release(&b);
}

/* The cursor moved by delta rows (or to the first or last). */
static enum top_action move(struct top_view *v, long delta)
{
	struct live_table *t = v->t;
	long at = t->selected == SIZE_MAX ? 0 : (long)t->selected;

	if (!t->nrows)
		return TOP_NOTHING;
	at += delta;
	if (at < 0)
		at = 0;
	v->picked = true;
	put_cursor(v, (size_t)at);
	return TOP_DRAW;
}

/* The callers (or callees) of the cursor's function shown, or of the row's there. */
static enum top_action focus(struct top_view *v, bool callees, const struct profile *p)
{
	struct live_table *t = v->t;
	const struct live_row *r = t->selected != SIZE_MAX ? &t->rows[t->selected] : NULL;

	if (!r || r->func == LIVE_NONE || t->by_module) {
		sbuf_reset(&v->note);
		sbuf_adds(&v->note, t->by_module ? "a module has no callers: r for functions"
						 : "no function under the cursor");
		return TOP_DRAW;
	}
	if (!v->focus.name) {
		live_key_set(&v->back, t, t->selected);
		v->back_picked = v->picked;
	}
	live_key_set(&v->focus, t, t->selected);
	free(v->focus.thread);
	v->focus.thread = NULL;
	v->callees = callees;
	v->picked = false;
	v->first = 0;
	rebuild(v, p);
	return TOP_DRAW;
}

/* Back from a focus to the table, its cursor where it was. */
static enum top_action back(struct top_view *v, const struct profile *p)
{
	if (!v->focus.name)
		return TOP_NOTHING;
	live_key_clear(&v->focus);
	live_key_clear(&v->sel);
	v->sel = v->back;
	memset(&v->back, 0, sizeof(v->back));
	v->picked = v->back_picked;
	rebuild(v, p);
	return TOP_DRAW;
}

/* Only the process (or thread) most samples of the cursor's row are of; again: all. */
static enum top_action zoom(struct top_view *v, bool thread, const struct profile *p)
{
	struct live_table *t;

	if (v->zoom_name.len && v->zoom_thread == thread) {
		v->ro.npids = v->ro.ntids = 0;
		sbuf_reset(&v->zoom_name);
		rebuild(v, p);
		return TOP_DRAW;
	}
	/* The table made again for the thread of the cursor's row. */
	v->picked = true;
	rebuild(v, p);
	t = v->t;
	if (t->selected == SIZE_MAX || !t->sel_tid) {
		sbuf_reset(&v->note);
		sbuf_adds(&v->note, "no samples under the cursor to zoom into");
		return TOP_DRAW;
	}
	v->zoom_id = thread ? t->sel_tid : t->sel_pid;
	v->zoom_thread = thread;
	v->ro.pids = v->ro.tids = &v->zoom_id;
	v->ro.npids = thread ? 0 : 1;
	v->ro.ntids = thread ? 1 : 0;
	sbuf_reset(&v->zoom_name);
	sbuf_addf(&v->zoom_name, "only %s %u (%s)", thread ? "thread" : "process", v->zoom_id,
		  live_str(t, t->sel_comm));
	rebuild(v, p);
	return TOP_DRAW;
}

/* The rows' next preset of keys ('r'): the first after the keys now, else the first. */
static void next_rows(struct top_view *v)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(row_presets) && row_presets[i].keys != v->ro.row_keys; i++)
		;
	i = i < ARRAY_SIZE(row_presets) ? (i + 1) % ARRAY_SIZE(row_presets) : 0;
	v->ro.row_keys = row_presets[i].keys;
	v->ro.root = root_of_keys(v->ro.row_keys);
}

/* The keys that change how the table is made: sort, rows, locations, pause. */
static enum top_action retable(struct top_view *v, int key, const struct profile *p, uint64_t now)
{
	switch (key) {
	case 's':
		v->ro.sort = v->ro.sort == REPORT_SORT_TOTAL ? REPORT_SORT_SELF : REPORT_SORT_TOTAL;
		break;
	case 'r':
		if (v->focus.name)
			back(v, p);
		next_rows(v);
		break;
	case 'l':
		v->ro.names.lines = !v->ro.names.lines;
		break;
	case ' ':
		v->paused = !v->paused;
		if (!v->paused)
			live_window_slide(&v->win, now > v->start ? now - v->start : 0);
		break;
	default:
		return TOP_NOTHING;
	}
	rebuild(v, p);
	return TOP_DRAW;
}

enum top_action top_view_key(struct top_view *v, int key, const struct profile *p, uint64_t now)
{
	long page = v->page ? (long)v->page : 10;

	sbuf_reset(&v->note);
	if (v->help) {
		v->help = false;
		return key == 'q' ? TOP_QUIT : TOP_DRAW;
	}
	switch (key) {
	case 'q':
	case 'Q':
		return TOP_QUIT;
	case KEY_UP:
	case 'k':
		return move(v, -1);
	case KEY_DOWN:
	case 'j':
		return move(v, 1);
	case KEY_PGUP:
		return move(v, -page);
	case KEY_PGDN:
		return move(v, page);
	case KEY_HOME:
		return move(v, -(long)v->t->nrows);
	case KEY_END:
		return move(v, (long)v->t->nrows);
	case KEY_ENTER:
	case KEY_RIGHT:
	case 'c':
		return focus(v, false, p);
	case 'e':
		return focus(v, true, p);
	case KEY_LEFT:
	case KEY_BACK:
	case KEY_ESC:
	case 'b':
		return back(v, p);
	case 'p':
	case 't':
		return zoom(v, key == 't', p);
	case '?':
	case 'h':
		v->help = true;
		return TOP_DRAW;
	default:
		return retable(v, key, p, now);
	}
}

int top_view_print(struct top_view *v, FILE *out, int width, uint64_t now)
{
	struct sbuf b = SBUF_INIT;
	struct live_layout l = {.width = width, .rows = v->o->entries_given ? v->o->entries : 25};
	size_t shown = l.rows && v->t->nrows > l.rows ? l.rows : v->t->nrows;
	long cursor;
	int ret;

	heading(v, &b, now);
	live_draw(v->t, &l, &b, &cursor);
	if (shown < v->t->nrows)
		sbuf_addf(&b, "... %zu more rows (-E 0 shows them all)\n", v->t->nrows - shown);
	sbuf_adds(&b, "\n");
	v->printed = v->heard;
	ret = fwrite(b.buf, 1, b.len, out) == b.len && fflush(out) == 0 ? 0 : -errno;
	sbuf_release(&b);
	return ret;
}
