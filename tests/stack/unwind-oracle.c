/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind-oracle.c - perfmini's stepper against libunwind on captured
 * samples (unwcorpus.h): each sample unwound from the same registers and
 * the same stack bytes by unwind_sample (the tables alone: no chain) and
 * by libunwind's remote unwinder, through accessors of this file over the
 * same bytes and the same binaries (.eh_frame_hdr searched by
 * dwarf_search_unwind_table, as perf's libunwind unwinder does).
 *
 * usage: unwind-oracle [--time] [--show N] [--copy-sizes LIST] NAME=CORPUS...
 *
 * For each corpus: how many samples the two unwound to the same frames
 * (a return address counts the same one byte back), and each difference
 * with its kind (oracle-diff.c): a difference explained by what libunwind
 * cannot do (it is named there, with why) counts as such; any other
 * makes the exit status 1 and is shown, frame by frame. --time unwinds
 * every sample of every corpus twice more with each and prints the time
 * per unwind: the first time each sample is seen (fresh unwinders) and
 * again (warm caches; perfmini's memo of unwinds then answers).
 * --copy-sizes 2048,4096,... says what a smaller stack copy loses in the
 * default mode (copy_loss). ORACLE_FRESH=1 gives each sample a new
 * perfmini unwinder (no memo, no caches carried over): a difference that
 * goes away then is a cache's bug, not the stepper's.
 */
#include "config.h"

#include <errno.h>
#include <libunwind.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oracle.h"
#include "util/alloc.h"

/* Frames of one unwind by perfmini: as unwind_sample gives them. */
static void by_perfmini(struct unwinder *u, const struct oracle_ctx *o, size_t i,
			struct oracle_frames *f)
{
	unsigned char regs[UC_MAX_REGS * 8];
	struct rec_sample s;
	struct unwind_result res;

	uc_sample(o->c, i, &s, regs);
	unwind_sample(u, o->pid, &s, NULL, 0, f->ip, ORACLE_MAX_FRAMES, &res);
	f->n = res.n;
	f->end = res.end;
}

/* Frames of one unwind by libunwind: the address of each, its step's answer at the end. */
static void by_libunwind(unw_addr_space_t as, struct oracle_ctx *o, size_t i,
			 struct oracle_frames *f)
{
	unw_cursor_t cur;
	int ret = 0;

	o->sample = i;
	o->below_sp = false;
	f->n = 0;
	f->lu_ret = unw_init_remote(&cur, as, o);
	if (f->lu_ret < 0)
		return;
	do {
		unw_word_t ip;

		if (unw_get_reg(&cur, UNW_REG_IP, &ip) < 0)
			break;
		f->signal[f->n] = unw_is_signal_frame(&cur) > 0;
		f->ip[f->n++] = ip;
		ret = unw_step(&cur);
	} while (ret > 0 && f->n < ORACLE_MAX_FRAMES);
	f->lu_ret = ret;
	f->below_sp = o->below_sp;
}

static double secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Nanoseconds per unwind of every sample of o, first by fresh unwinders, then again. */
static void time_corpus(struct oracle_ctx *o, double ns[2][2])
{
	struct oracle_frames f;
	double t;

	for (int pass = 0; pass < 2; pass++) {
		struct unwinder *u = pass == 0 ? unwinder_new(o->model) : o->u;
		unw_addr_space_t as = pass == 0 ? oracle_space() : o->as;

		t = secs();
		for (size_t i = 0; i < o->c->nsamples; i++)
			by_perfmini(u, o, i, &f);
		ns[pass][0] = (secs() - t) * 1e9 / (double)o->c->nsamples;
		t = secs();
		for (size_t i = 0; i < o->c->nsamples; i++)
			by_libunwind(as, o, i, &f);
		ns[pass][1] = (secs() - t) * 1e9 / (double)o->c->nsamples;
		if (pass == 0) {
			unwinder_free(u);
			unw_destroy_addr_space(as);
		}
	}
}

/*
 * Frames of sample i by perfmini's default mode: the chain too, a copy of
 * at most copy bytes. Returns the bytes of copy the unwind read or wanted.
 */
static uint64_t by_hybrid(struct unwinder *u, const struct oracle_ctx *o, size_t i, uint64_t copy,
			  struct oracle_frames *f)
{
	unsigned char regs[UC_MAX_REGS * 8];
	const struct uc_sample *us = &o->c->samples[i];
	struct rec_sample s;
	struct unwind_result res;

	uc_sample(o->c, i, &s, regs);
	if (s.stack_dyn_size > copy)
		s.stack_size = s.stack_dyn_size = copy;
	unwind_sample(u, o->pid, &s, (const unsigned char *)us->chain, us->nchain, f->ip,
		      ORACLE_MAX_FRAMES, &res);
	f->n = res.n;
	return res.copy_needed;
}

/*
 * What a smaller stack copy loses in the default mode: each sample
 * unwound with its chain from the whole copy captured, then from its
 * first bytes only, copy size by copy size; how many come out the same,
 * how many with frames left out (a prefix of the whole copy's frames
 * before the chain's, some skipped: the chain's blind spots), how many
 * otherwise.
 */
static void copy_loss(struct oracle_ctx *o, const char *sizes)
{
	struct oracle_frames full, cut;
	char *list = xstrdup(sizes), *save = NULL;

	for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t copy = strtoull(tok, NULL, 0);
		size_t same = 0, shorter = 0, other = 0, beyond = 0;
		struct unwinder *u = unwinder_new(o->model), *w = unwinder_new(o->model);

		for (size_t i = 0; i < o->c->nsamples; i++) {
			int k = 0;

			beyond += by_hybrid(u, o, i, UC_MAX_STACK, &full) > copy;
			by_hybrid(w, o, i, copy, &cut);
			while (k < full.n && k < cut.n && full.ip[k] == cut.ip[k])
				k++;
			if (k == full.n && k == cut.n)
				same++;
			else if (cut.n < full.n)
				shorter++;
			else
				other++;
		}
		printf("%s: copy of %llu bytes: %zu of %zu stacks the same as with the whole copy "
		       "(%zu unwinds read further); %zu with fewer frames, %zu others\n",
		       o->name, (unsigned long long)copy, same, o->c->nsamples, beyond, shorter,
		       other);
		unwinder_free(u);
		unwinder_free(w);
	}
	free(list);
}

/* Compares the two on every sample of corpus path; returns the unexplained differences. */
static size_t run_corpus(const char *name, const char *path, bool timed, int show,
			 const char *sizes, double total[2][2], size_t *nall)
{
	struct oracle_ctx o = {.name = name};
	struct oracle_counts k = {0};
	struct module_set mods;
	struct model model;
	struct uc_corpus c;
	int ret = uc_load(path, &c);

	if (ret < 0) {
		fprintf(stderr, "unwind-oracle: %s: %s\n", path, strerror(-ret));
		exit(1);
	}
	module_set_init(&mods);
	model_init(&model, &mods, false);
	o.c = &c;
	o.model = &model;
	o.pid = uc_model(&c, &model);
	oracle_images(&o);
	o.u = unwinder_new(&model);
	o.as = oracle_space();
	for (size_t i = 0; i < c.nsamples; i++) {
		struct oracle_frames p = {0}, l = {0};

		if (getenv("ORACLE_FRESH")) {
			unwinder_free(o.u);
			o.u = unwinder_new(&model);
		}
		by_perfmini(o.u, &o, i, &p);
		by_libunwind(o.as, &o, i, &l);
		oracle_judge(&o, i, &p, &l, &k, show);
	}
	oracle_print(&o, &k);
	if (sizes)
		copy_loss(&o, sizes);
	if (timed) {
		double ns[2][2];

		time_corpus(&o, ns);
		printf("%s: time per unwind: perfmini %.0f ns, libunwind %.0f ns the first time; "
		       "perfmini %.0f ns, libunwind %.0f ns again\n",
		       name, ns[0][0], ns[0][1], ns[1][0], ns[1][1]);
		for (int a = 0; a < 2; a++)
			for (int b = 0; b < 2; b++)
				total[a][b] += ns[a][b] * (double)c.nsamples;
		*nall += c.nsamples;
	}
	unw_destroy_addr_space(o.as);
	unwinder_free(o.u);
	oracle_images_free(&o);
	model_release(&model);
	module_set_release(&mods);
	uc_free(&c);
	return k.unexplained;
}

int main(int argc, char **argv)
{
	double total[2][2] = {{0}};
	size_t bad = 0, nall = 0;
	bool timed = false;
	int show = 5, i = 1;
	const char *sizes = NULL;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--time"))
			timed = true;
		else if (!strcmp(argv[i], "--show") && i + 1 < argc)
			show = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--copy-sizes") && i + 1 < argc)
			sizes = argv[++i];
		else
			break;
	}
	if (i == argc) {
		fprintf(stderr, "usage: unwind-oracle [--time] [--show N] [--copy-sizes LIST] "
				"NAME=CORPUS...\n");
		return 2;
	}
	for (; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq) {
			fprintf(stderr, "unwind-oracle: not NAME=CORPUS: %s\n", argv[i]);
			return 2;
		}
		*eq = '\0';
		bad += run_corpus(argv[i], eq + 1, timed, show, sizes, total, &nall);
	}
	if (timed && nall)
		printf("all: time per unwind over %zu samples: perfmini %.0f ns, libunwind %.0f ns "
		       "the first time; perfmini %.0f ns, libunwind %.0f ns again\n",
		       nall, total[0][0] / (double)nall, total[0][1] / (double)nall,
		       total[1][0] / (double)nall, total[1][1] / (double)nall);
	return bad ? 1 : 0;
}
