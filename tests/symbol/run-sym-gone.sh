#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Programs deleted as soon as they ran, as configure checks and test
# runners make them: a shell copies sym-short to a new directory 40 times,
# runs the copy for 25 ms of CPU time (short_hot) and deletes it. The
# recorder is woken by each new mapping and opens the program's file
# while it runs, and an inode number the file system gives again to the
# next copy is another program (its generation differs): at least 80% of
# the copies' samples must name short_hot, called from main (each run's
# 25 ms include the dynamic loader's start). Before, 0 to 10% were named.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-short

need_perf
mkdir "$tmp/runs"
# shellcheck disable=SC2016 # for the inner shell
record_cmd gone -- /bin/sh -c '
	i=0
	while [ $i -lt 40 ]; do
		mkdir "$2/$i" && cp "$1" "$2/$i/conftest" || exit 1
		"$2/$i/conftest" 0.025 || exit 1
		rm -rf "$2/$i"
		i=$((i + 1))
	done' sh "$TARGETS/sym-short" "$tmp/runs"
check_user "$tmp/gone.folded" "main;short_hot" conftest 400 80
