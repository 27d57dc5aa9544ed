/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-unwind.c - libFuzzer harness for the unwinder (unwind_sample) on
 * corpora of the unwinding oracle (tests/stack/unwcorpus.h): samples of
 * real programs, their registers, stack copies and callchains mutated.
 *
 * Contract checked: a corpus that reads is unwound, each of its first 16
 * samples twice (with its chain, the hybrid mode's splice; without it,
 * DWARF mode's walk), through one unwinder whose memo and caches carry
 * over from sample to sample, against the corpus's mappings (their files
 * opened only where path, device and inode still name the same file):
 * every answer is in range (frames at most as many as asked, an end, a
 * how and a judgement among theirs), and nothing is read outside the
 * bytes given (the sanitizers tell). Seeds are made at fuzz time
 * (gen-seeds.sh: fuzz/unwind-capture on programs of this machine).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "model/module.h"
#include "model/proc.h"
#include "stack/unwind.h"
#include "unwcorpus.h"

#define MAX_FRAMES 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct unwind_result *r)
{
	if (r->n < 0 || r->n > MAX_FRAMES || r->end < 0 || r->end >= UNWIND_END_COUNT ||
	    r->how < 0 || r->how >= UNWIND_HOW_COUNT || r->judge < 0 ||
	    r->judge >= UNWIND_JUDGE_COUNT)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uc_corpus c;
	struct module_set mods;
	struct model model;
	struct unwinder *u;
	uint32_t pid;

	if (uc_read(data, size, &c) < 0)
		return 0;
	module_set_init(&mods);
	model_init(&model, &mods, false);
	pid = uc_model(&c, &model);
	u = unwinder_new(&model);
	for (size_t i = 0; i < c.nsamples && i < 16; i++) {
		unsigned char regs[UC_MAX_REGS * 8];
		struct rec_sample s;
		struct unwind_result r;
		uint64_t ips[MAX_FRAMES];

		uc_sample(&c, i, &s, regs);
		unwind_sample(u, pid, &s, (const unsigned char *)c.samples[i].chain,
			      c.samples[i].nchain, ips, MAX_FRAMES, &r);
		check(&r);
		unwind_sample(u, pid, &s, NULL, 0, ips, MAX_FRAMES, &r);
		check(&r);
	}
	unwinder_free(u);
	model_release(&model);
	module_set_release(&mods);
	uc_free(&c);
	return 0;
}
