/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_live.c - the live table of 'perfmini top' (report/live.h) on
 * profiles built by hand, whose counts are worked out below: the window
 * keeps the samples of its span and no others, whatever the order of
 * adds and slides; the table's self and total counts, its two orders,
 * its thread keys and the report's filters (a zoom is a --pid); callers
 * and callees one level out and in, inlined levels included, each once
 * per stack; the row picked found again with the thread its samples are
 * most of; the lines fit 80 columns (names cut in their middle) and are
 * whole without a width.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "report/live.h"
#include "report/report.h"
#include "store/profile.h"
#include "unit-helpers.h"
#include "util/sbuf.h"

#define MS 1000000ULL

/* A frame named func (and, when inl, an inlined callee inl within it). */
static uint32_t frame(struct profile *p, uint32_t mod, uint64_t addr, const char *func,
		      const char *inl)
{
	uint32_t f = profile_intern_frame(p, mod, 0, addr);
	struct pm_line l = {.file = strtab_add(&p->str, "mix.c"), .line = (uint32_t)addr};

	if (inl) {
		l.func = strtab_add(&p->str, inl);
		l.flags = PM_LINE_INLINED;
		profile_add_line(p, f, &l);
		l.flags = 0;
	}
	l.func = strtab_add(&p->str, func);
	profile_add_line(p, f, &l);
	return f;
}

/* n samples of the stack frames (leaf first) in thread tid of pid, 1 ms apart from t0. */
static void samples(struct profile *p, uint32_t pid, uint32_t tid, const char *comm,
		    const uint32_t *frames, uint32_t depth, int n, uint64_t t0)
{
	struct pm_sample s = {.pid = pid, .tid = tid, .period = MS};

	s.comm = strtab_add(&p->str, comm);
	s.stack = profile_intern_stack(p, frames, depth);
	for (int i = 0; i < n; i++) {
		s.time = t0 + (uint64_t)i * MS;
		profile_add_sample(p, &s);
	}
}

/*
 * 250 samples (stacks leaf first):
 *   mix 10/10   70  mix_a mix_round main
 *   mix 10/11   30  mix_b mix_round main
 *   spin 20/20  50  spin_hot main
 *   spin 20/20  40  spin_hot main (recursing: spin_hot spin_hot spin_hot main)
 *   spin 20/21  60  helper_[i] in deep, main
 *   long 30/30   0  (a long C++ name, for the layout: added by long_name)
 */
static struct profile *mix_profile(void)
{
	struct profile *p = profile_new();
	uint32_t mix = profile_add_module(p, "/usr/bin/mix", "", 0);
	uint32_t spin = profile_add_module(p, "/opt/spin/bin/spin", "", 0);
	uint32_t a = frame(p, mix, 0x10, "mix_a", NULL), b = frame(p, mix, 0x20, "mix_b", NULL);
	uint32_t round = frame(p, mix, 0x30, "mix_round", NULL);
	uint32_t mmain = frame(p, mix, 0x40, "main", NULL);
	uint32_t hot = frame(p, spin, 0x10, "spin_hot", NULL);
	uint32_t hot2 = frame(p, spin, 0x18, "spin_hot", NULL);
	uint32_t deep = frame(p, spin, 0x30, "deep", "helper");
	uint32_t smain = frame(p, spin, 0x40, "main", NULL);

	samples(p, 10, 10, "mix", (uint32_t[]){a, round, mmain}, 3, 70, 0);
	samples(p, 10, 11, "mix", (uint32_t[]){b, round, mmain}, 3, 30, 100 * MS);
	samples(p, 20, 20, "spin", (uint32_t[]){hot, smain}, 2, 50, 200 * MS);
	samples(p, 20, 20, "spin", (uint32_t[]){hot, hot2, hot2, smain}, 4, 40, 300 * MS);
	samples(p, 20, 21, "spin", (uint32_t[]){deep, smain}, 2, 60, 400 * MS);
	return p;
}

/* The row of name (and module, when not NULL) in t; fails when none. */
static const struct live_row *row(const struct live_table *t, const char *name, const char *mod)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (!strcmp(live_str(t, t->rows[i].name), name) &&
		    (!mod || !strcmp(live_str(t, t->rows[i].module), mod)))
			return &t->rows[i];
	ck_abort_msg("no row '%s'", name);
	return NULL;
}

static size_t row_index(const struct live_table *t, const char *name)
{
	return (size_t)(row(t, name, NULL) - t->rows);
}

