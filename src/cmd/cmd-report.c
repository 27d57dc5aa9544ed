/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd-report.c - "perfmini report": read a data file, print it in one of
 * the formats of the table below, to standard output or to a file that
 * appears complete or not at all (written under a temporary name, then
 * renamed).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/report-code.h"
#include "cmd/report-inputs.h"
#include "cmd/report-int.h"
#include "cmd/report-late.h"
#include "report/aggregate.h"
#include "report/report.h"
#include "store/datafile.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/msg.h"
#include "util/outfile.h"

/*
 * Runs f into path (outfile.h: a regular file replaced whole, a device,
 * FIFO or standard stream written directly); "-" is standard output.
 */
static int write_output(const struct report_format *f, const struct profile *p,
			const struct report_opts *o, const char *path)
{
	struct outfile file;
	const char *why;
	struct stat st;
	mode_t mask;
	FILE *out;
	int fd, ret;

	/* A report is an ordinary file: the umask's mode, not 0600. */
	mask = umask(0);
	umask(mask);
	ret = outfile_open(&file, path, 0666 & ~mask, 0, &why);
	if (ret < 0) {
		error("cannot create '%s': %s", path, why ? why : strerror(-ret));
		return ret;
	}
	if (f->binary && isatty(file.fd)) {
		error("not writing the %s format to a terminal: give -o FILE, or redirect",
		      f->name);
		outfile_abandon(&file);
		return -ENOTTY;
	}
	fd = dup(file.fd);
	out = fd < 0 ? NULL : fdopen(fd, "w");
	if (!out) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		error("cannot write '%s': %s", path, strerror(-ret));
		outfile_abandon(&file);
		return ret;
	}
	ret = report_write(f, p, o, out);
	/* The flush's errno says more than a format's -EIO (EFBIG, ENOSPC). */
	if (fflush(out) != 0 && ret != -ECANCELED)
		ret = -errno;
	if (fclose(out) != 0 && ret == 0)
		ret = -errno;
	if (ret < 0) {
		/* -ECANCELED: the format said why it stopped (a file --series could not read). */
		if (ret != -ECANCELED)
			error("cannot write '%s': %s", path, strerror(-ret));
		outfile_abandon(&file);
		return ret;
	}
	if (outfile_is_stream(&file)) {
		outfile_abandon(&file); /* nothing to rename: closes it */
		return 0;
	}
	ret = outfile_commit(&file);
	if (ret < 0) {
		error("cannot write '%s': %s", path, strerror(-ret));
		return ret;
	}
	if (stat(path, &st) == 0)
		fprintf(stderr, "%s: wrote %s (%lld KiB)\n", progname, path,
			(long long)(st.st_size + 1023) / 1024);
	return 0;
}

/* A usage error of the command's (cmd_usage_error); c the struct report_cmd at hand. */
#define usage_error(...) cmd_usage_error(c->name, __VA_ARGS__)

/*
 * --sort against the format and the other options; its thread keys make
 * the root frames (the finest of them). 0 or the usage error's status.
 */
static int check_sort(struct report_cmd *c)
{
	struct report_opts *o = &c->o;
	unsigned threads = o->row_keys & REPORT_ROW_THREAD;
	unsigned roots = o->row_keys & (REPORT_ROW_THREAD | REPORT_ROW_CGROUP);

	if (!c->sort_given)
		return 0;
	if (c->f->write == fmt_folded && (!roots || o->row_keys != roots))
		return usage_error(
			"--sort with --folded takes comm, pid, tid or cgroup (the root frame)");
	if (threads && (o->row_keys & REPORT_ROW_CGROUP))
		return usage_error("--sort: cgroup and comm, pid or tid cannot be combined");
	threads = roots;
	if (c->f->write != fmt_top && c->f->write != fmt_folded && c->f->write != fmt_tree)
		return usage_error("--sort applies to --top, --tree and --folded, not --%s",
				   c->f->name);
	if (threads && (c->per_pid || c->per_tid))
		return usage_error("--sort's comm, pid, tid and cgroup and --per-%s: give one",
				   c->per_pid ? "pid" : "tid");
	if (threads && o->base_input)
		return usage_error("--sort's comm, pid, tid and cgroup do not apply to --diff "
				   "(--diff-key=thread keeps threads apart)");
	if (threads & REPORT_ROW_CGROUP)
		o->root = REPORT_ROOT_CGROUP;
	else if (threads & REPORT_ROW_TID)
		o->root = REPORT_ROOT_TID;
	else if (threads & REPORT_ROW_PID)
		o->root = REPORT_ROOT_PID;
	return 0;
}

