/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_opts.c - options declared once (cmd/opts.h): each kind parsed
 * into its field within its bounds, bad values refused with the message
 * naming the option, getopt's own errors said in perfmini's words, the
 * first operand ending the options when the spec says so; --help wrapped
 * within 80 columns with every option on a line of its own; the
 * completion's listing of every option and its values.
 */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/opts.h"
#include "unit-helpers.h"
#include "util/array.h"

struct t_opts {
	bool flag, given;
	const char *str;
	const char **strs;
	size_t nstrs;
	uint32_t num;
	uint8_t small;
	uint64_t pages;
	double secs, positive;
	uint64_t ns;
	int word;
	uint32_t *ids;
	size_t nids;
	int calls;
	const char *called_with;
};

static int t_call(void *opts, const struct cmd_opt *row, const char *arg)
{
	struct t_opts *o = opts;

	(void)row;
	o->calls++;
	o->called_with = arg;
	return arg && !strcmp(arg, "bad") ? -1 : 0;
}

#define T struct t_opts

static const struct cmd_opt rows[] = {
	{OPT_SECTION, .help = "Things:"},
	{OPT_FLAG, "flag", 'f', OPT_AT(T, flag), .help = "a flag"},
	{OPT_STRING, "str", 's', "TEXT", OPT_AT(T, str), .what = "some text",
	 .complete = COMPLETE_FILE, .help = "a string"},
	{OPT_STRINGS, "strs", 0, "DIR", OPT_LIST(T, strs, nstrs), .complete = COMPLETE_DIR,
	 .help = "strings; may be repeated"},
	{OPT_NUMBER, "num", 'n', "N", OPT_SIZE(T, num), OPT_GIVEN(T, given), .min = 2, .max = 70000,
	 .what = "a number from 2 to 70000", .help = "a number"},
	{OPT_NUMBER, "small", 0, "N", OPT_SIZE(T, small), .min = 0, .max = 255, .what = "a byte",
	 .help = "a byte-sized number"},
	{OPT_NUMBER, "pages", 0, "N", OPT_SIZE(T, pages), .flags = OPTF_POW2, .min = 1,
	 .max = 1 << 20, .what = "a power of two", .help = "a power of two"},
	{OPT_SECONDS, "secs", 0, "S", OPT_AT(T, secs), .min = 0, .max = 10, .what = "seconds",
	 .help = "seconds, 0 allowed"},
	{OPT_SECONDS, "positive", 0, "S", OPT_AT(T, positive), .flags = OPTF_MIN_OPEN, .min = 0,
	 .max = 10, .what = "positive seconds", .help = "seconds, 0 refused"},
	{OPT_DURATION, "dur", 0, "D", OPT_AT(T, ns), .flags = OPTF_EQ, .min = 0, .max = 1e12,
	 .what = "a duration", .help = "a duration"},
	{OPT_SECTION, .help = "More:"},
	{OPT_KEYWORD, "word", 'w', "KEY", OPT_AT(T, word), .flags = OPTF_EQ,
	 .complete = COMPLETE_WORDS,
	 .words = (const struct opt_word[]){{"alpha", 10}, {"beta", 20}, {"gamma", 30}, {NULL, 0}},
	 .help = "one of three words"},
	{OPT_IDS, "ids", 'i', "LIST", OPT_LIST(T, ids, nids), .min = 1, .max = 1000,
	 .what = "a list of ids", .complete = COMPLETE_PIDS, .help = "ids"},
	{OPT_CALL, "call", 'c', "X", .call = t_call, .what = "callable", .help = "called"},
	{OPT_CALL, NULL, 'g', .call = t_call, .help = "a short option alone"},
	{OPT_CALL, "maybe", 0, "F", .flags = OPTF_OPTIONAL, .call = t_call, .what = "maybe",
	 .help = "a value or none"},
	{OPT_OPERAND, .arg = "COMMAND [ARG...]", .help = "what is run"},
	{OPT_FLAG, "a-very-long-option-name", 0, "WITH-A-VALUE", OPT_AT(T, flag),
	 .help = "a long help text that has to be wrapped over more than one line because it goes "
		 "on and on, well past the eightieth column of any terminal"},
	{OPT_HELP, "help", 'h', .help = "this help"},
	{OPT_END},
};

