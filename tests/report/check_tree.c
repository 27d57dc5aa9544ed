/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_tree.c - the call tree of --tree (fmt-tree.c) on hand-built
 * recordings whose shares are known: which rows, in which order, with
 * which branches and shares, drawn as perf report --stdio draws them.
 *
 * The recording (stacks outermost first, 50 samples):
 *   main;a;hot       30
 *   main;b;hot       10
 *   main;a            5
 *   main;rec;rec;rec  4   (recursion: counted once in rec's total)
 *   main;outer;inl    1   (inl inlined into outer: one frame, two levels)
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "report/aggregate.h"
#include "report/report.h"
#include "store/profile.h"
#include "unit-helpers.h"

struct names {
	uint32_t module, main, a, b, hot, rec, inl;
};

static uint32_t frame(struct profile *p, uint32_t module, uint64_t addr, const char *func,
		      uint32_t line)
{
	uint32_t f = profile_intern_frame(p, module, 0, addr);
	struct pm_line l = {.func = strtab_add(&p->str, func),
			    .file = strtab_add(&p->str, "/src/prog.c"),
			    .line = line};

	if (!p->frames[f].nlines) /* a frame met again is named already */
		profile_add_line(p, f, &l);
	return f;
}

/* n samples of the stack given leaf first, by thread comm. */
static void add(struct profile *p, const char *comm, int n, const uint32_t *frames, uint32_t depth)
{
	struct pm_sample s = {.pid = 7, .tid = 7, .period = 1000000};

	s.comm = strtab_add(&p->str, comm);
	s.stack = profile_intern_stack(p, frames, depth);
	for (int i = 0; i < n; i++) {
		s.time = (uint64_t)i * 1000;
		profile_add_sample(p, &s);
	}
}

/* The recording of the file's comment, a_hot and b_hot samples of hot under a and b; rest: the rest. */
static struct profile *recording(int a_hot, int b_hot, bool rest)
{
	struct profile *p = profile_new();
	struct names f;
	struct pm_line l;

	profile_set_meta(p, "event", "cpu-clock");
	f.module = profile_add_module(p, "/usr/bin/prog", "", 0);
	f.main = frame(p, f.module, 0x100, "main", 10);
	f.a = frame(p, f.module, 0x200, "a", 20);
	f.b = frame(p, f.module, 0x300, "b", 30);
	f.hot = frame(p, f.module, 0x400, "hot", 40);
	f.rec = frame(p, f.module, 0x500, "rec", 50);
	/* Lines are stored innermost first: inl (inlined), then outer. */
	f.inl = profile_intern_frame(p, f.module, 0, 0x600);
	l = (struct pm_line){
		.func = strtab_add(&p->str, "inl"), .line = 61, .flags = PM_LINE_INLINED};
	profile_add_line(p, f.inl, &l);
	l = (struct pm_line){.func = strtab_add(&p->str, "outer"), .line = 60};
	profile_add_line(p, f.inl, &l);
	add(p, "prog", a_hot, (uint32_t[]){f.hot, f.a, f.main}, 3);
	add(p, "prog", b_hot, (uint32_t[]){f.hot, f.b, f.main}, 3);
	if (rest) {
		add(p, "prog", 5, (uint32_t[]){f.a, f.main}, 2);
		add(p, "helper", 4, (uint32_t[]){f.rec, f.rec, f.rec, f.main}, 4);
		add(p, "prog", 1, (uint32_t[]){f.inl, f.main}, 2);
	}
	return p;
}

/* --tree's output for o (the threshold 0.5% unless o gives one). */
static char *tree(const struct profile *p, struct report_opts *o)
{
	char *text = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&text, &n);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(report_write(report_format_find("tree"), p, o, out), 0);
	ck_assert_int_eq(fclose(out), 0);
	return text;
}

/*
 * The row of function name in text: the line that starts with a share and
 * ends in "  name"; NULL when there is none.
 */
static const char *row_of(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *at = text; *at; at = strchr(at, '\n') + 1) {
		const char *end = strchr(at, '\n'), *c = at;

		while (*c == ' ')
			c++;
		if (*c >= '0' && *c <= '9' && (size_t)(end - at) > n + 2 &&
		    !strncmp(end - n - 2, "  ", 2) && !strncmp(end - n, name, n))
			return at;
	}
	return NULL;
}

/* The lines of text from the row of name to the blank line after its tree. */
static char *row_block(const char *text, const char *name)
{
	const char *at = row_of(text, name), *end;

	ck_assert_msg(at != NULL, "no row %s in:\n%s", name, text);
	end = strstr(at, "\n\n");
	ck_assert_ptr_nonnull(end);
	return strndup(at, (size_t)(end - at + 1));
}

