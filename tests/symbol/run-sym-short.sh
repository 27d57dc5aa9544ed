#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Short-lived processes: a shell runs sym-short 20 times in sequence, each
# run spending 50 ms of CPU time in short_hot; every process has exited
# long before the recording stops. The samples of all of them must name
# short_hot, called from main: at least 85% (each run's 50 ms include the
# dynamic loader's start, which a loaded machine makes longer).
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-short

need_perf
# shellcheck disable=SC2016 # for the inner shell
record_cmd short -- /bin/sh -c \
	'i=0; while [ $i -lt 20 ]; do "$1" 0.05 || exit 1; i=$((i + 1)); done' sh "$TARGETS/sym-short"
check_user "$tmp/short.folded" "main;short_hot" sym-short 400 85
