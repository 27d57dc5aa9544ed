/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inline-calls.h - the calls a compiler inlined, for --merge-inline: the
 * pairs (callee, caller) of function names where a frame of either
 * recording has a level of callee inlined into a level of caller. An
 * out-of-line call of such a pair, in either recording, then counts as
 * its caller, as the inlined copies do: a build that calls a function
 * and one that inlines it compare as one function, its caller.
 *
 * Invariant: names are compared as text, the recordings' string tables
 * being their own; frames without a name never pair.
 */
#ifndef PERFMINI_INLINE_CALLS_H
#define PERFMINI_INLINE_CALLS_H

#include <stdbool.h>
#include <stdint.h>

#include "store/profile.h"

struct inline_calls;

/* The inlined calls of p and of base (NULL: p alone). Never fails. */
struct inline_calls *inline_calls_new(const struct profile *p, const struct profile *base);
void inline_calls_free(struct inline_calls *c);

/*
 * Whether frame callee of p (one of the profiles c was made of), called
 * from frame caller (the next frame out in a stack), counts as its
 * caller: callee's real function is inlined somewhere into the function
 * whose code made the call, caller's innermost level.
 */
bool inline_calls_merges(const struct inline_calls *c, const struct profile *p, uint32_t callee,
			 uint32_t caller);

/* The pairs found, for the tests. */
size_t inline_calls_count(const struct inline_calls *c);

#endif