/* A table two commands share: a row of both, and a row of each with the same letter. */
static const struct cmd_opt shared_rows[] = {
	{OPT_FLAG, "flag", 'f', OPT_AT(T, flag), .help = "both commands'"},
	{OPT_SECTION, .help = "First's:", .cmds = 1},
	{OPT_STRING, "str", 's', "TEXT", OPT_AT(T, str), .cmds = 1, .help = "the first's -s"},
	{OPT_NUMBER, "num", 's', "N", OPT_SIZE(T, num), .min = 0, .max = 10, .cmds = 2,
	 .help = "the second's -s"},
	{OPT_HELP, "help", 'h', .help = "this help"},
	{OPT_END},
};

#undef T

static const struct opt_hint hints[] = {
	{"--tui", "use --flag"},
	{"-G", "use -f"},
	{NULL, NULL},
};

static const struct cmd_spec first_spec = {
	.name = "first",
	.usage = "usage: perfmini first\n",
	.opts = shared_rows,
	.cmd = 1,
	.hints = hints,
};

static const struct cmd_spec second_spec = {
	.name = "second",
	.usage = "usage: perfmini second\n",
	.opts = shared_rows,
	.cmd = 2,
};

static const struct cmd_spec spec = {
	.name = "test",
	.usage = "usage: perfmini test [options]\n",
	.epilogue = "The end.\n",
	.opts = rows,
	.operands_end_options = true,
	.operands = COMPLETE_COMMAND,
};

/* Rows shared: a table that stands for some rows of another, and adds its own. */
static const struct cmd_opt some_rows[] = {
	{OPT_FLAG, "flag", 'f', OPT_AT(struct t_opts, flag), .help = "a flag"},
	{OPT_NUMBER, "num", 'n', "N", OPT_SIZE(struct t_opts, num), .min = 2, .max = 70000,
	 .what = "a number from 2 to 70000", .help = "a number"},
	{OPT_END},
};

static const struct cmd_opt more_rows[] = {
	{OPT_ROWS, .rows = some_rows},
	{OPT_CALL, "call", 'c', "X", .call = t_call, .what = "callable", .help = "called"},
	{OPT_END},
};

static const struct cmd_opt sharing_rows[] = {
	{OPT_SECTION, .help = "Shared:"},
	{OPT_ROWS, .rows = more_rows},
	{OPT_SECTION, .help = "Own:"},
	{OPT_STRING, "str", 's', "TEXT", OPT_AT(struct t_opts, str), .what = "some text",
	 .help = "a string"},
	{OPT_HELP, "help", 'h', .help = "this help"},
	{OPT_END},
};

static const struct cmd_spec sharing = {
	.name = "sharing",
	.usage = "usage: perfmini sharing [options]\n",
	.opts = sharing_rows,
};

/* The spec parse() parses by: spec unless a test says otherwise. */
static const struct cmd_spec *parse_spec = &spec;

/* What a parse wrote to stderr and stdout. */
static char err_text[1024], out_text[8192];

