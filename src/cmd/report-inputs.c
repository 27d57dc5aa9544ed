/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report-inputs.c - the recordings report reads; see report-inputs.h.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "cmd/report-inputs.h"
#include "report/latency.h"
#include "report/wall.h"
#include "store/datafile.h"
#include "util/alloc.h"
#include "util/msg.h"

const char *report_view_option(enum report_sample_type type)
{
	static const char *const names[] = {
		[REPORT_CPU] = "--sample-type=cpu",
		[REPORT_OFF_CPU] = "--sample-type=off-cpu",
		[REPORT_WALL] = "--sample-type=wall",
		[REPORT_LATENCY] = "--latency",
	};

	return names[type];
}

bool report_off_cpu_recorded(const struct profile *p, const char *base_name)
{
	const char *v = p ? profile_get_meta(p, "off-cpu") : NULL;

	if (!v || strcmp(v, "no"))
		return true;
	if (base_name)
		error("%s was recorded without --off-cpu: an off-CPU, wall or latency diff against "
		      "it would have no spans to weigh; record the base with --off-cpu",
		      base_name);
	return false;
}

void report_weigh(struct profile *p, enum report_sample_type type)
{
	if (type == REPORT_WALL)
		wall_weigh_samples(p);
	else if (type == REPORT_LATENCY)
		latency_weigh_samples(p);
}

int report_check_view(const struct profile *p, const char *input, enum report_sample_type *type,
		      bool type_given, bool state_given, bool annotate)
{
	const char *v = profile_get_meta(p, "off-cpu");

	if (v && !strcmp(v, "only")) {
		if (annotate) {
			error("%s was recorded with --off-cpu-only: it has no CPU samples to "
			      "annotate",
			      input);
			return 1;
		}
		if (type_given && *type != REPORT_OFF_CPU) {
			error("%s was recorded with --off-cpu-only: it has no CPU samples for %s "
			      "(off-cpu is its view)",
			      input, report_view_option(*type));
			return 1;
		}
		*type = REPORT_OFF_CPU;
	}
	if (*type == REPORT_LATENCY && !report_off_cpu_recorded(p, NULL)) {
		error("%s was recorded without --off-cpu: --latency counts the threads on a CPU "
		      "by their switch records; record with --off-cpu",
		      input);
		return 1;
	}
	if (annotate && *type != REPORT_CPU)
		return cmd_usage_error("report", "--annotate counts CPU samples: %s does not apply",
				       report_view_option(*type));
	if (state_given && !report_has_spans(*type))
		return cmd_usage_error("report",
				       "--off-cpu-state applies to --sample-type=off-cpu or wall");
	return 0;
}

/* A file cut short (the recorder killed, or still recording) is said so. */
static void say_cut(const struct profile *p, const char *path)
{
	if (p->cut_at && !p->nsamples && !p->noffcpu)
		warning("%s is cut short at offset %llu (the recorder was killed, or is still "
			"recording): it holds no sample yet",
			path, (unsigned long long)p->cut_at);
	else if (p->cut_at)
		warning("%s is cut short at offset %llu (the recorder was killed, or is still "
			"recording): it holds what was recorded in its first %.2f s",
			path, (unsigned long long)p->cut_at, (double)p->cut_time / 1e9);
}

static int by_name(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The files of directory dir (not those starting with '.'), sorted, into *names; -errno. */
static int dir_files(const char *dir, char ***names, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t cap = 0;

	*names = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char *path;
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		xgrow(names, &cap, *n + 1, sizeof(**names));
		(*names)[(*n)++] = path;
	}
	closedir(d);
	if (*n)
		qsort(*names, *n, sizeof(**names), by_name);
	return 0;
}

/* The files merged so far, by device and inode: one given twice is merged once. */
struct seen {
	dev_t *dev;
	ino_t *ino;
	size_t n, cap;
};

/* Whether path is a file merged already (said so); else it is noted. */
static bool seen_before(struct seen *s, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return false; /* datafile_read says why */
	for (size_t i = 0; i < s->n; i++)
		if (s->dev[i] == st.st_dev && s->ino[i] == st.st_ino) {
			warning("%s is a file read already: it is merged once", path);
			return true;
		}
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->dev = xrealloc(s->dev, s->cap * sizeof(*s->dev));
		s->ino = xrealloc(s->ino, s->cap * sizeof(*s->ino));
	}
	s->dev[s->n] = st.st_dev;
	s->ino[s->n++] = st.st_ino;
	return false;
}

/* Whether path begins as a data file does (another file in a directory is skipped). */
static bool has_magic(const char *path)
{
	char head[sizeof(DATAFILE_MAGIC) - 1];
	FILE *f = fopen(path, "rbe");
	bool ok = f && fread(head, 1, sizeof(head), f) == sizeof(head) &&
		  !memcmp(head, DATAFILE_MAGIC, sizeof(head));

	if (f)
		fclose(f);
	return ok;
}