/* --wakers: its formats, the off-CPU time; 0 or the usage error's status. */
static int check_wakers(struct report_cmd *c)
{
	if (!c->wakers)
		return 0;
	if (c->f->write != fmt_top && c->f->write != fmt_folded)
		return usage_error("--wakers applies to --top and --folded, not --%s", c->f->name);
	if (c->type_given || c->o.base_input || c->sort_given)
		return usage_error("--wakers weighs sleeping time: %s does not apply",
				   c->type_given   ? "--sample-type"
				   : c->sort_given ? "--sort"
						   : "--diff");
	/* With --latency: the latency, shared among the threads asleep meanwhile. */
	if (!c->latency)
		c->o.sample_type = REPORT_OFF_CPU;
	return 0;
}

/*
 * --series, --diff-key, --diff-level and --diff-significant against the
 * format and the view: the noise bars compare sample counts. 0 or the
 * usage error's status.
 */
static int check_noise(struct report_cmd *c)
{
	struct report_opts *o = &c->o;
	bool series = c->f->write == fmt_series;

	if (series && (o->base_input || o->merge_inline))
		return usage_error("--series compares each file with the one before: --%s does "
				   "not apply",
				   o->base_input ? "diff" : "merge-inline");
	if ((o->diff_key || c->level_given || o->diff_significant) && !o->base_input && !series)
		return usage_error("--%s applies to --diff and --series",
				   o->diff_key	    ? "diff-key"
				   : c->level_given ? "diff-level"
						    : "diff-significant");
	o->diff_level = c->level_given ? c->level / 100 : 0;
	if ((c->level_given || o->diff_significant || series) && o->sample_type != REPORT_CPU)
		return usage_error("--%s compares sample counts: %s weighs time, which has no "
				   "noise bars",
				   series	    ? "series"
				   : c->level_given ? "diff-level"
						    : "diff-significant",
				   report_view_option(o->sample_type));
	return 0;
}

/* What the options together say against each other; 0 or the usage error's status. */
static int check_options(struct report_cmd *c)
{
	struct report_opts *o = &c->o;
	int ret;

	if (o->no_kernel && o->kernel_only)
		return usage_error("%s and --kernel-only exclude each other", "--no-kernel");
	if (c->per_pid && c->per_tid)
		return usage_error("%s and --per-tid exclude each other", "--per-pid");
	if (!c->f)
		c->f = report_format_find(strcmp(c->name, "report") ? c->name
					  : c->tree_opt		    ? "tree"
								    : "top");
	if (c->latency && c->type_given)
		return usage_error("--latency and --sample-type exclude each other");
	if (c->latency)
		o->sample_type = REPORT_LATENCY;
	if ((ret = check_noise(c)) != 0)
		return ret;
	/* Two recordings' ids differ: their roots would never match. */
	if ((o->base_input || c->f->write == fmt_series) && (c->per_pid || c->per_tid))
		return usage_error(
			"--%s does not apply to --diff and --series (--diff-key=thread matches "
			"threads by name)",
			c->per_pid ? "per-pid" : "per-tid");
	o->root = c->per_pid ? REPORT_ROOT_PID : c->per_tid ? REPORT_ROOT_TID : REPORT_ROOT_COMM;
	if (c->tree_opt && c->f->write != fmt_tree)
		return usage_error("--%s applies to --tree, not --%s", c->tree_opt, c->f->name);
	/* As perf: --children orders by Children, unless --sort says self. */
	if (c->f->write == fmt_tree && !o->tree_self && !(c->sort_given && !o->row_keys))
		o->sort = REPORT_SORT_TOTAL;
	if ((ret = check_sort(c)) != 0)
		return ret;
	if ((ret = check_wakers(c)) != 0)
		return ret;
	if ((c->since_given || c->until_given) && c->time_given)
		return usage_error("--time and --since or --until exclude each other");
	if (c->rows_given && c->f->write != fmt_top && c->f->write != fmt_annotate &&
	    c->f->write != fmt_tree)
		return usage_error("-n applies to --top, --tree and --annotate, not --%s",
				   c->f->name);
	if ((c->asm_view || c->source_given) && c->f->write != fmt_annotate)
		return usage_error("--%s applies to --annotate",
				   c->asm_view ? "asm" : "source-dir");
	o->own_sources = !c->force;
	if (o->base_input && !c->f->diff)
		return usage_error("--diff applies to --top, --tree, --folded, --svg and --pprof, "
				   "not --%s",
				   c->f->name);
	if (!c->output)
		c->output = c->f->default_output;
	return 0;
}