static void slurp(FILE *f, char *buf, size_t size)
{
	size_t n;

	fflush(f);
	rewind(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
}

/*
 * cmd_parse of the NULL-terminated words after "test" into o (zeroed
 * first); returns its result, *first the first operand.
 */
static int parse(struct t_opts *o, int *first, ...)
{
	char *argv[32] = {"test"};
	int argc = 1, saved_err = dup(2), saved_out = dup(1), ret;
	FILE *err = tmpfile(), *out = tmpfile();
	va_list ap;

	ck_assert(err && out && saved_err >= 0 && saved_out >= 0);
	va_start(ap, first);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	memset(o, 0, sizeof(*o));
	fflush(stdout);
	dup2(fileno(err), 2);
	dup2(fileno(out), 1);
	ret = cmd_parse(parse_spec, argc, argv, o, first);
	fflush(stdout);
	dup2(saved_err, 2);
	dup2(saved_out, 1);
	close(saved_err);
	close(saved_out);
	slurp(err, err_text, sizeof(err_text));
	slurp(out, out_text, sizeof(out_text));
	fclose(err);
	fclose(out);
	return ret;
}

static int count_lines(const char *s)
{
	int n = 0;

	while ((s = strchr(s, '\n'))) {
		n++;
		s++;
	}
	return n;
}

static void release(struct t_opts *o)
{
	free(o->strs);
	free(o->ids);
}

START_TEST(test_kinds)
{
	struct t_opts o;
	int first;

	ck_assert_int_eq(parse(&o, &first, "-f", "--str", "x.data", "--strs", "a", "--strs=b", "-n",
			       "70000", "--small", "255", "--pages", "1024", "--secs", "0",
			       "--positive", "0.5", "--dur=2ms", "--word=beta", "-i", "3,1,3",
			       "--ids", "1,7", "-c", "yes", "-g", "cmd", "--flag", NULL),
			 -1);
	ck_assert_str_eq(err_text, "");
	ck_assert(o.flag && o.given);
	ck_assert_str_eq(o.str, "x.data");
	ck_assert_uint_eq(o.nstrs, 2);
	ck_assert_str_eq(o.strs[0], "a");
	ck_assert_str_eq(o.strs[1], "b");
	ck_assert_uint_eq(o.num, 70000);
	ck_assert_uint_eq(o.small, 255);
	ck_assert_uint_eq(o.pages, 1024);
	ck_assert(o.secs == 0 && o.positive == 0.5);
	ck_assert_uint_eq(o.ns, 2000000);
	ck_assert_int_eq(o.word, 20);
	/* Each id once, in the order first given. */
	ck_assert_uint_eq(o.nids, 3);
	ck_assert_uint_eq(o.ids[0], 3);
	ck_assert_uint_eq(o.ids[1], 1);
	ck_assert_uint_eq(o.ids[2], 7);
	/* -c then -g: the call saw both, -g without a value. */
	ck_assert_int_eq(o.calls, 2);
	ck_assert_ptr_null(o.called_with);
	/* The first operand ends the options: "--flag" is the command's. */
	ck_assert_int_eq(first, 26);
	release(&o);

	ck_assert_int_eq(parse(&o, &first, NULL), -1);
	ck_assert(!o.flag && !o.given && o.nids == 0);
	ck_assert_int_eq(first, 1);
}
END_TEST

/* Each bad value: status 2, "perfmini: OPTION: 'VALUE' is not WHAT" and where help is. */
START_TEST(test_bad_values)
{
	static const struct {
		const char *opt, *val, *msg;
	} bad[] = {
		{"--num", "1", "--num: '1' is not a number from 2 to 70000"},
		{"--num", "70001", "--num: '70001' is not a number from 2 to 70000"},
		{"--num", "12x", "--num: '12x' is not a number"},
		{"--num", "-3", "--num: '-3' is not"},
		{"--small", "256", "--small: '256' is not a byte"},
		{"--pages", "3", "--pages: '3' is not a power of two"},
		{"--pages", "0", "--pages: '0' is not a power of two"},
		{"--pages", "2097152", "--pages: '2097152' is not a power of two"},
		{"--secs", "10.5", "--secs: '10.5' is not seconds"},
		{"--secs", "nan", "--secs: 'nan' is not seconds"},
		{"--secs", "1s", "--secs: '1s' is not seconds"},
		{"--positive", "0", "--positive: '0' is not positive seconds"},
		{"--dur", "2 ms", "--dur: '2 ms' is not a duration"},
		{"--dur", "2h", "--dur: '2h' is not a duration"},
		{"--word", "delta", "--word: 'delta' is not alpha, beta or gamma"},
		{"--ids", "1,,2", "--ids: '1,,2' is not a list of ids"},
		{"--ids", "0", "--ids: '0' is not a list of ids"},
		{"--ids", "1001", "--ids: '1001' is not a list of ids"},
		{"--str", "", "--str: '' is not some text"},
		{"--call", "bad", "--call: 'bad' is not callable"},
	};
	struct t_opts o;
	int first;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		ck_assert_int_eq(parse(&o, &first, bad[i].opt, bad[i].val, NULL), 2);
		ck_assert_msg(strstr(err_text, bad[i].msg) && !strncmp(err_text, "perfmini: ", 10),
			      "%s %s: %s", bad[i].opt, bad[i].val, err_text);
		ck_assert_msg(strstr(err_text, "Try 'perfmini test --help'."), "%s", err_text);
		release(&o);
	}
	/* A bad -i leaves the list as it was: nothing half-added. */
	ck_assert_int_eq(parse(&o, &first, "-i", "5", "-i", "6,x", NULL), 2);
	ck_assert_uint_eq(o.nids, 1);
	release(&o);
}
END_TEST

