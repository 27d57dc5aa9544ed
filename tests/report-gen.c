/*
 * report-gen.c - writes the synthetic recording of report-synth.c as a
 * data file, for tests/run-report.sh: report-gen OUTPUT
 */
#include "config.h"

#include <stdio.h>

#include "datafile.h"
#include "report-synth.h"

int main(int argc, char **argv)
{
	struct profile *p;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: report-gen OUTPUT\n");
		return 2;
	}
	p = synth_profile();
	ret = datafile_write(p, argv[1], NULL);
	profile_free(p);
	return ret < 0 ? 1 : 0;
}
