/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stack.h - a sample's call stack as a stack of the profile: its
 * addresses normalized against the process's mappings live at the sample's
 * time, to (module, file offset) frames, interned.
 *
 * The callchain the kernel gives is in contexts (kernel, then user), each
 * opened by a marker. The first address of a context is where it was
 * interrupted; the others are return addresses, looked up one byte back so
 * that a call at the end of a function stays in that function. In DWARF
 * mode the user part comes from unwinding the sample's registers and stack
 * copy instead.
 *
 * Invariants: frames are interned (one id per (module, flags, address)),
 * stacks too, so memory grows with distinct stacks, not with samples; a
 * stack has at least one frame; a frame in anonymous executable memory
 * belongs to its process's JIT module, with its runtime address; a return
 * address in no mapping repeated at once (a frame-pointer walk going round
 * in a loop) is one frame; a JIT frame says which line of its perf map was
 * in force for its address at the sample's time (jitmap.h).
 */
#ifndef PERFMINI_STACK_H
#define PERFMINI_STACK_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#include "capture/decode.h"
#include "model/proc.h"
#include "stack/unwind.h"
#include "store/profile.h"
#include "util/hmap.h"

/* The most frames a stack keeps: the kernel's callchain limit and a margin. */
#define STACK_MAX_FRAMES (PERF_MAX_STACK_DEPTH + 16)

/* Called for each frame that was not in the profile before. */
typedef void (*stack_new_frame_fn)(void *arg, struct module *m, uint32_t frame, uint64_t addr);

/* DWARF and hybrid modes: how the unwinding of user stacks went, and how it ended. */
struct stack_unwind_stats {
	uint64_t unwound;		    /* user stacks unwound */
	uint64_t how[UNWIND_HOW_COUNT];	    /* of them, by how their frames were found */
	uint64_t judge[UNWIND_JUDGE_COUNT]; /* of them, by how the tables and the chain compared */
	uint64_t ends[UNWIND_END_COUNT];    /* of them, by reason (after stack_settle_unwind) */
	struct hmap cut;   /* (module id + 1, 0 for none) << 8 | reason -> stacks */
	struct hmap outer; /* end << 32 | outermost frame id -> stacks, until settled */
};

struct chain;
struct frame_slot;

struct stacker {
	struct model *model;
	struct profile *prof;
	struct module *kernel;
	struct unwinder *unwinder; /* DWARF mode, else NULL */
	stack_new_frame_fn new_frame;
	void *new_frame_arg;
	struct stack_unwind_stats unw;
	struct jitmap **jitmaps; /* by module id: perf maps' lines in force (jitmap.h) */
	size_t njitmaps;
	uint64_t time;			   /* the sample's being built */
	struct chain *chains;		   /* frame-pointer mode: see stack.c */
	struct frame_slot *fslots;	   /* frames by address: see stack.c */
	uint64_t gen;			   /* the sample's process's mappings generation */
	bool cacheable;			   /* the stack being built may go in chains */
	bool used_maps;			   /* it has user frames */
	uint64_t chain_hits, chain_misses; /* for tests and benchmarks */
	uint64_t frame_hits;
	uint32_t frames[STACK_MAX_FRAMES]; /* the stack being built, leaf first */
	uint64_t uips[STACK_MAX_FRAMES];
	uint64_t key[64];	  /* an unwound sample's key in the chain cache (CHAIN_MAX) */
	enum unwind_end last_end; /* how the last unwinding went */
	enum unwind_how last_how;
	enum unwind_judge last_judge;
};

/*
 * Sets s up to build stacks into prof from model's mappings, with
 * unwinder (NULL: frame pointers only); new_frame (may be NULL) hears of
 * every new frame.
 */
void stacker_init(struct stacker *s, struct model *model, struct profile *prof,
		  struct unwinder *unwinder, stack_new_frame_fn new_frame, void *arg);
void stacker_release(struct stacker *s);

