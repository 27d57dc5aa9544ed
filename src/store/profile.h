/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile.h - a recording in memory: what record builds and report reads.
 *
 * Everything is held in flat arrays that reference each other by index, and
 * strings by offset into one string table, so the data file is these arrays
 * written out. Invariants (checked by datafile_read for untrusted input):
 * every index is in range, every string offset points at a NUL-terminated
 * string inside the table, the stacks' frame lists lie inside
 * stack_frames and the frames' lines inside lines, and together they
 * hold no more entries than those arrays (each has its own), so that
 * walking every stack and every frame's lines is linear in the file.
 */
#ifndef PERFMINI_PROFILE_H
#define PERFMINI_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/hmap.h"

#define PM_NONE UINT32_MAX

/* String table: offsets into one buffer; offset 0 is the empty string. */
struct strtab {
	char *buf;
	size_t len, cap;
	struct hmap index; /* hash -> offset, for interning; empty after a read */
};

void strtab_init(struct strtab *t);
void strtab_release(struct strtab *t);
uint32_t strtab_add(struct strtab *t, const char *s);
uint32_t strtab_addn(struct strtab *t, const char *s, size_t n);
static inline const char *strtab_get(const struct strtab *t, uint32_t off)
{
	return t->buf + off;
}

enum pm_module_flags {
	PM_MODULE_KERNEL = 1 << 0,
	PM_MODULE_VDSO = 1 << 1,
	PM_MODULE_ANON = 1 << 2,    /* executable memory with no file */
	PM_MODULE_PERFMAP = 1 << 3, /* a JIT's perf map: addresses are absolute */
};
/* Bits 8-15 of a module's flags: why its frames may lack names (enum module_reason). */
#define PM_MODULE_REASON_SHIFT	8
#define PM_MODULE_REASON(flags) (((flags) >> PM_MODULE_REASON_SHIFT) & 0xff)
/* Bits 16-23: why its named frames may lack source lines (enum module_lines). */
#define PM_MODULE_LINES_SHIFT  16
#define PM_MODULE_LINES(flags) (((flags) >> PM_MODULE_LINES_SHIFT) & 0xff)

/* A module's owner when the recording could not say (no file, an older recording). */
#define PM_OWNER_UNKNOWN UINT32_MAX

struct pm_module {
	uint32_t path;	   /* string */
	uint32_t build_id; /* string: lowercase hex, or "" */
	uint32_t flags;	   /* pm_module_flags */
	uint32_t reason;   /* string: why symbols are missing, or "" */
	/*
	 * The uid that owned its file when recorded, or PM_OWNER_UNKNOWN
	 * (DF_MODULE_OWNERS: not a field of the module record).
	 */
	uint32_t owner;
};

enum pm_frame_flags {
	PM_FRAME_KERNEL = 1 << 0,
	/*
	 * A user address in no mapping, given to the process's perf map: named
	 * "[unknown]", not "[anon]", when the map does not name it (the old
	 * image's return address in a sample taken during exec).
	 */
	PM_FRAME_NOMAP = 1 << 1,
};
/*
 * Bits 2-31 of a JIT frame's flags (of a PM_MODULE_PERFMAP module): the
 * byte offset + 1 of the line of the perf map in force for its address
 * when it was sampled (0: none was; the map as a whole names it). The
 * same address named by two lines is two frames.
 */
#define PM_FRAME_PERFMAP_LINE_SHIFT  2
#define PM_FRAME_PERFMAP_LINE(flags) ((flags) >> PM_FRAME_PERFMAP_LINE_SHIFT)
#define PM_FRAME_PERFMAP_LINE_MAX    (UINT32_MAX >> PM_FRAME_PERFMAP_LINE_SHIFT)

/*
 * A distinct code location. For user frames addr is the file offset in
 * module (or the runtime address when module is PM_NONE); for kernel
 * frames the kernel address. Callers are stored at return address - 1.
 */
struct pm_frame {
	uint32_t module;
	uint32_t flags;
	uint64_t addr;
	uint32_t line0, nlines; /* its symbolic lines, innermost first */
};

enum pm_line_flags {
	PM_LINE_INLINED = 1 << 0,
};

/* One function level of a frame: the frame itself or an inlined callee. */
struct pm_line {
	uint32_t func; /* string, "" when unresolved */
	uint32_t file; /* string, "" when unknown */
	uint32_t line; /* 0 when unknown */
	uint32_t flags;
	uint64_t symoff;     /* offset from the function's start */
	uint32_t start_line; /* the function's DW_AT_decl_line; 0 when unknown */
	uint32_t pad;
};

