/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * codec-int.h - the data file's layout, private to store/: the section
 * table, the encoder of sections into bytes, and the sink that writes
 * them a chunk at a time. No function here does I/O itself; a sink
 * hands its bytes to the writer it is given. The decoder and validator
 * are datafile_decode (parse.c); the file's writer and reader, with
 * their system calls, are writer.c and reader.c.
 */
#ifndef PERFMINI_STORE_CODEC_INT_H
#define PERFMINI_STORE_CODEC_INT_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "store/datafile.h"

/*
 * Sizes in the file, as perfmini-data(5) documents them: codec.c checks
 * the section table against them when it is compiled, so that a changed
 * field list or struct fails the build instead of the file format.
 */
#define DF_HEADER_SIZE	24 /* magic, version, flags, reserved */
#define DF_SECTION_HEAD 16 /* type, checksum, payload size */
#define DF_END_PAYLOAD	8  /* the whole file's checksum, reserved */
/* The records of each array section. */
#define DF_META_RECORD	      8
#define DF_MODULE_RECORD      16
#define DF_FRAME_RECORD	      24
#define DF_LINE_RECORD	      24
#define DF_STACK_RECORD	      8
#define DF_STACK_FRAME_RECORD 4
#define DF_SAMPLE_RECORD      40 /* also written by hand: datafile_add_sample */
#define DF_THREAD_RECORD      16
#define DF_SEGMENT_RECORD     40
#define DF_OFFCPU_RECORD      40
#define DF_START_LINE_RECORD  4
/* The largest record of any section. */
#define DF_RECORD_MAX 40

/*
 * The array sections, one descriptor each: where the records live in a
 * profile and how each field is laid out in the file. Encoding, decoding
 * and validation all walk this table, so that a section is described in
 * one place. A record in the file is its fields, little-endian, in the
 * order listed, with no gaps.
 */
enum df_field_kind {
	DF_F_END = 0, /* after the last field */
	DF_F_U32,     /* a number */
	DF_F_U64,     /* a number */
	DF_F_STR,     /* u32: an offset into the string table */
	DF_F_ZERO,    /* u32: reserved, written 0, ignored on reading */
};

struct df_field {
	enum df_field_kind kind;
	size_t mem; /* offsetof in the record's struct (none for DF_F_ZERO) */
};

struct df_section {
	uint32_t type;
	const char *name;   /* in messages: "bad frame 3 at offset 120" */
	size_t rec_mem;	    /* sizeof the record's struct */
	size_t arr, n, cap; /* offsetof(struct profile, the array, its count, its capacity) */
	struct df_field fields[9];
};

/* In the order a file has them: the strings come first, END last. */
extern const struct df_section df_sections[];
extern const size_t df_nsections;

/* Bytes of one record of sec in the file. */
size_t df_rec_size(const struct df_section *sec);
/* The descriptor of an array section; NULL for any other type. */
const struct df_section *df_section_of(uint32_t type);
/* The array of sec in p, and its count. */
void *df_rec_array(const struct profile *p, const struct df_section *sec);
size_t *df_rec_count(const struct profile *p, const struct df_section *sec);

/* A growing buffer of file bytes. */
struct df_out {
	unsigned char *buf;
	size_t len, cap;
	uLong sum; /* checksum of buf[0, summed): END's, built as we go */
	size_t summed;
};

void df_put_u32(struct df_out *o, uint32_t v);
void df_put_u64(struct df_out *o, uint64_t v);
/* The file header: magic, version, flags, reserved. */
void df_put_header(struct df_out *o);
/* A section header with size and checksum 0; returns its offset. */
size_t df_section_begin(struct df_out *o, uint32_t type);
/* Appends record i of sec's array in p. */
void df_put_record(struct df_out *o, const struct profile *p, const struct df_section *sec,
		   size_t i);

/*
 * The whole-file checksum that END carries is built from the sections'
 * own: the bytes between payloads (the header, section headers, padding)
 * are summed, and each payload's checksum is combined in, so no byte is
 * summed twice when writing or reading.
 */
uLong df_sum_gap(uLong sum, const unsigned char *buf, size_t from, size_t to);
/* Adds the section at offset at, whose payload sums to crc, to *sum. */
void df_sum_section(uLong *sum, size_t *summed, const unsigned char *buf, size_t at, uint32_t crc,
		    size_t size);

/*
 * Writes len bytes at file offset at; returns 0 or -errno. A sink writes
 * in order but for the 16 bytes of a section header, put back once the
 * section is complete.
 */
typedef int (*df_write_fn)(void *arg, const void *buf, size_t len, uint64_t at);

/*
 * Where sections go: a file written a chunk at a time (each section's
 * header, once its size and checksum are known, put back over the 16
 * bytes kept for it), or, without a writer, memory holding them all.
 * Writing a recording's end then takes a chunk of memory, not a second
 * copy of everything it holds.
 */
struct df_sink {
	df_write_fn write;  /* NULL: everything stays in buf */
	void *arg;	    /* write's */
	unsigned char *buf; /* bytes not written yet (all of them without a writer) */
	size_t len, cap;
	uint64_t pos;  /* the file offset of buf[0] */
	uLong sum;     /* END's checksum of every byte before the open section */
	uint64_t head; /* the open section's header: file offset */
	uint32_t type; /* its type */
	uLong crc;     /* its payload's checksum so far */
	int err;       /* the first write error */
};

/* A sink at file offset pos, where END's checksum so far is sum. */
void df_sink_init(struct df_sink *k, df_write_fn write, void *arg, uint64_t pos, uLong sum);
/* Appends bytes outside any payload: they are summed as they are. */
void df_sink_raw(struct df_sink *k, const void *p, size_t n);
/* Opens a section, appends payload bytes to it, closes it (padding, header). */
void df_sink_begin(struct df_sink *k, uint32_t type);
void df_sink_put(struct df_sink *k, const void *p, size_t n);
void df_sink_end(struct df_sink *k);
/* Record i of sec's array in p, as a payload. */
void df_sink_record(struct df_sink *k, const struct profile *p, const struct df_section *sec,
		    size_t i);
/* Hands what buf holds to the writer. */
void df_sink_flush(struct df_sink *k);

/*
 * Everything after the samples: the strings, the other array sections
 * and END, then a flush. extra, when not NULL, adds records to sections
 * before p's own (the threads and the offcpu_added off-CPU spans a
 * recording wrote out as it went).
 */
void df_put_rest(struct df_sink *k, const struct profile *p, uint64_t offcpu_added,
		 void (*extra)(struct df_sink *k, uint32_t type, void *arg), void *arg);

#endif
