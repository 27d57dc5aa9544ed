/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pprof-int.h - the pprof writer's state and field numbers, private to
 * fmt-pprof.c (functions, locations, samples, the whole message) and
 * fmt-pprof-maps.c (mappings, and the addresses they give frames).
 */
#ifndef PERFMINI_REPORT_PPROF_INT_H
#define PERFMINI_REPORT_PPROF_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "report/aggregate.h"
#include "report/protobuf.h"
#include "report/report.h"
#include "util/hmap.h"
#include "util/sbuf.h"

/* profile.proto field numbers. */
enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,

	VALUE_TYPE_TYPE = 1,
	VALUE_TYPE_UNIT = 2,

	SAMPLE_LOCATION_ID = 1,
	SAMPLE_VALUE = 2,
	SAMPLE_LABEL = 3,

	LABEL_KEY = 1,
	LABEL_STR = 2,
	LABEL_NUM = 3,

	MAPPING_ID = 1,
	MAPPING_MEMORY_START = 2,
	MAPPING_MEMORY_LIMIT = 3,
	MAPPING_FILE_OFFSET = 4,
	MAPPING_FILENAME = 5,
	MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7,
	MAPPING_HAS_FILENAMES = 8,
	MAPPING_HAS_LINE_NUMBERS = 9,
	MAPPING_HAS_INLINE_FRAMES = 10,

	LOCATION_ID = 1,
	LOCATION_MAPPING_ID = 2,
	LOCATION_ADDRESS = 3,
	LOCATION_LINE = 4,

	LINE_FUNCTION_ID = 1,
	LINE_LINE = 2,

	FUNCTION_ID = 1,
	FUNCTION_NAME = 2,
	FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4,
	FUNCTION_START_LINE = 5,
};

#define PAGE_SIZE 4096

struct mapping {
	uint32_t module;
	uint32_t seg;	 /* index in the profile's segments, PM_NONE: addressed by offset */
	uint64_t lo, hi; /* the addresses of its locations, hi inclusive */
	bool absolute;	 /* kernel or perf map: addresses are not file offsets */
	bool filenames, line_numbers;
};

/* A function name's file: the one with the most samples so far. */
struct name_file {
	uint64_t best_count;
	uint32_t best_file;  /* string table index */
	uint32_t start_line; /* the first non-zero one seen */
};

struct pprof {
	const struct profile *p;
	const struct report_opts *o;
	struct strtab str;     /* interning */
	struct hmap str_ids;   /* offset in str -> string table index */
	uint32_t *str_order;   /* string table index -> offset in str */
	size_t nstr, str_cap;  /* entries in the string table */
	struct hmap func_ids;  /* name string index -> function id */
	struct sbuf functions; /* the encoded Function messages */
	size_t nfuncs;
	uint32_t *loc_of; /* frame -> location id, 0 none yet */
	uint32_t *root_loc;
	struct sbuf locations;
	size_t nlocs;
	struct hmap mapping_ids; /* module << 32 | seg + 1 (0: none) -> mapping id */
	struct mapping *mappings;
	size_t nmappings, mappings_cap;
	uint32_t *segs_of;   /* module -> index into seg_index of its first segment */
	uint32_t *seg_index; /* segment indexes grouped by module */
	uint32_t main_module;
	struct hmap file_votes; /* name << 32 | file string indexes -> samples */
	struct hmap names;	/* name string index -> index into name_files */
	struct name_file *name_files;
	size_t nname_files, name_files_cap;
	bool no_mappings;   /* the base of a --diff: locations without a mapping */
	struct functab *ft; /* a --diff of CPU samples: the functions' marks */
	struct sbuf scratch, line, sb;
	struct sbuf name;
	struct sbuf valid; /* str_id's scratch */
	struct sbuf label; /* a label's value, made from a cgroup's path */
};

/* The string table index of s, added if new; "" is index 0. */
uint64_t pprof_str_id(struct pprof *x, const char *s);

/* The mapping of module's segment seg (PM_NONE: by offset), holding addr; added if new. */
uint64_t pprof_mapping_id(struct pprof *x, uint32_t module, uint32_t seg, uint64_t addr);
/*
 * Where frame fr goes: its address, and the segment holding it in *seg
 * (PM_NONE when the module has no segments, or none holds the offset).
 */
uint64_t pprof_frame_address(const struct pprof *x, const struct pm_frame *fr, uint32_t *seg);
/* The mappings, the main program's first (its executable ones leading). */
void pprof_encode_mappings(struct pprof *x, struct sbuf *out);
/* The module pprof names the profile after: the program most samples ran. */
uint32_t pprof_find_main_module(const struct profile *p, const struct aggregate *a);
/* Groups the segments by module: segs_of[m] .. segs_of[m + 1] in seg_index. */
void pprof_index_segments(struct pprof *x);

#endif