/* Whether the row of x comes before that of y in text (both there). */
static void assert_before(const char *text, const char *x, const char *y)
{
	const char *at_x = row_of(text, x), *at_y = row_of(text, y);

	ck_assert_msg(at_x && at_y && at_x < at_y, "'%s' not before '%s' in:\n%s", x, y, text);
}

static void assert_block(const char *text, const char *name, const char *want)
{
	char *got = row_block(text, name);

	ck_assert_msg(strcmp(got, want) == 0, "row %s:\n%s\nwanted:\n%s", name, got, want);
	free(got);
}

/* -g callee: each function's callers, shares of all 50 samples. */
START_TEST(test_tree_callers)
{
	struct profile *p = recording(30, 10, true);
	struct report_opts o = {
		.tree_order = REPORT_TREE_CALLEE, .sort = REPORT_SORT_TOTAL, .tree_threshold = 0.5};
	char *text = tree(p, &o);

	ck_assert_ptr_nonnull(strstr(text, " Children       Self  Module  Function\n"));
	assert_block(text, "hot",
		     "   80.00%     80.00%  prog    hot\n"
		     "            |\n"
		     "            ---hot\n"
		     "               |\n"
		     "               |--60.00%--a\n"
		     "               |          main\n"
		     "               |\n"
		     "                --20.00%--b\n"
		     "                          main\n");
	/* rec recurses: 4 samples, once each; its callers from its innermost call out. */
	assert_block(text, "rec",
		     "    8.00%      8.00%  prog    rec\n"
		     "            |\n"
		     "            ---rec\n"
		     "               rec\n"
		     "               rec\n"
		     "               main\n");
	/* An inlined level is a function of its own, called by the one it is inlined into. */
	assert_block(text, "inl_[i]",
		     "    2.00%      2.00%  prog    inl_[i]\n"
		     "            |\n"
		     "            ---inl_[i]\n"
		     "               outer\n"
		     "               main\n");
	/* Rows by Children: main (100%), hot (80%), a (70%), b (20%), rec, outer, inl. */
	assert_before(text, "main", "hot");
	assert_before(text, "hot", "a");
	assert_before(text, "a", "b");
	free(text);
	profile_free(p);
}
END_TEST

/* -g caller (the default of --children): callees, folded under the threshold. */
START_TEST(test_tree_callees)
{
	struct profile *p = recording(30, 10, true);
	struct report_opts o = {.sort = REPORT_SORT_TOTAL, .tree_threshold = 0.5};
	char *text = tree(p, &o);

	assert_block(text, "a",
		     "   70.00%     10.00%  prog    a\n"
		     "            |\n"
		     "            ---a\n"
		     "               |\n"
		     "                --60.00%--hot\n");
	free(text);
	o.tree_threshold = 25;
	text = tree(p, &o);
	assert_block(text, "main",
		     "  100.00%      0.00%  prog    main\n"
		     "            |\n"
		     "            ---main\n"
		     "               |\n"
		     "               |--70.00%--a\n"
		     "               |          |\n"
		     "               |           --60.00%--hot\n"
		     "               |\n"
		     "                --30.00%--[3 more, each under 25%]\n");
	free(text);
	profile_free(p);
}
END_TEST

/* --no-children: rows by self, each with the callers of its own samples. */
START_TEST(test_tree_self)
{
	struct profile *p = recording(30, 10, true);
	struct report_opts o = {.tree_self = true, .tree_threshold = 0.5};
	char *text = tree(p, &o);

	ck_assert_ptr_nonnull(strstr(text, "     Self  Module  Function\n"));
	ck_assert_ptr_null(strstr(text, "Children"));
	ck_assert_ptr_null(row_of(text, "main")); /* no self samples */
	assert_block(text, "a",
		     "   10.00%  prog    a\n"
		     "            |\n"
		     "            ---a\n"
		     "               main\n");
	assert_before(text, "hot", "a");
	assert_before(text, "a", "rec");
	free(text);
	/* -g caller: from the root in to the function. */
	o.tree_order = REPORT_TREE_CALLER;
	text = tree(p, &o);
	assert_block(text, "hot",
		     "   80.00%  prog    hot\n"
		     "            |\n"
		     "            ---main\n"
		     "               |\n"
		     "               |--60.00%--a\n"
		     "               |          hot\n"
		     "               |\n"
		     "                --20.00%--b\n"
		     "                          hot\n");
	free(text);
	profile_free(p);
}
END_TEST