/*
 * A PT_LOAD segment of a module's file, as recorded (the data file's
 * segments section): what pprof needs to map file offsets back to the
 * binary's ELF addresses.
 */
struct pm_segment {
	uint32_t module;
	uint32_t flags;	 /* p_flags: PF_X 1, PF_W 2, PF_R 4 */
	uint64_t offset; /* p_offset */
	uint64_t vaddr;	 /* p_vaddr */
	uint64_t filesz; /* p_filesz */
	uint64_t memsz;	 /* p_memsz */
};

struct pm_stack {
	uint32_t off, depth; /* stack_frames[off .. off + depth), leaf first */
};

struct pm_sample {
	uint64_t time; /* ns since the recording started */
	uint64_t period;
	uint32_t pid, tid, cpu;
	uint32_t stack;
	uint32_t comm;	 /* string: the thread's name when sampled */
	uint32_t cgroup; /* string: its cgroup's path ("/system.slice/x.service"), "" unknown */
};

/* pm_offcpu.flags */
#define PM_OFFCPU_PREEMPTED 1u /* switched out while runnable, not blocked */

/*
 * A span a thread spent off the CPU: from its switch-out, with the stack
 * it was switched out at, to its next switch-in (or the recording's stop).
 */
struct pm_offcpu {
	uint64_t time;	   /* switch-out, ns since the recording started */
	uint64_t duration; /* ns off the CPU */
	uint32_t pid, tid, cpu;
	uint32_t stack;
	uint32_t comm; /* string: the thread's name when switched out */
	uint32_t flags;
};

/* pm_wakeup.flags */
#define PM_WAKEUP_SEEN 1u /* a wake-up ended the sleep: delay and waker are known */

/*
 * What ended an off-CPU span's sleep (record --off-cpu, where the kernel
 * lets wake-ups be sampled): the wake-up that made the thread runnable,
 * and its waker. When a file has them, there is one per off-CPU span, in
 * the same order: wakeups[i] is offcpu[i]'s.
 */
struct pm_wakeup {
	uint64_t delay;	   /* ns from the switch-out to the wake-up */
	uint32_t pid, tid; /* the waker's */
	uint32_t stack;	   /* the waker's stack, where it woke the thread */
	uint32_t comm;	   /* string: the waker's name */
	uint32_t flags;
	uint32_t pad;
};

struct pm_thread {
	uint32_t pid, tid;
	uint32_t comm;	 /* string: the last name seen */
	uint32_t cgroup; /* string: the cgroup it was last seen in, "" unknown */
};

struct pm_meta {
	uint32_t key, value; /* strings */
};

struct profile {
	struct strtab str;
	struct pm_meta *meta;
	size_t nmeta, meta_cap;
	struct pm_module *modules;
	size_t nmodules, modules_cap;
	struct pm_frame *frames;
	size_t nframes, frames_cap;
	struct pm_line *lines;
	size_t nlines, lines_cap;
	uint32_t *stack_frames;
	size_t nstack_frames, stack_frames_cap;
	struct pm_stack *stacks;
	size_t nstacks, stacks_cap;
	struct pm_sample *samples;
	size_t nsamples, samples_cap;
	struct pm_thread *threads;
	size_t nthreads, threads_cap;
	struct pm_offcpu *offcpu; /* in the order they ended */
	size_t noffcpu, offcpu_cap;
	struct pm_wakeup *wakeups; /* none, or one per off-CPU span */
	size_t nwakeups, wakeups_cap;
	/*
	 * While recording, samples go to the data file as they come; what is
	 * kept of them is how many each stack has (NULL in a profile read back,
	 * whose samples are in samples).
	 */
	uint64_t *stack_samples;
	size_t stack_samples_cap;
	struct pm_segment *segments; /* grouped by module, in file order */
	size_t nsegments, segments_cap;
	/*
	 * Read back from a file cut short (version 3, no END): the offset
	 * it ends at, and the time of the last sample its complete chunks
	 * hold; cut_at is 0 for a whole file.
	 */
	uint64_t cut_at, cut_time;
	/* Interning indexes, only while building. */
	struct hmap frame_index, stack_index;
	/* profile_module_has_segments': a byte per module, of the first segs_seen segments. */
	uint8_t *seg_modules;
	size_t seg_modules_cap, segs_seen;
	/* A byte per module that profile_new_next did not keep (of the first ndropped). */
	uint8_t *dropped;
	size_t ndropped;
	/*
	 * Modules whose rows changed once a file may have written them, in
	 * that order: a path given back (profile_module_back), a row given
	 * to another module (profile_module_reuse). A file's next chunk
	 * writes each of them again.
	 */
	uint32_t *again;
	size_t nagain, again_cap;
};