static struct live_table *table(const struct profile *p, const struct report_opts *o,
				const struct live_key *sel, const struct live_key *focus,
				bool callees)
{
	struct live_query q = {sel, focus, callees};

	return live_table_new(p, o, &q);
}

START_TEST(test_window)
{
	struct live_window w;
	struct profile *p = profile_new(), view;
	struct pm_sample s = {.pid = 1};

	live_window_init(&w, 2000 * MS);
	/* 10 s of samples, 10 ms apart, slid every 100 ms as a refresh would. */
	for (uint64_t t = 0; t < 10000 * MS; t += 10 * MS) {
		s.time = t;
		s.stack = (uint32_t)(t / MS);
		live_window_add(&w, &s);
		if (t % (100 * MS) == 0)
			live_window_slide(&w, t);
		ck_assert_uint_lt(w.cap, 600); /* bounded by the span, not by what was added */
	}
	live_window_slide(&w, 10000 * MS);
	/* [8 s, 10 s): 200 samples, the oldest at 8 s, in order. */
	ck_assert_uint_eq(w.n, 200);
	for (size_t i = 0; i < w.n; i++)
		ck_assert_uint_eq(w.s[w.head + i].time, 8000 * MS + i * 10 * MS);
	view = live_window_view(&w, p);
	ck_assert_uint_eq(view.nsamples, 200);
	ck_assert_uint_eq(view.samples[0].stack, 8000);
	ck_assert_ptr_eq(view.str.buf, p->str.buf);
	/* A thread record per thread, with the name of its latest sample. */
	ck_assert_uint_eq(view.nthreads, 1);
	s.comm = strtab_add(&p->str, "renamed");
	s.time = 9999 * MS;
	live_window_add(&w, &s);
	s.tid = 2;
	live_window_add(&w, &s);
	view = live_window_view(&w, p);
	ck_assert_uint_eq(view.nthreads, 2);
	ck_assert_uint_eq(view.threads[0].tid, 2);
	ck_assert_uint_eq(view.threads[1].tid, 0);
	ck_assert_str_eq(strtab_get(&p->str, view.threads[1].comm), "renamed");
	w.n -= 2;
	/* A slide back in time lets nothing go; one past everything, all of it. */
	live_window_slide(&w, 5000 * MS);
	ck_assert_uint_eq(w.n, 200);
	live_window_slide(&w, 20000 * MS);
	ck_assert_uint_eq(w.n, 0);
	view = live_window_view(&w, p);
	ck_assert_uint_eq(view.nsamples, 0);
	live_window_release(&w);
	profile_free(p);
}
END_TEST

START_TEST(test_hottest)
{
	struct profile *p = mix_profile();
	struct report_opts o = {.rows = -1};
	struct live_table *t = table(p, &o, NULL, NULL, false);

	ck_assert_uint_eq(t->samples, 250);
	/* By self: spin_hot 90, mix_a 70, helper_[i] 60, mix_b 30; then by total. */
	ck_assert_str_eq(live_str(t, t->rows[0].name), "spin_hot");
	ck_assert_str_eq(live_str(t, t->rows[1].name), "mix_a");
	ck_assert_str_eq(live_str(t, t->rows[2].name), "helper_[i]");
	ck_assert_str_eq(live_str(t, t->rows[3].name), "mix_b");
	ck_assert_uint_eq(t->rows[0].self, 90);
	/* Recursing: each sample counted once in spin_hot's total. */
	ck_assert_uint_eq(t->rows[0].total, 90);
	ck_assert_uint_eq(row(t, "mix_round", NULL)->total, 100);
	ck_assert_uint_eq(row(t, "mix_round", NULL)->self, 0);
	/* The inlined level's caller, in the same frame. */
	ck_assert_uint_eq(row(t, "deep", NULL)->total, 60);
	ck_assert_uint_eq(row(t, "deep", NULL)->self, 0);
	/* main of each module a row of its own. */
	ck_assert_uint_eq(row(t, "main", "mix")->total, 100);
	ck_assert_uint_eq(row(t, "main", "spin")->total, 150);
	ck_assert_uint_eq(t->selected, SIZE_MAX);
	live_table_free(t);

	o.sort = REPORT_SORT_TOTAL;
	t = table(p, &o, NULL, NULL, false);
	ck_assert_str_eq(live_str(t, t->rows[0].name), "main");
	ck_assert_str_eq(live_str(t, t->rows[0].module), "spin");
	ck_assert_str_eq(live_str(t, t->rows[1].name), "main");
	ck_assert_str_eq(live_str(t, t->rows[2].name), "mix_round");
	live_table_free(t);

	/* --sort symbol: no module, main's samples together. */
	o.sort = REPORT_SORT_SELF;
	o.row_keys = REPORT_ROW_SYMBOL;
	t = table(p, &o, NULL, NULL, false);
	ck_assert(t->no_module);
	ck_assert_uint_eq(row(t, "main", NULL)->total, 250);
	live_table_free(t);

	/* --sort module: a row per module. */
	o.row_keys = REPORT_ROW_MODULE;
	t = table(p, &o, NULL, NULL, false);
	ck_assert(t->by_module);
	ck_assert_uint_eq(t->nrows, 2);
	ck_assert_str_eq(live_str(t, t->rows[0].module), "spin");
	ck_assert_uint_eq(t->rows[0].self, 150);
	ck_assert_uint_eq(t->rows[0].total, 150);
	live_table_free(t);
	profile_free(p);
}
END_TEST

