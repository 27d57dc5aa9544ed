/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * opts.c - one table of options into getopt_long, --help and the shell
 * completion's listing.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/parse.h"
#include "util/sbuf.h"

/* The width --help fits in, and the widest option column it gives. */
#define HELP_WIDTH	80
#define HELP_MAX_COLUMN 28

static bool is_option(const struct cmd_opt *r)
{
	return r->kind != OPT_SECTION && r->kind != OPT_OPERAND;
}

/* Whether row r is one of spec's: its table may be shared with other commands. */
static bool in_spec(const struct cmd_spec *spec, const struct cmd_opt *r)
{
	return !r->cmds || !spec->cmd || (r->cmds & spec->cmd);
}

/* How many rows table stands for, its OPT_ROWS rows' own counted in their place. */
static size_t count_rows(const struct cmd_opt *table)
{
	size_t n = 0;

	for (const struct cmd_opt *r = table; r->kind != OPT_END; r++)
		n += r->kind == OPT_ROWS ? count_rows(r->rows) : 1;
	return n;
}

/* Copies the rows table stands for to *at, advancing it. */
static void copy_rows(const struct cmd_opt *table, struct cmd_opt **at)
{
	for (const struct cmd_opt *r = table; r->kind != OPT_END; r++) {
		if (r->kind == OPT_ROWS)
			copy_rows(r->rows, at);
		else
			*(*at)++ = *r;
	}
}

/*
 * spec with a table of its own rows alone, those of its OPT_ROWS rows in
 * their place (malloc'd: free flat->opts), so that what follows reads one
 * table.
 */
static void flatten(const struct cmd_spec *spec, struct cmd_spec *flat)
{
	struct cmd_opt *rows = xcalloc(count_rows(spec->opts) + 1, sizeof(*rows)), *at = rows;

	copy_rows(spec->opts, &at);
	at->kind = OPT_END;
	*flat = *spec;
	flat->opts = rows;
}

static void *field(void *opts, size_t off)
{
	return (char *)opts + off;
}

/* "250us", "2ms", "1s", "800ns"; a bare number is in microseconds. 0 or -EINVAL. */
static int parse_duration_ns(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = {{"", 1e3}, {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v >= 0))
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(end, units[i].unit) == 0 && v * units[i].scale < 1e18) {
			*ns = (uint64_t)(v * units[i].scale);
			return 0;
		}
	}
	return -EINVAL;
}

/* A decimal number, all of s, not NaN. */
static int parse_double(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno || end == s || *end || *v != *v ? -EINVAL : 0;
}

static void store_uint(void *p, size_t size, uint64_t v)
{
	switch (size) {
	case 1:
		*(uint8_t *)p = (uint8_t)v;
		break;
	case 2:
		*(uint16_t *)p = (uint16_t)v;
		break;
	case 4:
		*(uint32_t *)p = (uint32_t)v;
		break;
	default:
		*(uint64_t *)p = v;
		break;
	}
}

/* "a, b or c": the words of a keyword row, for its error. */
static void add_word_list(struct sbuf *b, const struct opt_word *w)
{
	for (size_t i = 0; w[i].word; i++)
		sbuf_addf(b, "%s%s", i == 0 ? "" : w[i + 1].word ? ", " : " or ", w[i].word);
}

/*
 * "--NAME: 'ARG' is not WHAT", the usage error of a bad value; "--NAME:
 * WHAT" for an option without one that cannot be taken.
 */
static int bad_value(const struct cmd_spec *spec, const struct cmd_opt *r, const char *arg)
{
	struct sbuf what = SBUF_INIT;
	int ret;

	if (r->kind == OPT_KEYWORD)
		add_word_list(&what, r->words);
	else
		sbuf_adds(&what, r->what ? r->what : "a valid value");
	if (!arg)
		ret = cmd_usage_error(spec->name, "--%s: %s", r->name, what.buf);
	else if (r->name)
		ret = cmd_usage_error(spec->name, "--%s: '%s' is not %s", r->name, arg, what.buf);
	else
		ret = cmd_usage_error(spec->name, "-%c: '%s' is not %s", r->key, arg, what.buf);
	sbuf_release(&what);
	return ret;
}