struct profile *profile_new(void);
/*
 * A new profile that goes on where p leaves off, for the next slice of a
 * recording: p's meta entries, and its modules (under the same ids) with
 * their segments; no frame, stack or record of p, but room for as many.
 * A module that keep (if not NULL) refuses keeps its id, kind and owner
 * alone: no path, build-id, reason or segment (a program long gone, one
 * of thousands on a busy machine; profile_module_back and its naming
 * give them back if it comes again). One that p holds so, its path not
 * given back, is held so again, whatever keep says.
 */
struct profile *profile_new_next(const struct profile *p, bool (*keep)(uint32_t module, void *arg),
				 void *arg);
void profile_free(struct profile *p);

void profile_set_meta(struct profile *p, const char *key, const char *value);
/* The value of key, or NULL. */
const char *profile_get_meta(const struct profile *p, const char *key);
/* The value of key as a number; 0 when absent or not a number. */
uint64_t profile_get_meta_u64(const struct profile *p, const char *key);

uint32_t profile_add_module(struct profile *p, const char *path, const char *build_id,
			    uint32_t flags);
/* The id of the frame (module, flags, addr), added if new. */
uint32_t profile_intern_frame(struct profile *p, uint32_t module, uint32_t flags, uint64_t addr);
/* The id of the frame (module, flags, addr), PM_NONE if p has none. */
uint32_t profile_find_frame(const struct profile *p, uint32_t module, uint32_t flags,
			    uint64_t addr);
/* The id of the stack of these frames (leaf first), added if new. */
uint32_t profile_intern_stack(struct profile *p, const uint32_t *frames, uint32_t depth);
void profile_add_sample(struct profile *p, const struct pm_sample *s);
/* Keeps an off-CPU interval (they stay in memory until the file is written). */
void profile_add_offcpu(struct profile *p, const struct pm_offcpu *o);
/*
 * Adds every sample, off-CPU span (with its wake-up) and thread of src to
 * dst, with what they refer to, under dst's ids (merge.c). dst is best a
 * profile made by profile_new, whose strings, frames and stacks are
 * interned; meta: the first file's, counts summed.
 */
void profile_merge(struct profile *dst, const struct profile *src);
/* Keeps the wake-up of the off-CPU span added last. */
void profile_add_wakeup(struct profile *p, const struct pm_wakeup *w);
/*
 * What the slice after takes its frames' names from (profile_find_frame,
 * profile_copy_lines), once slice p is finished while recording: p's
 * modules under the same ids, as profile_new_next keeps them, and the
 * named frames of those kept, with their lines. Nothing of a module keep
 * refuses (a program gone: no frame of the slice after is of it, and its
 * id may go to another), and no stack or record.
 */
struct profile *profile_carry(const struct profile *p, bool (*keep)(uint32_t module, void *arg),
			      void *arg);
/* Counts a sample of stack that is not kept (it went to the data file). */
void profile_count_sample(struct profile *p, uint32_t stack);
/*
 * How many samples each stack has, counted and kept ones together; a
 * malloc'd array of nstacks entries.
 */
uint64_t *profile_stack_weights(const struct profile *p);
/* Adds a line to frame f; lines must be added frame by frame. */
void profile_add_line(struct profile *p, uint32_t f, const struct pm_line *l);
/* Adds to frame f, which has none yet, the lines of frame g of profile from. */
void profile_copy_lines(struct profile *p, uint32_t f, const struct profile *from, uint32_t g);
void profile_add_thread(struct profile *p, uint32_t pid, uint32_t tid, const char *comm);
void profile_add_segment(struct profile *p, const struct pm_segment *s);
/* Whether profile_new_next did not keep what was known of module. */
bool profile_module_dropped(const struct profile *p, uint32_t module);
/* A frame of module in p after all: its path back (its facts come with its naming). */
void profile_module_back(struct profile *p, uint32_t module, const char *path);
/*
 * Module id's row let go as profile_new_next lets go those it does not
 * keep (its id, kind and owner alone): a module none of whose frames p
 * holds, whose id is to be another module's.
 */
void profile_module_drop(struct profile *p, uint32_t id);
/*
 * Module id's row, one profile_new_next let go (held by id alone), given
 * to another module: its path and flags (pm_module_flags), no build-id,
 * reason or owner yet. The recorder gives the id of a program long gone
 * to a new one (module_set_recycle).
 */
void profile_module_reuse(struct profile *p, uint32_t id, const char *path, uint32_t flags);
/* Whether p holds a segment of module (segments are only ever added). */
bool profile_module_has_segments(struct profile *p, uint32_t module);

#endif
