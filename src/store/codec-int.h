/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * codec-int.h - the data file's layout, private to store/: the section
 * table, and the encoder of sections and chunks into bytes; and the
 * state of a file being written (struct datafile_out), which writer.c
 * keeps and the chunk encoder reads. No function
 * here does I/O. The decoder and validator are datafile_decode
 * (parse.c); the file's writer and reader, with their system calls, are
 * writer.c and reader.c.
 */
#ifndef PERFMINI_STORE_CODEC_INT_H
#define PERFMINI_STORE_CODEC_INT_H

#include <stddef.h>
#include <stdint.h>

#include <zlib.h>

#include "store/datafile.h"
#include "util/hmap.h"
#include "util/outfile.h"
#include "util/sbuf.h"

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
#define DF_WAKEUP_RECORD      32
#define DF_START_LINE_RECORD  4
#define DF_FRAME_LINES_RECORD 16 /* frame, line0, nlines, reserved */
#define DF_RUN_HEAD	      16 /* a RUN's type, reserved, first index */
#define DF_SYNC_PAYLOAD	      24 /* time, samples, checksum, reserved */

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
	/*
	 * Writing: the file's checksum through buf[0, summed); at summed 0,
	 * that of the file before buf (a writer starts it so). Each section
	 * closed adds its own checksum (df_section_end), and SYNC, END and
	 * the writer the bytes between (df_sum_through): each byte is read
	 * once.
	 */
	uLong sum;
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
/* The file's checksum through all of o's bytes, the bytes o summed before not read again. */
uLong df_sum_through(struct df_out *o);
/* Adds the section at offset at, whose payload sums to crc, to *sum. */
void df_sum_section(uLong *sum, size_t *summed, const unsigned char *buf, size_t at, uint32_t crc,
		    size_t size);

/* Closes the section begun at offset at: its size, checksum and padding; o->sum takes it in. */
void df_section_end(struct df_out *o, size_t at);

/* What a chunk holds. */
enum df_chunk {
	DF_CHUNK_MORE,	/* what p gained, the records added */
	DF_CHUNK_LAST,	/* the same, every module again (build-ids, reasons) */
	DF_CHUNK_NAMES, /* only what names the frames w holds, every module again */
};

/*
 * How much of a profile's arrays a file holds already: what the next
 * chunk adds starts there.
 */
struct df_mark {
	size_t str; /* bytes of the string table */
	size_t modules, segments, lines, frames, stack_frames, stacks;
	size_t samples, threads, offcpu, wakeups; /* those the profile itself holds */
};

/* Records added to a file as they come, encoded, until the next chunk. */
struct df_pending {
	struct sbuf recs;
	uint64_t written; /* records of the kind in the file, these excluded */
};

/* A data file being written: see datafile.h. */
struct datafile_out {
	struct outfile file;
	struct df_mark done;
	uint32_t back_gen; /* the profile's back_gen at the last chunk */
	size_t again_done; /* the profile's rows given again (again) written since */
	struct df_pending samples, threads, offcpu, wakeups;
	/*
	 * With own_tables (datafile_own_tables), the file holds only the
	 * stacks its records use, numbered by first use, and the frames and
	 * lines of those: stack_ids maps a profile stack id to 1 + the
	 * file's (0: none yet; indexed by the profile's ids, which are
	 * dense), stack_of the file's back; frame_ids and frame_of the same
	 * for frames, with each file frame's line0 in the file and the nlines
	 * written (frame_line0, frame_nlines).
	 */
	bool own_tables;
	uint32_t *stack_ids, *frame_ids;
	size_t stack_ids_cap, frame_ids_cap;
	uint32_t *stack_of, *frame_of, *frame_line0, *frame_nlines;
	size_t nstack_of, stack_of_cap, nframe_of, frame_of_cap;
	/* The last chunk's buffer, kept for the next (writer.c's CHUNK_KEEP). */
	unsigned char *chunk_buf;
	size_t chunk_cap;
	uint64_t bytes;	    /* written to the file */
	unsigned long sum;  /* CRC-32 of those bytes, END's */
	uint64_t last_time; /* the latest sample or span time added, for SYNC */
	bool named;	    /* the file is under its name */
	int err;	    /* the first write error: nothing is written after it */
};

/*
 * A chunk of a version 3 file: what p gained since w->done (everything
 * when w is new), the records added to w, and a SYNC; as kind says.
 * Advances w's marks, empties its pending records.
 */
void df_put_chunk(struct df_out *o, const struct profile *p, struct datafile_out *w,
		  enum df_chunk kind);
/* END, holding sum: the CRC-32 of every byte before it. */
void df_put_end(struct df_out *o, uLong sum);

#endif