START_TEST(test_getopt_errors)
{
	struct t_opts o;
	int first;

	ck_assert_int_eq(parse(&o, &first, "--bogus", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err_text, "perfmini: option '--bogus' is unknown"));
	ck_assert_int_eq(parse(&o, &first, "-x", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err_text, "perfmini: option '-x' is unknown"));
	ck_assert_int_eq(parse(&o, &first, "-fx", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err_text, "option '-x' is unknown"));
	ck_assert_int_eq(parse(&o, &first, "--str", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err_text, "option '--str' needs a value"));
	ck_assert_int_eq(parse(&o, &first, "-s", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err_text, "option '-s' needs a value"));
	ck_assert_int_eq(parse(&o, &first, "--flag=1", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err_text, "option '--flag' takes no value"));
	/* Each is one line, then the pointer to --help. */
	ck_assert_int_eq(count_lines(err_text), 2);
}
END_TEST

START_TEST(test_help)
{
	struct t_opts o;
	const char *line;
	int first, nlines = 0;

	ck_assert_int_eq(parse(&o, &first, "-f", "--help", "--bogus", NULL), 0);
	ck_assert_str_eq(err_text, "");
	ck_assert(!strncmp(out_text, "usage: perfmini test [options]\n", 31));
	/* Every option on a line of its own, its help starting in one column. */
	ck_assert_ptr_nonnull(strstr(out_text, "\nThings:\n  -f, --flag "));
	ck_assert_ptr_nonnull(strstr(out_text, "\n  -s, --str TEXT "));
	ck_assert_ptr_nonnull(strstr(out_text, "\n      --strs DIR "));
	ck_assert_ptr_nonnull(strstr(out_text, "\n      --dur=D "));
	ck_assert_ptr_nonnull(strstr(out_text, "\n  -w, --word=KEY "));
	ck_assert_ptr_nonnull(strstr(out_text, "\n  -g "));
	ck_assert_ptr_nonnull(strstr(out_text, "\n  COMMAND [ARG...] "));
	ck_assert_ptr_nonnull(strstr(out_text, "\n\nMore:\n"));
	ck_assert_ptr_nonnull(strstr(out_text, "\n\nThe end.\n"));
	/* An option too wide for the column: its help starts on the next line. */
	ck_assert_ptr_nonnull(strstr(out_text, "--a-very-long-option-name WITH-A-VALUE\n "));
	for (line = out_text; *line; line = strchr(line, '\n') + 1) {
		size_t len = strcspn(line, "\n");

		ck_assert_msg(len < 80, "a line of %zu columns: %.*s", len, (int)len, line);
		ck_assert_msg(len == 0 || line[len - 1] != ' ', "trailing space: %.*s", (int)len,
			      line);
		nlines++;
	}
	/* The long help is wrapped, word by word, all of it there. */
	ck_assert_ptr_nonnull(strstr(out_text, "column of any terminal\n"));
	ck_assert_int_gt(nlines, 20);
	ck_assert_int_eq(parse(&o, &first, "-h", NULL), 0);
}
END_TEST

