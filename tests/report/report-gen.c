/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report-gen.c - writes the synthetic recording of report-synth.c as a
 * data file, for tests/report/run-report.sh: report-gen OUTPUT; with --wide, the
 * wide profile of synth_wide_profile (for the flame graph in a browser).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "report-synth.h"
#include "store/datafile.h"

int main(int argc, char **argv)
{
	struct profile *p;
	char err[512];
	int ret;

	if (argc == 3 && strcmp(argv[1], "--wide") == 0) {
		p = synth_wide_profile();
	} else if (argc == 2) {
		p = synth_profile();
	} else {
		fprintf(stderr, "usage: report-gen [--wide] OUTPUT\n");
		return 2;
	}
	ret = datafile_write(p, argv[argc - 1], NULL, err, sizeof(err));
	if (ret < 0)
		fprintf(stderr, "%s: %s\n", argv[0], err);
	profile_free(p);
	return ret < 0 ? 1 : 0;
}
