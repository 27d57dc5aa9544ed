/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * datafile.h - the perfmini.data file: a profile written out and read back.
 *
 * Layout (all integers little-endian; see perfmini-data(5)):
 *   header:  "PERFMINI" magic, u32 version, u32 flags, u64 reserved
 *   sections, each: u32 type, u32 crc32 of the payload, u64 payload size,
 *            payload, zero padding to a multiple of 8
 *   an END section (type 0) closes the file: since version 2 it holds
 *            the CRC-32 of every byte before it (u32) and a zero u32,
 *            and nothing follows it; version 1 files have an empty END.
 * A reader skips section types it does not know, so later minor additions
 * stay readable; a file whose version is newer than DATAFILE_VERSION is
 * refused. Writing goes to a temporary file in the same directory, created
 * 0600, renamed over the output name only when complete.
 */
#ifndef PERFMINI_DATAFILE_H
#define PERFMINI_DATAFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/outfile.h"
#include "store/profile.h"

#define DATAFILE_MAGIC	 "PERFMINI"
#define DATAFILE_VERSION 2

/* The deepest stack and inline chain a reader accepts (writers stay far below). */
#define DATAFILE_MAX_DEPTH  1024
#define DATAFILE_MAX_INLINE 64

enum datafile_section {
	DF_END = 0,
	DF_STRINGS = 1,
	DF_META = 2,
	DF_MODULES = 3,
	DF_FRAMES = 4,
	DF_LINES = 5,
	DF_STACKS = 6,
	DF_STACK_FRAMES = 7,
	DF_SAMPLES = 8,
	DF_THREADS = 9,
	/*
	 * Minor additions of version 2 (older readers skip them; files
	 * without them read as before):
	 */
	DF_SEGMENTS = 10,    /* the modules' PT_LOAD segments */
	DF_START_LINES = 11, /* per line record, its function's declaration line */
	DF_OFFCPU = 12,	     /* off-CPU intervals (record --off-cpu) */
};

/* Serializes p; returns a malloc'd buffer and its size through *len. */
unsigned char *datafile_encode(const struct profile *p, size_t *len);

/*
 * Parses and validates a whole file image. Returns the profile, or NULL
 * with a one-line reason (naming the offset for damaged input) written
 * into err.
 */
struct profile *datafile_decode(const unsigned char *buf, size_t len, char *err, size_t errlen);

/*
 * An output file in the making (outfile.h): opened before anything is
 * recorded, so that neither a full descriptor table nor an unwritable or
 * impossible output is found out only after a recording; a regular file
 * is written to a fresh temporary name (mode 0600) and renamed over path
 * when complete, a device or FIFO is written directly.
 *
 * Samples go to the file as they come (datafile_add_sample), so that a
 * long recording keeps none of them in memory: into the output itself,
 * whose samples section comes first and gets its size and checksum at the
 * end, or, where the output cannot seek back (a pipe), into a spill file
 * copied out at the end. The file is the same either way.
 */
struct datafile_out {
	struct outfile file;
	int sfd;	    /* where sample bytes go: the output, or the spill file */
	bool spill;	    /* sfd is a spill file */
	unsigned char *buf; /* samples not written yet */
	size_t blen;
	uint64_t nsamples, bytes; /* samples added, and their bytes written */
	unsigned long crc;	  /* CRC-32 of those bytes */
	/*
	 * Threads (datafile_add_thread) and off-CPU spans
	 * (datafile_add_offcpu) added: records in a spill file of their own
	 * each (opened at the first), the last few in buf; they go into
	 * their section before the profile's own.
	 */
	struct df_spill {
		int fd;
		unsigned char *buf;
		size_t len;
		uint64_t bytes; /* written to fd */
		uint64_t n;	/* records added */
	} threads, offcpu;
	int err; /* the first write error, reported by datafile_commit */
};

/*
 * Every call below that takes err returns 0 or -errno (NULL for
 * datafile_read) with a one-line message, naming the file, in err.
 * Nothing in store/ prints.
 */
int datafile_create(struct datafile_out *out, const char *path, char *err, size_t errlen);
/* Adds a sample; a write error is kept for datafile_commit to report. */
void datafile_add_sample(struct datafile_out *out, const struct pm_sample *s);
/*
 * Adds a thread record (comm: a string of the profile committed), kept
 * on disk until datafile_commit writes it among the profile's threads:
 * a recording that sees threads come and go keeps none of those gone.
 */
void datafile_add_thread(struct datafile_out *out, const struct pm_thread *t);
/*
 * The same for an off-CPU span: on disk until datafile_commit writes it
 * in the off-CPU section, so that a recording with --off-cpu keeps no span
 * in memory however many threads switch.
 */
void datafile_add_offcpu(struct datafile_out *out, const struct pm_offcpu *s);
/*
 * Writes p (its samples after those added) and renames it into place;
 * releases out. *written, when not NULL, gets the file's size.
 */
int datafile_commit(struct datafile_out *out, const struct profile *p, size_t *written, char *err,
		    size_t errlen);
/* Removes the temporary file and releases out. */
void datafile_abandon(struct datafile_out *out);

/* datafile_create and datafile_commit at once. */
int datafile_write(const struct profile *p, const char *path, size_t *written, char *err,
		   size_t errlen);
/* Reads path. A file owned by another user (not root) is refused unless force. */
struct profile *datafile_read(const char *path, bool force, char *err, size_t errlen);

#endif