/* Thread keys, a zoom (the report's --pid, --tid), the row picked and its thread. */
START_TEST(test_threads)
{
	struct profile *p = mix_profile();
	uint32_t pid = 20, tid = 11;
	struct report_opts o = {.rows = -1,
				.row_keys = REPORT_ROW_PID | REPORT_ROW_SYMBOL,
				.root = REPORT_ROOT_PID};
	struct live_key sel = {0};
	struct live_table *t = table(p, &o, NULL, NULL, false);
	const struct live_row *r;

	ck_assert(t->by_thread);
	ck_assert_str_eq(t->thread_head, "Process");
	r = row(t, "main", NULL);
	ck_assert_str_eq(live_str(t, r->thread), "spin-20");
	ck_assert_uint_eq(r->total, 150);
	/* Picked, and found again in the next table with the thread its samples are most of. */
	live_key_set(&sel, t, row_index(t, "mix_b"));
	live_table_free(t);
	ck_assert_str_eq(sel.thread, "mix-10");
	ck_assert_str_eq(sel.module, "");
	/* The keys changed: found by what both have, its function. */
	o.row_keys = 0;
	o.root = REPORT_ROOT_COMM;
	t = table(p, &o, &sel, NULL, false);
	ck_assert_uint_eq(t->selected, row_index(t, "mix_b"));
	ck_assert_uint_eq(t->sel_pid, 10);
	ck_assert_uint_eq(t->sel_tid, 11);
	ck_assert_str_eq(live_str(t, t->sel_comm), "mix");
	live_table_free(t);
	/* main: most of its samples are spin's, most of those its thread 20. */
	live_key_clear(&sel);
	sel.name = strdup("main");
	sel.module = strdup("spin");
	t = table(p, &o, &sel, NULL, false);
	ck_assert_uint_eq(t->sel_pid, 20);
	ck_assert_uint_eq(t->sel_tid, 20);
	live_table_free(t);
	live_key_clear(&sel);

	/* Zoomed into process 20, then thread 11. */
	o.pids = &pid;
	o.npids = 1;
	t = table(p, &o, NULL, NULL, false);
	ck_assert_uint_eq(t->samples, 150);
	for (size_t i = 0; i < t->nrows; i++)
		ck_assert_str_eq(live_str(t, t->rows[i].module), "spin");
	live_table_free(t);
	o.npids = 0;
	o.tids = &tid;
	o.ntids = 1;
	t = table(p, &o, NULL, NULL, false);
	ck_assert_uint_eq(t->samples, 30);
	ck_assert_str_eq(live_str(t, t->rows[0].name), "mix_b");
	live_table_free(t);
	profile_free(p);
}
END_TEST

/* The function f, for a focus. */
static struct live_key key(const char *name, const char *module)
{
	struct live_key k = {strdup(name), strdup(""), strdup(module), strdup("")};

	return k;
}

