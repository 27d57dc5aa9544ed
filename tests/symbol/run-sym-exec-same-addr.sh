#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A program that execs another mapped at the same address, quickly: the
# non-PIE sym-exec-first spends 0.05 CPU seconds in first_hot, then execs
# the non-PIE sym-exec-second (second_hot, 0.5 s). Both map their code at
# 0x400000, so by the time perfmini pins the first program's file through
# /proc/PID/map_files, that mapping is the second's: the file found there
# must be checked against the first's inode, and the first's frames named
# from its own file. Of the samples of comm sym-exec-first, >= 70% end in
# first_hot (its 0.05 s include the dynamic loader's start, which took
# 22% of them on a loaded machine; a first program named from the
# second's file has next to none there) and none in
# second_hot; of sym-exec-second, >= 90% in second_hot. Run five times
# (the race is the point).
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-exec-first
need_target sym-exec-second
need_perf
for i in 1 2 3 4 5; do
	record_cmd "x$i" -- "$TARGETS/sym-exec-first" 0.05 "$TARGETS/sym-exec-second" 0.5
	check_none "$tmp/x$i.folded" '(^|;)second_hot$' sym-exec-first \
		"of the first program named second_hot"
	check_user "$tmp/x$i.folded" first_hot sym-exec-first 20 70
	check_user "$tmp/x$i.folded" second_hot sym-exec-second 200
done
