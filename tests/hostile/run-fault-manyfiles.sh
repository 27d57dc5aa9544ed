#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A process that maps thousands of files as code. Under a limit of 400
# open files (soft and hard), 'perfmini record -- fault-mapmany DIR 3000
# spin-pie 0.5' records a process that maps 3,000 distinct files (one
# module each) and then runs spin-pie in a child. The recorder must not
# spend its descriptors on modules no sample is in: it exits 0, loses no
# record, and at least 90% of spin-pie's samples name spin_hot called
# from main (before, every file after the limit stayed unnamed: none
# were).
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_perf
MAPMANY=$top_builddir/tests/hostile/fault-mapmany
[ -x "$MAPMANY" ] || fail "no $MAPMANY: build it first (make check)"
mkdir "$tmp/files"
rc=0
# shellcheck disable=SC3045 # dash, bash and busybox sh all have ulimit -n
(
	ulimit -n 400
	exec "$PERFMINI" record -q -o "$tmp/many.data" -- "$MAPMANY" "$tmp/files" 3000 \
		"$TARGETS/spin-pie" 0.5
) >"$tmp/rec.out" 2>"$tmp/rec.err" || rc=$?
cat "$tmp/rec.out" "$tmp/rec.err" >&3
[ "$rc" -eq 0 ] || fail "record exited $rc: $(head -c 300 "$tmp/rec.err")"
[ ! -s "$tmp/rec.err" ] || fail "record -q printed on stderr"
"$PERFMINI" report -i "$tmp/many.data" >"$tmp/many.top" 2>&3 || fail "report failed"
grep -q '^Lost: *none' "$tmp/many.top" || fail "records lost: $(grep '^Lost:' "$tmp/many.top")"
run_report "$tmp/many.data" "$tmp/many.folded"
check_user "$tmp/many.folded" "main;spin_hot" spin-pie 300 90
