/*
 * hostile-gen.c - writes data files that are well-formed, pass every
 * check of the reader's format, and are built to make a report cost far
 * more than their size: what a file from someone else can be. For
 * tests/run-safe-bomb.sh.
 *
 * usage: hostile-gen KIND OUTPUT
 *   deep   one chain of 1,000,000 frames (4 MB), and 5,000 samples, each
 *          with a stack of its own that is all of it (stacks may share
 *          the frame list): aggregating them touches 5 billion frames
 *   lines  100,000 lines, and 5,000 frames that each claim all of them as
 *          their inline chain, in one stack of 5,000 frames: naming the
 *          stack writes 500 million names
 * perfmini itself never writes a stack deeper than PERF_MAX_STACK_DEPTH
 * plus a few, nor an inline chain longer than SRCLINE_MAX_DEPTH (64).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/datafile.h"
#include "store/profile.h"
#include "util/util.h"

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

int main(int argc, char **argv)
{
	struct profile *p;
	uint32_t comm, mod;
	int ret;

	if (argc != 3 || (strcmp(argv[1], "deep") && strcmp(argv[1], "lines"))) {
		fprintf(stderr, "usage: hostile-gen deep|lines OUTPUT\n");
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
	ret = datafile_write(p, argv[2], NULL) < 0 ? 1 : 0;
	profile_free(p);
	return ret;
}