START_TEST(test_callers)
{
	struct profile *p = mix_profile();
	struct report_opts o = {.rows = -1};
	struct live_key f = key("mix_round", "mix");
	struct live_table *t = table(p, &o, NULL, &f, true);

	/* Callees of mix_round: mix_a 70, mix_b 30 of its 100. */
	ck_assert(t->focus && t->callees && t->focus_found);
	ck_assert_uint_eq(t->ftotal, 100);
	ck_assert_uint_eq(t->fself, 0);
	ck_assert_uint_eq(t->nrows, 2);
	ck_assert_str_eq(live_str(t, t->rows[0].name), "mix_a");
	ck_assert_uint_eq(t->rows[0].self, 70);
	ck_assert_str_eq(live_str(t, t->rows[1].name), "mix_b");
	live_table_free(t);
	/* Its callers: main of mix, 100. */
	t = table(p, &o, NULL, &f, false);
	ck_assert_uint_eq(t->nrows, 1);
	ck_assert_str_eq(live_str(t, t->rows[0].name), "main");
	ck_assert_str_eq(live_str(t, t->rows[0].module), "mix");
	ck_assert_uint_eq(t->rows[0].self, 100);
	live_table_free(t);
	live_key_clear(&f);

	/* spin_hot recursing: its callers spin_hot (40) and main (90), once a stack each. */
	f = key("spin_hot", "spin");
	t = table(p, &o, NULL, &f, false);
	ck_assert_uint_eq(t->ftotal, 90);
	ck_assert_uint_eq(t->fself, 90);
	ck_assert_uint_eq(row(t, "main", NULL)->self, 90);
	ck_assert_uint_eq(row(t, "spin_hot", NULL)->self, 40);
	live_table_free(t);
	/* Its callees: itself (40) and its own samples, "[self]" (90). */
	t = table(p, &o, NULL, &f, true);
	ck_assert_str_eq(live_str(t, t->rows[0].name), "[self]");
	ck_assert_uint_eq(t->rows[0].func, LIVE_NONE);
	ck_assert_uint_eq(t->rows[0].self, 90);
	ck_assert_uint_eq(row(t, "spin_hot", NULL)->self, 40);
	live_table_free(t);
	live_key_clear(&f);

	/* An inlined level: its caller is the function it is inlined into. */
	f = key("helper_[i]", "spin");
	t = table(p, &o, NULL, &f, false);
	ck_assert_uint_eq(t->nrows, 1);
	ck_assert_str_eq(live_str(t, t->rows[0].name), "deep");
	live_table_free(t);
	live_key_clear(&f);
	f = key("main", "spin");
	t = table(p, &o, NULL, &f, false);
	ck_assert_str_eq(live_str(t, t->rows[0].name), "[outermost]");
	ck_assert_uint_eq(t->rows[0].self, 150);
	live_table_free(t);
	live_key_clear(&f);

	/* A function with no samples now. */
	f = key("gone", "mix");
	t = table(p, &o, NULL, &f, false);
	ck_assert(t->focus && !t->focus_found);
	ck_assert_uint_eq(t->nrows, 0);
	live_table_free(t);
	live_key_clear(&f);
	profile_free(p);
}
END_TEST

/* The lines of t as live_draw lays them out. */
static char *draw(const struct live_table *t, const struct live_layout *l, size_t *lines,
		  long *cursor)
{
	struct sbuf out = SBUF_INIT;

	*lines = live_draw(t, l, &out, cursor);
	return sbuf_detach(&out, NULL);
}

/* Line i of text (a static copy). */
static const char *line_at(const char *text, size_t i)
{
	static char buf[512];
	size_t n;

	while (i-- && text)
		text = strchr(text, '\n') ? strchr(text, '\n') + 1 : NULL;
	ck_assert_ptr_nonnull(text);
	n = strcspn(text, "\n");
	ck_assert_uint_lt(n, sizeof(buf));
	memcpy(buf, text, n);
	buf[n] = '\0';
	return buf;
}

#define LONG_NAME                                                                         \
	"std::_Hashtable<std::__cxx11::basic_string<char>, std::pair<const int, long>>::" \
	"_M_find_before_node_tr(unsigned long, const long&, unsigned long) const"

/* A frame of a module the profile does not hold yet (a recording's, between flushes). */
START_TEST(test_module_not_yet)
{
	struct profile *p = profile_new();
	struct report_opts o = {.rows = -1};
	uint32_t known = profile_add_module(p, "/usr/bin/mix", "", 0);
	uint32_t a = frame(p, known, 0x10, "mix_a", NULL),
		 b = frame(p, known + 40, 0x20, "far", NULL);
	struct live_table *t;

	samples(p, 10, 10, "mix", (uint32_t[]){b, a}, 2, 10, 0);
	t = table(p, &o, NULL, NULL, false);
	ck_assert_uint_eq(t->samples, 10);
	ck_assert_str_eq(live_str(t, row(t, "far", NULL)->module), "[unknown]");
	ck_assert_str_eq(live_str(t, row(t, "mix_a", NULL)->module), "mix");
	live_table_free(t);
	profile_free(p);
}
END_TEST

