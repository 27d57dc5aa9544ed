/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oracle-diff.c - how perfmini's and libunwind's unwinds of one sample
 * compare. The same frames where both agree on every address (libunwind
 * gives a caller's return address, perfmini the byte before it). A
 * difference is explained only by what libunwind is known not to do,
 * each named here with why:
 *
 * - it finds a procedure's rules only through .eh_frame_hdr, and in
 *   code without them it walks frame pointers: Go's code has
 *   .debug_frame and .gopclntab, no .eh_frame, so there libunwind skips
 *   the caller of every function without a frame record (runtime.memmove
 *   called from runtime.gostring: it gives goenvs_unix) and stops where
 *   the records end (runtime.mstart, not runtime.clone); its frames must
 *   then be perfmini's with some left out;
 * - it reads a register from its slot even where the slot lies below
 *   the stack pointer (an epilogue popped it: libgcc's
 *   _Unwind_RaiseException's callees, where gcc's rules still say the
 *   slot after the pop), and the copy starts at the stack pointer: it
 *   stops there, where the register holds the value popped (perfmini's
 *   steps keep it, cfi.c);
 * - it does not check that a return address is code: where it reads one
 *   in no mapping (libgcc's _Unwind_RaiseException jumping to a landing
 *   pad: libunwind looks the landing pad up a byte back, in the code
 *   before it, and reads garbage as its caller), its frame is wrong;
 *
 * - where neither has tables for a frame (JIT code, V8's builtins in
 *   node), each guesses its caller: perfmini by the frame pointer (as
 *   frame pointers alone would: V8's code keeps them), libunwind by its
 *   own heuristics; under a JIT function sampled before it set up its
 *   frame (node's sort comparator called by Builtins_SortCompareUserFn)
 *   perfmini skips the caller and libunwind another frame;
 *
 * any other difference is a perfmini bug until shown otherwise: it is
 * counted as unexplained, shown, and fails the run.
 */
#include "config.h"

#include <libunwind.h>
#include <stdio.h>
#include <string.h>

#include "oracle.h"

static const char *const kind_text[ORACLE_KINDS] = {
	[ORACLE_SAME] = "the same frames",
	[ORACLE_LU_NO_TABLE] = "libunwind walked frame pointers where there is no .eh_frame (Go)",
	[ORACLE_LU_GARBAGE] = "libunwind gave a frame in no mapping",
	[ORACLE_LU_BELOW_SP] = "libunwind stopped for a word below the stack pointer",
	[ORACLE_GUESSES] = "no tables for a frame: each guessed its caller",
	[ORACLE_LU_SHORT] = "libunwind stopped short (unexplained)",
	[ORACLE_PM_SHORT] = "perfmini stopped short (unexplained)",
	[ORACLE_DIVERGED] = "the frames differ (unexplained)",
};

static bool unexplained(enum oracle_kind k)
{
	return k == ORACLE_LU_SHORT || k == ORACLE_PM_SHORT || k == ORACLE_DIVERGED;
}

/* Whether libunwind's frame address l is perfmini's p (or the return address p is a byte into). */
static bool same_frame(uint64_t l, uint64_t p)
{
	return l == p || l == p + 1;
}

/* Whether libunwind's frames from k on are perfmini's from k on, some left out. */
static bool left_out_only(const struct oracle_frames *p, const struct oracle_frames *l, int k)
{
	int j = k;

	for (int i = k; i < l->n; i++) {
		while (j < p->n && !same_frame(l->ip[i], p->ip[j]))
			j++;
		if (j++ == p->n)
			return false;
	}
	return true;
}

/* How sample's unwinds compare. */
static enum oracle_kind kind_of(const struct oracle_ctx *o, const struct oracle_frames *p,
				const struct oracle_frames *l)
{
	int k = 0;
	const struct oracle_image *img;

	while (k < p->n && k < l->n && same_frame(l->ip[k], p->ip[k]))
		k++;
	if (k == p->n && k == l->n)
		return ORACLE_SAME;
	if (k < l->n && !model_find(o->model, o->pid, l->ip[k]))
		return ORACLE_LU_GARBAGE;
	/* libunwind's step from frame k - 1: through its tables, or frame pointers? */
	img = k > 0 ? oracle_image_at(o, l->ip[k - 1] - (k > 1)) : NULL;
	if (img && !img->hdr && left_out_only(p, l, k))
		return ORACLE_LU_NO_TABLE;
	/* Frame k - 1 in code without tables (looked up a byte back but the sampled one). */
	if (k > 0 && !oracle_has_row(o, p->ip[k - 1]))
		return ORACLE_GUESSES;
	if (k == l->n)
		return l->below_sp ? ORACLE_LU_BELOW_SP : ORACLE_LU_SHORT;
	if (k == p->n)
		return ORACLE_PM_SHORT;
	return ORACLE_DIVERGED;
}

/* Where address a is: module and offset in its mapping. */
static void where(const struct oracle_ctx *o, uint64_t a, char *buf, size_t len)
{
	const struct oracle_image *img = oracle_image_at(o, a);
	const char *path = img ? img->mod->path : NULL, *base = path ? strrchr(path, '/') : NULL;

	if (img)
		snprintf(buf, len, "%s+%#llx", base ? base + 1 : path,
			 (unsigned long long)(a - img->bias));
	else
		snprintf(buf, len, "%#llx", (unsigned long long)a);
}

static void show_frames(const struct oracle_ctx *o, const struct oracle_frames *p,
			const struct oracle_frames *l)
{
	int n = p->n > l->n ? p->n : l->n;

	printf("    %-4s %-44s %s\n", "#", "perfmini", "libunwind");
	for (int i = 0; i < n && i < 40; i++) {
		char a[128] = "", b[128] = "";

		if (i < p->n)
			where(o, p->ip[i] + (i > 0), a, sizeof(a));
		if (i < l->n)
			where(o, l->ip[i], b, sizeof(b));
		printf("    %-4d %-44s %s%s%s\n", i, a, b,
		       i < l->n && l->signal[i] ? " (signal)" : "",
		       i < p->n && i < l->n && !same_frame(l->ip[i], p->ip[i]) ? "   <--" : "");
	}
	printf("    perfmini ended: %s; libunwind's last step: %d\n", unwind_end_text(p->end),
	       l->lu_ret);
}

void oracle_judge(const struct oracle_ctx *o, size_t i, const struct oracle_frames *p,
		  const struct oracle_frames *l, struct oracle_counts *k, int show)
{
	enum oracle_kind kind = kind_of(o, p, l);

	k->n[kind]++;
	if (!unexplained(kind))
		return;
	if (k->unexplained++ < (size_t)show) {
		printf("%s: sample %zu: %s\n", o->name, i, kind_text[kind]);
		show_frames(o, p, l);
	}
}

void oracle_print(const struct oracle_ctx *o, const struct oracle_counts *k)
{
	size_t total = 0;

	for (int i = 0; i < ORACLE_KINDS; i++)
		total += k->n[i];
	printf("%s: %zu samples: %zu the same frames", o->name, total, k->n[ORACLE_SAME]);
	for (int i = 1; i < ORACLE_KINDS; i++)
		if (k->n[i])
			printf("; %zu %s", k->n[i], kind_text[i]);
	printf("\n");
}
