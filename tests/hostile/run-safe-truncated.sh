#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A file cut short under the recorder: victim-main spends its time in
# libvictim.so, first in victim_a, then (after SIGUSR1) in victim_b, the
# library's second unit; the library's debug information is in a separate
# file, libvictim.so.debug, which the recorder reads (through mmap, as
# libelf does) when it names the first frames. The test truncates that
# file in place in between: naming victim_b's frames then reads pages past
# the file's new end, which raises SIGBUS. The recorder must survive (exit
# 0, a file that reads back), keep victim_a's names, and say that the
# module's file changed while it read it. The report says so too while
# the library is gone; with it back, it names victim_b late. (The leak checker is off for
# this one run: what libdw had built of the file when it was cut off is
# abandoned, not freed.)
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

for f in victim-main libvictim.so libvictim.so.debug; do
	[ -f "$TARGETS/$f" ] || fail "no $TARGETS/$f: build it first (make check)"
done
need_perf
mkdir "$tmp/v"
cp "$TARGETS/victim-main" "$TARGETS/libvictim.so" "$TARGETS/libvictim.so.debug" "$tmp/v/"

ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	"$PERFMINI" record -o "$tmp/t.data" -- "$tmp/v/victim-main" >"$tmp/rec.out" 2>"$tmp/rec.err" &
rec=$!
track "$rec"
wait_line "$tmp/rec.out" ': ready, pid [0-9]+' 30 || fail "victim-main did not start: $(cat "$tmp/rec.err")"
tpid=$(sed -n 's/.*: ready, pid \([0-9][0-9]*\).*/\1/p' "$tmp/rec.out" | head -n 1)
# The naming thread reads the debug file at once when a CPU is free, and
# on a busy machine (a parallel make check) within its ration of 0.5% of
# a CPU: wait till it has.
n=1200
until grep -q 'libvictim\.so\.debug' "/proc/$rec/maps" 2>/dev/null; do
	[ "$n" -gt 0 ] || fail "the recorder did not map libvictim.so.debug within 120 s"
	n=$((n - 1))
	sleep 0.1
done
# Then time for the other frames of victim_a: on a busy machine the
# ration (20 ms saved up, 5 ms a second after that) may leave some of them
# unnamed when the file is cut, and those stay without a name.
sleep 2
: >"$tmp/v/libvictim.so.debug"
kill -USR1 "$tpid"
wait_exit "$rec" 60 || fail "the recorder did not end"
rc=0
wait "$rec" || rc=$?
cat "$tmp/rec.err" >&3
[ "$rc" -eq 0 ] || fail "the recorder exited $rc (a signal: $((rc - 128)))"
run_report "$tmp/t.data" "$tmp/t.folded"
# The names given before the cut stay. A loaded machine may name only
# the first of victim_a's frames in time (9% of the samples in one CI
# run); none would mean the names were lost.
check_share "$tmp/t.folded" victim_a victim-main 100 5
grep -q 'libvictim.so: .*was cut short while perfmini read it' "$tmp/rec.err" ||
	fail "the recorder does not say that libvictim.so changed"
# The report names late what it can (perfmini-report(1), Naming late):
# with the library gone, nothing, and it says why the frames lack names;
# with the library back (only its debug file was cut), victim_b's frames.
mv "$tmp/v/libvictim.so" "$tmp/libvictim.so.away"
"$PERFMINI" report -i "$tmp/t.data" >"$tmp/t.top" 2>&1
grep -q 'libvictim.so: .*its file (or debug file) was cut' "$tmp/t.top" ||
	fail "the report does not say that libvictim.so changed: $(grep -A3 '^Symbols' "$tmp/t.top")"
mv "$tmp/libvictim.so.away" "$tmp/v/libvictim.so"
run_report "$tmp/t.data" "$tmp/late.folded"
grep -q ';victim_b$\|;victim_b ' "$tmp/late.folded" ||
	fail "the report did not name victim_b late from libvictim.so"
say "named late: $(grep -c ';victim_b ' "$tmp/late.folded") stacks through victim_b"