/*
 * From now on, stacks are built into to, a profile that takes over from
 * the one so far (a recording's next slice: profile_new_next): the
 * unwinds still to be judged at the stop keep their outermost frames,
 * carried into to; no frame or stack id of the profile before holds.
 */
void stacker_switch_profile(struct stacker *s, struct profile *to);
/*
 * The id in the profile now of stack of profile from (the one before
 * stacker_switch_profile): its frames carried over, with their lines
 * when from has them, else handed to new_frame to be named.
 */
uint32_t stacker_carry_stack(struct stacker *s, const struct profile *from, uint32_t stack);

/* The id of sample smp's stack (misc: the record's misc field). */
uint32_t stacker_add(struct stacker *s, const struct rec_sample *smp, uint16_t misc);

/*
 * A user stack unwound ahead of its sample's turn: when a sample is
 * drained from its ring, while its stack copy is at hand there, rather
 * than when the records before it in time have all been applied. Its
 * frames hold if the process's mappings are still the same then (its
 * mappings generation says); else the sample is unwound again, from the
 * part of the copy this unwind needed. Kept after the sample in the
 * queue; read with memcpy (its place need not be aligned).
 */
struct stack_ahead {
	uint64_t gen;  /* of the process's mappings, when unwound */
	uint32_t n;    /* addresses after the header (as unwind_sample gives them) */
	uint8_t end;   /* enum unwind_end */
	uint8_t how;   /* enum unwind_how */
	uint8_t judge; /* enum unwind_judge */
	uint8_t pad;
};

/* The most bytes stacker_unwind_ahead writes. */
#define STACK_AHEAD_MAX (sizeof(struct stack_ahead) + STACK_MAX_FRAMES * 8)

/*
 * Unwinds sample smp's user stack now (DWARF and hybrid modes) into out
 * (STACK_AHEAD_MAX bytes); returns the bytes written, 0 when there is
 * nothing to unwind. *need gets the bytes of the stack copy it read or
 * wanted: what the sample must keep to be unwound again.
 */
size_t stacker_unwind_ahead(struct stacker *s, const struct rec_sample *smp, void *out,
			    uint64_t *need);

/* stacker_add for a sample unwound ahead (ahead: its stack_ahead, or NULL). */
uint32_t stacker_add_ahead(struct stacker *s, const struct rec_sample *smp, uint16_t misc,
			   const void *ahead);

/* Whether frame id frame of profile p is where a stack starts (an entry point). */
typedef bool (*stack_is_entry_fn)(const struct profile *p, uint32_t frame, void *arg);

/*
 * DWARF and hybrid modes, once frames have names: counts the unwound
 * stacks as complete if their outermost frame is an entry point (is_entry
 * says so of a frame id), else by why they ended (UNWIND_NOT_ENTRY for
 * those the tables ended elsewhere).
 */
void stacker_settle_unwind(struct stacker *s, stack_is_entry_fn is_entry, void *arg);
/*
 * The unwinds counted so far, into into (which is initialized), for the
 * file they are in (a slice sealed: their outermost frames are its
 * profile's); the stacker's counts start again from nothing.
 */
void stacker_take_unwind(struct stacker *s, struct stack_unwind_stats *into);
/* stacker_settle_unwind for counts taken out, whose frames are profile p's. */
void unwind_stats_settle(struct stack_unwind_stats *u, const struct profile *p,
			 stack_is_entry_fn is_entry, void *arg);
/* Adds settled counts from to to (a recording's sum of its slices'). */
void unwind_stats_add(struct stack_unwind_stats *to, const struct stack_unwind_stats *from);
void unwind_stats_init(struct stack_unwind_stats *u);
void unwind_stats_release(struct stack_unwind_stats *u);
/* Releases and frees u, one malloc'd (stacker_take_unwind's target); NULL is none. */
void unwind_stats_free(struct stack_unwind_stats *u);

/* The module id of a "cut" key (PM_NONE for none) and its reason. */
uint32_t stack_cut_module(uint64_t key);
enum unwind_end stack_cut_reason(uint64_t key);

#endif
