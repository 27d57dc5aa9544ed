/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * proc.h - the process model: processes, threads and their address spaces
 * as the recording sees them, kept current from COMM, FORK and MMAP2
 * records applied in time order.
 *
 * Invariants: a thread belongs to exactly one process (looked up by tid);
 * exec gives its process a fresh address space; fork of a new process
 * clones the parent's; a process first met in a sample (attached, not
 * forked under observation) is seeded from /proc/PID/maps, and seeded
 * again when a sample lands in no known mapping. /proc tells the present,
 * the records the past the samples come from: a seed only fills the gaps
 * between mappings the records made (a program that has since exec'd
 * another would otherwise get the other's mappings), unless records were
 * lost since, when /proc is the better word.
 */
#ifndef PERFMINI_PROC_H
#define PERFMINI_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "model/maps.h"
#include "model/module.h"
#include "util/hmap.h"

#define COMM_MAX 16

struct process {
	uint32_t pid;
	char comm[COMM_MAX];
	struct maps *maps;
	uint64_t seeded_ns; /* when /proc/PID/maps was last read (now_coarse_ns), 0 never */
	bool records_lost;  /* since the last seed: the next one may replace */
	/*
	 * Its exec was seen (or its parent's, before it forked): every
	 * mapping it has came as a record, so an address in none of them is
	 * no reason to read /proc/PID/maps, unless records were lost.
	 */
	bool tracked;
	uint64_t perfmap_checked_ns; /* when its perf map was last looked for (now_coarse_ns) */
	uint64_t perfmap_retry_ns;   /* how long after that it is looked for again */
	struct module *perfmap;	     /* its JIT code's module, once it ran any */
	bool exited;		     /* its leader's exit was applied: see model_exit */
	uint64_t serial;	     /* this process, told apart from others of its pid */
};

struct thread {
	uint32_t tid, pid;
	char comm[COMM_MAX];
	/*
	 * This thread, told apart from others of its tid (and of other
	 * processes after a tid is taken by another): a number the model
	 * gives each thread and process it makes, never twice.
	 */
	uint64_t serial;
	uint64_t comm_gen; /* another number each time comm changes (from the same count) */
	bool exited;	   /* its exit was applied: see model_exit */
};

/* A thread or process that exited, until model_reap forgets it. */
struct model_dead {
	uint64_t time; /* of its exit record */
	void *obj;     /* struct thread * or struct process *, owned here */
	uint32_t id;   /* its tid or pid */
	bool proc;
};

struct maps_line;

/*
 * Where code moved to anonymous memory comes from (model_set_text_finder):
 * *off gets the file offset of mod that address lo stands for, when
 * [lo, hi) lies where mod's executable segment belongs given nb, another
 * mapping of mod. Returns 0 or -errno.
 */
typedef int (*model_text_fn)(void *arg, const struct module *mod, const struct maps_line *nb,
			     uint64_t lo, uint64_t hi, uint64_t *off);

struct model {
	struct hmap procs;   /* pid -> struct process * */
	struct hmap threads; /* tid -> struct thread * */
	struct module_set *mods;
	bool live; /* /proc may be read (false in tests and after the fact) */
	uint64_t reseeds;
	uint64_t names_read; /* process and thread names read from /proc */
	/*
	 * The process and the thread last looked up: the next sample is
	 * most often of the same ones (no hashing). NULL once they are gone.
	 */
	struct process *last_proc;
	struct thread *last_thread;
	/* The dead, oldest first: dead[dead_head, ndead) are still to be reaped. */
	struct model_dead *dead;
	size_t dead_head, ndead, dead_cap;
	model_text_fn text_of; /* NULL: moved code stays anonymous */
	void *text_arg;
	uint64_t serials; /* the numbers given so far (serial, comm_gen) */
};

void model_init(struct model *m, struct module_set *mods, bool live);
void model_release(struct model *m);

/* Whether the model has process pid (alive or lingering after its exit). */
bool model_knows(struct model *m, uint32_t pid);
/* The process pid, created (and seeded from /proc when live) if unknown. */
struct process *model_process(struct model *m, uint32_t pid);
/* The thread tid of process pid, created if unknown (comm from the process). */
struct thread *model_thread(struct model *m, uint32_t pid, uint32_t tid);

void model_comm(struct model *m, uint32_t pid, uint32_t tid, const char *comm, bool exec);
void model_fork(struct model *m, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid);
/*
 * Thread tid of process pid exited at time (the exit record's), and its
 * process with it when tid is its leader (the last to go). The dead
 * linger: a CPU's events still sample a thread on its way out, after its
 * exit record, and those samples find it as it was (its name, its
 * mappings) until model_reap forgets it. A fork that uses the tid or pid
 * again makes a new thread or process in its place at once.
 */
void model_exit(struct model *m, uint32_t pid, uint32_t tid, uint64_t time);
/*
 * Forgets the threads and processes that exited before time `before`, so
 * that a long recording keeps only the living and the just dead; gone
 * (may be NULL) hears of each thread and process forgotten (proc) whose
 * id no new one took meanwhile.
 */
void model_reap(struct model *m, uint64_t before, void (*gone)(uint32_t id, bool proc, void *arg),
		void *arg);
/* Hands fn every thread the model holds, the exited not reaped yet included, once. */
void model_each_thread(struct model *m, void (*fn)(struct thread *t, void *arg), void *arg);
/* A new executable mapping; path with ino 0 is anonymous or a pseudo-file. */
void model_mmap(struct model *m, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		const struct module_key *k, uint32_t prot);
/*
 * The mapping of pid that holds addr. When none does and the process is
 * live, re-reads /proc/PID/maps (at most once per second per process).
 */
const struct mapping *model_find(struct model *m, uint32_t pid, uint64_t addr);
/*
 * The generation of process pid's mappings (maps_generation), 0 if the
 * process is unknown: what model_find and model_perfmap answer for pid
 * can only have changed if this has (a perf map found, records lost and
 * a new one given too).
 */
uint64_t model_maps_generation(struct model *m, uint32_t pid);
/*
 * The module of pid's JIT code (module_set_perfmap): made at the first
 * address in anonymous executable memory (anon), or once its perf map is
 * found for an address in no mapping; NULL before. While the map has
 * not been found, it is looked for again 20 ms after the first look,
 * then after twice the last wait each time, up to every second. NULL
 * when not live and none was set.
 */
struct module *model_perfmap(struct model *m, uint32_t pid, bool anon);
/* Looks once more for the perf maps not found yet (at the stop). */
void model_perfmap_last_look(struct model *m);
/* Records were lost: let the next miss of every process re-read its maps. */
void model_lost(struct model *m);
/* Re-reads /proc/PID/maps into the process now; returns 0 or -errno. */
int model_seed(struct model *m, struct process *p);
/* The same from f, the text of a maps file (tests); returns 0 or -errno. */
int model_seed_file(struct model *m, struct process *p, FILE *f);

/*
 * Lets the model name code moved to anonymous memory as the file it came
 * from: an anonymous executable mapping next to a mapping of a file, where
 * fn says that file's executable segment belongs, is a mapping of that
 * file. Seen when /proc/PID/maps is read (at attach, or when a new
 * anonymous executable mapping replaces a file's).
 */
void model_set_text_finder(struct model *m, model_text_fn fn, void *arg);

/* One line of /proc/PID/maps. */
struct maps_line {
	uint64_t start, end, pgoff;
	uint32_t maj, min;
	uint64_t ino;
	uint32_t prot;	  /* PROT_* from "rwxp" */
	const char *path; /* "" for anonymous memory; valid during the callback */
};

typedef int (*maps_line_fn)(const struct maps_line *l, void *arg);
/*
 * Parses /proc/PID/maps text, calling fn for every well-formed line;
 * malformed lines are skipped. Returns the number of lines passed to fn,
 * or the first non-zero value fn returned (when negative).
 */
int proc_maps_parse(FILE *f, maps_line_fn fn, void *arg);

#endif
