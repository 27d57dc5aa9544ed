/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * load-perfmap.c - the symbols of a process's JIT code, from the perf
 * map (/tmp/perf-PID.map) the recorder pinned for it: read through a
 * descriptor of its own, from the start, at most PERFMAP_MAX_BYTES.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "symbol/symfile-int.h"
#include "util/io.h"

int symfile_load_perfmap(struct symfile *f)
{
	FILE *map;
	int fd;

	if (f->mod->fd < 0) {
		/* The runtime never wrote one we could read, or we could not open it. */
		f->reason = out_of_descriptors(f->mod->pin_error) ? REASON_NO_DESCRIPTORS
			    : f->mod->pin_error == EPERM	  ? REASON_PERFMAP_REFUSED
								  : REASON_ANON;
		return -ENOENT;
	}
	fd = dup(f->mod->fd);
	if (fd < 0 || !(map = fdopen(fd, "r"))) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		f->reason = out_of_descriptors(err) ? REASON_NO_DESCRIPTORS : REASON_FILE_GONE;
		return -EIO;
	}
	rewind(map);
	perfmap_parse(map, &f->syms, PERFMAP_MAX_BYTES);
	fclose(map);
	if (!f->syms.n) {
		f->reason = REASON_PERFMAP_EMPTY;
		return -ENOENT;
	}
	return 0;
}
