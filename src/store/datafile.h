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
 *
 * Version 3 is written as the recording goes, a chunk at a time: each
 * chunk adds to the arrays what they gained since the last (RUN
 * sections: records from a given index on), gives lines to frames
 * written before they were named (FRAME_LINES), and ends with a SYNC.
 * A file cut short (the recorder killed, the disk full, or a recording
 * still going) reads as what its complete chunks hold, and says so; one
 * whose END is there is whole. Versions 1 and 2 hold each array in one
 * section; readers take all three. A reader skips section types it does
 * not know; a file whose version is newer than DATAFILE_VERSION is
 * refused.
 */
#ifndef PERFMINI_DATAFILE_H
#define PERFMINI_DATAFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "store/profile.h"
#include "util/outfile.h"

#define DATAFILE_MAGIC	 "PERFMINI"
#define DATAFILE_VERSION 3

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
	/* Version 3: */
	DF_RUN = 13,	     /* u32 type, u32 0, u64 first index, then records of type */
	DF_FRAME_LINES = 14, /* records: u32 frame, u32 line0, u32 nlines, u32 0 */
	/*
	 * The end of a chunk: u64 time (ns), u64 samples so far, u32 CRC-32
	 * of every byte before it (as END's), u32 0.
	 */
	DF_SYNC = 15,
	/* A minor addition of version 3: one per off-CPU span, in its order. */
	DF_WAKEUPS = 16,
	/*
	 * A minor addition of version 3: per module record, a u32, the uid
	 * of its file's owner (PM_OWNER_UNKNOWN when none is known).
	 */
	DF_MODULE_OWNERS = 17,
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
 * A data file written as a recording goes (version 3): opened before
 * anything is recorded, so that neither a full descriptor table nor an
 * unwritable or impossible output is found out only after a recording,
 * unnamed (outfile.h) until the first chunk that holds a sample names it
 * (an older file under the name stays whole until then). From then on
 * the file under its name reads at every moment as what the chunks
 * written so far hold: a recording killed keeps them. A device or a FIFO
 * (-o -) gets the same bytes, as fast as its reader takes them
 * (outfile_write).
 *
 * Samples, threads and off-CPU spans are added one by one and wait in
 * memory for the next chunk (datafile_flush), which also writes what
 * the profile gained since the last: strings, modules, frames and their
 * names, stacks. The caller flushes every second or so, and when
 * datafile_pending grows: memory holds a second of records, not a
 * recording.
 *
 * Its state is the writer's own (store/codec-int.h). datafile_create
 * makes one; datafile_commit, datafile_commit_names and datafile_abandon
 * end it, each taking the caller's pointer and leaving it NULL, so that
 * a file ended is never used again.
 */
struct datafile_out;

/*
 * Every call below that takes err returns 0 or -errno (NULL for
 * datafile_read) with a one-line message, naming the file, in err.
 * Nothing in store/ prints.
 */
/*
 * Creates the file at path, into *out (NULL when it cannot be).
 * flags: outfile_open's (OUTFILE_NEW: a new file whatever the name holds).
 */
int datafile_create(struct datafile_out **out, const char *path, int flags, char *err,
		    size_t errlen);
/*
 * From now on the file holds only the stacks that the records added to
 * it use, and the frames and lines of those, not every stack, frame and
 * line of the profile: a recording in slices (--switch-output) writes
 * each slice's own into each, not all so far. Strings, modules and
 * segments stay the profile's. The records added must then be all the
 * file's: none held by the profile itself. Its numbering starts with
 * room for that many frames and stacks (a slice like the one before).
 */
void datafile_own_tables(struct datafile_out *out, size_t frames, size_t stacks);
/* Adds a sample, written with the next chunk. */
void datafile_add_sample(struct datafile_out *out, const struct pm_sample *s);
/*
 * Adds a thread record (comm: a string of the profile flushed next), so
 * that a recording that sees threads come and go keeps none of those gone.
 */
void datafile_add_thread(struct datafile_out *out, const struct pm_thread *t);
/* The same for an off-CPU span. */
void datafile_add_offcpu(struct datafile_out *out, const struct pm_offcpu *s);
/*
 * The wake-up of the span added last: with wake-ups recorded, one for
 * each span (flags 0 when none was seen).
 */
void datafile_add_wakeup(struct datafile_out *out, const struct pm_wakeup *w);
/* Bytes waiting for the next chunk. */
size_t datafile_pending(const struct datafile_out *out);
/* Bytes written to the file so far. */
uint64_t datafile_written(const struct datafile_out *out);
/* Whether the file is under its name (a chunk with a sample was written). */
bool datafile_named(const struct datafile_out *out);
/* The file's path, as datafile_create was given it. */
const char *datafile_path(const struct datafile_out *out);
/*
 * Writes a chunk: what p gained since the last, the records added, a
 * SYNC; names the file at the first. After a write error (a full disk)
 * nothing more is written and every call returns it.
 */
int datafile_flush(struct datafile_out *out, const struct profile *p, char *err, size_t errlen);
/*
 * The last chunk, in which every module and meta entry of p is written
 * again (they change to the end: build-ids, reasons, counts), then END;
 * closes the file. *written, when not NULL, gets the file's size. Ends
 * *out, written or not (as datafile_abandon when not).
 */
int datafile_commit(struct datafile_out **out, const struct profile *p, size_t *written, char *err,
		    size_t errlen);
/*
 * A file whose records are all added, to be finished later, once more of
 * its frames are named: a chunk of what p gained and the records added
 * (as datafile_flush), after which nothing more is added to out.
 */
int datafile_seal(struct datafile_out *out, const struct profile *p, char *err, size_t errlen);
/*
 * Finishes a sealed file: a last chunk of only what names its frames
 * (the strings and lines of frames named since, every module and
 * segment again), none of the frames, stacks or meta entries p gained
 * after the seal, then END; closes the file. Ends *out, as
 * datafile_commit does.
 */
int datafile_commit_names(struct datafile_out **out, const struct profile *p, char *err,
			  size_t errlen);
/*
 * Ends *out unfinished: a file not named yet is gone; one named keeps
 * the chunks written, and reads as cut short. *out NULL: nothing to do.
 */
void datafile_abandon(struct datafile_out **out);

/* datafile_create and datafile_commit at once. */
int datafile_write(const struct profile *p, const char *path, size_t *written, char *err,
		   size_t errlen);
/*
 * Reads path. A file owned by another user (not root) is refused unless
 * force. A file cut short reads as its complete chunks: p->cut says so.
 */
struct profile *datafile_read(const char *path, bool force, char *err, size_t errlen);

#endif
