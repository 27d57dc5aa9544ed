/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decode.h - perf records from bytes to typed structs.
 *
 * Pure functions: no allocation, no I/O. Every field is bounds-checked
 * against the record's own size; variable parts (callchain, filename,
 * stack copy) point into the record bytes, so a decoded record lives only
 * as long as those bytes.
 */
#ifndef PERFMINI_DECODE_H
#define PERFMINI_DECODE_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the decoder must know of the attr that produced the records. */
struct decode_layout {
	uint64_t sample_type;
	uint64_t regs_user_mask;
	bool sample_id_all;
};

/* The trailing sample_id of non-sample records (sample_id_all). */
struct sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
	uint64_t id;
};

struct rec_sample {
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t id;
	uint32_t cpu;
	uint64_t period;
	uint64_t nr;		  /* callchain entries */
	const unsigned char *ips; /* nr u64 values, possibly unaligned */
	uint32_t raw_size;	  /* PERF_SAMPLE_RAW: a tracepoint's fields */
	const unsigned char *raw;
	uint64_t regs_abi; /* 0: no registers were captured */
	uint32_t nregs;
	const unsigned char *regs;
	uint64_t stack_size;	 /* bytes copied */
	uint64_t stack_dyn_size; /* of which valid */
	const unsigned char *stack;
	uint64_t cgroup; /* PERF_SAMPLE_CGROUP: the thread's cgroup (v2) id */
};

struct rec_mmap2 {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	bool has_build_id;
	uint8_t build_id_size;
	uint8_t build_id[20];
	uint32_t prot, flags;
	const char *filename; /* NUL-terminated inside the record */
};

struct rec_comm {
	uint32_t pid, tid;
	const char *comm; /* NUL-terminated inside the record */
	bool exec;
};

/* PERF_RECORD_FORK and PERF_RECORD_EXIT. */
struct rec_task {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

/*
 * PERF_RECORD_SWITCH and PERF_RECORD_SWITCH_CPU_WIDE: the thread switched
 * in or out is the sample_id's tid (the kernel writes the record in that
 * thread's context); the CPU-wide form also names the other thread.
 */
struct rec_switch {
	bool out;	/* switch-out, else switch-in */
	bool preempted; /* a switch-out while runnable */
	bool cpu_wide;
	uint32_t next_prev_pid, next_prev_tid; /* cpu_wide only */
};

struct rec_lost {
	uint64_t id, lost;
};

/* PERF_RECORD_CGROUP: a cgroup made, its id and path (from the hierarchy's root). */
struct rec_cgroup {
	uint64_t id;
	const char *path; /* NUL-terminated inside the record */
};

struct record {
	uint32_t type; /* PERF_RECORD_* */
	uint16_t misc;
	bool has_sid;
	struct sample_id sid; /* for non-sample records with sample_id_all */
	union {
		struct rec_sample sample;
		struct rec_mmap2 mmap2;
		struct rec_comm comm;
		struct rec_task task;
		struct rec_lost lost; /* LOST, and LOST_SAMPLES with id 0 */
		struct rec_switch sw;
		struct rec_cgroup cgroup;
	};
};

/*
 * Decodes one record of len bytes (len must equal the header's size).
 * Returns 0, -EBADMSG when a field runs past the record or the header is
 * inconsistent, or -ENOTSUP for a sample_type bit this decoder does not
 * parse. Record types it does not know decode to just type, misc and
 * sample_id.
 */
int record_decode(const void *bytes, size_t len, const struct decode_layout *l, struct record *out);
/*
 * A sample's user stack copy (PERF_SAMPLE_STACK_USER) holds the size
 * asked for, of which only stack_dyn_size bytes are the thread's stack.
 * Writes into out (room for len bytes) sample record bytes (len bytes,
 * decoded into s) without the bytes past the valid ones, nor past the
 * first want of them (rounded up to 8, at least 8): the same sample with
 * a shorter copy, in fewer bytes, the fields after the copy kept. Returns
 * the length written; the record is copied whole when there is nothing
 * to leave out.
 */
size_t record_trim_stack(const void *bytes, size_t len, const struct rec_sample *s, uint64_t want,
			 void *out);

/* The record's timestamp: sample time or sample_id time; 0 when it has none. */
uint64_t record_time(const struct record *r);
/*
 * The type and time of a record of len bytes (len must equal the header's
 * size) without decoding the rest: record_time of what record_decode
 * would give (0 where it has none). Returns 0, or -EBADMSG when the header
 * or the time's field is out of bounds; a record it accepts may still be
 * refused by record_decode.
 */
int record_peek(const void *bytes, size_t len, const struct decode_layout *l, uint32_t *type,
		uint64_t *time);

/* The i-th callchain entry of a decoded sample (i < nr). */
uint64_t sample_ip_at(const struct rec_sample *s, uint64_t i);

#endif
