/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * threads-int.h - the session's part that keeps what a recording needs
 * of each thread and process the model knows (threads.c alone writes
 * it): the string ids of a thread's name and cgroup in the profile,
 * whether it was sampled, and the count of threads and processes
 * sampled. A table by tid (and pid) of its own: the model stays a model
 * of the processes, and an entry is told from an older one of the same
 * id by the model's serial numbers.
 */
#ifndef PERFMINI_SESSION_THREADS_INT_H
#define PERFMINI_SESSION_THREADS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/decode.h"
#include "model/cgroup.h"
#include "model/proc.h"
#include "session/output-int.h"
#include "store/profile.h"
#include "util/hmap.h"

#define THREADS_RECENT 64

/* What the session keeps of a thread: the model's thread of the same serial. */
struct sess_thread {
	uint64_t serial;      /* the model's thread it is of */
	uint64_t comm_gen;    /* the name comm_id is of (0: none yet) */
	uint32_t comm_id;     /* the name's string id in the profile */
	uint32_t cgroup_path; /* the cgroup's path's string id (when cgroup_known) */
	uint64_t cgroup;      /* the cgroup id it was last seen in */
	bool cgroup_known;
	bool sampled; /* sampled, or waited (--off-cpu) */
};

/* An entry looked up lately, by tid. */
struct sess_recent {
	uint32_t tid;
	struct sess_thread *e; /* NULL: none */
};

struct sess_threads {
	struct hmap by_tid;	  /* tid -> struct sess_thread * */
	struct hmap procs;	  /* pid -> serial of the process counted as sampled */
	struct hmap sampled_tids; /* tid -> pid, of the living threads sampled */
	/*
	 * The entries last looked up, by tid modulo THREADS_RECENT: a
	 * machine's CPUs take turns between a few threads, and a sample
	 * finds its thread's entry with no hashing.
	 */
	struct sess_recent recent[THREADS_RECENT];
	size_t nprocs;	 /* processes sampled (or waited), as the model knew them */
	size_t nthreads; /* threads sampled (or waited, --off-cpu), living or not */
	struct cgroups cgroups;
};

void threads_init(struct sess_threads *th);
void threads_release(struct sess_threads *th);

/* The string id of t's name in p, kept until the name changes. */
uint32_t threads_comm_id(struct sess_threads *th, const struct thread *t, struct profile *p);
/*
 * The string id in p of the path of t's cgroup as sample s gives it (in
 * the sample when in_sample, else read from /proc); "" unknown.
 */
uint32_t threads_cgroup_id(struct sess_threads *th, const struct thread *t,
			   const struct rec_sample *s, bool in_sample, struct profile *p);
/*
 * Thread t was sampled (or waited): counted with its process the first
 * time, and written to out (with its name in out's profile) when it
 * exits (at once when it exited already).
 */
void threads_sampled(struct sess_threads *th, struct model *m, const struct thread *t,
		     struct sess_output *out);
/* Thread tid of pid exited at time: written to out if sampled, and the model told. */
void threads_exited(struct sess_threads *th, struct model *m, uint32_t pid, uint32_t tid,
		    uint64_t time, struct sess_output *out);
/* The threads sampled and still alive, to out (at a slice's end and at the stop). */
void threads_write_alive(struct sess_threads *th, struct model *m, struct sess_output *out);
/*
 * A new slice's profile: the ids kept refer to from's strings; the names
 * are taken again when next needed, the cgroups' paths moved to to.
 */
void threads_next_slice(struct sess_threads *th, const struct profile *from, struct profile *to);
/* A cgroup made (a record), or those there already read (at the start). */
void threads_cgroup_made(struct sess_threads *th, uint64_t id, const char *path);
void threads_cgroups_walk(struct sess_threads *th);
/* The model forgot thread or process id (model_reap's gone): so does the table. */
void threads_forget(uint32_t id, bool proc, void *arg);

#endif
