/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-datafile.c - libFuzzer harness for the data-file reader.
 *
 * Contract checked: datafile_decode() on any bytes returns a profile or
 * NULL with a one-line reason; a profile it returns satisfies profile.h's
 * invariants well enough that every report format can print it, and
 * encoding it again gives a file that decodes again. Options of the
 * formats are chosen from a hash of the input, so that each input always
 * runs the same way.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/aggregate.h"
#include "report/report.h"
#include "store/datafile.h"
#include "util/hash.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one_line(const char *err)
{
	/* The reason is one line, and not empty. */
	if (!err[0] || strchr(err, '\n'))
		abort();
}

static void run_format(const char *name, const struct profile *p, const struct report_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		abort();
	if (report_write(report_format_find(name), p, o, out) < 0)
		abort(); /* writing to memory does not fail */
	fclose(out);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256] = "", err2[256] = "";
	struct report_opts o;
	struct profile *p, *q;
	unsigned char *again;
	size_t len;
	uint64_t h;

	p = datafile_decode(data, size, err, sizeof(err));
	if (!p) {
		one_line(err);
		return 0;
	}

	/* Round trip: what was accepted encodes to a file that is accepted. */
	again = datafile_encode(p, &len);
	q = datafile_decode(again, len, err2, sizeof(err2));
	if (!q) {
		fprintf(stderr, "re-encoded profile refused: %s\n", err2);
		abort();
	}
	if (q->nsamples != p->nsamples || q->nframes != p->nframes || q->nstacks != p->nstacks)
		abort();
	profile_free(q);
	free(again);

	h = hash_bytes(data, size);
	memset(&o, 0, sizeof(o));
	o.rows = (h & 1) ? 0 : 10;
	o.columns = 60 + (int)(h >> 8 & 63);
	o.sort = (h & 2) ? REPORT_SORT_TOTAL : REPORT_SORT_SELF;
	o.names.lines = (h & 4) != 0;
	o.names.full_paths = (h & 8) != 0;
	o.names.no_inline = (h & 16) != 0;
	o.root = (enum report_root)(h >> 5 & 3) % 3;
	if (h & 128)
		o.no_kernel = true;
	else if (h & 256)
		o.kernel_only = true;
	if (h & 512) {
		o.has_start = true;
		o.start_ns = (h >> 16) & 0xfffff;
	}
	run_format("folded", p, &o);
	run_format("top", p, &o);
	run_format("pprof", p, &o);
	run_format("svg", p, &o);
	profile_free(p);
	return 0;
}