/*
 * --annotate: the function named must have samples (else one line, 1);
 * --asm gets its disassembler in code. 0 otherwise.
 */
static int annotate_ready(struct report_cmd *c, const struct profile *p, struct report_code *code)
{
	struct sbuf why = SBUF_INIT;

	if (c->f->write != fmt_annotate)
		return 0;
	if (report_annotate_check(p, &c->o, &why) < 0) {
		error("%s", why.buf);
		sbuf_release(&why);
		return 1;
	}
	if (c->asm_view) {
		report_code_init(code);
		c->o.code = &code->code;
	}
	return 0;
}

/*
 * --wakers: the file must have wake-ups (else one line, 1), but with
 * --latency (a blocked span without one sleeps throughout); wf gets the
 * format that shows them. 0 otherwise.
 */
static int wakers_ready(const struct report_cmd *c, const struct profile *p,
			struct report_format *wf)
{
	const char *v = profile_get_meta(p, "wake-ups");

	if (!c->latency && (!v || strcmp(v, "yes"))) {
		error("%s has no wake-ups: record with --off-cpu, where the kernel lets the "
		      "sched_waking tracepoint be sampled (record says when it does not)",
		      c->o.input);
		return 1;
	}
	*wf = *c->f;
	if (c->latency)
		wf->write = c->f->write == fmt_top ? fmt_waiting_top : fmt_waiting_folded;
	else
		wf->write = c->f->write == fmt_top ? fmt_wakers_top : fmt_wakers_folded;
	wf->aggregated = false; /* the wakers' formats group the spans themselves */
	return 0;
}

/*
 * What the recordings read say against the options, before any output:
 * 0, or the exit status after one line.
 */
static int check_recordings(struct report_cmd *c, const struct profile *p)
{
	struct report_opts *o = &c->o;
	const char *lines_meta;
	int ret;

	ret = report_check_view(p, o->input, &o->sample_type, c->type_given || c->latency,
				o->offcpu_state != REPORT_STATE_ANY, c->f->write == fmt_annotate);
	if (ret != 0)
		return ret;
	if (aggregate_place_window(o, p) < 0) {
		error("%s has no start time: --since and --until cannot be placed in it", o->input);
		return 1;
	}
	if ((o->diff_significant || o->series) && o->sample_type != REPORT_CPU) {
		error("%s has no CPU samples: --%s compares sample counts", o->input,
		      o->series ? "series" : "diff-significant");
		return 1;
	}
	if (o->sample_type != REPORT_CPU && o->base &&
	    !report_off_cpu_recorded(o->base, o->base_input))
		return 1;
	if ((o->ncgroups || (o->row_keys & REPORT_ROW_CGROUP)) && !profile_get_meta(p, "cgroups")) {
		error("%s was recorded without cgroups (by an older perfmini): --%s does not apply",
		      o->input, o->ncgroups ? "cgroup" : "sort=cgroup");
		return 1;
	}
	if (report_has_spans(o->sample_type) && !report_off_cpu_recorded(p, NULL))
		warning("%s was recorded without --off-cpu: it has no off-CPU time to show",
			o->input);
	lines_meta = profile_get_meta(p, "lines");
	if (o->names.lines && lines_meta && strcmp(lines_meta, "no") == 0)
		warning("%s was recorded with --no-lines: it has no source lines to show",
			o->input);
	return 0;
}