struct profile *report_read_one(const char *path, bool force, enum report_sample_type type)
{
	char err[512];
	struct profile *p = datafile_read(path, force, err, sizeof(err));

	if (!p) {
		error("%s", err);
		return NULL;
	}
	say_cut(p, path);
	report_weigh(p, type);
	return p;
}

/*
 * Reads path and merges it into *into (made at the first), unless it was
 * merged already: 1, 0 for a file merged already, -1 after saying why.
 */
static int merge_one(const char *path, bool force, enum report_sample_type type, struct seen *s,
		     struct profile **into)
{
	struct profile *p;

	if (seen_before(s, path))
		return 0;
	if (!(p = report_read_one(path, force, type)))
		return -1;
	if (!*into)
		*into = profile_new();
	profile_merge(*into, p);
	profile_free(p);
	return 1;
}

struct profile *report_read_inputs(const char *const *inputs, size_t ninputs, const char *input,
				   bool force, enum report_sample_type type)
{
	struct profile *p = NULL;
	struct seen seen = {0};
	char err[512];
	struct stat st;
	size_t files = 0;

	if (ninputs <= 1 && (stat(input, &st) < 0 || !S_ISDIR(st.st_mode)))
		return report_read_one(input, force, type);
	for (size_t i = 0; i < (ninputs ? ninputs : 1); i++) {
		const char *in = ninputs ? inputs[i] : input;
		char **names;
		size_t n;
		bool ok = true;

		if (stat(in, &st) < 0 || !S_ISDIR(st.st_mode)) {
			int got = merge_one(in, force, type, &seen, &p);

			ok = got >= 0;
			files += got > 0;
		} else if (dir_files(in, &names, &n) < 0 || n == 0) {
			error("%s: %s", in, n == 0 ? "a directory without files" : strerror(errno));
			ok = false;
		} else {
			for (size_t k = 0; k < n; k++) {
				/* A file of another kind beside the recordings: not one of them. */
				int got = 0;

				if (ok && !has_magic(names[k]))
					warning("%s is not a perfmini data file: skipped",
						names[k]);
				else if (ok &&
					 (got = merge_one(names[k], force, type, &seen, &p)) < 0)
					ok = false;
				files += got > 0;
				free(names[k]);
			}
			free(names);
		}
		if (ok && !p) {
			error("%s: no perfmini data file in it", in);
			ok = false;
		}
		if (!ok) {
			free(seen.dev);
			free(seen.ino);
			profile_free(p);
			return NULL;
		}
	}
	free(seen.dev);
	free(seen.ino);
	snprintf(err, sizeof(err), "%zu", files);
	profile_set_meta(p, "merged-files", err);
	return p;
}

/* --series: one file read, its warnings said (the read of struct report_series). */
static struct profile *series_read(void *arg, const char *path)
{
	return report_read_one(path, *(const bool *)arg, REPORT_CPU);
}

struct profile *report_series_open(const char *const *inputs, size_t ninputs, const char *input,
				   bool force, struct report_series *s, bool *force_arg)
{
	char **paths = NULL;
	size_t n = 0, cap = 0;
	struct stat st;

	for (size_t i = 0; i < (ninputs ? ninputs : 1); i++) {
		const char *in = ninputs ? inputs[i] : input;
		char **names;
		size_t k;

		if (stat(in, &st) < 0 || !S_ISDIR(st.st_mode)) {
			xgrow(&paths, &cap, n + 1, sizeof(*paths));
			paths[n++] = xstrdup(in);
			continue;
		}
		if (dir_files(in, &names, &k) < 0 || k == 0) {
			error("%s: %s", in, k == 0 ? "a directory without files" : strerror(errno));
			s->paths = (const char *const *)paths;
			s->n = n;
			report_series_close(s);
			return NULL;
		}
		xgrow(&paths, &cap, n + k, sizeof(*paths));
		for (size_t j = 0; j < k; j++) {
			/* A file of another kind beside the recordings: not one of them. */
			if (has_magic(names[j])) {
				paths[n++] = names[j];
				continue;
			}
			warning("%s is not a perfmini data file: skipped", names[j]);
			free(names[j]);
		}
		free(names);
	}
	*force_arg = force;
	*s = (struct report_series){(const char *const *)paths, n, series_read, force_arg};
	if (n < 2) {
		error("--series compares files one after the other: give -i more than once, or a "
		      "directory of several files");
		report_series_close(s);
		return NULL;
	}
	return series_read(force_arg, paths[0]);
}

void report_series_close(struct report_series *s)
{
	for (size_t i = 0; i < s->n; i++)
		free((char *)s->paths[i]);
	free((void *)s->paths);
	s->paths = NULL;
	s->n = 0;
}