START_TEST(test_layout)
{
	struct profile *p = mix_profile();
	uint32_t mod = profile_add_module(p, "/usr/lib/a-module-with-a-long-name.so.1.2.3", "", 0);
	uint32_t f = frame(p, mod, 0x99, LONG_NAME, NULL);
	struct report_opts o = {.rows = -1};
	struct live_key sel = key("mix_b", "mix");
	struct live_layout l = {.width = 80, .rows = 21, .marks = true};
	struct live_table *t;
	size_t n;
	long cursor;
	char *text;

	samples(p, 30, 30, "long", &f, 1, 45, 0);
	t = table(p, &o, &sel, NULL, false);
	text = draw(t, &l, &n, &cursor);
	/* The heading, then the 9 rows. */
	ck_assert_uint_eq(n, 10);
	ck_assert_uint_eq(live_draw_heading_lines(t), 1);
	ck_assert_str_eq(line_at(text, 0), "  Self%  Total%  Module                Function");
	ck_assert_str_eq(line_at(text, 1), "  30.5%   30.5%  spin                  spin_hot");
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_le(report_text_width(line_at(text, i)), 80);
	/* The long name keeps its own name and the module its start. */
	ck_assert_ptr_nonnull(strstr(text, "_M_find_before_node_tr("));
	ck_assert_ptr_nonnull(strstr(text, "  a-module-with-a-l...  "));
	/* The cursor's line, marked. */
	ck_assert_int_eq(cursor, (long)row_index(t, "mix_b") + 1);
	ck_assert_str_eq(line_at(text, (size_t)cursor),
			 "> 10.2%   10.2%  mix                   mix_b");
	free(text);

	/* Scrolled: rows from the 8th, 2 of them; the cursor's row not among them. */
	l.first = 7;
	l.rows = 2;
	text = draw(t, &l, &n, &cursor);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(cursor, -1);
	free(text);

	/* Without a width (a pipe): nothing cut, columns as wide as their widest cell. */
	l = (struct live_layout){0};
	text = draw(t, &l, &n, &cursor);
	ck_assert_uint_eq(n, 10);
	ck_assert_ptr_nonnull(
		strstr(text, "  a-module-with-a-long-name.so.1.2.3  " LONG_NAME "\n"));
	/* No mark without marks. */
	ck_assert(text[0] != '>' && !strstr(text, "\n>"));
	live_table_free(t);
	free(text);

	/* A focus: its line, then its callees with their share of its samples. */
	live_key_clear(&sel);
	sel = key("mix_round", "mix");
	t = table(p, &o, NULL, &sel, true);
	l.width = 80;
	text = draw(t, &l, &n, &cursor);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(live_draw_heading_lines(t), 2);
	ck_assert_str_eq(line_at(text, 0),
			 "Callees of mix_round (mix): in 100 of 295 samples (33.9%), 0 its own");
	ck_assert_str_eq(line_at(text, 1), "  Share  Samples  Module  Callee");
	ck_assert_str_eq(line_at(text, 2), "  70.0%       70  mix     mix_a");
	ck_assert_str_eq(line_at(text, 3), "  30.0%       30  mix     mix_b");
	live_table_free(t);
	free(text);

	/* A narrow screen: the function keeps 24 columns, the others give way. */
	o.row_keys = REPORT_ROW_TID | REPORT_ROW_MODULE | REPORT_ROW_SYMBOL;
	o.root = REPORT_ROOT_TID;
	o.names.lines = true;
	t = table(p, &o, NULL, NULL, false);
	l.width = 60;
	text = draw(t, &l, &n, &cursor);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_le(report_text_width(line_at(text, i)), 60);
	ck_assert_ptr_nonnull(strstr(line_at(text, 0), "Thread"));
	ck_assert_ptr_nonnull(strstr(line_at(text, 0), "Location"));
	ck_assert_ptr_nonnull(strstr(text, "spin_hot\n"));
	live_table_free(t);
	free(text);
	live_key_clear(&sel);
	profile_free(p);
}
END_TEST

static Suite *live_suite(void)
{
	Suite *s = suite_create("live");
	TCase *tc = tcase_create("live");

	tcase_add_test(tc, test_window);
	tcase_add_test(tc, test_hottest);
	tcase_add_test(tc, test_threads);
	tcase_add_test(tc, test_callers);
	tcase_add_test(tc, test_layout);
	tcase_add_test(tc, test_module_not_yet);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(live_suite());
}