/* Applies row r, given with arg (NULL for none), to opts: 0, or -1 when arg is bad. */
static int apply(const struct cmd_opt *r, void *opts, const char *arg)
{
	void *p = field(opts, r->off);
	uint64_t u;
	double d;

	switch (r->kind) {
	case OPT_FLAG:
		*(bool *)p = true;
		break;
	case OPT_STRING:
		if (!*arg)
			return -1;
		*(const char **)p = arg;
		break;
	case OPT_STRINGS: {
		const char ***list = p;
		size_t *n = field(opts, r->off2);

		*list = xrealloc(*list, (*n + 1) * sizeof(**list));
		(*list)[(*n)++] = arg;
		break;
	}
	case OPT_NUMBER:
		if (parse_u64(arg, &u) < 0 || (double)u < r->min || (double)u > r->max ||
		    ((r->flags & OPTF_POW2) && (u & (u - 1))))
			return -1;
		store_uint(p, r->size, u);
		break;
	case OPT_SECONDS:
		if (parse_double(arg, &d) < 0 || d < r->min || d > r->max ||
		    ((r->flags & OPTF_MIN_OPEN) && d == r->min))
			return -1;
		*(double *)p = d;
		break;
	case OPT_DURATION:
		if (parse_duration_ns(arg, &u) < 0 || (double)u < r->min || (double)u > r->max)
			return -1;
		*(uint64_t *)p = u;
		break;
	case OPT_KEYWORD: {
		size_t i;

		for (i = 0; r->words[i].word && strcmp(r->words[i].word, arg); i++)
			;
		if (!r->words[i].word)
			return -1;
		*(int *)p = r->words[i].value;
		break;
	}
	case OPT_IDS: {
		char bad[64];

		if (parse_id_list(arg, (uint32_t)r->min, (uint32_t)r->max, p, field(opts, r->off2),
				  bad, sizeof(bad)) < 0)
			return -1;
		break;
	}
	case OPT_CALL:
		if (r->call(opts, r, arg) < 0)
			return -1;
		break;
	default:
		break;
	}
	if (r->has_given)
		*(bool *)field(opts, r->given) = true;
	return 0;
}

/* getopt_long's tables from spec's rows: a long option each, val the row's index + 256. */
static struct option *long_options(const struct cmd_spec *spec, struct sbuf *shorts)
{
	const struct cmd_opt *rows = spec->opts;
	size_t n = 0, k = 0;
	struct option *lo;

	while (rows[n].kind != OPT_END)
		n++;
	lo = xcalloc(n + 1, sizeof(*lo));
	/* ':': a missing value is told apart from an unknown option. */
	sbuf_adds(shorts, spec->operands_end_options ? "+:" : ":");
	for (size_t i = 0; i < n; i++) {
		if (!is_option(&rows[i]) || !in_spec(spec, &rows[i]))
			continue;
		if (rows[i].name) {
			lo[k].name = rows[i].name;
			lo[k].has_arg = !rows[i].arg			? no_argument
					: rows[i].flags & OPTF_OPTIONAL ? optional_argument
									: required_argument;
			lo[k].val = (int)i + 256;
			k++;
		}
		if (rows[i].key)
			sbuf_addf(shorts, "%c%s", rows[i].key, rows[i].arg ? ":" : "");
	}
	return lo;
}

/* The row of short option c, or of long option index c - 256. */
static const struct cmd_opt *row_of(const struct cmd_spec *spec, int c)
{
	const struct cmd_opt *rows = spec->opts;

	if (c >= 256)
		return &rows[c - 256];
	for (size_t i = 0; rows[i].kind != OPT_END; i++)
		if (is_option(&rows[i]) && in_spec(spec, &rows[i]) && rows[i].key == c)
			return &rows[i];
	return NULL;
}