/* Whether every --debug-dir is a directory (else one line). */
static bool debug_dirs_ok(const struct report_cmd *c)
{
	struct stat st;

	for (size_t i = 0; i < c->ndebug_dirs; i++) {
		if (stat(c->debug_dirs[i], &st) < 0) {
			error("bad --debug-dir '%s': %s", c->debug_dirs[i], strerror(errno));
			return false;
		}
		if (!S_ISDIR(st.st_mode)) {
			error("bad --debug-dir '%s': not a directory", c->debug_dirs[i]);
			return false;
		}
	}
	return true;
}

/* The frames of p (NULL: none) left without a name or a line, named now where they can be. */
static void name_late(const struct report_cmd *c, struct profile *p)
{
	if (p)
		report_name_late(p, c->debug_dirs, c->ndebug_dirs);
}

/* Reads the data files and writes the report: the exit status. */
static int report(struct report_cmd *c)
{
	struct report_opts *o = &c->o;
	struct profile *p, *base = NULL;
	struct report_code code;
	struct report_format wf;
	int ret = 1;

	if (!debug_dirs_ok(c))
		return 1;

	if (c->f->write == fmt_series) {
		o->series = &c->series;
		p = report_series_open(c->inputs, c->ninputs, o->input, c->force, &c->series,
				       &c->series_force);
	} else {
		p = report_read_inputs(c->inputs, c->ninputs, o->input, c->force, o->sample_type);
	}
	if (!p)
		return 1;
	if (o->base_input && !(base = report_read_one(o->base_input, c->force, o->sample_type)))
		goto out;
	o->base = base;
	name_late(c, p);
	name_late(c, base);
	if ((ret = check_recordings(c, p)) != 0)
		goto out;
	aggregate_prepare(o, p);
	ret = annotate_ready(c, p, &code);
	if (ret == 0 && c->wakers)
		ret = wakers_ready(c, p, &wf);
	if (ret == 0)
		ret = write_output(c->wakers ? &wf : c->f, p, o, c->output ? c->output : "-") < 0
			      ? 1
			      : 0;
	if (o->code)
		report_code_release(&code);
out:
	if (FREE_AT_EXIT) {
		profile_free(p);
		profile_free(base);
	}
	return ret;
}

/*
 * Runs the command of spec (report, script or annotate) on argv; the
 * annotate command's operand is the function (else none may be given).
 */
static int run(const struct cmd_spec *spec, int argc, char **argv)
{
	struct report_cmd c = {.name = spec->name,
			       .o = {.input = "perfmini.data", .rows = -1, .tree_threshold = 0.5}};
	struct report_cmd *cp = &c; /* for usage_error */
	int first, ret;

	ret = cmd_parse(spec, argc, argv, &c, &first);
	if (c.ninputs)
		c.o.input = c.inputs[0];
	if (ret >= 0)
		goto out;
	if (spec->cmd == REPORT_CMD_ANNOTATE && first < argc) {
		if (c.o.annotate || !*argv[first]) {
			ret = cmd_usage_error(spec->name,
					      c.o.annotate ? "-s and a FUNCTION: give one"
							   : "the FUNCTION to annotate is empty");
			goto out;
		}
		c.o.annotate = argv[first++];
	}
	if (first < argc)
		ret = cmd_usage_error(spec->name, "unexpected argument '%s'", argv[first]);
	else if ((ret = check_options(cp)) == 0)
		ret = report(&c);
out:
	report_series_close(&c.series);
	free(c.inputs);
	free(c.debug_dirs);
	aggregate_opts_release(&c.o);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	return run(&report_spec, argc, argv);
}

int cmd_script(int argc, char **argv)
{
	return run(&script_spec, argc, argv);
}

int cmd_annotate(int argc, char **argv)
{
	return run(&annotate_spec, argc, argv);
}
