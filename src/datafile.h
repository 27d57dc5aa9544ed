/*
 * datafile.h - the perfmini.data file: a profile written out and read back.
 *
 * Layout (all integers little-endian; see perfmini-data(5)):
 *   header:  "PERFMINI" magic, u32 version, u32 flags, u64 reserved
 *   sections, each: u32 type, u32 crc32 of the payload, u64 payload size,
 *            payload, zero padding to a multiple of 8
 *   an END section (type 0, empty) closes the file.
 * A reader skips section types it does not know, so later minor additions
 * stay readable; a file whose version is newer than DATAFILE_VERSION is
 * refused. Writing goes to a temporary file in the same directory, created
 * 0600, renamed over the output name only when complete.
 */
#ifndef PERFMINI_DATAFILE_H
#define PERFMINI_DATAFILE_H

#include <stddef.h>

#include "profile.h"

#define DATAFILE_MAGIC	 "PERFMINI"
#define DATAFILE_VERSION 1

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
};

/* Serializes p; returns a malloc'd buffer and its size through *len. */
unsigned char *datafile_encode(const struct profile *p, size_t *len);

/*
 * Parses and validates a whole file image. Returns the profile, or NULL
 * with a one-line reason (naming the offset for damaged input) written
 * into err.
 */
struct profile *datafile_decode(const unsigned char *buf, size_t len, char *err, size_t errlen);

/* Writes p to path atomically. Returns 0 or -errno (message printed). */
int datafile_write(const struct profile *p, const char *path, size_t *written);
/* Reads path; NULL after printing a one-line error. */
struct profile *datafile_read(const char *path);

#endif