/* The hint of spec for the option word (its value after '=' left out); NULL when none. */
static const struct opt_hint *hint_of(const struct cmd_spec *spec, const char *word)
{
	size_t len = strcspn(word, "=");

	for (const struct opt_hint *h = spec->hints; h && h->perf; h++)
		if (strlen(h->perf) == len && !strncmp(h->perf, word, len))
			return h;
	return NULL;
}

/*
 * getopt's '?' (an unknown option, or a long one given a value it does
 * not take) or ':' (an option without its value); arg the word at fault.
 * optopt is the short option's letter, a long option's row + 256, or 0
 * for an unknown long option.
 */
static int bad_option(const struct cmd_spec *spec, int c, const char *arg)
{
	const char *why = c == ':'	  ? "needs a value"
			  : optopt >= 256 ? "takes no value"
					  : "is unknown";
	char shortopt[3] = {'-', (char)optopt, '\0'};
	const struct opt_hint *h = NULL;

	if (c == '?' && optopt > 0 && optopt < 256)
		h = hint_of(spec, shortopt);
	else if (c == '?' && optopt == 0)
		h = hint_of(spec, arg);
	if (h)
		return cmd_usage_error(spec->name, "%s is perf's, not perfmini %s's: %s", h->perf,
				       spec->name, h->instead);
	if (optopt > 0 && optopt < 256)
		return cmd_usage_error(spec->name, "option '-%c' %s", optopt, why);
	return cmd_usage_error(spec->name, "option '%.*s' %s", (int)strcspn(arg, "="), arg, why);
}

/* "  -o, --output FILE" or "      --call-graph=MODE": the left column of row r. */
static void left_column(const struct cmd_opt *r, struct sbuf *b)
{
	sbuf_reset(b);
	if (r->kind == OPT_OPERAND) {
		sbuf_addf(b, "  %s", r->arg);
		return;
	}
	if (r->key && !r->name)
		sbuf_addf(b, "  -%c", r->key);
	else if (r->key)
		sbuf_addf(b, "  -%c, --%s", r->key, r->name);
	else
		sbuf_addf(b, "      --%s", r->name);
	if (r->arg && (r->flags & OPTF_OPTIONAL))
		sbuf_addf(b, "[=%s]", r->arg);
	else if (r->arg)
		sbuf_addf(b, "%c%s", r->flags & OPTF_EQ ? '=' : ' ', r->arg);
}

/* Writes text from column col, words wrapped before HELP_WIDTH; "\n" breaks a line. */
static void wrap(FILE *out, const char *text, size_t col, size_t at)
{
	const char *s = text;

	while (*s) {
		size_t len = strcspn(s, " \n");

		if (at > col && at + 1 + len >= HELP_WIDTH) {
			fprintf(out, "\n%*s", (int)col, "");
			at = col;
		} else if (at > col) {
			fputc(' ', out);
			at++;
		}
		fwrite(s, 1, len, out);
		at += len;
		s += len;
		if (*s == '\n' && s[1]) {
			fprintf(out, "\n%*s", (int)col, "");
			at = col;
		}
		s += strspn(s, " \n");
	}
	fputc('\n', out);
}

static void help_flat(const struct cmd_spec *spec, FILE *out)
{
	const struct cmd_opt *r;
	struct sbuf left = SBUF_INIT;
	size_t col = 0;

	for (r = spec->opts; r->kind != OPT_END; r++) {
		if (r->kind == OPT_SECTION || !in_spec(spec, r))
			continue;
		left_column(r, &left);
		if (left.len + 2 <= HELP_MAX_COLUMN && left.len + 2 > col)
			col = left.len + 2;
	}
	fputs(spec->usage, out);
	for (r = spec->opts; r->kind != OPT_END; r++) {
		if (!in_spec(spec, r))
			continue;
		if (r->kind == OPT_SECTION) {
			fprintf(out, "\n%s\n", r->help);
			continue;
		}
		left_column(r, &left);
		fputs(left.buf, out);
		if (left.len + 1 > col)
			fprintf(out, "\n%*s", (int)col, "");
		else
			fprintf(out, "%*s", (int)(col - left.len), "");
		wrap(out, r->help, col, col);
	}
	sbuf_release(&left);
	if (spec->epilogue)
		fprintf(out, "\n%s", spec->epilogue);
}