/* --percent-limit, -n, --sort comm,symbol, --no-inline. */
START_TEST(test_tree_rows)
{
	struct profile *p = recording(30, 10, true);
	struct report_opts o = {
		.sort = REPORT_SORT_TOTAL, .tree_threshold = 0.5, .percent_limit = 15};
	char *text = tree(p, &o);

	ck_assert_ptr_nonnull(row_of(text, "b")); /* 20% */
	ck_assert_ptr_null(row_of(text, "rec"));  /* 8% */
	free(text);
	o.percent_limit = 0;
	o.rows = 2;
	text = tree(p, &o);
	ck_assert_ptr_nonnull(row_of(text, "hot"));
	ck_assert_ptr_null(row_of(text, "a"));
	free(text);
	o.rows = 0;
	ck_assert_int_eq(aggregate_parse_sort("comm,symbol", &o), 0);
	o.root = REPORT_ROOT_COMM;
	text = tree(p, &o);
	ck_assert_ptr_nonnull(strstr(text, " Children       Self  Command  Function\n"));
	ck_assert_ptr_nonnull(strstr(text, "   92.00%      0.00%  prog     main\n"));
	ck_assert_ptr_nonnull(strstr(text, "    8.00%      0.00%  helper   main\n"));
	free(text);
	/* Without symbol: a row per leaf module, its tree the whole stacks, callees from the root. */
	o.row_keys = 0;
	ck_assert_int_eq(aggregate_parse_sort("module", &o), 0);
	o.root = REPORT_ROOT_COMM;
	text = tree(p, &o);
	ck_assert_ptr_nonnull(strstr(text, " Children       Self  Module\n"));
	assert_block(text, "prog",
		     "  100.00%    100.00%  prog\n"
		     "            |\n"
		     "            ---main\n"
		     "               |\n"
		     "               |--70.00%--a\n"
		     "               |          |\n"
		     "               |           --60.00%--hot\n"
		     "               |\n"
		     "               |--20.00%--b\n"
		     "               |          hot\n"
		     "               |\n"
		     "               |--8.00%--rec\n"
		     "               |          rec\n"
		     "               |          rec\n"
		     "               |\n"
		     "                --2.00%--outer\n"
		     "                          inl_[i]\n");
	free(text);
	o.row_keys = 0;
	o.names.no_inline = true;
	text = tree(p, &o);
	ck_assert_ptr_null(strstr(text, "inl"));
	ck_assert_ptr_nonnull(strstr(text, "    2.00%      2.00%  prog    outer\n"));
	free(text);
	aggregate_opts_release(&o);
	profile_free(p);
}
END_TEST

/*
 * --diff's noise bars: 300 and 100 samples of hot under a and b against
 * 200 and 200, a row's change marked '*' where --top marks the share it
 * shows (Children here), with the same family of tests; the branches get
 * no mark. --diff-significant keeps the rows marked alone.
 */
START_TEST(test_tree_noise)
{
	struct profile *p = recording(300, 100, false), *base = recording(200, 200, false);
	struct report_opts o = {.sort = REPORT_SORT_TOTAL,
				.tree_threshold = 0.5,
				.rows = -1,
				.columns = 200,
				.base = base,
				.base_input = "base.data"};
	char *text, *top;
	FILE *out;
	size_t n = 0;

	aggregate_prepare(&o, p);
	text = tree(p, &o);
	ck_assert_msg(strstr(text, " Children       Self   Change   Function\n"), "%s", text);
	ck_assert_msg(strstr(text, "   75.00%      0.00%   +25.00*  a\n") &&
			      strstr(text, "   25.00%      0.00%   -25.00*  b\n") &&
			      strstr(text, "  100.00%    100.00%    +0.00   hot\n") &&
			      strstr(text, "'*' marks a row's change beyond it: 2 rows"),
		      "%s", text);
	ck_assert_msg(strstr(text, "|--75.00% +25.00--a\n"), "%s", text);
	out = open_memstream(&top, &n);
	ck_assert_int_eq(report_write(report_format_find("top"), p, &o, out), 0);
	fclose(out);
	/* --top: a's and b's total shares marked, over as many tests. */
	ck_assert_msg(strstr(top, "   50.0     75.0   +25.0*") &&
			      strstr(top, "   50.0     25.0   -25.0*") &&
			      strstr(top, "2 rows marked"),
		      "%s", top);
	ck_assert_ptr_nonnull(strstr(top, "tests that could pass"));
	ck_assert_ptr_nonnull(strstr(text, "tests that could pass"));
	free(top);
	free(text);

	o.diff_significant = true;
	text = tree(p, &o);
	ck_assert_msg(row_of(text, "a") && row_of(text, "b") && !row_of(text, "hot") &&
			      !row_of(text, "main"),
		      "%s", text);
	free(text);
	aggregate_opts_release(&o);
	profile_free(base);
	profile_free(p);
}
END_TEST

