/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dwline.h - one unit's DWARF line table (.debug_line), read into a
 * compact table of our own.
 *
 * libdw keeps every row of a unit's line matrix it has read (about 48
 * bytes each, with its registers and flags) until its Dwarf ends; the
 * interpreter's main loop alone has 71,000 rows. A lookup needs only a
 * row's address, line, column and file: here a row is 12 bytes, its
 * address an offset from the start of its sequence, and the table can be
 * dropped whenever its owner likes.
 *
 * What a lookup gives follows libdw's dwarf_getsrclines and
 * dwarf_linesrc: the row that applies at an address is the last one of
 * its sequence at or below it; a file's name is its directory joined
 * before it unless it is absolute (before DWARF 5 directory 0 is the
 * compilation directory, and a name is left relative without one).
 *
 * Versions 2 to 5, 32- and 64-bit DWARF. The bytes are trusted in
 * nothing: every read is checked against the section, and a table that
 * does not parse is refused whole (-EINVAL) so that the caller can try
 * another reader. Forms this reader does not resolve (string offsets
 * through .debug_str_offsets, strings of a supplementary file) are
 * refused the same way (-ENOTSUP).
 */
#ifndef PERFMINI_DWLINE_H
#define PERFMINI_DWLINE_H

#include <stddef.h>
#include <stdint.h>

struct dwline_row {
	uint32_t off;  /* address - the sequence's lo */
	uint32_t line; /* 0 when unknown (or not representable) */
	uint16_t file; /* index into files; DWLINE_NO_FILE when none */
	uint16_t col;  /* 0 when unknown; 65535 for any column beyond */
};

#define DWLINE_NO_FILE 0xffff

struct dwline_seq {
	uint64_t lo, hi;      /* [lo, hi): from its first row to its end */
	uint64_t maxhi;	      /* the highest hi of this and every earlier one */
	uint32_t row0, nrows; /* rows[row0 .. row0 + nrows), sorted by address */
};

struct dwline_table {
	struct dwline_seq *seqs; /* sorted by lo */
	size_t nseqs;
	struct dwline_row *rows;
	size_t nrows;
	const char **files; /* joined names (see above); NULL where unnamed */
	size_t nfiles;
	char *names; /* the strings files point to */
	size_t names_size;
};

/* The bytes a line table is read from; the string sections may be absent. */
struct dwline_input {
	const uint8_t *line;
	size_t line_size;
	const uint8_t *line_str; /* .debug_line_str (DW_FORM_line_strp) */
	size_t line_str_size;
	const uint8_t *str; /* .debug_str (DW_FORM_strp) */
	size_t str_size;
};

/*
 * Reads the line table at offset of in->line into t, which the caller
 * frees with dwline_free (after an error t holds nothing). comp_dir may
 * be NULL; addr_size is the unit's address size (4 or 8), which a DWARF 5
 * table states itself. Returns 0, -EINVAL for a table that does not
 * parse, -ENOTSUP for one using forms this reader does not resolve.
 */
int dwline_read(const struct dwline_input *in, uint64_t offset, const char *comp_dir,
		unsigned int addr_size, struct dwline_table *t);

/*
 * The row for pc and its sequence's lo, or NULL when pc lies in no
 * sequence. Where sequences overlap, the one starting last wins.
 */
const struct dwline_row *dwline_find(const struct dwline_table *t, uint64_t pc, uint64_t *lo);

/* A row's file name, or NULL. */
const char *dwline_file(const struct dwline_table *t, uint32_t file);

/*
 * The rows can be dropped while the file names stay (a caller may hold
 * them), and read again: dwline_rows_size is what dropping gives back;
 * dwline_drop_rows leaves a table without sequences (dwline_find finds
 * nothing); dwline_reread_rows reads the same table again, as
 * dwline_read, keeping t's names (returns as dwline_read; after an error
 * t is as it was).
 */
size_t dwline_rows_size(const struct dwline_table *t);
void dwline_drop_rows(struct dwline_table *t);
int dwline_reread_rows(const struct dwline_input *in, uint64_t offset, const char *comp_dir,
		       unsigned int addr_size, struct dwline_table *t);

void dwline_free(struct dwline_table *t);

#endif