START_TEST(test_complete)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(f);
	cmd_complete(&spec, f);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "--flag -\n-f -\n"));
	ck_assert_ptr_nonnull(strstr(text, "--str file\n-s file\n"));
	ck_assert_ptr_nonnull(strstr(text, "--strs dir\n"));
	ck_assert_ptr_nonnull(strstr(text, "--num any\n-n any\n"));
	ck_assert_ptr_nonnull(strstr(text, "--dur =any\n"));
	/* The short form's value never follows an '='. */
	ck_assert_ptr_nonnull(strstr(text, "--word =words alpha beta gamma\n-w words alpha beta "
					   "gamma\n"));
	ck_assert_ptr_nonnull(strstr(text, "--ids pids\n-i pids\n"));
	ck_assert_ptr_nonnull(strstr(text, "\n-g -\n"));
	ck_assert_ptr_null(strstr(text, "COMMAND"));
	ck_assert_ptr_null(strstr(text, "Things"));
	ck_assert_ptr_nonnull(strstr(text, "--help -\n-h -\n-- command\n"));
	free(text);
}
END_TEST

/* A value that may be left out: given only after '=', else the call gets NULL. */
START_TEST(test_optional)
{
	struct t_opts o;
	int first;
	char *text = NULL;
	size_t size = 0;
	FILE *f;

	ck_assert_int_eq(parse(&o, &first, "--maybe", NULL), -1);
	ck_assert_int_eq(o.calls, 1);
	ck_assert_ptr_null(o.called_with);
	ck_assert_int_eq(parse(&o, &first, "--maybe=fn", NULL), -1);
	ck_assert_str_eq(o.called_with, "fn");
	/* A separate word is not its value: the first operand. */
	ck_assert_int_eq(parse(&o, &first, "--maybe", "word", NULL), -1);
	ck_assert_ptr_null(o.called_with);
	ck_assert_int_eq(first, 2);
	ck_assert_int_eq(parse(&o, &first, "--maybe=bad", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err_text, "--maybe: 'bad' is not maybe"));
	ck_assert_int_eq(parse(&o, &first, "--help", NULL), 0);
	ck_assert_ptr_nonnull(strstr(out_text, "\n      --maybe[=F] "));
	f = open_memstream(&text, &size);
	ck_assert_ptr_nonnull(f);
	cmd_complete(&spec, f);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "--maybe =any\n"));
	free(text);
}
END_TEST

/* A shared table: each command has its rows, and its help and completion list them alone. */
START_TEST(test_shared)
{
	struct t_opts o;
	int first;
	char *text = NULL;
	size_t size = 0;
	FILE *f;

	parse_spec = &first_spec;
	ck_assert_int_eq(parse(&o, &first, "-f", "-s", "x", NULL), -1);
	ck_assert(o.flag);
	ck_assert_str_eq(o.str, "x");
	ck_assert_int_eq(parse(&o, &first, "--num", "3", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err_text, "option '--num' is unknown"));
	ck_assert_int_eq(parse(&o, &first, "--help", NULL), 0);
	ck_assert_ptr_nonnull(strstr(out_text, "\nFirst's:\n  -s, --str TEXT "));
	ck_assert_ptr_null(strstr(out_text, "--num"));
	parse_spec = &second_spec;
	ck_assert_int_eq(parse(&o, &first, "-f", "-s", "3", NULL), -1);
	ck_assert_uint_eq(o.num, 3);
	ck_assert_ptr_null(o.str);
	ck_assert_int_eq(parse(&o, &first, "--str", "x", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err_text, "option '--str' is unknown"));
	ck_assert_int_eq(parse(&o, &first, "--help", NULL), 0);
	ck_assert_ptr_nonnull(strstr(out_text, "  -s, --num N "));
	ck_assert_ptr_null(strstr(out_text, "First's"));
	ck_assert_ptr_null(strstr(out_text, "--str"));
	parse_spec = &spec;
	f = open_memstream(&text, &size);
	ck_assert_ptr_nonnull(f);
	cmd_complete(&second_spec, f);
	fclose(f);
	ck_assert_str_eq(text, "--flag -\n-f -\n--num any\n-s any\n--help -\n-h -\n");
	free(text);
}
END_TEST