/* --diff: each share's change from the base, in points; rows by their new share. */
START_TEST(test_tree_diff)
{
	struct profile *p = recording(30, 10, false), *base = recording(20, 20, false);
	struct report_opts o = {.tree_order = REPORT_TREE_CALLEE,
				.sort = REPORT_SORT_TOTAL,
				.tree_threshold = 0.5,
				.base = base,
				.base_input = "base.data"};
	char *text;

	aggregate_prepare(&o, p);
	text = tree(p, &o);
	/* Matched by name, as --top's rows: no Module column. */
	ck_assert_ptr_nonnull(strstr(text, " Children       Self   Change   Function\n"));
	assert_block(text, "hot",
		     "  100.00%    100.00%    +0.00   hot\n"
		     "            |\n"
		     "            ---hot\n"
		     "               |\n"
		     "               |--75.00% +25.00--a\n"
		     "               |          main\n"
		     "               |\n"
		     "                --25.00% -25.00--b\n"
		     "                          main\n");
	assert_block(text, "b",
		     "   25.00%      0.00%   -25.00   b\n"
		     "            |\n"
		     "            ---b\n"
		     "               main\n");
	free(text);
	aggregate_opts_release(&o);
	profile_free(base);
	profile_free(p);
}
END_TEST

/*
 * The off-CPU view: spans weigh their nanoseconds; the wall view adds the
 * samples' periods. 3 ms off CPU under main;a;wait, 1 ms under main;b;wait.
 */
START_TEST(test_tree_offcpu)
{
	struct profile *p = recording(0, 0, false);
	uint32_t wait = frame(p, 0, 0x700, "wait", 70), a = frame(p, 0, 0x200, "a", 20),
		 b = frame(p, 0, 0x300, "b", 30), main_f = frame(p, 0, 0x100, "main", 10);
	struct pm_offcpu x = {.pid = 7, .tid = 7, .comm = strtab_add(&p->str, "prog")};
	struct report_opts o = {.tree_order = REPORT_TREE_CALLEE,
				.sort = REPORT_SORT_TOTAL,
				.tree_threshold = 0.5,
				.sample_type = REPORT_OFF_CPU};
	char *text;

	x.stack = profile_intern_stack(p, (uint32_t[]){wait, a, main_f}, 3);
	x.duration = 3000000;
	profile_add_offcpu(p, &x);
	x.stack = profile_intern_stack(p, (uint32_t[]){wait, b, main_f}, 3);
	x.duration = 1000000;
	x.time = 5000000;
	profile_add_offcpu(p, &x);
	text = tree(p, &o);
	ck_assert_ptr_nonnull(strstr(text, "shares of all time"));
	assert_block(text, "wait",
		     "  100.00%    100.00%  prog    wait\n"
		     "            |\n"
		     "            ---wait\n"
		     "               |\n"
		     "               |--75.00%--a\n"
		     "               |          main\n"
		     "               |\n"
		     "                --25.00%--b\n"
		     "                          main\n");
	free(text);
	/* Wall: 4 ms off CPU and 40 samples of main;a;hot, 1 ms each. */
	profile_free(p);
	p = recording(40, 0, false);
	wait = frame(p, 0, 0x700, "wait", 70);
	x.stack = profile_intern_stack(
		p, (uint32_t[]){wait, frame(p, 0, 0x200, "a", 20), frame(p, 0, 0x100, "main", 10)},
		3);
	x.duration = 40000000;
	profile_add_offcpu(p, &x);
	o.sample_type = REPORT_WALL;
	text = tree(p, &o);
	assert_block(text, "a",
		     "  100.00%      0.00%  prog    a\n"
		     "            |\n"
		     "            ---a\n"
		     "               main\n");
	assert_block(text, "wait",
		     "   50.00%     50.00%  prog    wait\n"
		     "            |\n"
		     "            ---wait\n"
		     "               a\n"
		     "               main\n");
	free(text);
	profile_free(p);
}
END_TEST

/* No samples: one line, no table. */
START_TEST(test_tree_empty)
{
	struct profile *p = recording(0, 0, false);
	struct report_opts o = {.tree_threshold = 0.5};
	char *text = tree(p, &o);

	ck_assert_ptr_nonnull(strstr(text, "No samples.\n"));
	ck_assert_ptr_null(strstr(text, "Function"));
	free(text);
	profile_free(p);
}
END_TEST

static Suite *tree_suite(void)
{
	Suite *s = suite_create("tree");
	TCase *tc = tcase_create("tree");

	tcase_add_test(tc, test_tree_callers);
	tcase_add_test(tc, test_tree_callees);
	tcase_add_test(tc, test_tree_self);
	tcase_add_test(tc, test_tree_rows);
	tcase_add_test(tc, test_tree_diff);
	tcase_add_test(tc, test_tree_noise);
	tcase_add_test(tc, test_tree_offcpu);
	tcase_add_test(tc, test_tree_empty);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(tree_suite());
}
