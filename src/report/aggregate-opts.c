/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * aggregate-opts.c - the report options that aggregate.c applies: their
 * parsers, and what --diff, --merge-inline and the spans' cgroups make of
 * them once the recordings are read (aggregate_prepare); see aggregate.h.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/aggregate.h"
#include "report/inline-calls.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/hmap.h"
#include "util/parse.h"

/* Option parsing. */

static void free_items(char **items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(items[i]);
	free(items);
}

/* Moves the n items (malloc'd, as split_list gives them) to the end of *list. */
static void append_items(char ***list, size_t *len, char **items, size_t n)
{
	*list = xrealloc(*list, (*len + n) * sizeof(**list));
	memcpy(*list + *len, items, n * sizeof(*items));
	*len += n;
	free(items);
}

/* The comma-separated items of s, each non-empty; NULL for a bad list. */
static char **split_list(const char *s, size_t *n)
{
	char **items = NULL;
	size_t cap = 0;

	*n = 0;
	for (;;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);

		if (len == 0) {
			free_items(items, *n);
			*n = 0;
			return NULL;
		}
		xgrow(&items, &cap, *n + 1, sizeof(*items));
		items[(*n)++] = xstrndup(s, len);
		if (!comma)
			return items;
		s = comma + 1;
	}
}

int aggregate_parse_ids(const char *s, uint32_t **ids, size_t *n)
{
	char bad[64];

	/* 0 is the idle task's; a file stores ids as 32-bit numbers. */
	return parse_id_list(s, 0, UINT32_MAX, ids, n, bad, sizeof(bad));
}

int aggregate_parse_cgroups(const char *s, struct report_opts *o)
{
	size_t nitems;
	char **items = split_list(s, &nitems);

	if (!items)
		return -EINVAL;
	for (size_t i = 0; i < nitems; i++)
		if (items[i][0] != '/') {
			free_items(items, nitems);
			return -EINVAL;
		}
	append_items(&o->cgroups, &o->ncgroups, items, nitems);
	return 0;
}

int aggregate_parse_comms(const char *s, struct report_opts *o)
{
	size_t nitems;
	char **items = split_list(s, &nitems);

	if (!items)
		return -EINVAL;
	append_items(&o->comms, &o->ncomms, items, nitems);
	return 0;
}

/* Seconds as a non-negative decimal number, to nanoseconds. */
static int parse_seconds(const char *s, size_t len, uint64_t *ns)
{
	char buf[64], *end;
	double v;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	/* strtod takes "inf", "nan" and hex floats: only digits and one dot here. */
	if (strspn(buf, "0123456789.") != len)
		return -EINVAL;
	errno = 0;
	v = strtod(buf, &end);
	if (errno || *end || end == buf || !(v >= 0) || v > 1e9)
		return -EINVAL;
	*ns = (uint64_t)(v * 1e9 + 0.5);
	return 0;
}

/*
 * WHEN, a wall-clock time (@EPOCH, YYYY-MM-DD HH:MM[:SS], or HH:MM[:SS]
 * today, local time), as seconds since the epoch into *at; -EINVAL.
 */
static int parse_when(const char *when, long long *at)
{
	static const char *const layouts[] = {"%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%H:%M:%S",
					      "%H:%M"};
	char *end;

	if (when[0] == '@') {
		long long v = strtoll(when + 1, &end, 10);

		if (end == when + 1 || *end || v < 0)
			return -EINVAL;
		*at = v;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(layouts); i++) {
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm); /* a time of day alone: today */
		tm.tm_sec = 0;
		end = strptime(when, layouts[i], &tm);
		if (end && !*end) {
			tm.tm_isdst = -1;
			*at = (long long)mktime(&tm);
			return *at < 0 ? -EINVAL : 0;
		}
	}
	return -EINVAL;
}

/* --since WHEN or --until WHEN: one bound, a wall-clock time. */
static int parse_wall_bound(const char *s, bool until, struct report_opts *o)
{
	long long at;

	if (parse_when(s, &at) < 0)
		return -EINVAL;
	o->wall_clock = true;
	if (until) {
		o->has_end = true;
		o->until = at;
	} else {
		o->has_start = true;
		o->since = at;
	}
	return 0;
}

int aggregate_parse_window(const char *s, enum report_window_opt which, struct report_opts *o)
{
	const char *comma = strchr(s, ',');
	uint64_t start = 0, end = 0;
	bool has_start, has_end;

	if (which != REPORT_WINDOW_TIME)
		return parse_wall_bound(s, which == REPORT_WINDOW_UNTIL, o);
	if (!comma || strchr(comma + 1, ','))
		return -EINVAL;
	has_start = comma > s;
	has_end = comma[1] != '\0';
	if (has_start && parse_seconds(s, (size_t)(comma - s), &start) < 0)
		return -EINVAL;
	if (has_end && parse_seconds(comma + 1, strlen(comma + 1), &end) < 0)
		return -EINVAL;
	if (has_start && has_end && end < start)
		return -EINVAL;
	o->has_start = has_start;
	o->has_end = has_end;
	o->start_ns = start;
	o->end_ns = end;
	return 0;
}