/* The "HOW [WORD...]" of the completion's line of row r. */
static void complete_how(const struct cmd_opt *r, FILE *out)
{
	static const char *const how[] = {
		[COMPLETE_ANY] = "any",	    [COMPLETE_FILE] = "file",
		[COMPLETE_DIR] = "dir",	    [COMPLETE_PIDS] = "pids",
		[COMPLETE_WORDS] = "words", [COMPLETE_COMMAND] = "command",
	};
	const char *w;

	if (!r->arg) {
		fputs("-", out);
		return;
	}
	fprintf(out, "%s%s", r->flags & (OPTF_EQ | OPTF_OPTIONAL) ? "=" : "", how[r->complete]);
	if (r->complete != COMPLETE_WORDS)
		return;
	for (size_t i = 0; r->words && r->words[i].word; i++)
		fprintf(out, " %s", r->words[i].word);
	for (size_t i = 0; r->word_at && (w = r->word_at(i)); i++)
		fprintf(out, " %s", w);
}

static void complete_flat(const struct cmd_spec *spec, FILE *out)
{
	for (const struct cmd_opt *r = spec->opts; r->kind != OPT_END; r++) {
		if (!is_option(r) || !in_spec(spec, r))
			continue;
		if (r->name) {
			fprintf(out, "--%s ", r->name);
			complete_how(r, out);
			fputc('\n', out);
		}
		if (r->key) {
			fprintf(out, "-%c ", r->key);
			/* A short option's value never follows an '='. */
			if (r->arg && (r->flags & OPTF_EQ)) {
				struct cmd_opt plain = *r;

				plain.flags &= ~(unsigned)OPTF_EQ;
				complete_how(&plain, out);
			} else {
				complete_how(r, out);
			}
			fputc('\n', out);
		}
	}
	if (spec->operands == COMPLETE_COMMAND)
		fputs("-- command\n", out);
}

static int parse_flat(const struct cmd_spec *spec, int argc, char **argv, void *opts, int *first)
{
	struct sbuf shorts = SBUF_INIT;
	struct option *lo = long_options(spec, &shorts);
	const struct cmd_opt *r;
	int c, ret = -1;

	optind = 0; /* 0, not 1: glibc then reads the optstring afresh ("+" included) */
	opterr = 0; /* getopt's messages would start with the command's name alone */
	while (ret < 0 && (c = getopt_long(argc, argv, shorts.buf, lo, NULL)) != -1) {
		r = c == '?' || c == ':' ? NULL : row_of(spec, c);
		if (!r)
			ret = bad_option(spec, c, argv[optind - 1]);
		else if (r->kind == OPT_HELP)
			ret = (help_flat(spec, stdout), 0);
		else if (apply(r, opts, optarg) < 0)
			ret = bad_value(spec, r, optarg);
	}
	free(lo);
	sbuf_release(&shorts);
	*first = optind;
	return ret;
}

int cmd_parse(const struct cmd_spec *spec, int argc, char **argv, void *opts, int *first)
{
	struct cmd_spec flat;
	int ret;

	flatten(spec, &flat);
	ret = parse_flat(&flat, argc, argv, opts, first);
	free((void *)flat.opts);
	return ret;
}

void cmd_help(const struct cmd_spec *spec, FILE *out)
{
	struct cmd_spec flat;

	flatten(spec, &flat);
	help_flat(&flat, out);
	free((void *)flat.opts);
}

void cmd_complete(const struct cmd_spec *spec, FILE *out)
{
	struct cmd_spec flat;

	flatten(spec, &flat);
	complete_flat(&flat, out);
	free((void *)flat.opts);
}