/* perf's options a command has not: one line that says what to use instead. */
START_TEST(test_hints)
{
	struct t_opts o;
	int first;

	parse_spec = &first_spec;
	ck_assert_int_eq(parse(&o, &first, "--tui", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err_text, "perfmini: --tui is perf's, not perfmini first's: "
					       "use --flag\n"));
	ck_assert_int_eq(count_lines(err_text), 2);
	ck_assert_int_eq(parse(&o, &first, "--tui=x", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err_text, "--tui is perf's"));
	ck_assert_int_eq(parse(&o, &first, "-fG", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err_text, "-G is perf's, not perfmini first's: use -f"));
	/* Not a hint: as before. */
	ck_assert_int_eq(parse(&o, &first, "--tuix", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err_text, "option '--tuix' is unknown"));
	/* A command without the hint. */
	parse_spec = &second_spec;
	ck_assert_int_eq(parse(&o, &first, "--tui", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err_text, "option '--tui' is unknown"));
	parse_spec = &spec;
}
END_TEST

/* OPT_ROWS: another table's rows parsed, helped and completed in their place. */
START_TEST(test_shared_rows)
{
	struct t_opts o;
	int first;
	char *text = NULL;
	size_t size = 0;
	FILE *f;

	parse_spec = &sharing;
	ck_assert_int_eq(parse(&o, &first, "-f", "-n", "7", "--call=x", "-s", "y", NULL), -1);
	ck_assert_str_eq(err_text, "");
	ck_assert(o.flag);
	ck_assert_uint_eq(o.num, 7);
	ck_assert_str_eq(o.called_with, "x");
	ck_assert_str_eq(o.str, "y");
	ck_assert_int_eq(parse(&o, &first, "-n", "1", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err_text, "--num: '1' is not a number from 2 to 70000"));
	ck_assert_int_eq(parse(&o, &first, "--bogus", NULL), 2);
	ck_assert_int_eq(parse(&o, &first, "--help", NULL), 0);
	ck_assert_ptr_nonnull(strstr(out_text, "\nShared:\n  -f, --flag "));
	ck_assert_ptr_nonnull(strstr(out_text, "\n  -n, --num N "));
	ck_assert_ptr_nonnull(strstr(out_text, "\n  -c, --call X "));
	ck_assert_ptr_nonnull(strstr(out_text, "\n\nOwn:\n  -s, --str TEXT "));
	parse_spec = &spec;
	f = open_memstream(&text, &size);
	ck_assert_ptr_nonnull(f);
	cmd_complete(&sharing, f);
	fclose(f);
	ck_assert_str_eq(text, "--flag -\n-f -\n--num any\n-n any\n--call any\n-c any\n--str "
			       "any\n-s any\n--help -\n-h -\n");
	free(text);
}
END_TEST

static Suite *opts_suite(void)
{
	Suite *s = suite_create("opts");
	TCase *tc = tcase_create("opts");

	tcase_add_test(tc, test_kinds);
	tcase_add_test(tc, test_bad_values);
	tcase_add_test(tc, test_getopt_errors);
	tcase_add_test(tc, test_help);
	tcase_add_test(tc, test_complete);
	tcase_add_test(tc, test_optional);
	tcase_add_test(tc, test_shared);
	tcase_add_test(tc, test_hints);
	tcase_add_test(tc, test_shared_rows);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(opts_suite());
}