int aggregate_place_window(struct report_opts *o, const struct profile *p)
{
	long long start = (long long)profile_get_meta_u64(p, "start-time");

	if (!o->wall_clock)
		return 0;
	if (!start)
		return -ENOENT;
	if (o->has_start)
		o->start_ns = o->since > start ? (uint64_t)(o->since - start) * 1000000000ull : 0;
	if (o->has_end)
		o->end_ns = o->until > start ? (uint64_t)(o->until - start) * 1000000000ull : 0;
	o->wall_clock = false;
	return 0;
}

/* The cgroup of each thread of p, by pid << 32 | tid (the last record's); NULL when none has one. */
static struct hmap *thread_cgroups(const struct profile *p)
{
	struct hmap *m = NULL;

	for (size_t i = 0; p && i < p->nthreads; i++) {
		const struct pm_thread *t = &p->threads[i];
		bool added;

		if (!t->cgroup)
			continue;
		if (!m) {
			m = xcalloc(1, sizeof(*m));
			hmap_init(m);
		}
		hmap_insert(m, (uint64_t)t->pid << 32 | t->tid, &added)->val = t->cgroup;
	}
	return m;
}

static void free_map(struct hmap *m)
{
	if (m)
		hmap_release(m);
	free(m);
}

void aggregate_diff_key(struct report_opts *o)
{
	/* The one place the --diff key is made: the root and the frames' names. */
	if (o->base && !(o->diff_key & REPORT_KEY_THREAD))
		o->root = REPORT_ROOT_NONE;
	o->names.modules = o->base && (o->diff_key & REPORT_KEY_MODULE);
}

void aggregate_prepare(struct report_opts *o, const struct profile *p)
{
	free_map(o->span_cgroups);
	free_map(o->base_span_cgroups);
	o->span_cgroups = thread_cgroups(p);
	o->base_span_cgroups = thread_cgroups(o->base);
	aggregate_diff_key(o);
	if (o->merge_inline) {
		o->names.no_inline = true;
		inline_calls_free(o->inlined);
		o->inlined = inline_calls_new(p, o->base);
	}
}

/* A word of a comma-separated list and the bit it sets. */
struct key_word {
	const char *word;
	unsigned key;
};

/* The bits of the words of list s, each one of words[0, n), into *keys; 0 or -EINVAL. */
static int parse_key_list(const char *s, const struct key_word *words, size_t n, unsigned *keys)
{
	size_t nitems, i;
	char **items = split_list(s, &nitems);
	unsigned got = 0;
	int ret = 0;

	if (!items)
		return -EINVAL;
	for (size_t k = 0; k < nitems; k++) {
		for (i = 0; i < n && strcmp(items[k], words[i].word); i++)
			;
		if (i == n)
			ret = -EINVAL;
		else
			got |= words[i].key;
		free(items[k]);
	}
	free(items);
	if (ret == 0)
		*keys = got;
	return ret;
}

int aggregate_parse_diff_key(const char *s, struct report_opts *o)
{
	static const struct key_word words[] = {{"module", REPORT_KEY_MODULE},
						{"thread", REPORT_KEY_THREAD}};

	return parse_key_list(s, words, ARRAY_SIZE(words), &o->diff_key);
}

int aggregate_parse_sort(const char *s, struct report_opts *o)
{
	static const struct key_word words[] = {
		{"comm", REPORT_ROW_COMM},  {"pid", REPORT_ROW_PID},
		{"tid", REPORT_ROW_TID},    {"module", REPORT_ROW_MODULE},
		{"dso", REPORT_ROW_MODULE}, {"symbol", REPORT_ROW_SYMBOL},
		{"sym", REPORT_ROW_SYMBOL}, {"cgroup", REPORT_ROW_CGROUP}};

	if (!strcmp(s, "self") || !strcmp(s, "total")) {
		o->sort = !strcmp(s, "self") ? REPORT_SORT_SELF : REPORT_SORT_TOTAL;
		return 0;
	}
	return parse_key_list(s, words, ARRAY_SIZE(words), &o->row_keys);
}

void aggregate_opts_release(struct report_opts *o)
{
	inline_calls_free(o->inlined);
	o->inlined = NULL;
	free(o->pids);
	free(o->tids);
	for (size_t i = 0; i < o->ncomms; i++)
		free(o->comms[i]);
	free(o->comms);
	for (size_t i = 0; i < o->ncgroups; i++)
		free(o->cgroups[i]);
	free(o->cgroups);
	o->cgroups = NULL;
	o->ncgroups = 0;
	free_map(o->span_cgroups);
	free_map(o->base_span_cgroups);
	o->span_cgroups = o->base_span_cgroups = NULL;
	free((void *)o->source_dirs);
	o->source_dirs = NULL;
	o->nsource_dirs = 0;
	o->pids = o->tids = NULL;
	o->comms = NULL;
	o->npids = o->ntids = o->ncomms = 0;
}
