/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hostile-gen.c - writes data files that are well-formed, pass every
 * check of the reader's format, and are built to make a report cost far
 * more than their size: what a file from someone else can be. For
 * tests/hostile/run-safe-bomb.sh.
 *
 * usage: hostile-gen KIND OUTPUT
 *   deep   one chain of 1,000,000 frames (4 MB), and 5,000 samples, each
 *          with a stack of its own that is all of it (stacks may share
 *          the frame list): aggregating them touches 5 billion frames
 *   lines  100,000 lines, and 5,000 frames that each claim all of them as
 *          their inline chain, in one stack of 5,000 frames: naming the
 *          stack writes 500 million names
 *   tall   150 stacks of 1,024 frames each (the deepest the reader
 *          takes), every frame distinct: a flame graph of 150,000
 *          boxes, most too narrow to draw
 *   wide   50,000 stacks under one root, each ending in a leaf of its own
 *          with a name of 100 characters: one node with 50,000 children
 * perfmini itself never writes a stack deeper than PERF_MAX_STACK_DEPTH
 * plus a few, nor an inline chain longer than SRCLINE_MAX_DEPTH (64);
 * the reader refuses stacks or frames that share entries (deep, lines),
 * and must report tall and wide files in time linear in their size.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/datafile.h"
#include "store/profile.h"
#include "util/alloc.h"

static void add_sample(struct profile *p, uint32_t stack, uint32_t comm)
{
	struct pm_sample s;

	memset(&s, 0, sizeof(s));
	s.stack = stack;
	s.comm = comm;
	s.period = 1000000;
	s.pid = s.tid = 4242;
	s.time = (uint64_t)p->nsamples * 1000000;
	profile_add_sample(p, &s);
}

/* Gives frame f, if it has none yet, one line naming it. */
static void named(struct profile *p, uint32_t f, const char *name)
{
	struct pm_line l;

	if (p->frames[f].nlines)
		return;
	memset(&l, 0, sizeof(l));
	l.func = strtab_add(&p->str, name);
	profile_add_line(p, f, &l);
}

int main(int argc, char **argv)
{
	struct profile *p;
	char err[512];
	uint32_t comm, mod;
	int ret;

	if (argc != 3 || (strcmp(argv[1], "deep") && strcmp(argv[1], "lines") &&
			  strcmp(argv[1], "tall") && strcmp(argv[1], "wide"))) {
		fprintf(stderr, "usage: hostile-gen deep|lines|tall|wide OUTPUT\n");
		return 2;
	}
	p = profile_new();
	comm = strtab_add(&p->str, "hostile");
	mod = profile_add_module(p, "/usr/bin/hostile", "", 0);
	if (!strcmp(argv[1], "deep")) {
		const size_t depth = 1000000, nsamples = 5000;
		uint32_t f[2];

		f[0] = profile_intern_frame(p, mod, 0, 0x1000);
		f[1] = profile_intern_frame(p, mod, 0, 0x2000);
		p->stack_frames = xcalloc(depth, sizeof(*p->stack_frames));
		for (size_t i = 0; i < depth; i++)
			p->stack_frames[i] = f[i & 1];
		p->nstack_frames = p->stack_frames_cap = depth;
		/* A stack per sample, each nearly the whole list. */
		p->stacks = xcalloc(nsamples, sizeof(*p->stacks));
		for (size_t i = 0; i < nsamples; i++) {
			p->stacks[i] = (struct pm_stack){(uint32_t)(i & 1), (uint32_t)depth - 1};
			add_sample(p, (uint32_t)i, comm);
		}
		p->nstacks = p->stacks_cap = nsamples;
	} else if (!strcmp(argv[1], "tall")) {
		enum { DEPTH = 1024, NSTACKS = 150 };
		uint32_t *st = xcalloc(DEPTH, sizeof(*st));
		char name[32];

		for (uint32_t i = 0; i < NSTACKS; i++) {
			for (uint32_t d = 0; d < DEPTH; d++) {
				uint64_t addr = 0x100000 + (uint64_t)i * DEPTH + d;

				st[d] = profile_intern_frame(p, mod, 0, addr);
				snprintf(name, sizeof(name), "f%u_%u", i, d);
				named(p, st[d], name);
			}
			add_sample(p, profile_intern_stack(p, st, DEPTH), comm);
		}
		free(st);
	} else if (!strcmp(argv[1], "wide")) {
		enum { NSTACKS = 50000 };
		uint32_t st[2];
		char name[256];

		st[1] = profile_intern_frame(p, mod, 0, 0x1000);
		named(p, st[1], "root");
		for (uint32_t i = 0; i < NSTACKS; i++) {
			st[0] = profile_intern_frame(p, mod, 0, 0x100000 + (uint64_t)i);
			snprintf(name, sizeof(name), "leaf_%095u", i);
			named(p, st[0], name);
			add_sample(p, profile_intern_stack(p, st, 2), comm);
		}
	} else {
		const size_t nlines = 100000, nframes = 5000;
		uint32_t *frames = xcalloc(nframes, sizeof(*frames));
		uint32_t func = strtab_add(&p->str, "inlined_function_with_a_long_name");
		uint32_t file = strtab_add(&p->str, "hostile.c");

		p->lines = xcalloc(nlines, sizeof(*p->lines));
		for (size_t i = 0; i < nlines; i++) {
			p->lines[i].func = func;
			p->lines[i].file = file;
			p->lines[i].line = (uint32_t)i + 1;
			p->lines[i].flags = i ? PM_LINE_INLINED : 0;
		}
		p->nlines = p->lines_cap = nlines;
		for (size_t i = 0; i < nframes; i++) {
			frames[i] = profile_intern_frame(p, mod, 0, 0x1000 + i);
			p->frames[frames[i]].line0 = 0;
			p->frames[frames[i]].nlines = (uint32_t)nlines;
		}
		add_sample(p, profile_intern_stack(p, frames, (uint32_t)nframes), comm);
		free(frames);
	}
	ret = datafile_write(p, argv[2], NULL, err, sizeof(err)) < 0 ? 1 : 0;
	if (ret)
		fprintf(stderr, "%s: %s\n", argv[0], err);
	profile_free(p);
	return ret;
}
